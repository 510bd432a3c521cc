"""build_model_experimentation_lineage_with_prebuild_code: executions, artifacts, classification
metrics and an uploaded Model as an execution's output, then the notebook's cleanup.

Source: GoogleCloudPlatform/vertex-ai-samples@cc0d791ef25a4f8a9bbd9b6c9ef4928b8b96c35a
notebooks/official/experiments/build_model_experimentation_lineage_with_prebuild_code.ipynb
(cells 21-52). pandas' reads and writes of gs:// paths and the scikit-learn pipeline are replaced
by the emulated storage's client and a fixed evaluation; the Vertex AI calls are the notebook's.
"""

from __future__ import annotations

import uuid
from json import dumps
from typing import Any

from tests.vertex.notebooks.conftest import BUCKET_URI, PROJECT_ID, Served, blob_text, upload_text


def test_lineage_of_preprocess_and_train_then_cleanup(aiplatform: Any, served: Served) -> None:
    vertex_ai = aiplatform
    TASK = "classification"
    MODEL_TYPE = "naivebayes"
    EXPERIMENT_NAME = f"{TASK}-{MODEL_TYPE}-{uuid.uuid1()}"
    EXPERIMENT_RUN_NAME = "run-1"
    vertex_ai.init(
        project=PROJECT_ID, experiment=EXPERIMENT_NAME, staging_bucket=BUCKET_URI
    )
    DATA_PATH = "data"
    DATASET_NAME = "news_corpora"
    DATASET_URI = f"{BUCKET_URI}/{DATA_PATH}/raw/newsCorpora.csv"
    upload_text(served, DATASET_URI, "1\tFed Holds Rates!\tu\tp\tb\ts\th\t1\n2\tNew Phone.\tu\tp\tt\ts\th\t2\n")
    PREPROCESSED_DATASET_NAME = f"preprocessed_{DATASET_NAME}"
    PREPROCESS_EXECUTION_NAME = "preprocess"
    COLUMN_NAMES = ["id", "title", "url", "publisher", "category", "story", "hostname", "timestamp"]
    DELIMITER = "\t"
    INDEX_COL = 0
    PREPROCESSED_DATASET_URI = (
        f"{BUCKET_URI}/{DATA_PATH}/preprocess/{PREPROCESSED_DATASET_NAME}.csv"
    )
    TRAIN_EXECUTION_NAME = "train"
    TARGET = "category"
    FEATURES = "title"
    TEST_SIZE = 0.2
    SEED = 8
    TRAINED_MODEL_URI = f"{BUCKET_URI}/deliverables/{uuid.uuid1()}"
    MODEL_NAME = f"{EXPERIMENT_NAME}-model"
    SERVE_IMAGE = vertex_ai.helpers.get_prebuilt_prediction_container_uri(
        framework="sklearn", framework_version="1.0", accelerator="cpu"
    )
    run = vertex_ai.start_run(EXPERIMENT_RUN_NAME)
    raw_dataset_artifact = vertex_ai.Artifact.create(
        schema_title="system.Dataset", display_name=DATASET_NAME, uri=DATASET_URI
    )
    with vertex_ai.start_execution(
        schema_title="system.ContainerExecution", display_name=PREPROCESS_EXECUTION_NAME
    ) as exc:
        exc.assign_input_artifacts([raw_dataset_artifact])
        vertex_ai.log_params(
            {
                "delimiter": DELIMITER,
                "features": dumps(COLUMN_NAMES),
                "index_col": INDEX_COL,
            }
        )
        raw = [line.split(DELIMITER) for line in blob_text(served, raw_dataset_artifact.uri).splitlines()]
        preprocessed = [[row[0], row[1].lower().replace("!", "").replace(".", ""), *row[2:]] for row in raw]
        upload_text(served, PREPROCESSED_DATASET_URI, "\n".join(",".join(r) for r in preprocessed))
        vertex_ai.log_metrics(
            {
                "n_records": len(preprocessed),
                "n_columns": len(COLUMN_NAMES) - 1,
            },
        )
        preprocessed_dataset_metadata = vertex_ai.Artifact.create(
            schema_title="system.Dataset",
            display_name=PREPROCESSED_DATASET_NAME,
            uri=PREPROCESSED_DATASET_URI,
        )
        exc.assign_output_artifacts([preprocessed_dataset_metadata])

    with vertex_ai.start_execution(
        schema_title="system.ContainerExecution", display_name=TRAIN_EXECUTION_NAME
    ) as exc:
        exc.assign_input_artifacts([preprocessed_dataset_metadata])
        vertex_ai.log_params(
            {
                "target": TARGET,
                "features": FEATURES,
                "test_size": TEST_SIZE,
                "random_state": SEED,
            }
        )
        vertex_ai.log_params(
            {
                "pipeline_steps": dumps(
                    {"vect": "CountVectorizer", "tfidf": "TfidfTransformer", "clf": "MultinomialNB"}
                )
            }
        )
        summary_metrics = {"accuracy": 0.9, "precision": 0.875, "recall": 0.8}
        classification_metrics = {"labels": ["b", "t", "e", "m"],
                                  "matrix": [[5, 1, 0, 0], [0, 4, 1, 0], [0, 0, 6, 0], [1, 0, 0, 3]]}
        vertex_ai.log_metrics(summary_metrics)
        vertex_ai.log_classification_metrics(
            labels=classification_metrics["labels"],
            matrix=classification_metrics["matrix"],
            display_name="my-confusion-matrix",
        )
        upload_text(served, f"{TRAINED_MODEL_URI}/model.joblib", "a pipeline")
        loaded = True
        if loaded:
            model = vertex_ai.Model.upload(
                serving_container_image_uri=SERVE_IMAGE,
                artifact_uri=TRAINED_MODEL_URI,
                display_name=MODEL_NAME,
            )
        exc.assign_output_artifacts([model])

    # What the notebook then looks at in the console: the run, its metrics and the lineage.
    row = vertex_ai.get_experiment_df().to_dict("records")[0]
    assert row["run_name"] == EXPERIMENT_RUN_NAME and row["metric.accuracy"] == 0.9
    assert row["param.index_col"] == 0 and row["param.target"] == TARGET
    (matrix,) = run.get_classification_metrics()
    assert matrix["display_name"] == "my-confusion-matrix" and matrix["matrix"][0] == [5, 1, 0, 0]
    (out,) = exc.get_output_artifacts()
    assert out.schema_title == "google.VertexModel" and out.metadata["resourceName"] == model.versioned_resource_name
    assert [a.uri for a in exc.get_input_artifacts()] == [PREPROCESSED_DATASET_URI]
    lineage = vertex_ai.Artifact(out.resource_name).lineage_console_uri
    assert out.name in lineage

    exp = vertex_ai.Experiment(EXPERIMENT_NAME)
    exp.delete()
    model_list = vertex_ai.Model.list(filter=f'display_name="{MODEL_NAME}"')
    assert [m.resource_name for m in model_list] == [model.resource_name]
    for model in model_list:
        model.delete()
    for dataset_name in [DATASET_NAME, PREPROCESSED_DATASET_NAME]:
        dataset_list = vertex_ai.TabularDataset.list(
            filter=f'display_name="{dataset_name}"'
        )
        for dataset in dataset_list:
            dataset.delete()
    assert vertex_ai.Model.list(filter=f'display_name="{MODEL_NAME}"') == []
