"""google-cloud-aiplatform's TensorBoard, experiment and metadata samples not chained in
test_model_builder_experiment_tracking, and its script training-pipeline sample.

Source: googleapis/python-aiplatform@91cc8ce4f015771b5d8c43c8764ea9dc9abdb216 samples/model-builder/:
create_tensorboard_sample, delete_tensorboard_instance_sample, custom_training_job_sample, and
experiment_tracking/: create_experiment_default_tensorboard_sample,
create_experiment_without_default_tensorboard_sample, update_experiment_run_state_sample,
get_experiment_data_frame_sample, delete_experiment_sample, create_artifact_with_sdk_sample,
get_artifact_sample, start_execution_sample, assign_artifact_as_execution_{input,output}_sample,
get_execution_sample, get_context_sample, upload_tensorboard_log_one_time_sample. Each sample's
body is called as it is, with its arguments made concrete. upload_tensorboard_log_one_time_sample
needs TensorFlow (the SDK's uploader reads event files with it), not installed here: skipped by name.
custom_training_job_sample's ``requirements`` is given as none (installing any needs PyPI).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.vertex.notebooks.conftest import BUCKET_URI, LOCATION, PROJECT_ID, Served, blob_text, no_adc

project, location = PROJECT_ID, LOCATION


def test_tensorboard_and_experiment_samples(aiplatform: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    no_adc(monkeypatch)
    from google.cloud.aiplatform.metadata.schema.system import artifact_schema

    # create_tensorboard_sample
    display_name = "sample-tensorboard"
    aiplatform.init(project=project, location=location)
    tensorboard = aiplatform.Tensorboard.create(display_name=display_name, project=project, location=location)
    aiplatform.init(project=project, location=location, experiment_tensorboard=tensorboard)
    assert aiplatform.Tensorboard(tensorboard.resource_name).display_name == display_name

    # create_experiment_default_tensorboard_sample: the experiment takes the global TensorBoard
    experiment_name = "sample-default-tb"
    aiplatform.init(experiment=experiment_name, experiment_description="with the default tensorboard",
                    project=project, location=location)
    backing = aiplatform.Experiment(experiment_name).get_backing_tensorboard_resource()
    assert backing.resource_name == tensorboard.resource_name
    assert aiplatform.Experiment(experiment_name)._metadata_context.description == "with the default tensorboard"

    # create_experiment_without_default_tensorboard_sample
    plain = "sample-no-tb"
    aiplatform.init(experiment=plain, experiment_description="without one", experiment_tensorboard=False,
                    project=project, location=location)
    assert aiplatform.Experiment(plain).get_backing_tensorboard_resource() is None

    # a run to update, then update_experiment_run_state_sample and get_experiment_data_frame_sample
    aiplatform.init(experiment=experiment_name, project=project, location=location)
    aiplatform.start_run("run-a")
    aiplatform.log_params({"lr": 0.1})
    experiment_run = aiplatform.ExperimentRun(run_name="run-a", experiment=experiment_name, project=project,
                                              location=location)
    experiment_run.update_state(aiplatform.gapic.Execution.State.FAILED)
    assert aiplatform.ExperimentRun("run-a", experiment=experiment_name).state == \
        aiplatform.gapic.Execution.State.FAILED
    aiplatform.init(experiment=experiment_name, project=project, location=location)
    experiments_df = aiplatform.get_experiment_df()
    (row,) = experiments_df.to_dict("records")
    assert row["run_name"] == "run-a" and row["state"] == "FAILED" and row["param.lr"] == 0.1

    # create_artifact_with_sdk_sample, get_artifact_sample
    system_artifact_schema = artifact_schema.Artifact(
        uri="gs://nb-bucket/data.csv", artifact_id="sample-artifact", display_name="data",
        schema_version=None, description="the rows", metadata={"rows": 40},
    )
    created = system_artifact_schema.create(project=project, location=location,)
    artifact = aiplatform.Artifact.get(resource_id="sample-artifact", project=project, location=location)
    assert artifact.resource_name == created.resource_name and artifact.metadata == {"rows": 40}
    assert artifact.schema_title == "system.Artifact" and artifact.description == "the rows"
    model_artifact = aiplatform.Artifact.create(schema_title="system.Model", uri="gs://nb-bucket/model",
                                                project=project, location=location)

    # start_execution_sample (with assign_artifact_as_execution_{input,output}_sample inside), get_execution_sample
    aiplatform.init(project=project, location=location)
    with aiplatform.start_execution(
        schema_title="system.ContainerExecution",
        display_name="sample-execution",
        resource_id="sample-execution",
        metadata={"epochs": 3},
        schema_version=None,
        resume=False,
    ) as execution:
        execution.assign_input_artifacts([artifact])
        execution.assign_output_artifacts([model_artifact])
    got = aiplatform.Execution.get(resource_id="sample-execution", project=project, location=location)
    assert got.state == aiplatform.gapic.Execution.State.COMPLETE and got.metadata == {"epochs": 3}
    assert [a.resource_name for a in got.get_input_artifacts()] == [artifact.resource_name]
    assert [a.resource_name for a in got.get_output_artifacts()] == [model_artifact.resource_name]

    # get_context_sample: the experiment is a context
    context = aiplatform.Context.get(resource_id=experiment_name, project=project, location=location)
    assert context.schema_title == "system.Experiment"
    assert aiplatform.Context.get(resource_id="no-such-context", project=project, location=location) is None

    # delete_experiment_sample, with its backing TensorBoard runs
    experiment = aiplatform.Experiment(experiment_name=experiment_name, project=project, location=location)
    experiment.delete(delete_backing_tensorboard_runs=True)
    assert aiplatform.Context.get(resource_id=experiment_name, project=project, location=location) is None
    experiment = aiplatform.Experiment(experiment_name=plain, project=project, location=location)
    experiment.delete(delete_backing_tensorboard_runs=False)

    # delete_tensorboard_instance_sample
    aiplatform.init(project=project, location=location)
    tensorboard = aiplatform.Tensorboard(tensorboard_name=tensorboard.resource_name)
    tensorboard.delete()
    assert aiplatform.Tensorboard.list(filter=f'display_name="{display_name}"') == []


def test_upload_tensorboard_log_one_time_sample(aiplatform: Any, tmp_path: Path) -> None:
    pytest.importorskip("tensorflow", reason="aiplatform.upload_tb_log reads event files with TensorFlow "
                                              "(tensorboard/logdir_loader.py imports it), not installed")
    tb = aiplatform.Tensorboard.create(display_name="upload", project=project, location=location)
    (tmp_path / "logs").mkdir()
    aiplatform.init(project=project, location=location)
    aiplatform.upload_tb_log(tensorboard_id=tb.name, tensorboard_experiment_name="uploaded",
                             logdir=str(tmp_path / "logs"), experiment_display_name=None, run_name_prefix=None,
                             description=None)
    assert aiplatform.TensorboardExperiment("uploaded", tensorboard_id=tb.name).name == "uploaded"


TRAINER = '''
import json, os, sys
os.makedirs(os.environ["AIP_MODEL_DIR"], exist_ok=True)
with open(os.path.join(os.environ["AIP_MODEL_DIR"], "model.json"), "w") as f:
    json.dump(sys.argv[1:], f)
'''


def test_custom_training_job_sample(aiplatform: Any, served: Served, tmp_path: Path) -> None:
    script = tmp_path / "task.py"
    script.write_text(TRAINER)
    bucket, display_name = BUCKET_URI, "custom-training-sample"
    aiplatform.init(project=project, location=location, staging_bucket=bucket)
    job = aiplatform.CustomTrainingJob(
        display_name=display_name,
        script_path=str(script),
        container_uri="us-docker.pkg.dev/vertex-ai/training/sklearn-cpu.1-0:latest",
        requirements=[],
        model_serving_container_image_uri="us-docker.pkg.dev/vertex-ai/prediction/sklearn-cpu.1-0:latest",
    )
    model = job.run(args=["--epochs", "3"], replica_count=1, model_display_name=display_name)
    assert model.display_name == display_name
    assert json.loads(blob_text(served, model.uri + "/model.json")) == ["--epochs", "3"]
