"""Issue 11: the seeds' examples accepted as documented, every problem reported once, fixed messages.

The seed bodies come verbatim from tests/fixtures/seed_configs/ (copied from the seed documents);
only the gcloud flags of each seed's command sit beside them.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from provider.catalog import CATALOG
from provider.core.problem import Problem
from provider.submission.emit import to_native
from provider.submission.request import build_request
from provider.validation.rules import Context, Target
from provider.validation.validator import SpecResult, validate_bytes

from .conftest import ROOT

FIXTURES = Path(__file__).parent / "fixtures" / "seed_configs"
TRAINER = str(ROOT / "examples" / "trainers" / "simple" / "trainer")
BEFORE_END = dt.date(2026, 1, 1)  # before the default container's end of availability
AFTER_END = dt.date(2026, 11, 23)


def _config(name: str) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((FIXTURES / name).read_text(encoding="utf-8"))
    return data


def _wrap(name: str, spec: dict[str, Any]) -> bytes:
    doc = {"apiVersion": "trainjobs/v1", "kind": "TrainingJob", "metadata": {"name": name}, "spec": spec}
    return yaml.safe_dump(doc, sort_keys=False).encode()


def _check(text: bytes, ctx: Context | None = None) -> SpecResult:
    return validate_bytes(text, "spec.yaml", ctx or Context())


def _errors(result: SpecResult) -> list[Problem]:
    return [p for p in result.problems if p.is_error]


def _seed001_gcloud(config: dict[str, Any]) -> dict[str, Any]:
    """Seed 001's command: --package-path, --module-name, --job-dir, --region us-central1, --config."""
    return {"region": "us-central1", "packagePath": TRAINER, "moduleName": "trainer.task",
            "jobDir": "gs://b/jobs/x", "args": ["--user_arg_1", "value_1"], **config}


def test_seed001_config_examples_without_runtime_version_are_accepted() -> None:
    default = CATALOG.runtimes()["default_without_runtime"]
    for fixture in ("seed001_example1.yaml", "seed001_example2.yaml"):
        result = _check(_wrap("seed001", _seed001_gcloud(_config(fixture))))
        assert result.ok, _errors(result)
        warning = [p for p in result.problems if p.rule == "package.default_image"]
        assert len(warning) == 1 and not warning[0].is_error
        assert default["gpu"] in warning[0].message  # every pool of both examples has GPUs... or the CPU build
        assert result.job is not None


def test_the_request_and_convert_show_the_default_container_per_pool() -> None:
    default = CATALOG.runtimes()["default_without_runtime"]
    result = _check(_wrap("seed001", _seed001_gcloud(_config("seed001_example1.yaml"))))
    assert result.job is not None
    pools = build_request(result.job, "p", package_uris=["gs://b/p.tar.gz"]).body["jobSpec"]["workerPoolSpecs"]
    images = [p["pythonPackageSpec"]["executorImageUri"] for p in pools]
    assert images == [f"us-docker.pkg.dev/vertex-ai/training/{default[k]}:latest" for k in ("gpu", "gpu", "cpu")]
    native = to_native(result.job)
    if CATALOG.default_container_served(dt.date.today()):
        assert native["spec"]["application"]["pythonPackage"]["executorImage"] == images[0]
        assert native["spec"]["workerPools"]["parameterServers"]["image"] == images[2]
    else:  # convert never writes a retired default: the spec keeps "no image", and the validator says so
        assert "executorImage" not in native["spec"]["application"]["pythonPackage"]
        assert "image" not in native["spec"]["workerPools"]["parameterServers"]
    # The printed spec is itself valid and asks for the same containers.
    again = _check(yaml.safe_dump(native).encode())
    assert again.ok and again.job is not None
    repeat = build_request(again.job, "p", package_uris=["gs://b/p.tar.gz"]).body["jobSpec"]["workerPoolSpecs"]
    assert [p["pythonPackageSpec"]["executorImageUri"] for p in repeat] == images


def test_seed003_basic_tier_command_without_runtime_version_is_accepted() -> None:
    spec = {"region": "us-east1", "packagePath": TRAINER, "moduleName": "trainer.task", "jobDir": "gs://b/j",
            "args": ["--user_first_arg=first_arg_value"], "trainingInput": {"scaleTier": "BASIC"}}
    result = _check(_wrap("seed003_basic", spec))
    assert result.ok, _errors(result)
    assert [p.rule for p in result.problems if p.rule == "package.default_image"] == ["package.default_image"]


