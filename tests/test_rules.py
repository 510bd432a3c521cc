"""Model-level rules that the corpus does not cover one by one."""

from __future__ import annotations

import copy
import datetime as dt
from typing import Any

from provider.core.problem import Severity
from provider.validation.rules import Context, Target
from provider.validation.validator import validate_data

BASE: dict[str, Any] = {
    "apiVersion": "trainjobs/v1",
    "kind": "TrainingJob",
    "metadata": {"name": "rule_job"},
    "spec": {
        "region": "us-central1",
        "workerPools": {"chief": {"machineType": "n1-standard-8"}},
        "application": {"container": {"image": "gcr.io/p/i:1"}},
    },
}


def check(spec: dict[str, Any], ctx: Context | None = None, **meta: Any) -> list:
    doc = copy.deepcopy(BASE)
    doc["spec"].update(spec)
    doc["metadata"].update(meta)
    return validate_data(doc, "doc", ctx).problems


def rules(problems: list) -> dict[str, Severity]:
    return {p.rule: p.severity for p in problems}


def pools(**pools: Any) -> dict[str, Any]:
    return {"workerPools": pools}


def test_valid_base() -> None:
    assert check({}) == []


def test_bucket_region_is_a_warning() -> None:
    ctx = Context(bucket_regions=(("eu-data", "europe-west4"),))
    found = check({"baseOutputDirectory": "gs://eu-data/out"}, ctx)
    assert rules(found) == {"bucket.region": Severity.WARNING}
    assert "bucket eu-data is in europe-west4, the job runs in us-central1" in found[0].message


def test_p100_end_of_support_depends_on_the_date() -> None:
    spec = pools(chief={"machineType": "n1-standard-8", "accelerator": {"type": "NVIDIA_TESLA_P100", "count": 1}})
    before = check(spec, Context(today=dt.date(2026, 1, 1)))
    after = check(spec, Context(today=dt.date(2026, 11, 22)))
    assert "gpu.end_of_support" not in rules(before)
    assert rules(after)["gpu.end_of_support"] is Severity.WARNING


def test_offering_gaps_are_errors_only_for_vertex_stacks() -> None:
    spec = pools(chief={"machineType": "n1-standard-8", "accelerator": {"type": "NVIDIA_TESLA_K80", "count": 1}})
    assert rules(check(spec, Context(target=Target.ANY)))["gpu.offered"] is Severity.WARNING
    assert rules(check(spec, Context(target=Target.LOCAL)))["gpu.offered"] is Severity.WARNING
    assert rules(check(spec, Context(target=Target.VERTEX)))["gpu.offered"] is Severity.ERROR


def test_zone_matrix_rule_in_australia() -> None:
    """The Vertex locations doc's example: P4, T4 and P100 share no zone in australia-southeast1."""
    spec = {"region": "australia-southeast1", **pools(
        chief={"machineType": "n1-standard-8", "accelerator": {"type": "NVIDIA_TESLA_P4", "count": 1}},
        workers={"machineType": "n1-standard-8", "replicas": 1, "accelerator": {"type": "NVIDIA_TESLA_T4", "count": 1}},
        parameterServers={"machineType": "n1-standard-8", "replicas": 1,
                          "accelerator": {"type": "NVIDIA_TESLA_P100", "count": 1}})}
    found = [p for p in check(spec) if p.rule == "gpu.zone"]
    assert found and "no zone of australia-southeast1 offers all of" in found[0].message


def test_two_gpu_types_that_share_a_zone_are_fine() -> None:
    spec = pools(chief={"machineType": "n1-standard-8", "accelerator": {"type": "NVIDIA_TESLA_T4", "count": 1}},
                 workers={"machineType": "n1-standard-8", "replicas": 2,
                          "accelerator": {"type": "NVIDIA_TESLA_V100", "count": 1}})
    assert "gpu.zone" not in rules(check(spec))


def test_runtime_without_container_is_an_error_for_vertex() -> None:
    spec = {"application": {"pythonPackage": {"uris": ["gs://b/p.tar.gz"], "module": "m", "runtimeVersion": "2.2",
                                              "pythonVersion": "3.7"}}}
    assert "runtime.container" not in rules(check(spec))  # tf-cpu.2-2 exists
    spec["application"]["pythonPackage"]["runtimeVersion"] = "1.14"
    spec["application"]["pythonPackage"]["pythonVersion"] = "3.5"
    found = rules(check(spec, Context(target=Target.VERTEX)))
    assert found["runtime.container"] is Severity.ERROR


