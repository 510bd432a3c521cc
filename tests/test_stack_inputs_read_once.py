"""A resource's stack, read from its stack-wide inputs once per distinct inputs
(provider.stack.policy_inputs.stack_config): the same StackConfig as reading them afresh."""

from __future__ import annotations

from typing import Any

from provider.resources.job_args import JobArgs
from provider.stack.config import NS, from_mapping
from provider.stack.policy_inputs import plain, stack_config

BASE: dict[str, Any] = {"jobName": "j", "stack": "bench", "team": "vision", "project": "acme-vision-bench", "backend": "vertex",
        "region": "us-central1", "quotas": {"maxGpusPerJob": 8.0, "allowedRegions": ["us-central1"]},
        "policy": {}, "stackLabels": {"env": "bench", "cost-center": "r1"}}


def _afresh(props: dict[str, Any]) -> Any:
    """What stack_config read before it kept a stack: from_mapping on the inputs, every time."""
    config = {NS + "backend": props["backend"], NS + "team": props["team"], "gcp:project": props["project"],
              "gcp:region": props["region"], NS + "specs": [props["specFile"]] if props.get("specFile") else [],
              NS + "quotas": plain(props.get("quotas") or {}), NS + "policy": plain(props.get("policy") or {}),
              NS + "labels": plain(props.get("stackLabels") or {})}
    return from_mapping(str(props["stack"]), config, source=f"stack {props['stack']}")


def test_each_job_gets_its_own_spec_file_and_the_stack_as_read_afresh() -> None:
    for spec_file in ("specs/a.yaml", "specs/b.yaml", None):
        props = {**BASE, "specFile": spec_file} if spec_file else dict(BASE)
        stack = stack_config(JobArgs.from_props(props))
        assert stack == _afresh(props)
        assert stack.specs == ((spec_file,) if spec_file else ())
        assert stack.at == _afresh(props).at  # not compared by ==


def test_a_change_in_any_stack_wide_input_is_a_different_stack() -> None:
    first = stack_config(JobArgs.from_props({**BASE, "specFile": "s.yaml"}))
    changes: dict[str, Any] = {"quotas": {"maxGpusPerJob": 4.0}, "region": "europe-west4", "team": "nlp", "stack": "other",
               "stackLabels": {"cost-center": "r1", "env": "bench"},  # the same labels in another order
               "policy": {"requiredLabels": ["owner"]}, "project": "acme-other"}
    for key, value in changes.items():
        props = {**BASE, "specFile": "s.yaml", key: value}
        stack = stack_config(JobArgs.from_props(props))
        assert stack == _afresh(props), key
        assert stack != first, key
    assert stack_config(JobArgs.from_props({**BASE, "specFile": "s.yaml"})) == first
