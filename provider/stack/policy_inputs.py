"""The stack and the job that a TrainingJob resource's inputs describe, for the policy pack.

The TrainingJob dynamic resource (type ``pulumi-python:dynamic/trainjobs:TrainingJob``) carries
its stack's settings as inputs: ``stack``, ``team``, ``project``, ``region``, ``backend``,
``quotas`` and ``policy`` (as written in the stack file), ``stackLabels``, the IDs of the
PersistentResources the stack declares (``persistentResources``, when it declares any), and the job as
``spec`` (the parsed spec document) with its ``specFile``. From them the policy pack rebuilds
the StackConfig (provider.stack.config.from_mapping) and the TrainingJob (the one validation
entry point), and calls provider.stack.policy like ``trainjobs validate`` and ``trainjobs plan`` do.
The functions here read those inputs as typed fields (``StackInputs``: the resource's JobArgs),
never the property map by string.

The engine hands every number over as a float; whole numbers are turned back into ints so a
violation reads "limit 8", not "limit 8.0".
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any, Protocol

from provider.core.problem import Problem
from provider.core.record import replace
from provider.spec.model import TrainingJob
from provider.stack.config import NS, StackConfig, from_mapping

TYPE_TOKEN = "pulumi-python:dynamic/trainjobs:TrainingJob"


_AS_IS = frozenset({str, int, bool, type(None)})  # what ``plain`` returns as it is


def plain(value: Any) -> Any:
    """Engine values (pulumi_policy wraps them in read-only proxies) -> plain Python: mappings and
    lists copied, whole floats made ints."""
    kind = type(value)  # the exact types first: the provider's Check reads every input through here
    if kind is str or kind is int or kind is bool or value is None:
        return value
    if kind is float:  # the engine's every number: before the ABC checks below (issue 31's profile)
        return int(value) if value.is_integer() else value
    if kind is dict:  # a leaf that stays as it is is not a call
        return {str(k): v if type(v) in _AS_IS else plain(v) for k, v in value.items()}
    if kind is list:
        return [v if type(v) in _AS_IS else plain(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
        return [plain(v) for v in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


class StackInputs(Protocol):
    """What a TrainingJob resource's inputs say of its stack and its job: the fields of its typed args
    (provider.resources.job_args.JobArgs, read from the props by ``JobArgs.from_props``; this layer
    sits below the resources, so it names the fields it reads, not the class)."""

    @property
    def stack(self) -> str | None: ...
    @property
    def team(self) -> str | None: ...
    @property
    def project(self) -> str | None: ...
    @property
    def backend(self) -> str | None: ...
    @property
    def region(self) -> str | None: ...
    @property
    def quotas(self) -> dict[str, Any] | None: ...
    @property
    def policy(self) -> dict[str, Any] | None: ...
    @property
    def stack_labels(self) -> dict[str, str] | None: ...
    @property
    def persistent_resources(self) -> list[str] | None: ...
    @property
    def spec(self) -> dict[str, Any] | None: ...
    @property
    def spec_file(self) -> str | None: ...
    @property
    def job_name(self) -> str | None: ...


def stack_config(args: StackInputs) -> StackConfig:
    """The resource's stack, as its stack file would give it.

    Every job of a stack carries the same stack-wide inputs, and the provider's host checks them all
    in one process: the stack is read once per distinct inputs (``_stack_of``, keyed on their
    JSON, in their order: everything it is read from but the job's own spec file), and each job's is that
    one with its ``specs``, the same value ``from_mapping`` gives."""
    config = {
        NS + "backend": args.backend,
        NS + "team": args.team,
        "gcp:project": args.project,
        "gcp:region": args.region,
        NS + "specs": [],
        NS + "quotas": plain(args.quotas or {}),
        NS + "policy": plain(args.policy or {}),
        NS + "labels": plain(args.stack_labels or {}),
        NS + "persistentResources": _declared(args.persistent_resources),
    }
    name = str(args.stack or "")
    config = {k: v for k, v in config.items() if v is not None}
    try:
        key = json.dumps(config)  # in order: the labels' order is the stack's
    except (TypeError, ValueError):  # a value JSON cannot hold (not from the engine): read as it is
        stack = from_mapping(name, config, source=f"stack {name}")
    else:
        stack = _stack_of(name, key)
    return replace(stack, specs=(args.spec_file,)) if args.spec_file else stack


@lru_cache(maxsize=64)
def _stack_of(name: str, config: str) -> StackConfig:
    """The stack named ``name`` whose config is ``config`` (JSON; its specs left empty). The config
    maps JSON reads back are new objects: a StackConfig is frozen and holds none of them."""
    return from_mapping(name, json.loads(config), source=f"stack {name}")


def _declared(ids: Any) -> list[dict[str, Any]] | None:
    """The stack's declared PersistentResource IDs (the input ``persistentResources``) as the stack
    file's entries; the pools do not matter to a check."""
    if ids is None:
        return None
    return [{"id": str(i), "resourcePools": []} for i in plain(ids)]


def training_job(args: StackInputs) -> tuple[TrainingJob | None, list[Problem]]:
    """The resource's job (None when its spec cannot be read), and the spec's errors, checked in its
    stack like every entry point checks a spec (provider.stack.check)."""
    from provider.stack.check import SpecDocument, is_policy, validate_in

    spec = SpecDocument(plain(args.spec), str(args.spec_file or args.job_name or "<spec>"))
    result = validate_in(spec, stack_config(args))
    return result.job, [p for p in result.problems if p.is_error and not is_policy(p)]
