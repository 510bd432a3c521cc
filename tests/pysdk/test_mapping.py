"""The mapping from a call's plain values to a spec body (provider/pysdk/custom_job.py, tuning.py, pipelines.py),
with literal values: the SDK's defaults and merges, each rule read from the SDK's own code (jobs.py)."""

from __future__ import annotations

import pytest

from provider.pysdk.arguments import Call, SdkError, merged
from provider.pysdk.custom_job import custom_job, scheduling
from provider.pysdk.pipelines import pipeline_job

POOLS = [{"machine_spec": {"machine_type": "n1-standard-4"}, "replica_count": 1,
          "container_spec": {"image_uri": "gcr.io/p/t:1"}}]


def _call(what: str, **args: object) -> Call:
    return Call(what, "train.py:1:1", args, {name: f"train.py:{i + 2}:5" for i, name in enumerate(args)})


def test_a_later_init_sets_only_what_it_gives() -> None:
    init = merged([_call("aiplatform.init", location="europe-west4", staging_bucket="gs://a"),
                   _call("aiplatform.init", staging_bucket="gs://b", location=None)])
    body = custom_job(_call("CustomJob", display_name="j", worker_pool_specs=POOLS), None, init)
    assert body.spec["region"] == "europe-west4" and body.spec["staging_bucket"] == "gs://b"
    assert any("never run" in note for note in body.notes)


def test_location_falls_back_to_the_environment_then_us_central1(monkeypatch: pytest.MonkeyPatch) -> None:
    ctor, init = _call("CustomJob", display_name="j", worker_pool_specs=POOLS, staging_bucket="gs://b"), merged([])
    monkeypatch.delenv("GOOGLE_CLOUD_REGION", raising=False)
    monkeypatch.setenv("CLOUD_ML_REGION", "asia-east1")
    assert custom_job(ctor, None, init).spec["region"] == "asia-east1"
    monkeypatch.delenv("CLOUD_ML_REGION")
    body = custom_job(ctor, None, init)
    assert body.spec["region"] == "us-central1" and any("DEFAULT_REGION" in n for n in body.notes)


def test_no_staging_bucket_is_the_sdks_runtime_error_even_with_base_output_dir() -> None:
    ctor = _call("CustomJob", display_name="j", worker_pool_specs=POOLS, base_output_dir="gs://b/out")
    with pytest.raises(SdkError, match="RuntimeError"):
        custom_job(ctor, None, merged([]))


def test_a_pipeline_without_staging_bucket_is_the_sdks_runtime_error_even_with_base_output_dir() -> None:
    """_CustomTrainingJob.__init__ raises RuntimeError with no staging bucket, for each of the three classes."""
    from provider.pysdk.script_training import script_training_job

    run = _call("run", base_output_dir="gs://b/out")
    container = _call("CustomContainerTrainingJob", display_name="c", container_uri="gcr.io/p/t:1")
    with pytest.raises(SdkError, match="has no staging bucket: the SDK raises RuntimeError"):
        pipeline_job("CustomContainerTrainingJob", container, run, merged([]))
    script = _call("CustomTrainingJob", display_name="s", script_path="task.py",
                   container_uri="us-docker.pkg.dev/vertex-ai/training/sklearn-cpu.1-0:latest")
    with pytest.raises(SdkError, match="has no staging bucket: the SDK raises RuntimeError"):
        script_training_job(script, run, merged([]))
    body = script_training_job(script, run, merged([_call("aiplatform.init", staging_bucket="gs://b")]))
    assert body.spec["base_output_dir"] == "gs://b/out" and "staging_bucket" not in body.spec
    assert body.local == {"script": "task.py", "requirements": [], "at": "train.py:3:5"}


def test_run_takes_inits_network_and_submit_does_not() -> None:
    init = _call("aiplatform.init", staging_bucket="gs://b", network="projects/1/global/networks/n",
                 service_account="sa@p.iam.gserviceaccount.com")
    ctor = _call("CustomJob", display_name="j", worker_pool_specs=POOLS)
    ran = custom_job(ctor, _call("CustomJob.run"), init, "run").spec
    submitted = custom_job(ctor, _call("CustomJob.submit"), init, "submit").spec
    assert ran["network"] == "projects/1/global/networks/n" and "network" not in submitted
    assert ran["service_account"] == submitted["service_account"] == "sa@p.iam.gserviceaccount.com"


def test_scheduling_is_sent_only_when_one_of_its_arguments_is_set() -> None:
    assert scheduling(_call("run", restart_job_on_worker_restart=False, timeout=None)) is None
    assert scheduling(_call("run", max_wait_duration=0)) == {"max_wait_duration": "0s"}
    assert scheduling(_call("run", timeout=60, scheduling_strategy="Scheduling.Strategy.FLEX_START")) == {
        "timeout": "60s", "strategy": "FLEX_START"}
    with pytest.raises(SdkError, match="whole number of seconds"):
        scheduling(_call("run", timeout="1h"))


def test_experiment_by_name_and_beside_tensorboard_are_refused() -> None:
    ctor, init = _call("CustomJob", display_name="j", worker_pool_specs=POOLS, staging_bucket="gs://b"), merged([])
    with pytest.raises(SdkError, match="looks the experiment up by name"):
        custom_job(ctor, _call("run", experiment="my-experiment"), init)
    with pytest.raises(SdkError, match="cannot be set together"):
        custom_job(ctor, _call("run", experiment="projects/p/locations/l/metadataStores/default/contexts/e",
                               tensorboard="projects/p/locations/l/tensorboards/1"), init)


