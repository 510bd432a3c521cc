"""get_started_with_custom_model_evaluation_import: evaluations imported with the gapic client, per version.

Source: GoogleCloudPlatform/vertex-ai-samples@cc0d791ef25a4f8a9bbd9b6c9ef4928b8b96c35a
notebooks/official/model_evaluation/get_started_with_custom_model_evaluation_import.ipynb
(cells 24-49). The client's ``api_endpoint`` is the emulator's (the notebook's is
``{LOCATION}-aiplatform.googleapis.com``), over REST.
"""

from __future__ import annotations

from typing import Any

from tests.vertex.notebooks.conftest import BUCKET_URI, LOCATION, PROJECT_ID, Served, gapic, upload_text

DEPLOY_IMAGE = "us-docker.pkg.dev/vertex-ai/prediction/tf2-cpu.2-12:latest"


def test_import_evaluations_to_two_versions(aiplatform: Any, served: Served) -> None:
    from google.cloud.aiplatform import gapic as gapic_types

    aiplatform.init(project=PROJECT_ID, location=LOCATION, staging_bucket=BUCKET_URI)
    MODEL_DIR = BUCKET_URI + "/model"
    upload_text(served, MODEL_DIR + "/saved_model.pb", "resnet")
    model = aiplatform.Model.upload(
        display_name="resnet",
        artifact_uri=MODEL_DIR,
        serving_container_image_uri=DEPLOY_IMAGE,
        is_default_version=True,
        version_aliases=["v1"],
    )
    metrics = {"logLoss": 1.4, "auPrc": 0.85}
    model_eval = gapic_types.ModelEvaluation(
        display_name="eval",
        metrics_schema_uri="gs://google-cloud-aiplatform/schema/modelevaluation/classification_metrics_1.0.0.yaml",
        metrics=metrics,
    )
    client = gapic(served, "ModelServiceClient")
    client.import_model_evaluation(parent=model.resource_name, model_evaluation=model_eval)
    metrics = {"logLoss": 1.2, "auPrc": 0.87}
    model_prod = gapic_types.ModelEvaluation(
        display_name="prod",
        metrics_schema_uri="gs://google-cloud-aiplatform/schema/modelevaluation/classification_metrics_1.0.0.yaml",
        metrics=metrics,
    )
    client.import_model_evaluation(parent=model.resource_name, model_evaluation=model_prod)
    model_v2 = aiplatform.Model.upload(
        display_name="resnet",
        artifact_uri=MODEL_DIR,
        serving_container_image_uri=DEPLOY_IMAGE,
        parent_model=model.resource_name,
        is_default_version=True,
        version_aliases=["v2"],
        version_description="This is the second version of the model",
    )
    metrics = {"logLoss": 1.0, "auPrc": 0.91}
    model_eval = gapic_types.ModelEvaluation(
        display_name="eval",
        metrics_schema_uri="gs://google-cloud-aiplatform/schema/modelevaluation/classification_metrics_1.0.0.yaml",
        metrics=metrics,
    )
    client.import_model_evaluation(
        parent=model_v2.resource_name, model_evaluation=model_eval
    )
    evaluations = model.list_model_evaluations()
    assert sorted(e.display_name for e in evaluations) == ["eval", "prod"]
    evaluations = model_v2.list_model_evaluations()
    assert [e.display_name for e in evaluations] == ["eval"]
    assert evaluations[0].metrics["auPrc"] == 0.91
    assert model_v2.get_model_evaluation().metrics["logLoss"] == 1.0
