"""The inputs of a TrainingJob resource, typed: what the program declares and the provider reads.

``JobArgs.to_props()`` is the property map the SDK carries (camelCase keys, as the state, the
policy pack and the provider see them; a field left at None is not carried, since every input
costs the SDK the same to serialise whatever it holds); ``JobArgs.from_props()`` reads such a
map back (a key the map lacks is None; provider.resources.props says how engine values, floats
and unknowns, are read). Inputs that wait on other resources (the built image and
the service account) are ``pulumi.Output`` values here.

What a resource carries is what its Check and Diff read, and what create stages and submits:
nothing twice (the job's identity label is in the request's labels, not an input of its own).
The request itself is built by Check (provider.resources.job_request), not carried by the program.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from provider.resources.props import Props

if TYPE_CHECKING:
    from provider.backends.settings import BackendSettings


class JobArgs(Props):
    """One job's inputs: the job, its request, where it runs, and the stack settings its Check and
    its lifecycle read (the policy pack rebuilds the stack from them: provider.stack.policy_inputs)."""

    # Check and Diff compare the request with itself (the olds and the news both come from the
    # engine) and only look at whether it is there: no copy.
    AS_IS: ClassVar[frozenset[str]] = frozenset({"request"})

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
    local_storage: str | None = None  # the program never sets it; the local backend's settings read it
    secret_env_names: list[str] | None = None
    spec: dict[str, Any] | None = None  # the spec document, as Check validates it
    spec_file: str | None = None
    # What the request is made of that only the program knows (provider.resources.job_request):
    image: Any = None  # the built image's pinned ref (an Output), for a spec that builds one
    service_account: Any = None  # the team's service account (an Output of TeamInfra)
    bucket: str | None = None  # the stack's staging bucket (packages' URIs)
    # The create request's body as canonical JSON (provider.resources.job_request.encode; a map in
    # states written before): built by Check from the above and returned among the checked inputs
    # (the program carries it itself only for a stack with a secret environment).
    request: Any = None
    # Check's stamp on a verdict it may carry to the next Check (provider.resources.check_carry)
    checked: str | None = None
    request_kind: str | None = None
    parent: str | None = None
    desired_state: str | None = None
    adopt: str | None = None
    package: dict[str, str] | None = None
    extra_packages: list[dict[str, str]] | None = None
    requirements: dict[str, Any] | None = None
    max_wait_seconds: float | None = None
    project_root: str | None = None  # only in states written before staged paths were relative

    def backend_settings(self) -> BackendSettings:
        """The job's backend settings, read by its backend type's own reader (``of_props``)."""
        from provider.backends.settings import settings_of_props

        return settings_of_props(self.to_props())