def test_max_wait_on_vertex_needs_flex_start() -> None:
    spec = {"scheduling": {"maxWaitTime": "3600s"}}
    assert rules(check(spec, Context(target=Target.VERTEX))) == {"scheduling.max_wait_vertex": Severity.WARNING}
    spec = {"scheduling": {"maxWaitTime": "3600s", "strategy": "FLEX_START"}}
    assert check(spec, Context(target=Target.VERTEX)) == []


def test_local_backend_cannot_run_tpus() -> None:
    spec = pools(chief={"machineType": "ct5lp-hightpu-4t", "tpuTopology": "2x2"})
    assert "local.tpu" not in rules(check(spec))
    assert rules(check(spec, Context(target=Target.LOCAL)))["local.tpu"] is Severity.ERROR


def test_grid_size_and_recommendation_warnings() -> None:
    hp = {"goal": "MAXIMIZE", "metric": "acc", "maxTrials": 10, "algorithm": "GRID_SEARCH",
          "params": [{"name": "layers", "type": "INTEGER", "min": 1, "max": 3}]}
    assert rules(check({"hyperparameters": hp}))["hpt.grid_size"] is Severity.WARNING
    hp = {"goal": "MAXIMIZE", "metric": "acc", "maxTrials": 5,
          "params": [{"name": "lr", "type": "DOUBLE", "min": 0.1, "max": 1.0}]}
    assert rules(check({"hyperparameters": hp}))["hpt.recommendation"] is Severity.WARNING


def test_counts_above_max_trials_are_warnings() -> None:
    # gcloud sends both and no Google document bounds either (maxFailedTrials 0: the service decides)
    hp = {"goal": "MAXIMIZE", "metric": "acc", "maxTrials": 10, "algorithm": "RANDOM_SEARCH", "maxFailedTrials": 20,
          "params": [{"name": "batch", "type": "DISCRETE", "values": [32, 64]}]}
    found = [p for p in check({"hyperparameters": hp}) if p.rule == "hpt.counts"]
    assert [p.severity for p in found] == [Severity.WARNING]
    assert "maxFailedTrials 20 is above maxTrials 10: never reached" in found[0].message


def test_international_labels() -> None:
    assert check({}, labels={"équipe": "vision"}) == []
    assert rules(check({}, labels={"équipe": "Été"}))["labels.unicode"] is Severity.ERROR


def test_env_from_two_places_is_refused() -> None:
    doc = {"workerPoolSpecs": [
        {"machineSpec": {"machineType": "n1-standard-4"}, "containerSpec": {"imageUri": "i", "env": [{"name": "A", "value": "1"}]}},
        {"machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": 2,
         "containerSpec": {"imageUri": "i", "env": [{"name": "A", "value": "2"}]}},
    ]}
    full = {"apiVersion": "trainjobs/v1", "kind": "TrainingJob", "metadata": {"name": "v"},
            "spec": {"region": "us-central1", **doc}}
    found = validate_data(full).problems
    assert rules(found)["trainjobs.env.per_pool"] is Severity.ERROR


def test_the_vertex_reduction_server_pool_is_kept_as_a_container() -> None:
    from provider.submission.request import build_request

    spec = {"region": "us-central1", "workerPoolSpecs": [
        {"machineSpec": {"machineType": "n1-standard-8", "acceleratorType": "NVIDIA_TESLA_V100", "acceleratorCount": 1},
         "pythonPackageSpec": {"executorImageUri": "us-docker.pkg.dev/vertex-ai/training/pytorch-gpu.2-4.py310:latest",
                               "packageUris": ["gs://b/p.tar.gz"], "pythonModule": "trainer.task"}},
        {"machineSpec": {"machineType": "n1-standard-8", "acceleratorType": "NVIDIA_TESLA_V100", "acceleratorCount": 1},
         "replicaCount": "2",
         "pythonPackageSpec": {"executorImageUri": "us-docker.pkg.dev/vertex-ai/training/pytorch-gpu.2-4.py310:latest",
                               "packageUris": ["gs://b/p.tar.gz"], "pythonModule": "trainer.task"}},
        {"machineSpec": {"machineType": "n1-highcpu-16"}, "replicaCount": "4",
         "containerSpec": {"imageUri": "us-docker.pkg.dev/vertex-ai-restricted/training/reductionserver:latest"}},
    ]}
    doc = {"apiVersion": "trainjobs/v1", "kind": "TrainingJob", "metadata": {"name": "rs"}, "spec": spec}
    result = validate_data(doc)
    assert result.ok and result.job is not None
    body = build_request(result.job, "p").body
    assert body["jobSpec"]["workerPoolSpecs"][2]["containerSpec"]["imageUri"].endswith("reductionserver:latest")
    assert "pythonPackageSpec" in body["jobSpec"]["workerPoolSpecs"][1]