def test_default_container_is_an_error_in_a_vertex_stack_only_once_it_is_no_longer_served() -> None:
    text = _wrap("seed001", _seed001_gcloud(_config("seed001_example1.yaml")))
    served = _check(text, Context(target=Target.VERTEX, today=BEFORE_END))
    assert served.ok and any(p.rule == "package.default_image" for p in served.problems)
    gone = _check(text, Context(target=Target.VERTEX, today=AFTER_END))
    assert [p.rule for p in _errors(gone)] == ["package.default_image"]
    assert "stopped serving" in _errors(gone)[0].message
    outside = _check(text, Context(target=Target.ANY, today=AFTER_END))
    assert outside.ok


MANY = """\
apiVersion: trainjobs/v1
kind: TrainingJob
metadata:
  name: many_problems
spec:
  region: us-central1
  moduleName: trainer.task
  jobDir: /local/output
  trainingInput:
    scaleTier: CUSTOM
    masterType: n1-standard-5
    masterConfig:
      diskConfig: {bootDiskType: pd-fast, bootDiskSizeGb: 100}
    workerCount: -1
    packageUris: [/tmp/pkg.tar.gz]
    serviceAccount: not-an-email
    scheduling: {maxWaitTime: 3600, maxRunningTime: 7200s}
    hyperparameters:
      goal: BIGGER
      params:
        - {parameterName: lr, type: DOUBLE, minValue: 0.01, maxValue: 0.1}
"""


def test_one_problem_does_not_hide_the_others() -> None:
    result = _check(MANY.encode())
    paths = {p.path for p in _errors(result)}
    assert {
        "spec.jobDir",
        "spec.trainingInput.masterType",
        "spec.trainingInput.masterConfig.diskConfig.bootDiskType",
        "spec.trainingInput.workerCount",
        "spec.trainingInput.packageUris[0]",
        "spec.trainingInput.serviceAccount",
        "spec.trainingInput.scheduling.maxWaitTime",
        "spec.trainingInput.hyperparameters.goal",
    } <= paths
    # The model rules still ran on what could be read: the default container is named.
    assert any(p.rule == "package.default_image" for p in result.problems)
    # No error invented by reading around the broken values (masterType is still there).
    assert not any(p.rule == "aip.custom.masterType" for p in result.problems)


def test_every_problem_appears_once() -> None:
    result = _check(MANY.encode())
    seen = Counter((p.line, p.column, p.message) for p in result.problems)
    assert all(n == 1 for n in seen.values()), seen


def test_a_rule_on_a_whole_mapping_does_not_hide_schema_problems_inside_it() -> None:
    # gpu.required points at the whole pool; it used to swallow the schema problems inside the pool.
    spec = {"region": "us-central1", "workerPoolSpecs": [
        {"machineSpec": {"machineType": "a2-highgpu-1g"}, "replicaCount": 1,
         "diskSpec": {"bootDiskType": "pd-fast", "bootDiskSizeGb": 100},
         "containerSpec": {"imageUri": "gcr.io/p/i:1"}}]}
    result = _check(_wrap("whole", spec))
    rules = {p.path: p.rule for p in _errors(result)}
    assert rules.get("spec.workerPoolSpecs[0]") == "gpu.required"
    assert rules.get("spec.workerPoolSpecs[0].diskSpec.bootDiskType") == "schema"


def test_a_yaml11_boolean_gets_one_message() -> None:
    text = b"""\
apiVersion: trainjobs/v1
kind: TrainingJob
metadata: {name: yes_job}
spec:
  region: us-central1
  workerPools:
    chief: {machineType: n1-standard-4}
    workers: {machineType: n1-standard-4, replicas: yes}
  application: {container: {image: gcr.io/p/i:1}}
"""
    result = _check(text)
    assert len(result.problems) == 1, result.problems
    assert "ambiguous" in result.problems[0].message


def _messages(result: SpecResult) -> list[str]:
    return [p.message for p in result.problems]


