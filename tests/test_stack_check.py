"""One way to check a spec in its stack (provider.stack.check), the labels' one owner, the stack
settings' enums, and PersistentResources a stack declares, through the functions and through
``trainjobs validate`` / ``run``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from provider.core import labels
from provider.core.problem import Severity
from provider.stack.check import SpecDocument, check_in_stack, context_for, is_policy, violation_problem
from provider.stack.config import NS, StackConfig, check_mapping, from_mapping
from provider.stack.persistent import PersistentResource, ResourcePool
from provider.stack.settings import Retention, WaitUntil
from provider.validation.rules import Target

from .conftest import ROOT, no_traceback, run_cli

VISION = ROOT / "specs" / "vision" / "detector_l4.yaml"
POOLS = [{"id": "l4", "machineSpec": {"machineType": "g2-standard-24", "acceleratorType": "NVIDIA_L4",
                                       "acceleratorCount": 2}, "replicaCount": 2}]


def _stack(backend: str = "vertex", **config: object) -> StackConfig:
    base = {NS + "backend": backend, NS + "team": "vision", "gcp:region": "us-central1",
            NS + "specs": ["specs/vision/*.yaml"], "gcp:project": "acme-vision-dev"}
    return from_mapping("vision-dev", {**base, **config}, source="stacks/Pulumi.vision-dev.yaml")


def test_context_for_a_stack_none_and_several() -> None:
    vertex = _stack(**{NS + "buckets": {"other-data": "europe-west4"}})
    ctx = context_for(vertex, spec_dir=VISION.parent)
    assert ctx.target is Target.VERTEX and ctx.spec_dir == VISION.parent
    assert ctx.staging_bucket == f"gs://{vertex.bucket}"
    assert dict(ctx.bucket_regions) == {"other-data": "europe-west4", vertex.bucket: "us-central1"}
    assert ctx.persistent_resources is None  # the stack does not say: nothing is checked
    assert context_for(None).target is Target.ANY
    assert context_for([_stack("local"), vertex]).target is Target.VERTEX
    assert context_for([_stack("local")]).target is Target.LOCAL
    assert context_for(vertex, target=Target.LOCAL).target is Target.LOCAL  # trainjobs run, validate --target


def test_declared_persistent_resources_reach_the_context() -> None:
    stack = _stack(**{NS + "persistentResources": [{"id": "vision-l4", "resourcePools": POOLS}]})
    assert stack.persistent_resources == (PersistentResource(
        "vision-l4", (ResourcePool("g2-standard-24", 2, "l4", "NVIDIA_L4", 2),)),)
    assert context_for(stack).persistent_resources == ("vision-l4",)
    assert context_for(_stack(**{NS + "persistentResources": []})).persistent_resources == ()


def test_a_violation_becomes_one_problem_with_line_and_column() -> None:
    stack = _stack(**{NS + "quotas": {"maxGpusPerJob": 1}})
    result = check_in_stack(VISION, stack, "specs/vision/detector_l4.yaml")
    (problem,) = [p for p in result.problems if is_policy(p)]
    assert problem.where == "specs/vision/detector_l4.yaml:12:5"
    assert problem.path == "spec.workerPools"
    assert problem.message == "vision_detector_l4 holds 2 GPUs at once, more than stack vision-dev allows per job"
    assert problem.allowed == "quotas.maxGpusPerJob of stack vision-dev: 1"
    assert problem.source == "stack vision-dev (stacks/Pulumi.vision-dev.yaml)"


def test_a_parsed_document_gets_the_same_verdict_without_positions() -> None:
    import yaml

    stack = _stack(**{NS + "quotas": {"maxGpusPerJob": 1}})
    from_file = check_in_stack(VISION, stack, "detector.yaml")
    parsed = check_in_stack(SpecDocument(yaml.safe_load(VISION.read_text()), "detector.yaml"), stack)
    assert [(p.message, p.allowed, p.rule) for p in parsed.problems] == \
        [(p.message, p.allowed, p.rule) for p in from_file.problems]
    assert all(p.line is None for p in parsed.problems)


def test_the_stack_wide_quota_points_at_the_stack_file() -> None:
    from provider.stack.policy import Violation

    stack = _stack()
    problem = violation_problem(Violation("quotas.maxGpusPerStack", None, "4", "6", "too many"), stack)
    assert (problem.file, problem.path, problem.allowed) == (
        "stacks/Pulumi.vision-dev.yaml", "config.trainjobs:quotas", "quotas.maxGpusPerStack: at most 4")


def test_labels_have_one_owner() -> None:
    from provider.backends.base import IDENTITY_LABEL
    from provider.backends.for_stack import STACK_LABEL, stack_labels
    from provider.resources.team import labels as team_labels

    assert IDENTITY_LABEL is labels.IDENTITY_LABEL and STACK_LABEL is labels.STACK_LABEL
    # the catalog's rule: lowercase letters of any script stay (Ü is lowered to ü), the rest become "-"
    assert labels.label_value("Vision Dev/ÜBER" + "x" * 80) == "vision-dev-über" + "x" * 48
    assert labels.job_labels("My_Job", stack="Vision", identity="abc", extra={"managed-by": "me", "env": "dev"}) == {
        "env": "dev", "managed-by": "trainjobs", "trainjobs-job": "my_job", "trainjobs-stack": "vision",
        "trainjobs_id": "abc"}
    stack = _stack(**{NS + "labels": {"cost-center": "vision"}})
    assert stack_labels(stack) == {"trainjobs-stack": "vision-dev"}
    assert team_labels(stack) == {"cost-center": "vision", "managed-by": "trainjobs", "team": "vision",
                                  "environment": "dev", "trainjobs-stack": "vision-dev"}


def test_wait_and_retention_are_enums_everywhere() -> None:
    from provider.resources.job_check import RETENTION, WAIT_UNTIL
    from provider.stack import schema

    stack = _stack(**{NS + "wait": {"until": "completion", "timeout": "60s"}, NS + "retention": "delete"})
    assert stack.wait.until is WaitUntil.COMPLETION and stack.wait.timeout_seconds == 60
    assert stack.retention is Retention.DELETE
    assert _stack().wait.until is WaitUntil.RUNNING and _stack().retention is Retention.KEEP
    config = schema.stack_schema()["properties"]["config"]["properties"]
    assert config["trainjobs:wait"]["properties"]["until"]["enum"] == [m.value for m in WaitUntil] == list(WAIT_UNTIL)
    assert config["trainjobs:retention"]["enum"] == [m.value for m in Retention] == list(RETENTION)
    committed = json.loads((ROOT / "schemas" / "stack.schema.json").read_text())["properties"]["config"]["properties"]
    assert committed["trainjobs:wait"]["properties"]["until"]["enum"] == ["none", "running", "completion"]
    assert committed["trainjobs:retention"]["enum"] == ["keep", "delete"]


@pytest.mark.parametrize(("entry", "expected"), [
    ({"id": "Vision_L4", "resourcePools": POOLS}, "'Vision_L4' is not a valid id"),
    ({"id": "vision-l4", "resourcePools": []}, "resourcePools"),
    ({"id": "vision-l4"}, "missing the required key 'resourcePools'"),
    ({"id": "vision-l4", "resourcePools": [{"machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": 0}]},
     "replicaCount"),
    ({"id": "vision-l4", "resourcePools": [{"machineSpec": {"machineType": "n9-huge"}}]}, "'n9-huge' is not allowed"),
])
def test_the_stack_schema_checks_persistent_resources(entry: dict[str, object], expected: str) -> None:
    config = {NS + "backend": "vertex", NS + "team": "vision", "gcp:region": "us-central1", "gcp:project": "acme-vision-dev",
              NS + "specs": ["specs/vision/*.yaml"], NS + "persistentResources": [entry]}
    loaded = check_mapping("vision-dev", config, "stacks/Pulumi.vision-dev.yaml")
    assert loaded.config is None
    text = "\n".join(f"{p.path}: {p.message}" for p in loaded.problems)
    assert expected in text and "persistentResources" in text, text


def test_a_local_stack_warns_that_persistent_resources_are_not_emulated() -> None:
    config = {NS + "backend": "local", NS + "team": "vision", "gcp:region": "us-central1",
              NS + "specs": ["specs/vision/*.yaml"], NS + "persistentResources": [{"id": "vision-l4", "resourcePools": POOLS}]}
    loaded = check_mapping("vision-local", config, "stacks/Pulumi.vision-local.yaml")
    assert loaded.config is not None
    (warning,) = loaded.problems
    assert warning.severity is Severity.WARNING and "not emulated locally" in warning.message
    assert "vision-l4" in warning.message


def _project(tmp_path: Path, stack: str, spec_extra: str = "") -> Path:
    (tmp_path / "stacks").mkdir()
    (tmp_path / "specs" / "vision").mkdir(parents=True)
    (tmp_path / "stacks" / "Pulumi.vision-dev.yaml").write_text(stack)
    (tmp_path / "specs" / "vision" / "detector.yaml").write_text(VISION.read_text() + spec_extra)
    return tmp_path


VERTEX_STACK = """config:
  trainjobs:backend: vertex
  trainjobs:team: vision
  gcp:project: acme-vision-dev
  gcp:region: us-central1
  trainjobs:specs: [specs/vision/*.yaml]
  trainjobs:persistentResources:
    - id: vision-l4
      resourcePools:
        - machineSpec: {machineType: g2-standard-24, acceleratorType: NVIDIA_L4, acceleratorCount: 2}
          replicaCount: 2
"""


def test_validate_checks_persistent_resource_ids_against_the_stack(tmp_path: Path) -> None:
    project = _project(tmp_path, VERTEX_STACK, "  persistentResourceId: vision-a100\n")
    proc = run_cli("validate", cwd=project)
    no_traceback(proc)
    assert proc.returncode == 1, proc.stdout
    assert "specs/vision/detector.yaml:27:25: error: persistentResourceId 'vision-a100' is not a PersistentResource " \
           "this stack declares" in proc.stdout
    assert "allowed: one of: vision-l4" in proc.stdout
    (project / "specs" / "vision" / "detector.yaml").write_text(
        VISION.read_text() + "  persistentResourceId: vision-l4\n")
    ok = run_cli("validate", cwd=project)
    assert ok.returncode == 0, ok.stdout


def test_validate_and_run_word_a_quota_alike_with_line_and_column(tmp_path: Path) -> None:
    stack = VERTEX_STACK.replace("  trainjobs:persistentResources:", "  trainjobs:quotas: {maxGpusPerJob: 1}\n"
                                 "  trainjobs:persistentResources:")
    project = _project(tmp_path, stack)
    expected = ("specs/vision/detector.yaml:12:5: error: vision_detector_l4 holds 2 GPUs at once, more than stack "
                "vision-dev allows per job")
    validate = run_cli("validate", "specs/vision/detector.yaml", cwd=project)
    assert validate.returncode == 1 and expected in validate.stdout, validate.stdout
    assert "allowed: quotas.maxGpusPerJob of stack vision-dev: 1" in validate.stdout
    run = run_cli("run", "--dry-run", "--stack", "vision-dev", "specs/vision/detector.yaml", cwd=project)
    no_traceback(run)
    assert run.returncode == 1 and expected in run.stderr, run.stderr
    assert "allowed: quotas.maxGpusPerJob of stack vision-dev: 1" in run.stderr
    assert "nothing was started" in run.stderr


def test_the_declared_body_is_a_persistent_resource_as_the_sdk_reads_it() -> None:
    from google.cloud import aiplatform_v1

    entry = {"id": "vision-l4", "displayName": "Vision L4", "labels": {"team": "vision"},
             "resourcePools": [{**POOLS[0], "diskSpec": {"bootDiskType": "pd-ssd", "bootDiskSizeGb": 200},
                                "autoscalingSpec": {"minReplicaCount": 1, "maxReplicaCount": 4}}]}
    (declared,) = _stack(**{NS + "persistentResources": [entry]}).persistent_resources or ()
    message = aiplatform_v1.PersistentResource.from_json(json.dumps(declared.body()))  # unknown fields raise
    pool = message.resource_pools[0]
    assert (message.display_name, dict(message.labels)) == ("Vision L4", {"team": "vision"})
    assert (pool.id, pool.machine_spec.machine_type, pool.machine_spec.accelerator_type.name,
            pool.machine_spec.accelerator_count, pool.replica_count) == ("l4", "g2-standard-24", "NVIDIA_L4", 2, 2)
    assert (pool.disk_spec.boot_disk_type, pool.disk_spec.boot_disk_size_gb) == ("pd-ssd", 200)
    assert (pool.autoscaling_spec.min_replica_count, pool.autoscaling_spec.max_replica_count) == (1, 4)


def _pool_problems(pool: dict[str, object]) -> list[tuple[str, str, str | None, str]]:
    config = {NS + "backend": "vertex", NS + "team": "vision", "gcp:region": "us-central1", "gcp:project": "acme-vision-dev",
              NS + "specs": ["specs/vision/*.yaml"], NS + "persistentResources": [{"id": "vision-l4", "resourcePools": [pool]}]}
    loaded = check_mapping("vision-dev", config, "stacks/Pulumi.vision-dev.yaml")
    found = [(p.path.rsplit("resourcePools[0]", 1)[-1], p.message.split("pool 0: ", 1)[-1], p.allowed, p.rule)
             for p in loaded.problems]
    assert (loaded.config is None) == bool(found), found
    assert all(p.file == "stacks/Pulumi.vision-dev.yaml" and p.is_error for p in loaded.problems)
    return found


@pytest.mark.parametrize(("machine", "expected"), [
    ({"machineType": "g2-standard-24", "acceleratorType": "NVIDIA_L4", "acceleratorCount": 3},
     (".machineSpec.acceleratorCount", "3 x NVIDIA_L4 is not a valid count on g2-standard-24",
      "2 x NVIDIA_L4 on g2-standard-24", "gpu.count")),
    ({"machineType": "n1-standard-4", "acceleratorType": "NVIDIA_L4", "acceleratorCount": 1},
     (".machineSpec.acceleratorType", "NVIDIA_L4 cannot be attached to n1-standard-4",
      "on n1-standard-4: NVIDIA_TESLA_K80, NVIDIA_TESLA_P100, NVIDIA_TESLA_P4, NVIDIA_TESLA_T4 or NVIDIA_TESLA_V100",
      "gpu.type")),
    ({"machineType": "e2-standard-4", "acceleratorType": "NVIDIA_TESLA_T4", "acceleratorCount": 1},
     (".machineSpec.acceleratorType", "e2-standard-4 takes no accelerators",
      "a GPU machine family (n1, a2, a3, g2 ...) for accelerators, or no accelerator", "gpu.machine")),
    ({"machineType": "a2-highgpu-1g"},
     (".machineSpec", "a2-highgpu-1g comes with accelerators, but none is set", "1 x NVIDIA_TESLA_A100",
      "gpu.required")),
    ({"machineType": "n1-standard-4", "acceleratorType": "NVIDIA_TESLA_T4"},
     (".machineSpec.acceleratorCount", "acceleratorType is set without acceleratorCount",
      "both acceleratorType and acceleratorCount, or neither", "gpu.count")),
    ({"machineType": "ct5lp-hightpu-4t", "acceleratorType": "TPU_V5_LITEPOD", "acceleratorCount": 4},
     (".machineSpec.acceleratorType", "ct5lp-hightpu-4t is a TPU machine type: its chips come with it",
      "no acceleratorType or acceleratorCount", "tpu.topology")),
])
def test_a_declared_pools_accelerator_is_checked_against_the_catalog(machine: dict[str, object],
                                                                     expected: tuple[str, str, str, str]) -> None:
    assert _pool_problems({"machineSpec": machine, "replicaCount": 1}) == [expected]


@pytest.mark.parametrize(("count", "scaling", "expected"), [
    (2, {"minReplicaCount": 4, "maxReplicaCount": 4},
     [(".autoscalingSpec.maxReplicaCount", "maxReplicaCount 4 is not greater than minReplicaCount 4",
       "maxReplicaCount > 4", "persistent.autoscaling"),
      (".replicaCount", "replicaCount 2 is below minReplicaCount 4", "replicaCount from 4",
       "persistent.autoscaling")]),
    (1, {"minReplicaCount": 0, "maxReplicaCount": 2},
     [(".autoscalingSpec.minReplicaCount", "a PersistentResource's autoscaling pool needs minReplicaCount of at "
       "least 1 (got 0)", "minReplicaCount >= 1", "persistent.autoscaling")]),
    (5, {"minReplicaCount": 1, "maxReplicaCount": 4},
     [(".replicaCount", "replicaCount 5 is above maxReplicaCount 4", "replicaCount up to 4 (at least 1)",
       "persistent.autoscaling")]),
    (2, {"minReplicaCount": 1, "maxReplicaCount": 4}, []),
])
def test_a_declared_pools_autoscaling_is_held_to_googles_bounds(count: int, scaling: dict[str, int],
                                                                 expected: list[tuple[str, str, str, str]]) -> None:
    pool = {"machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": count, "autoscalingSpec": scaling}
    assert _pool_problems(pool) == expected


def test_validate_reports_a_pools_problems_at_their_line(tmp_path: Path) -> None:
    stack = VERTEX_STACK.replace("acceleratorCount: 2}", "acceleratorCount: 3}") + \
        "          autoscalingSpec: {minReplicaCount: 3, maxReplicaCount: 2}\n"
    project = _project(tmp_path, stack)
    proc = run_cli("validate", cwd=project)
    no_traceback(proc)
    assert proc.returncode == 1, proc.stdout
    assert "stacks/Pulumi.vision-dev.yaml:10:100: error: PersistentResource 'vision-l4', pool 0: 3 x NVIDIA_L4 is " \
           "not a valid count on g2-standard-24" in proc.stdout, proc.stdout
    assert "allowed: 2 x NVIDIA_L4 on g2-standard-24" in proc.stdout
    assert "stacks/Pulumi.vision-dev.yaml:12:66: error: PersistentResource 'vision-l4', pool 0: maxReplicaCount 2 " \
           "is not greater than minReplicaCount 3" in proc.stdout, proc.stdout
    assert "stacks/Pulumi.vision-dev.yaml:11:25: error: PersistentResource 'vision-l4', pool 0: replicaCount 2 is " \
           "below minReplicaCount 3" in proc.stdout, proc.stdout
    assert "allowed: replicaCount from 3\n" in proc.stdout
