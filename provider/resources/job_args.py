"""The inputs of a TrainingJob resource, typed: what the program declares and the provider reads.

``JobArgs.to_props()`` is the property map the SDK carries (camelCase keys, as the state, the
policy pack and the provider see them; a field left at None is not carried, since every input
costs the SDK the same to serialise whatever it holds); ``JobArgs.from_props()`` reads such a
map back (a key the map lacks is None). Inputs that wait on other resources (the request and
its identity wait on the image and the service account) are ``pulumi.Output`` values here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from provider.core.record import Record

# field -> property, for the fields whose property name is not the field's own
_RENAMED = {
    "job_name": "jobName", "spec_file": "specFile", "request_kind": "requestKind",
    "stack_labels": "stackLabels", "persistent_resources": "persistentResources",
    "desired_state": "desiredState", "api_endpoint": "apiEndpoint", "local_home": "localHome",
    "secret_env_names": "secretEnvNames", "extra_packages": "extraPackages", "max_wait_seconds": "maxWaitSeconds",
}


class JobArgs(Record):
    """One job's inputs: the job, its request, where it runs, and the stack settings its Check and
    its lifecycle read (the policy pack rebuilds the stack from them: provider.stack.policy_inputs)."""

    job_name: str | None = None
    stack: str | None = None
    team: str | None = None
    project: str | None = None
    backend: str | None = None
    region: str | None = None
    quotas: dict[str, Any] | None = None
    policy: dict[str, Any] | None = None
    stack_labels: dict[str, str] | None = None
    persistent_resources: list[str] | None = None
    wait: dict[str, Any] | None = None
    retention: str | None = None
    replace: str | None = None
    timeouts: dict[str, float] | None = None
    api_endpoint: str | None = None
    local_home: str | None = None
    secret_env_names: list[str] | None = None
    spec: dict[str, Any] | None = None  # the spec document, as Check validates it
    spec_file: str | None = None
    request: Any = None  # the create request's body (an Output while the image or account is unknown)
    request_kind: str | None = None
    parent: str | None = None
    identity: Any = None  # the identity label (an Output, as the request)
    desired_state: str | None = None
    adopt: str | None = None
    package: dict[str, str] | None = None
    extra_packages: list[dict[str, str]] | None = None
    requirements: dict[str, Any] | None = None
    max_wait_seconds: float | None = None

    def to_props(self) -> dict[str, Any]:
        """The property map the SDK carries: the fields that are set, by their property names."""
        props: dict[str, Any] = {}
        for f in self.__record_fields__:
            value = getattr(self, f.name)
            if value is not None:
                props[_RENAMED.get(f.name, f.name)] = value
        return props

    @classmethod
    def from_props(cls, props: Mapping[str, Any]) -> JobArgs:
        """The args a property map holds (the engine's inputs or state; outputs are ignored)."""
        return cls(**{f.name: props.get(_RENAMED.get(f.name, f.name)) for f in cls.__record_fields__})