def test_negative_worker_count_names_the_value_and_the_minimum() -> None:
    spec = {"region": "us-central1", "packageUris": ["gs://b/p.tar.gz"],
            "trainingInput": {"scaleTier": "CUSTOM", "masterType": "n1-standard-4", "workerCount": -1,
                              "workerType": "n1-standard-4", "pythonModule": "m",
                              "packageUris": ["gs://b/p.tar.gz"]}}
    spec.pop("packageUris")
    result = _check(_wrap("neg", spec))
    [count] = [p for p in result.problems if p.path == "spec.trainingInput.workerCount"]
    assert count.message == "spec.trainingInput.workerCount is -1, it must be at least 0"


def test_a_non_gs_package_uri_names_the_list() -> None:
    spec = {"region": "us-central1",
            "trainingInput": {"scaleTier": "BASIC", "pythonModule": "m", "packageUris": ["/tmp/p.tar.gz"]}}
    result = _check(_wrap("neg", spec))
    assert "'/tmp/p.tar.gz' is not a valid packageUris item" in _messages(result)
    assert not any("valid 0" in m for m in _messages(result))


def _native(**spec: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"region": "us-central1", "workerPools": {"chief": {"machineType": "n1-standard-4"}},
                            "application": {"container": {"image": "gcr.io/p/i:1"}}}
    base.update(spec)
    return base


def test_regions_that_offer_an_accelerator_are_listed_in_full_for_every_pool() -> None:
    acc = {"type": "NVIDIA_TESLA_T4", "count": 1}
    offering = sorted(r.name for r in CATALOG.regions.values() if "NVIDIA_TESLA_T4" in r.vertex_accelerators)
    region = next(r.name for r in CATALOG.regions.values() if r.vertex_training and r.name not in offering)
    assert len(offering) > 8 and "us-central1" in offering
    spec = _native(region=region, workerPools={
        "chief": {"machineType": "n1-standard-4", "accelerator": acc},
        "workers": {"machineType": "n1-standard-4", "accelerator": acc, "replicas": 2}})
    result = _check(_wrap("t4", spec))
    found = [p for p in result.problems if p.rule == "gpu.region"]
    assert {p.path for p in found} == {"spec.workerPools.chief.accelerator.type",
                                       "spec.workerPools.workers.accelerator.type"}
    for p in found:
        assert all(r in (p.allowed or "") for r in offering), p.allowed


def test_goal_type_unspecified_is_not_offered() -> None:
    spec = {"region": "us-central1", "packageUris": ["gs://b/p.tar.gz"], "moduleName": "m",
            "runtimeVersion": "2.4", "pythonVersion": "3.7",
            "trainingInput": {"scaleTier": "BASIC", "hyperparameters": {
                "goal": "MAXIMIZ", "params": [{"parameterName": "lr", "type": "DOUBLE", "minValue": 0.1,
                                               "maxValue": 1.0}]}}}
    result = _check(_wrap("hp", spec))
    [goal] = [p for p in result.problems if p.path == "spec.trainingInput.hyperparameters.goal"]
    assert goal.is_error and "GOAL_TYPE_UNSPECIFIED" not in (goal.allowed or "")
    spec["trainingInput"]["hyperparameters"]["goal"] = "GOAL_TYPE_UNSPECIFIED"
    assert not _check(_wrap("hp", spec)).ok


def test_basic_tpu_message_names_what_the_request_uses() -> None:
    spec = {"region": "us-central1", "packagePath": TRAINER, "moduleName": "trainer.task", "jobDir": "gs://b/j",
            "runtimeVersion": "2.4", "pythonVersion": "3.7", "trainingInput": {"scaleTier": "BASIC_TPU"}}
    result = _check(_wrap("tpu", spec))
    [tier] = [p for p in result.problems if p.rule == "aip.scaleTier.mapping"]
    assert result.job is not None
    machine = build_request(result.job, "p", package_uris=["gs://b/p.tar.gz"]).body["jobSpec"][
        "workerPoolSpecs"][0]["machineSpec"]
    assert f"1 x {machine['machineType']}" in tier.message
    assert "n1-standard-4" not in tier.message


def test_a_placeholder_image_is_refused() -> None:
    for image in ("gcr.io/{YOUR-PROJECT-ID}/multiworker:cassava", "gcr.io/my project/i:1", "gcr.io/p/i:{TAG}"):
        result = _check(_wrap("ph", _native(application={"container": {"image": image}})))
        [problem] = [p for p in result.problems if p.rule == "image.placeholder"]
        assert problem.is_error and "placeholder" in problem.message