def test_a_module_python_m_can_run_is_accepted_and_a_path_is_not() -> None:
    """python -m finds a module by its folder and file names (Google's tuning example runs
    my-trainer.trainer); a path, an empty part or a space it cannot find."""
    def module_rules(module: str) -> dict[str, Severity]:
        app = {"pythonPackage": {"uris": ["gs://b/p.tar.gz"], "module": module,
                                 "executorImage": "us-docker.pkg.dev/vertex-ai/training/pytorch-gpu.2-4.py310:latest"}}
        return rules(check({"application": app}))
    for good in ("trainer.task", "my-trainer.trainer", "trainer_2.task-v2", "task"):
        assert "package.module" not in module_rules(good), good
    for bad in ("trainer/task.py", "trainer..task", ".trainer.task", "trainer.task.", "my trainer.task", ""):
        assert module_rules(bad).get("package.module") is Severity.ERROR, bad


def test_the_sdks_reduction_server_pool_keeps_no_env_and_convert_carries_it() -> None:
    """CustomTrainingJob.run(environment_variables=..., reduction_server_replica_count=...) gives the training pools
    the env and the Reduction Server pool (its own image) none: sent so, and written so by convert (pool env)."""
    from provider.submission.emit import to_native
    from provider.submission.request import build_request

    package = {"executor_image_uri": "us-docker.pkg.dev/vertex-ai/training/pytorch-gpu.2-4.py310:latest",
               "package_uris": ["gs://b/p.tar.gz"], "python_module": "trainer.task",
               "env": [{"name": "NCCL_DEBUG", "value": "INFO"}]}
    gpu = {"machine_type": "n1-standard-8", "accelerator_type": "NVIDIA_TESLA_V100", "accelerator_count": 1}
    spec = {"region": "us-central1", "worker_pool_specs": [
        {"machine_spec": gpu, "replica_count": 1, "python_package_spec": package},
        {"machine_spec": gpu, "replica_count": 2, "python_package_spec": package},
        {"machine_spec": {"machine_type": "n1-highcpu-16"}, "replica_count": 1,
         "container_spec": {"image_uri": "us-docker.pkg.dev/vertex-ai-restricted/training/reductionserver:latest"}}]}
    doc = {"apiVersion": "trainjobs/v1", "kind": "TrainingJob", "metadata": {"name": "rs"}, "spec": spec}
    result = validate_data(doc)
    assert not [p for p in result.problems if p.is_error] and result.job is not None, result.problems
    pools = build_request(result.job, "p").body["jobSpec"]["workerPoolSpecs"]
    assert [p.get("pythonPackageSpec", p.get("containerSpec", {})).get("env") for p in pools] == [
        [{"name": "NCCL_DEBUG", "value": "INFO"}], [{"name": "NCCL_DEBUG", "value": "INFO"}], None]
    native = to_native(result.job)
    assert native["spec"]["workerPools"]["parameterServers"]["env"] == {}
    again = validate_data(native)
    assert again.ok and again.job is not None, again.problems
    assert build_request(again.job, "p").body["jobSpec"]["workerPoolSpecs"] == pools
    # a pool that runs the job's application is still given the job's env: a different one is refused
    spec["worker_pool_specs"][1] = {"machine_spec": gpu, "replica_count": 2,
                                    "python_package_spec": {**package, "env": []}}
    assert rules(validate_data(doc).problems)["trainjobs.env.per_pool"] is Severity.ERROR
