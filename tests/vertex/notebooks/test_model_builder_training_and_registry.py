"""google-cloud-aiplatform's own training, dataset and model-registry samples, with their defaults.

Source: googleapis/python-aiplatform@91cc8ce4f015771b5d8c43c8764ea9dc9abdb216 samples/model-builder/:
create_and_import_dataset_tabular_gcs_sample, create_training_pipeline_custom_job_sample,
create_training_pipeline_custom_package_job_sample,
create_training_pipeline_custom_container_job_sample, create_custom_job_with_experiment_sample,
upload_model_sample, get_model_sample, and model_registry/: create_default_model_sample,
create_aliased_model_sample, create_model_registry_sample, get_model_version_info_sample,
get_registered_model_version_sample, list_model_versions_with_model_registry_sample,
assign_aliases_model_version_sample, delete_aliases_model_version_sample,
delete_model_version_sample, delete_model_sample,
upload_new_model_version_using_custom_training_pipeline_sample. Each sample's body is called as
it is, its parameters' defaults kept (``accelerator_type="ACCELERATOR_TYPE_UNSPECIFIED"``, the
0.8/0.1/0.1 fractions; not ``replica_count=0``, see below). upload_new_default_model_version_sample
and upload_new_aliased_model_version_sample pass ``serving_container_image=`` and ``parent_name=``,
which this SDK's ``Model.upload`` does not take: not run. The trainers write AIP_MODEL_DIR.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.vertex.notebooks.conftest import (
    BUCKET_URI,
    LOCATION,
    PROJECT_ID,
    Served,
    blob_text,
    upload_text,
    write_package,
)

project, location, staging_bucket = PROJECT_ID, LOCATION, BUCKET_URI
EXECUTOR = "us-docker.pkg.dev/vertex-ai/training/sklearn-cpu.1-0:latest"
SERVING = "us-docker.pkg.dev/vertex-ai/prediction/sklearn-cpu.1-0:latest"
TRAINER = '''
import glob, json, os, sys
os.makedirs(os.environ["AIP_MODEL_DIR"], exist_ok=True)
rows = {s: sum(len(open(f).read().splitlines()) - 1 for f in glob.glob(os.environ[f"AIP_{s}_DATA_URI"]))
        for s in ("TRAINING", "VALIDATION", "TEST") if os.environ.get(f"AIP_{s}_DATA_URI")}
with open(os.path.join(os.environ["AIP_MODEL_DIR"], "model.json"), "w") as f:
    json.dump({"args": sys.argv[1:], "rows": rows}, f)
'''


def _script(tmp_path: Path) -> str:
    path = tmp_path / "task.py"
    path.write_text(TRAINER)
    return str(path)


def test_training_pipeline_samples_with_their_defaults(aiplatform: Any, served: Served, tmp_path: Path) -> None:
    # create_training_pipeline_custom_job_sample, every default kept but replica_count's 0 (the sample
    # tests' REPLICA_COUNT, 1: with 0 the SDK sends no worker pool, which Vertex AI refuses, as here)
    dataset_id, model_display_name, args, replica_count = None, "script-model", ["--lr", 0.1, 3], 1
    machine_type, accelerator_type, accelerator_count = "n1-standard-4", "ACCELERATOR_TYPE_UNSPECIFIED", 0
    training_fraction_split, validation_fraction_split, test_fraction_split = 0.8, 0.1, 0.1
    sync, tensorboard_resource_name, service_account = True, None, None
    aiplatform.init(project=project, location=location, staging_bucket=staging_bucket)
    job = aiplatform.CustomTrainingJob(display_name="script-sample", script_path=_script(tmp_path),
                                       container_uri=EXECUTOR, model_serving_container_image_uri=SERVING)
    dataset = aiplatform.ImageDataset(dataset_id) if dataset_id else None
    model = job.run(dataset=dataset, model_display_name=model_display_name, args=args, replica_count=replica_count,
                    machine_type=machine_type, accelerator_type=accelerator_type,
                    accelerator_count=accelerator_count, training_fraction_split=training_fraction_split,
                    validation_fraction_split=validation_fraction_split, test_fraction_split=test_fraction_split,
                    sync=sync, tensorboard=tensorboard_resource_name, service_account=service_account)
    model.wait()
    assert model.display_name == "script-model"
    assert blob_text(served, model.uri + "/model.json") == '{"args": ["--lr", "0.1", "3"], "rows": {}}'

    # create_training_pipeline_custom_package_job_sample, sync=False
    uri = write_package(tmp_path, TRAINER, served, f"{BUCKET_URI}/pkgs/trainer-0.1.tar.gz")
    aiplatform.init(project=project, location=location, staging_bucket=staging_bucket)
    job = aiplatform.CustomPythonPackageTrainingJob(display_name="package-sample", python_package_gcs_uri=uri,
                                                    python_module_name="trainer.task", container_uri=EXECUTOR,
                                                    model_serving_container_image_uri=SERVING)
    model = job.run(dataset=None, model_display_name=None, args=None, replica_count=1, machine_type=machine_type,
                    accelerator_type=accelerator_type, accelerator_count=accelerator_count,
                    training_fraction_split=training_fraction_split,
                    validation_fraction_split=validation_fraction_split, test_fraction_split=test_fraction_split,
                    sync=False, tensorboard=None, service_account=None)
    model.wait()
    assert model.display_name == "package-sample-model"  # the SDK's default: the job's name + "-model"

    # create_and_import_dataset_tabular_gcs_sample
    upload_text(served, f"{BUCKET_URI}/data/rows.csv", "x,y\n" + "".join(f"{i},{i % 2}\n" for i in range(50)))
    aiplatform.init(project=project, location=location)
    tabular = aiplatform.TabularDataset.create(display_name="rows", gcs_source=f"{BUCKET_URI}/data/rows.csv")
    tabular.wait()
    assert sorted(tabular.column_names) == ["x", "y"]  # the SDK returns them from a set

    # upload_new_model_version_using_custom_training_pipeline_sample, on that dataset
    aiplatform.init(project=project, location=location)
    job = aiplatform.CustomTrainingJob(display_name="version-sample", script_path=_script(tmp_path),
                                       container_uri=EXECUTOR, model_serving_container_image_uri=SERVING)
    dataset = aiplatform.TabularDataset(tabular.name) if tabular.name else None
    version = job.run(dataset=dataset, args=None, replica_count=1, machine_type=machine_type,
                      accelerator_type=accelerator_type, accelerator_count=accelerator_count,
                      parent_model=model.resource_name, model_version_aliases=["candidate"],
                      model_version_description="trained on rows", is_default_version=False)
    assert version.resource_name == model.resource_name and version.version_id == "2"
    assert version.version_aliases == ["candidate"] and version.version_description == "trained on rows"
    seen = blob_text(served, version.uri + "/model.json")
    assert '"TRAINING": 40' in seen and '"VALIDATION": 5' in seen and '"TEST": 5' in seen
    assert aiplatform.Model(model.resource_name).version_id == "1"  # still the default


def test_a_container_pipeline_fails_saying_it_needs_a_container_engine(aiplatform: Any) -> None:
    # create_training_pipeline_custom_container_job_sample
    aiplatform.init(project=project, location=location, staging_bucket=staging_bucket)
    job = aiplatform.CustomContainerTrainingJob(display_name="container-sample",
                                                container_uri="us-docker.pkg.dev/my-project/repo/trainer:latest",
                                                model_serving_container_image_uri=SERVING)
    with pytest.raises(RuntimeError, match="container") as failed:
        job.run(dataset=None, model_display_name=None, args=None, replica_count=1, machine_type="n1-standard-4",
                accelerator_type="ACCELERATOR_TYPE_UNSPECIFIED", accelerator_count=0, sync=True)
    assert "docker" in str(failed.value).lower() or "podman" in str(failed.value).lower()


def test_custom_job_from_a_local_script_in_an_experiment(aiplatform: Any, tmp_path: Path) -> None:
    # create_custom_job_with_experiment_sample
    experiment, experiment_run = "sample-jobs", "run-1"
    aiplatform.init(project=project, location=location, staging_bucket=staging_bucket, experiment=experiment)
    aiplatform.start_run(experiment_run)  # the sample names a run that exists (the SDK reads it first)
    aiplatform.end_run()
    job = aiplatform.CustomJob.from_local_script(display_name="from-script", script_path=_script(tmp_path),
                                                 container_uri=EXECUTOR)
    job.run(service_account="trainer@nb-project.iam.gserviceaccount.com", experiment=experiment,
            experiment_run=experiment_run)
    assert job.state.name == "JOB_STATE_SUCCEEDED"
    run = aiplatform.ExperimentRun(experiment_run, experiment=experiment)
    assert [j["custom_job_resource_name"] for j in run._metadata_node.metadata["_custom_jobs"]] == [job.resource_name]


def test_model_registry_samples(aiplatform: Any, served: Served) -> None:
    upload_text(served, f"{BUCKET_URI}/models/a/model.joblib", "a")
    # upload_model_sample, every field given
    aiplatform.init(project=project, location=location)
    model = aiplatform.Model.upload(
        display_name="registry-sample", artifact_uri=f"{BUCKET_URI}/models/a", serving_container_image_uri=SERVING,
        serving_container_predict_route="/predict", serving_container_health_route="/health",
        instance_schema_uri=f"{BUCKET_URI}/schemata/instance.yaml",
        parameters_schema_uri=f"{BUCKET_URI}/schemata/parameters.yaml",
        prediction_schema_uri=f"{BUCKET_URI}/schemata/prediction.yaml", description="a sample",
        serving_container_command=["python", "-m", "serve"], serving_container_args=["--port", "8080"],
        serving_container_environment_variables={"MODE": "fast"}, serving_container_ports=[8080],
        explanation_metadata=None, explanation_parameters=None, sync=True)
    model.wait()
    # get_model_sample
    aiplatform.init(project=project, location=location)
    got = aiplatform.Model(model_name=model.name)
    spec = got.gca_resource.container_spec
    assert (list(spec.command), list(spec.args), [(e.name, e.value) for e in spec.env]) == (
        ["python", "-m", "serve"], ["--port", "8080"], [("MODE", "fast")])
    assert got.gca_resource.predict_schemata.instance_schema_uri == f"{BUCKET_URI}/schemata/instance.yaml"
    assert got.description == "a sample"
    # a second version to work with
    aiplatform.Model.upload(display_name="registry-sample", artifact_uri=f"{BUCKET_URI}/models/a",
                            serving_container_image_uri=SERVING, parent_model=model.resource_name,
                            is_default_version=False, version_aliases=["beta"])
    model_id = model.name
    # create_default_model_sample, create_aliased_model_sample
    assert aiplatform.Model(model_name=model_id).version_id == "1"
    assert aiplatform.Model(model_name=model_id, version="beta").version_id == "2"
    # create_model_registry_sample, get_model_version_info_sample, list_model_versions_*, get_registered_*
    model_registry = aiplatform.models.ModelRegistry(model=model_id)
    info = model_registry.get_version_info(version="2")
    assert info.version_id == "2" and info.version_aliases == ["beta"]
    assert [v.version_id for v in model_registry.list_versions()] == ["1", "2"]
    assert model_registry.get_model(version="beta").version_id == "2"
    # assign_aliases_model_version_sample, delete_aliases_model_version_sample
    model_registry.add_version_aliases(new_aliases=["prod", "stable"], version="2")
    assert sorted(model_registry.get_version_info(version="2").version_aliases) == ["beta", "prod", "stable"]
    model_registry.remove_version_aliases(target_aliases=["prod"], version="2")
    assert sorted(model_registry.get_version_info(version="2").version_aliases) == ["beta", "stable"]
    # delete_model_version_sample, delete_model_sample
    model_registry.delete_version(version="2")
    assert [v.version_id for v in model_registry.list_versions()] == ["1"]
    aiplatform.Model(model_name=model_id).delete()
    assert aiplatform.Model.list(filter='display_name="registry-sample"') == []
