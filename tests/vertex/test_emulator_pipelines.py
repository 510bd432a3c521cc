"""Training pipelines, the model registry and tabular datasets, through the real google-cloud-aiplatform.

``CustomTrainingJob(script_path=...)`` and ``CustomPythonPackageTrainingJob`` ``.run()`` create a
training pipeline on the emulator; it runs as a backing CustomJob on the local backend, with real
processes, and returns the Model the trainer wrote to AIP_MODEL_DIR. ``Model.upload``, versions
and aliases go through the SDK's ModelServiceClient over REST; the gapic clients are used as the
notebooks use them.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from provider.emulator.server import Emulator
from provider.packaging.gcs import GcsStager, gcs_client
from provider.packaging.stage import stage
from tests.vertex.conftest import BUCKET, LOCATION, PARENT, PROBE, PROJECT, Emulators

pytestmark = pytest.mark.slow

EXECUTOR = "us-docker.pkg.dev/vertex-ai/training/sklearn-cpu.1-0:latest"
SERVING = "us-docker.pkg.dev/vertex-ai/prediction/sklearn-cpu.1-0:latest"
CUSTOM_TASK = "gs://google-cloud-aiplatform/schema/trainingjob/definition/custom_task_1.0.0.yaml"
TRAINER = '''
import argparse, glob, json, os, pathlib, time
parser = argparse.ArgumentParser()
parser.add_argument("--dump")
parser.add_argument("--sleep", type=float, default=0)
args = parser.parse_args()
env = {k: v for k, v in os.environ.items() if k.startswith(("AIP_", "CLOUD_ML"))}
counts = {}
for split in ("TRAINING", "VALIDATION", "TEST"):
    pattern = os.environ.get(f"AIP_{split}_DATA_URI")
    if pattern:
        files = glob.glob(pattern)
        counts[split] = sum(len(open(f).read().splitlines()) - 1 for f in files)
pathlib.Path(args.dump).write_text(json.dumps({"env": env, "rows": counts}))
time.sleep(args.sleep)
model_dir = pathlib.Path(os.environ["AIP_MODEL_DIR"])
model_dir.mkdir(parents=True, exist_ok=True)
(model_dir / "model.json").write_text(json.dumps({"weights": [1, 2, 3]}))
'''


@pytest.fixture
def sdk(emulator: Emulator, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import aiplatform
    from google.cloud.aiplatform import initializer, jobs, training_jobs

    monkeypatch.setattr(training_jobs, "_JOB_WAIT_TIME", 0.2)
    monkeypatch.setattr(jobs, "_JOB_WAIT_TIME", 0.2)
    monkeypatch.setenv("STORAGE_EMULATOR_HOST", emulator.endpoint)  # the SDK stages the script's package there
    aiplatform.init(project=PROJECT, location=LOCATION, api_endpoint=emulator.endpoint, api_transport="rest",
                    credentials=AnonymousCredentials(), staging_bucket=f"gs://{BUCKET}")
    yield aiplatform
    initializer.global_config.__init__()  # type: ignore[misc]


def _client(emulator: Emulator, name: str) -> Any:
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import aiplatform_v1

    return getattr(aiplatform_v1, name)(transport="rest", credentials=AnonymousCredentials(),
                                        client_options={"api_endpoint": emulator.endpoint})


def _script(tmp_path: Path) -> Path:
    path = tmp_path / "train.py"
    path.write_text(TRAINER)
    return path


def _wait(get: Any, done: tuple[str, ...], deadline: float = 180.0) -> Any:
    end = time.monotonic() + deadline
    while True:
        found = get()
        if found.state.name in done or time.monotonic() > end:
            return found
        time.sleep(0.2)


def test_custom_training_job_from_a_script_returns_the_model_it_wrote(sdk: Any, emulator: Emulator,
                                                                      tmp_path: Path) -> None:
    dump = tmp_path / "dump.json"
    job = sdk.CustomTrainingJob(display_name="script-train", script_path=str(_script(tmp_path)),
                                container_uri=EXECUTOR, model_serving_container_image_uri=SERVING,
                                labels={"team": "ml"})
    model = job.run(args=["--dump", str(dump)], replica_count=1, machine_type="n1-standard-4",
                    model_display_name="script-model")
    assert job.state.name == "PIPELINE_STATE_SUCCEEDED"
    seen = json.loads(dump.read_text())
    base = job.gca_resource.training_task_inputs["baseOutputDirectory"]["outputUriPrefix"]
    assert base.startswith(f"gs://{BUCKET}/aiplatform-custom-training-")
    # The trainer saw AIP_MODEL_DIR as the emulated storage's file for base/model/.
    local_base = emulator.storage_root / base[len("gs://"):]
    assert seen["env"]["AIP_MODEL_DIR"] == str(local_base / "model") + "/"

    backing = job.gca_resource.training_task_metadata["backingCustomJob"]
    assert backing.startswith(f"{PARENT}/customJobs/")
    assert seen["env"]["CLOUD_ML_JOB_ID"] == backing.rsplit("/", 1)[1]
    assert [j.resource_name for j in sdk.CustomJob.list()] == [backing]

    # The model: registered from what the trainer wrote, its serving container kept as given.
    assert model.display_name == "script-model"
    assert model.uri == base.rstrip("/") + "/model"
    assert model.version_id == "1" and "default" in model.version_aliases
    assert model.gca_resource.container_spec.image_uri == SERVING
    assert model.labels == {"team": "ml"}
    assert model.gca_resource.training_pipeline == job.resource_name
    blob = gcs_client(PROJECT, emulator.endpoint).bucket(BUCKET).blob(
        model.uri[len(f"gs://{BUCKET}/"):] + "/model.json")
    assert json.loads(blob.download_as_bytes()) == {"weights": [1, 2, 3]}
    assert [p.resource_name for p in sdk.CustomTrainingJob.list(filter='display_name="script-train"')] == \
        [job.resource_name]
    assert sdk.CustomTrainingJob.list(filter='state="PIPELINE_STATE_FAILED"') == []


def test_python_package_training_job_adds_a_version_to_a_parent_model(sdk: Any, emulator: Emulator,
                                                                       tmp_path: Path) -> None:
    parent = sdk.Model.upload(display_name="probe-model", artifact_uri=f"gs://{BUCKET}/seed-model",
                              serving_container_image_uri=SERVING, model_id="probe-model")
    uri = f"gs://{BUCKET}/pkgs/probe-0.1.0.tar.gz"
    stage(PROBE, uri, GcsStager(gcs_client(PROJECT, emulator.endpoint)))
    dump = tmp_path / "probe-dump"
    job = sdk.CustomPythonPackageTrainingJob(display_name="pkg-train", python_package_gcs_uri=uri,
                                             python_module_name="probe.task", container_uri=EXECUTOR,
                                             model_serving_container_image_uri=SERVING)
    # probe writes no model: the pipeline fails, saying where the model was expected.
    with pytest.raises(RuntimeError, match="failed"):
        job.run(args=["--dump", str(dump)], parent_model=parent.resource_name, is_default_version=False,
                model_version_aliases=["candidate"])
    assert job.state.name == "PIPELINE_STATE_FAILED"
    assert "no files under" in job.gca_resource.error.message and "AIP_MODEL_DIR" in job.gca_resource.error.message
    assert json.loads((dump / "workerpool0-0.json").read_text())["env"]["AIP_MODEL_DIR"]  # the trainer did run
    assert [v.version_id for v in parent.versioning_registry.list_versions()] == ["1"]


def test_model_upload_versions_aliases_list_and_delete(sdk: Any, emulator: Emulator) -> None:
    from google.api_core.exceptions import BadRequest, NotFound

    first = sdk.Model.upload(display_name="registry", artifact_uri=f"gs://{BUCKET}/m/1",
                             serving_container_image_uri=SERVING, labels={"stage": "dev"})
    assert first.version_id == "1" and first.version_aliases == ["default"]
    second = sdk.Model.upload(display_name="registry", artifact_uri=f"gs://{BUCKET}/m/2",
                              serving_container_image_uri=SERVING, parent_model=first.resource_name,
                              is_default_version=False, version_aliases=["challenger"])
    assert second.resource_name == first.resource_name and second.version_id == "2"
    assert second.uri == f"gs://{BUCKET}/m/2"
    other = sdk.Model.upload(display_name="other", artifact_uri=f"gs://{BUCKET}/o",
                             serving_container_image_uri=SERVING)

    # get by alias and by version; the default version is what the plain name gives.
    assert sdk.Model(first.resource_name).version_id == "1"
    assert sdk.Model(f"{first.resource_name}@challenger").version_id == "2"
    assert sdk.Model(first.resource_name, version="2").uri == f"gs://{BUCKET}/m/2"
    assert {m.resource_name for m in sdk.Model.list()} == {first.resource_name, other.resource_name}
    assert [m.resource_name for m in sdk.Model.list(filter='labels.stage="dev"')] == [first.resource_name]
    assert [m.display_name for m in sdk.Model.list(filter='display_name="other"')] == ["other"]

    registry = sdk.models.ModelRegistry(first.resource_name)
    assert [v.version_id for v in registry.list_versions()] == ["1", "2"]
    registry.add_version_aliases(["default", "prod"], version="2")  # the default moves to version 2
    assert sdk.Model(first.resource_name).version_id == "2"
    assert set(registry.get_version_info("2").version_aliases) == {"challenger", "default", "prod"}
    assert registry.get_version_info("1").version_aliases == []
    registry.remove_version_aliases(["challenger"], version="2")
    with pytest.raises(NotFound):
        sdk.Model(f"{first.resource_name}@challenger")
    with pytest.raises(BadRequest, match="default version"):  # FAILED_PRECONDITION is HTTP 400
        registry.delete_version("2")
    registry.delete_version("1")
    assert [v.version_id for v in registry.list_versions()] == ["2"]
    first.delete()
    assert [m.resource_name for m in sdk.Model.list()] == [other.resource_name]


def test_pipelines_over_the_gapic_rest_client(emulator: Emulator, tmp_path: Path) -> None:
    from google.api_core.exceptions import BadRequest, MethodNotImplemented
    from google.cloud import aiplatform_v1

    pipelines = _client(emulator, "PipelineServiceClient")
    uri = f"gs://{BUCKET}/pkgs/probe-0.1.0.tar.gz"
    stage(PROBE, uri, GcsStager(gcs_client(PROJECT, emulator.endpoint)))

    def pipeline(inputs: dict[str, Any], definition: str = CUSTOM_TASK, name: str = "gapic") -> Any:
        return aiplatform_v1.TrainingPipeline(display_name=name, training_task_definition=definition,
                                              training_task_inputs=inputs)

    pool = {"machine_spec": {"machine_type": "n1-standard-4"}, "replica_count": 1,
            "python_package_spec": {"executor_image_uri": EXECUTOR, "package_uris": [uri],
                                    "python_module": "probe.task", "args": ["--sleep", "60", "--dump",
                                                                            str(tmp_path / "d")]}}
    # The task inputs are checked as a custom job's spec is, the field paths under training_task_inputs.
    bad = {**pool, "machine_spec": {"machine_type": "n1-standard-4", "accelerator_type": "NVIDIA_TESLA_T4"}}
    with pytest.raises(BadRequest) as refused:
        pipelines.create_training_pipeline(parent=PARENT, training_pipeline=pipeline({"worker_pool_specs": [bad]}))
    assert "training_pipeline.training_task_inputs.worker_pool_specs[0].machine_spec.accelerator_type" in \
        str(refused.value)
    with pytest.raises(BadRequest, match="replicas"):
        pipelines.create_training_pipeline(parent=PARENT, training_pipeline=pipeline(
            {"worker_pool_specs": [pool], "replicas": 2}))
    with pytest.raises(MethodNotImplemented, match="automl_tables"):
        pipelines.create_training_pipeline(parent=PARENT, training_pipeline=pipeline(
            {}, "gs://google-cloud-aiplatform/schema/trainingjob/definition/automl_tables_1.0.0.yaml"))
    assert list(pipelines.list_training_pipelines(parent=PARENT)) == []

    created = [pipelines.create_training_pipeline(parent=PARENT, training_pipeline=pipeline(
        {"workerPoolSpecs": [pool]}, name=f"p{i}")) for i in range(3)]
    page = pipelines.list_training_pipelines(request={"parent": PARENT, "page_size": 2})
    assert [p.name for p in page] == [p.name for p in reversed(created)]  # every page, newest first
    target = created[0]
    with pytest.raises(BadRequest, match="only a pipeline that has ended"):  # FAILED_PRECONDITION is HTTP 400
        pipelines.delete_training_pipeline(name=target.name)
    for p in created:
        pipelines.cancel_training_pipeline(name=p.name)
    ended = _wait(lambda: pipelines.get_training_pipeline(name=target.name), ("PIPELINE_STATE_CANCELLED",))
    assert ended.state.name == "PIPELINE_STATE_CANCELLED"
    jobs = _client(emulator, "JobServiceClient")
    backing = jobs.get_custom_job(name=ended.training_task_metadata["backingCustomJob"])
    assert backing.state.name == "JOB_STATE_CANCELLED"
    with pytest.raises(BadRequest, match="already PIPELINE_STATE_CANCELLED"):
        pipelines.cancel_training_pipeline(name=target.name)
    pipelines.delete_training_pipeline(name=target.name).result(timeout=30)
    for p in created[1:]:
        _wait(lambda p=p: pipelines.get_training_pipeline(name=p.name), ("PIPELINE_STATE_CANCELLED",))
    assert [p.name for p in pipelines.list_training_pipelines(parent=PARENT)] == [created[2].name, created[1].name]


def test_a_tabular_dataset_is_split_for_the_trainer(sdk: Any, emulator: Emulator, tmp_path: Path) -> None:
    from google.api_core.exceptions import MethodNotImplemented

    rows = "\n".join(["x,y", *(f"{i},{i % 2}" for i in range(100))]) + "\n"
    gcs_client(PROJECT, emulator.endpoint).bucket(BUCKET).blob("data/table.csv").upload_from_string(rows)
    dataset = sdk.TabularDataset.create(display_name="table", gcs_source=[f"gs://{BUCKET}/data/table.csv"])
    assert sdk.TabularDataset(dataset.resource_name).display_name == "table"
    with pytest.raises(MethodNotImplemented, match="image"):
        sdk.ImageDataset.create(display_name="images", gcs_source=f"gs://{BUCKET}/data/table.csv",
                                import_schema_uri=sdk.schema.dataset.ioformat.image.single_label_classification)

    dump = tmp_path / "dump.json"
    job = sdk.CustomTrainingJob(display_name="with-data", script_path=str(_script(tmp_path)),
                                container_uri=EXECUTOR)
    job.run(dataset=dataset, args=["--dump", str(dump)], training_fraction_split=0.6,
            validation_fraction_split=0.2, test_fraction_split=0.2)
    seen = json.loads(dump.read_text())
    assert seen["env"]["AIP_DATA_FORMAT"] == "csv"
    assert seen["rows"] == {"TRAINING": 60, "VALIDATION": 20, "TEST": 20}
    assert seen["env"]["AIP_TRAINING_DATA_URI"].endswith("/training-*")
    assert f"/dataset-{dataset.name}-tables-" in seen["env"]["AIP_TRAINING_DATA_URI"]


def test_serving_is_refused_by_name(sdk: Any) -> None:
    from google.api_core.exceptions import MethodNotImplemented

    with pytest.raises(MethodNotImplemented, match=r"serving \(endpoints\) is not emulated"):
        sdk.Endpoint.create(display_name="serve")


def test_pipelines_models_and_operations_survive_a_restart(emulators: Emulators, tmp_path: Path) -> None:
    first = emulators.start()
    gcs_client(PROJECT, first.endpoint).create_bucket(BUCKET)
    models = _client(first, "ModelServiceClient")
    from google.cloud import aiplatform_v1

    op = models.upload_model(parent=PARENT, model=aiplatform_v1.Model(
        display_name="kept", artifact_uri=f"gs://{BUCKET}/k", container_spec={"image_uri": SERVING}))
    uploaded = op.result(timeout=30)
    pipelines = _client(first, "PipelineServiceClient")
    refused = pipelines.create_training_pipeline(parent=PARENT, training_pipeline=aiplatform_v1.TrainingPipeline(
        display_name="kept-pipeline", training_task_definition=CUSTOM_TASK, training_task_inputs={
            "worker_pool_specs": [{"machine_spec": {"machine_type": "n1-standard-4"}, "replica_count": 1,
                                   "container_spec": {"image_uri": "gcr.io/test-project/t:1"}}]}))
    ended = _wait(lambda: pipelines.get_training_pipeline(name=refused.name), ("PIPELINE_STATE_FAILED",))
    emulators.stop(first)
    second = emulators.start()
    models = _client(second, "ModelServiceClient")
    assert models.get_model(name=uploaded.model).display_name == "kept"
    again = models.get_operation(request={"name": op.operation.name})
    assert again.done and again.name == op.operation.name
    assert [m.name for m in models.list_models(parent=PARENT)] == [uploaded.model]
    kept = _client(second, "PipelineServiceClient").get_training_pipeline(name=refused.name)
    assert kept.state.name == ended.state.name and kept.error.message == ended.error.message
    assert kept.training_task_metadata["backingCustomJob"] == ended.training_task_metadata["backingCustomJob"]


def test_a_container_training_job_is_accepted_and_fails_without_a_container_engine(sdk: Any) -> None:
    from provider.backends.local.preflight import container_engine

    if container_engine()[0] is not None:
        pytest.skip("a container engine answers here: this test shows the pipeline failing without one")
    job = sdk.CustomContainerTrainingJob(display_name="container-train", container_uri="gcr.io/test-project/trainer:1",
                                         model_serving_container_image_uri=SERVING)
    with pytest.raises(RuntimeError, match="failed"):
        job.run(replica_count=1, machine_type="n1-standard-4")
    assert job.state.name == "PIPELINE_STATE_FAILED"
    assert job.gca_resource.error.code == 9  # FAILED_PRECONDITION, as the backing custom job's
    assert "no container engine is available here" in job.gca_resource.error.message
    backing = sdk.CustomJob.get(job.gca_resource.training_task_metadata["backingCustomJob"])
    assert backing.state.name == "JOB_STATE_FAILED"


def test_a_trainers_gcs_fuse_paths_reach_the_emulated_storage(sdk: Any, emulator: Emulator) -> None:
    uri = f"gs://{BUCKET}/pkgs/probe-0.1.0.tar.gz"
    stage(PROBE, uri, GcsStager(gcs_client(PROJECT, emulator.endpoint)))
    specs = [{"replica_count": 1, "machine_spec": {"machine_type": "n1-standard-4"},
              "python_package_spec": {"executor_image_uri": EXECUTOR, "package_uris": [uri],
                                      "python_module": "probe.task", "args": [f"--dump=/gcs/{BUCKET}/fuse/dump"],
                                      "env": [{"name": "TRAINJOBS_DATA_DIR", "value": f"/gcs/{BUCKET}/fuse/data"}]}}]
    job = sdk.CustomJob(display_name="fuse", worker_pool_specs=specs)
    job.run()
    assert job.state.name == "JOB_STATE_SUCCEEDED"
    # What the trainer wrote under /gcs/BUCKET/... is an object of gs://BUCKET/..., read back through the API.
    blob = gcs_client(PROJECT, emulator.endpoint).bucket(BUCKET).blob("fuse/dump/workerpool0-0.json")
    seen = json.loads(blob.download_as_bytes())
    assert seen["env"]["TRAINJOBS_DATA_DIR"] == str(emulator.storage_root / BUCKET / "fuse" / "data")
    assert seen["argv"] == [f"--dump={emulator.storage_root / BUCKET / 'fuse' / 'dump'}"]