def test_a_pipeline_builds_its_pools_as_chief_worker_pool_does() -> None:
    ctor = _call("CustomPythonPackageTrainingJob", display_name="p", python_package_gcs_uri="gs://b/t.tar.gz",
                 python_module_name="trainer.task", container_uri="gcr.io/x/y:1", staging_bucket="gs://b")
    run = _call("run", replica_count=3, machine_type="n1-standard-8", accelerator_type="NVIDIA_TESLA_T4",
                accelerator_count=2, reduction_server_replica_count=2, reduction_server_machine_type="n1-highcpu-16",
                reduction_server_container_uri="us-docker.pkg.dev/vertex-ai-restricted/training/reductionserver:latest",
                max_wait_duration=0)
    body = pipeline_job("CustomPythonPackageTrainingJob", ctor, run, merged([]))
    pools = body.spec["worker_pool_specs"]
    assert isinstance(pools, list) and [p["replica_count"] for p in pools] == [1, 2, 2]
    assert pools[0]["machine_spec"] == {"machine_type": "n1-standard-8", "accelerator_type": "NVIDIA_TESLA_T4",
                                        "accelerator_count": 2}
    assert pools[0]["python_package_spec"]["package_uris"] == ["gs://b/t.tar.gz"]
    assert pools[2]["container_spec"] == {"image_uri": run.args["reduction_server_container_uri"]}
    assert "scheduling" not in body.spec  # the pipeline reads max_wait_duration as a truth value


def test_a_pipelines_submit_takes_inits_network_and_not_its_service_account() -> None:
    init = _call("aiplatform.init", staging_bucket="gs://b", network="projects/1/global/networks/n",
                 service_account="sa@p.iam.gserviceaccount.com")
    ctor = _call("CustomContainerTrainingJob", display_name="c", container_uri="gcr.io/p/t:1")
    submitted = pipeline_job("CustomContainerTrainingJob", ctor, _call("submit"), init, "submit").spec
    ran = pipeline_job("CustomContainerTrainingJob", ctor, _call("run"), init, "run").spec
    assert submitted["network"] == ran["network"] == "projects/1/global/networks/n"
    assert "service_account" not in submitted and ran["service_account"] == "sa@p.iam.gserviceaccount.com"


def test_experiment_run_without_experiment_is_not_sent_as_the_sdk_drops_it() -> None:
    ctor = _call("CustomJob", display_name="j", worker_pool_specs=POOLS, staging_bucket="gs://b")
    run = _call("run", experiment_run="projects/p/locations/l/metadataStores/default/contexts/e-r")
    body = custom_job(ctor, run, merged([]))
    assert "experiment_run" not in body.spec and any("only beside experiment" in n for n in body.notes)


def test_a_bucket_named_without_gs_is_the_sdks_gs_bucket_and_noted() -> None:
    """utils._timestamped_gcs_dir puts gs:// before the output directory it makes under a bare bucket name (the
    corpus case package_job_bucket_without_scheme.py holds it against the SDK)."""
    init = merged([_call("aiplatform.init", location="us-east1", staging_bucket="aic-amazon")])
    body = custom_job(_call("CustomJob", display_name="j", worker_pool_specs=POOLS), None, init)
    assert body.spec["staging_bucket"] == "gs://aic-amazon"
    assert "staging_bucket 'aic-amazon' (train.py:3:5) is written as 'gs://aic-amazon'" in " ".join(body.notes)
    pipeline = pipeline_job("CustomContainerTrainingJob", _call("CustomContainerTrainingJob", display_name="j",
                                                                container_uri="gcr.io/p/t:1", staging_bucket="b-2"),
                            _call("run"), merged([]))
    assert pipeline.spec["staging_bucket"] == "gs://b-2"
    assert sum("is written as 'gs://b-2'" in note for note in pipeline.notes) == 1


def test_a_project_only_the_running_script_knows_is_noted_not_refused() -> None:
    """A spec names no project (the stack's is used): google.auth.default()'s project, or an argparse option's, is
    named in a note, as written, with why its value is not known."""
    from provider.pysdk.program import read

    text = ("import google.auth\nfrom google.cloud import aiplatform\nproject = google.auth.default()[1]\n"
            "aiplatform.init(project=project, location='us-east1', staging_bucket='gs://b')\n"
            "aiplatform.CustomJob(display_name='j', worker_pool_specs=[{'machine_spec': {'machine_type': "
            "'n1-standard-4'}, 'replica_count': 1, 'container_spec': {'image_uri': 'gcr.io/p/i:1'}}], "
            "project=project).run()\n")
    body = read([("train.py", text)], "train.py")
    assert body.spec["region"] == "us-east1"
    notes = " ".join(body.notes)
    assert ("aiplatform.init(project=project (known only when the script runs: project is set from a call to "
            "google.auth.default() at train.py, line 3)) at train.py:4:25 is not written") in notes, notes
    assert "aiplatform.CustomJob(project=project (known only when the script runs: " in notes


def test_a_reduction_server_without_its_machine_type_is_refused_by_name() -> None:
    """find_string id 41752040867: run(replica_count=4, reduction_server_replica_count=1) alone; the SDK sends the
    server's pool as machineSpec {} (tests/pysdk/sdk_oracle.py shows it), which Vertex AI refuses."""
    run = _call("run", replica_count=4, machine_type="n1-highmem-8", reduction_server_replica_count=1)
    ctor = _call("CustomContainerTrainingJob", display_name="j", container_uri="gcr.io/p/t:1", staging_bucket="gs://b")
    with pytest.raises(SdkError) as caught:
        pipeline_job("CustomContainerTrainingJob", ctor, run, merged([]))
    assert str(caught.value).startswith("train.py:4:5: run(reduction_server_replica_count=1) without "
                                        "reduction_server_machine_type")
