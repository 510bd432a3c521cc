"""The Pulumi policy pack in policy/: its policies called with the SDK's own argument objects, and
the pack served over the analyzer gRPC interface the Pulumi CLI uses (no CLI needed)."""

from __future__ import annotations

import copy
import importlib.util
import subprocess
import sys
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import grpc
import pytest
import yaml
from google.protobuf import empty_pb2, json_format, struct_pb2
from pulumi.runtime import proto
from pulumi.runtime.proto import analyzer_pb2_grpc
from pulumi_policy import (
    EnforcementLevel,
    PolicyCustomTimeouts,
    PolicyResource,
    PolicyResourceOptions,
    ResourceValidationArgs,
    StackValidationArgs,
)

from provider.stack.policy_inputs import TYPE_TOKEN

from .conftest import ROOT

POLICY = ROOT / "policy"


def _load_pack() -> ModuleType:
    spec = importlib.util.spec_from_file_location("trainjobs_policy", POLICY / "trainjobs_policy.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PACK = _load_pack()


def engine(value: Any) -> Any:
    """As the Pulumi engine hands inputs over: every number a float."""
    if isinstance(value, dict):
        return {k: engine(v) for k, v in value.items()}
    if isinstance(value, list):
        return [engine(v) for v in value]
    if isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value


def inputs(stack: str, spec_file: str, quotas: dict[str, Any] | None = None,
           policy: dict[str, Any] | None = None, spec: dict[str, Any] | None = None) -> dict[str, Any]:
    """The inputs of the TrainingJob resource for ``spec_file`` in ``stack``, from the real files."""
    config = yaml.safe_load((ROOT / "stacks" / f"Pulumi.{stack}.yaml").read_text())["config"]
    document = spec if spec is not None else yaml.safe_load((ROOT / spec_file).read_text())
    return engine({
        "jobName": document["metadata"]["name"], "stack": stack, "team": config["trainjobs:team"],
        "project": config.get("gcp:project"), "region": config["gcp:region"], "backend": config["trainjobs:backend"],
        "spec": document, "specFile": spec_file,
        "quotas": quotas if quotas is not None else config.get("trainjobs:quotas", {}),
        "policy": policy if policy is not None else config.get("trainjobs:policy", {}),
        "stackLabels": config.get("trainjobs:labels", {}),
    })


def options() -> PolicyResourceOptions:
    return PolicyResourceOptions(protect=False, ignore_changes=[], delete_before_replace=None, aliases=[],
                                 custom_timeouts=PolicyCustomTimeouts(0, 0, 0), additional_secret_outputs=[])


def urn(stack: str, name: str) -> str:
    return f"urn:pulumi:{stack}::trainjobs::{TYPE_TOKEN}::{name}"


def check_resource(props: dict[str, Any], resource_type: str = TYPE_TOKEN) -> list[str]:
    found: list[str] = []

    def report_violation(message: str, urn: str | None = None) -> None:
        found.append(message)

    name = str(props.get("jobName"))
    args = ResourceValidationArgs(resource_type, props, urn(str(props.get("stack")), name), name, options(), None)
    PACK.JOB_POLICY.validate(args, report_violation)
    return found


def check_stack(resources: list[dict[str, Any]]) -> list[tuple[str, str | None]]:
    found: list[tuple[str, str | None]] = []

    def report_violation(message: str, urn: str | None = None) -> None:
        found.append((message, urn))

    objects = [PolicyResource(TYPE_TOKEN, p, urn(p["stack"], p["jobName"]), p["jobName"], options(), None, None, [],
                              {}) for p in resources]
    PACK.STACK_POLICY.validate(StackValidationArgs(objects), report_violation)
    return found


def test_both_policies_are_mandatory() -> None:
    assert PACK.JOB_POLICY.enforcement_level is EnforcementLevel.MANDATORY
    assert PACK.STACK_POLICY.enforcement_level is EnforcementLevel.MANDATORY


def test_a_job_within_its_stack_policy_passes() -> None:
    assert check_resource(inputs("vision-prod", "specs/vision/resnet_t4.yaml")) == []
    assert check_resource(inputs("nlp-dev", "specs/nlp/bert_a100.yaml")) == []


def test_per_job_rules_name_the_rule_the_limit_and_the_value() -> None:
    quotas = {"maxGpusPerJob": 8, "allowedAccelerators": ["NVIDIA_L4"], "allowedRegions": ["europe-west4"],
              "maxRunningTime": "3600s"}
    found = check_resource(inputs("vision-prod", "specs/vision/resnet_t4.yaml", quotas=quotas,
                                  policy={"requiredLabels": ["cost-center", "owner"]}))
    # each where `trainjobs validate` places it: the spec's file, line and column of the value
    assert found == [
        "specs/vision/resnet_t4.yaml:13:5: vision_resnet_t4 holds 20 GPUs at once, more than stack vision-prod allows per job "
        "(rule quotas.maxGpusPerJob: limit 8, value 20)",
        "specs/vision/resnet_t4.yaml:15:27: vision_resnet_t4 uses NVIDIA_TESLA_T4, which stack vision-prod does not allow "
        "(rule quotas.allowedAccelerators: limit NVIDIA_L4, value NVIDIA_TESLA_T4)",
        "specs/vision/resnet_t4.yaml:19:27: vision_resnet_t4 uses NVIDIA_TESLA_T4, which stack vision-prod does not allow "
        "(rule quotas.allowedAccelerators: limit NVIDIA_L4, value NVIDIA_TESLA_T4)",
        "specs/vision/resnet_t4.yaml:11:11: vision_resnet_t4 runs in us-central1, which stack vision-prod does not allow "
        "(rule quotas.allowedRegions: limit europe-west4, value us-central1)",
        "specs/vision/resnet_t4.yaml:31:21: vision_resnet_t4 may run 21600s, longer than stack vision-prod allows "
        "(rule quotas.maxRunningTime: limit 3600s, value 21600s)",
        "specs/vision/resnet_t4.yaml:9:11: vision_resnet_t4 lacks the label(s) owner that stack vision-prod requires "
        "(rule policy.requiredLabels: limit cost-center, owner, value cost-center, env, model, team)",
    ]


def test_an_unreadable_spec_is_a_violation_and_other_resources_are_ignored() -> None:
    props = inputs("vision-dev", "specs/vision/resnet_t4.yaml")
    broken = copy.deepcopy(props)
    del broken["spec"]["spec"]["workerPools"]
    (message,) = check_resource(broken)
    assert message.startswith("vision_resnet_t4: the spec cannot be read") and "workerPools" in message
    assert check_resource(broken, resource_type="gcp:storage/bucket:Bucket") == []


def test_the_stack_policy_sums_every_job_of_each_stack() -> None:
    resources = [inputs("vision-dev", f"specs/vision/{name}.yaml", quotas={"maxGpusPerStack": 24, "maxGpusPerJob": 1})
                 for name in ("resnet_t4", "hptune_container", "cassava_multiworker")]
    resources.append(inputs("nlp-dev", "specs/nlp/bert_a100.yaml"))
    (found,) = check_stack(resources)
    # 20 + 4 (1 GPU x 4 parallel trials) + 2: over 24; the per-job quota is the resource policy's to report.
    assert found == ("the jobs of stack vision-dev hold 26 GPUs at once (vision_resnet_t4 20, "
                     "vision_hptune_container 4, vision_cassava_multiworker 2) "
                     "(rule quotas.maxGpusPerStack: limit 24, value 26)", None)
    assert check_stack(resources[:1]) == []


@pytest.fixture
def analyzer() -> Iterator[analyzer_pb2_grpc.AnalyzerStub]:
    """The policy pack as the Pulumi CLI runs it: a process serving the analyzer on a local port."""
    proc = subprocess.Popen([sys.executable, "-u", str(POLICY / "__main__.py")], cwd=POLICY,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        port = proc.stdout.readline().strip()
        assert port.isdigit(), proc.stderr.read() if proc.stderr else ""
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            yield analyzer_pb2_grpc.AnalyzerStub(channel)
    finally:
        proc.kill()
        proc.wait(timeout=10)
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


def test_the_pack_serves_mandatory_policies_that_stop_a_violating_job(analyzer: Any) -> None:
    info = analyzer.GetAnalyzerInfo(empty_pb2.Empty(), timeout=10)
    assert info.name == "trainjobs"
    assert {(p.name, p.enforcementLevel) for p in info.policies} == {
        ("trainjobs-job-policy", proto.MANDATORY), ("trainjobs-stack-gpu-quota", proto.MANDATORY)}
    props = inputs("vision-prod", "specs/vision/resnet_t4.yaml", quotas={"maxGpusPerJob": 16})
    request = proto.AnalyzeRequest(type=TYPE_TOKEN, properties=json_format.ParseDict(props, struct_pb2.Struct()),
                                   urn=urn("vision-prod", "vision_resnet_t4"), name="vision_resnet_t4")
    (diagnostic,) = analyzer.Analyze(request, timeout=10).diagnostics
    assert diagnostic.policyName == "trainjobs-job-policy" and diagnostic.enforcementLevel == proto.MANDATORY
    assert "(rule quotas.maxGpusPerJob: limit 16, value 20)" in diagnostic.message
    ok = proto.AnalyzeRequest(type=TYPE_TOKEN, properties=json_format.ParseDict(
        inputs("vision-prod", "specs/vision/resnet_t4.yaml"), struct_pb2.Struct()), urn="u", name="n")
    assert list(analyzer.Analyze(ok, timeout=10).diagnostics) == []


def test_policy_files_are_complete() -> None:
    project = yaml.safe_load((POLICY / "PulumiPolicy.yaml").read_text())
    assert project["runtime"]["name"] == "python" and project["version"]
    assert project["runtime"]["options"]["virtualenv"] == "../.venv"  # the project's, next to policy/
    assert "pulumi-policy" in (POLICY / "requirements.txt").read_text()
