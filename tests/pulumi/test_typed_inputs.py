"""Every dynamic resource takes a typed args record and the provider reads its inputs only through it.

The args modules (provider/resources/props.py and each resource's args class) are the one place a
property name is spelled; the provider code, the policy-input rebuild and the policy pack read
fields. Engine values: numbers arrive as floats, and during a preview any value may be unknown.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pulumi.output import Unknown

from provider.core.record import fields
from provider.resources.job_args import JobArgs
from provider.resources.local_infra import (
    LocalBucket,
    LocalBucketArgs,
    LocalRegistry,
    LocalRegistryArgs,
    LocalServiceAccount,
    LocalServiceAccountArgs,
)
from provider.resources.persistent_resource import OUTPUTS as PR_OUTPUTS
from provider.resources.persistent_resource import PersistentResource, PersistentResourceArgs
from provider.resources.props import Props
from provider.resources.training_job import OUTPUTS, TrainingJob
from provider.resources.unknowns import UNKNOWN

ROOT = Path(__file__).resolve().parents[2]
# the args modules spell the property names; the program builds args (and request bodies) and
# reads no resource's inputs
NOT_READERS = {"props.py", "job_args.py", "program.py"}
READERS = [p for p in sorted((ROOT / "provider" / "resources").glob("*.py")) if p.name not in NOT_READERS] + [
    ROOT / "provider" / "stack" / "policy_inputs.py", ROOT / "policy" / "trainjobs_policy.py"]
ALL_ARGS: list[type[Props]] = [JobArgs, LocalBucketArgs, LocalRegistryArgs, LocalServiceAccountArgs,
                               PersistentResourceArgs]
# a read of a property map by a literal key: m["key"], m['key'], m.get("key" ...)
READ = re.compile(r"""(\[\s*["'](?P<a>[A-Za-z_]\w*)["']\s*\]|\.get\(\s*["'](?P<b>[A-Za-z_]\w*)["'])""")


def _property_names() -> set[str]:
    return {cls.prop(f.name) for cls in ALL_ARGS for f in fields(cls)}


def test_no_provider_code_reads_an_input_by_string() -> None:
    names = _property_names()
    found = []
    for path in READERS:
        for number, line in enumerate(path.read_text().splitlines(), 1):
            for match in READ.finditer(line):
                key = match.group("a") or match.group("b")
                if key in names:
                    found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not found, "inputs read by string (read them through the resource's args record):\n" + "\n".join(found)


def test_the_check_sees_a_planted_string_read() -> None:
    """The pattern above finds what it is for."""
    line = 'x = props["jobName"] + p.get("specFile")'
    keys = {m.group("a") or m.group("b") for m in READ.finditer(line)}
    assert keys == {"jobName", "specFile"} and keys <= _property_names()


def test_engine_floats_become_ints_and_unknowns_stay() -> None:
    unknown = Unknown()
    args = JobArgs.from_props({
        "jobName": "resnet", "maxWaitSeconds": 600.0, "quotas": {"maxGpusPerJob": 8.0, "ratio": 0.5},
        "persistentResources": [UNKNOWN], "wait": unknown, "request": {"replicaCount": 1.0},
        "serviceAccount": unknown, "image": UNKNOWN, "jobId": "123", "__provider": "x"})
    assert args.max_wait_seconds == 600 and isinstance(args.max_wait_seconds, int)
    assert args.quotas == {"maxGpusPerJob": 8, "ratio": 0.5} and isinstance(args.quotas["maxGpusPerJob"], int)
    assert args.persistent_resources == [UNKNOWN] and args.wait is unknown
    assert args.request == {"replicaCount": 1.0} and isinstance(args.request["replicaCount"], float)  # as it came
    # what Check builds the request from, unknown during a preview: kept for Check to ask
    assert args.service_account is unknown and args.image == UNKNOWN


@pytest.mark.parametrize("args", [
    LocalBucketArgs(name="b", location="us-central1", labels={"team": "vision"},
                    lifecycle=[{"action": "Delete", "age": 30, "matchesPrefix": "trainjobs/"}], local_home="/h"),
    LocalRegistryArgs(repository_id="vision-dev", location="us-central1", labels={}),
    LocalServiceAccountArgs(email="a@p.iam.local", display_name="d", roles=["r"], local_storage="/s"),
    PersistentResourceArgs(persistent_resource_id="pool", project="p", region="r", body={"resourcePools": [{}]},
                           api_endpoint="http://127.0.0.1:1"),
], ids=lambda a: type(a).__name__)
def test_every_args_record_reads_back_from_its_props(args: Props) -> None:
    props = args.to_props()
    assert not any("_" in key for key in props)  # the engine's camelCase names
    state = {**props, "path": "/x", "resourceName": "n", "state": "RUNNING", "__provider": "x"}
    assert type(args).from_props(state) == args


@pytest.mark.parametrize(("resource", "outputs"), [
    (TrainingJob, OUTPUTS), (PersistentResource, PR_OUTPUTS), (LocalBucket, ("path",)),
    (LocalRegistry, ("path",)), (LocalServiceAccount, ("path",)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_every_resource_declares_its_outputs(resource: type, outputs: tuple[str, ...]) -> None:
    assert set(outputs) <= set(resource.__annotations__), set(outputs) - set(resource.__annotations__)