def test_accelerator_count_without_type_is_an_error() -> None:
    spec = {"region": "us-central1", "workerPoolSpecs": [
        {"machineSpec": {"machineType": "n1-standard-8", "acceleratorCount": 2}, "replicaCount": 1,
         "containerSpec": {"imageUri": "gcr.io/p/i:1"}}]}
    result = _check(_wrap("acc", spec))
    assert any("acceleratorType" in p.message for p in _errors(result)), result.problems
    # The SDK's own default count 0 needs no type.
    spec["workerPoolSpecs"][0]["machineSpec"] = {"machineType": "n1-standard-8", "acceleratorCount": 0}
    assert _check(_wrap("acc", spec)).ok


def test_max_wait_time_is_sent_for_flex_start_and_otherwise_a_warning() -> None:
    spec = {"region": "us-central1", "packageUris": ["gs://b/p.tar.gz"], "moduleName": "m",
            "runtimeVersion": "2.4", "pythonVersion": "3.7",
            "trainingInput": {"scaleTier": "BASIC", "scheduling": {"maxWaitTime": "3600s"}}}
    result = _check(_wrap("wait", spec))
    [warning] = [p for p in result.problems if p.rule == "scheduling.max_wait_vertex"]
    assert not warning.is_error and "not sent to Vertex AI" in warning.message
    assert result.job is not None
    assert "maxWaitDuration" not in build_request(result.job, "p").body["jobSpec"].get("scheduling", {})
    local = _check(_wrap("wait", spec), Context(target=Target.LOCAL))
    assert not any(p.rule == "scheduling.max_wait_vertex" for p in local.problems)


def test_legacy_types_vertex_does_not_offer_name_the_nearest_offered_type() -> None:
    for ti in ({"scaleTier": "CUSTOM", "masterType": "complex_model_s"}, {"scaleTier": "STANDARD_1"}):
        spec = {"region": "us-central1", "packageUris": ["gs://b/p.tar.gz"], "moduleName": "m",
                "runtimeVersion": "2.4", "pythonVersion": "3.7", "trainingInput": ti}
        outside = _check(_wrap("legacy", spec))
        offered = [p for p in outside.problems if p.rule == "machine.offered"]
        assert offered and all(not p.is_error for p in offered)
        assert "n1-highcpu-8" in offered[0].message and "nearest offered type is" in offered[0].message
        assert "maps" in offered[0].message
        nearest = offered[0].message.rsplit(" ", 1)[-1]
        machine = CATALOG.machine(nearest)
        assert machine is not None and machine.vertex_training
        vertex = _check(_wrap("legacy", spec), Context(target=Target.VERTEX))
        assert any(p.rule == "machine.offered" and p.is_error for p in vertex.problems)


@pytest.mark.slow
def test_validate_counts_specs_and_stack_files_apart(tmp_path: Path) -> None:
    from .conftest import no_traceback, run_cli

    proc = run_cli("validate", "specs/seeds/basic_tier.yaml")
    no_traceback(proc)
    stacks = len(list((ROOT / "stacks").glob("Pulumi.*.yaml")))
    assert proc.returncode == 0, proc.stdout
    assert f"1 spec checked: 1 valid, 0 invalid; {stacks} stack files checked: {stacks} valid, 0 invalid" in proc.stdout
    missing = run_cli("validate", str(tmp_path / "absent.yaml"))
    assert missing.returncode == 4 and "no such file or directory" in missing.stderr  # not found


def test_a_value_left_out_to_read_the_rest_gets_no_second_message() -> None:
    spec = {"region": 5, "workerPools": {"chief": {"machineType": "n1-standard-4"}},
            "application": {"container": {"image": "gcr.io/p/i:1"}}, "serviceAccount": "nobody"}
    result = _check(_wrap("typed", spec))
    at_region = [p for p in result.problems if p.path == "spec.region"]
    assert len(at_region) == 1 and at_region[0].rule == "schema" and "5 is not allowed for region" in at_region[0].message
    assert any(p.path == "spec.serviceAccount" for p in result.problems)
