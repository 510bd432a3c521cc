"""The registered backend types: one declaration each, and the look-ups every layer uses.

Why the declarations live here, at the bottom, as data: provider.stack and provider.workspace sit
below provider.backends in the layer contract (pyproject.toml), yet they must know what a stack's
backend can do (is it billed, must it name a project, what validation target do its specs get,
what is its part of the stack schema). So a declaration is plain data that every layer may read,
and the code of a backend (its settings class, how it opens, its team-infrastructure hook) is
named by a ``Ref`` ('module:attr', as Python entry points do) and imported only by the layer that
runs it (provider.backends.registry, provider.resources.team), when it runs it: a local user never
imports the Vertex SDK, and no lower layer imports a backend package.

Adding a backend: its own package under provider/backends/ (its Backend, its settings class, its
team-infrastructure hook), one ``BackendType`` in ``REGISTRY`` below, and its package in the
"backends do not know each other" contract of pyproject.toml (README, "Adding a backend").
"""

from __future__ import annotations

from collections.abc import Mapping

from provider.core.backend_types import BackendKind, BackendType, Capabilities, Outputs, Ref

_STRING = "string"

REGISTRY: tuple[BackendType, ...] = (
    BackendType(
        kind=BackendKind("local"), title="the local backend", job_word="local",
        capabilities=Capabilities(billed=False, remote=False, gpus=True, builds_images=False,
                                  persistent_resources=False, service_accounts=False, needs_project=False,
                                  outputs=Outputs.THIS_MACHINE),
        validation_target="local",
        settings=Ref("provider.backends.local.settings:LocalSettings"),
        team_infra=Ref("provider.resources.team:local_team"),
        stack_keys={"trainjobs:localHome": {"type": _STRING,
                                            "description": "the local backend's state directory (default: per user)"}},
    ),
    BackendType(
        kind=BackendKind("vertex"), title="Vertex AI", job_word="Vertex AI",
        capabilities=Capabilities(billed=True, remote=True, gpus=True, builds_images=True,
                                  persistent_resources=True, service_accounts=True, needs_project=True,
                                  outputs=Outputs.CLOUD_STORAGE, vertex_api=True),
        validation_target="vertex",
        settings=Ref("provider.backends.vertex.settings:VertexSettings"),
        team_infra=Ref("provider.resources.team:vertex_team"),
        stack_keys={"trainjobs:apiEndpoint": {
            "type": _STRING,
            "description": "a Vertex AI endpoint to use instead of Google's (the trainjobs emulator)"}},
        required_keys=("gcp:project",),
        optional_part="VERTEX",
    ),
)

# A TrainingJob's inputs written before the ``backend`` input existed ran on Vertex AI.
DEFAULT_FOR_OLD_STATE = BackendKind("vertex")
# Where a job in no stack runs (``trainjobs run SPEC``, the job commands without --stack).
THIS_MACHINE = BackendKind("local")


class UnknownBackend(ValueError):
    """A backend kind that no BackendType declares."""


def kinds() -> tuple[BackendKind, ...]:
    """Every registered kind, in registry order."""
    return tuple(t.kind for t in REGISTRY)


def backend_type(kind: str) -> BackendType:
    """The declaration of ``kind``; UnknownBackend names the registered ones."""
    for declared in REGISTRY:
        if declared.kind == kind:
            return declared
    raise UnknownBackend(f"unknown backend {str(kind)!r}: {' or '.join(kinds())}")


def kind_of(props: Mapping[str, object]) -> BackendKind:
    """The kind of a TrainingJob resource's inputs (its ``backend``; state from before that input: Vertex AI)."""
    return BackendKind(str(props.get("backend") or DEFAULT_FOR_OLD_STATE))


def capabilities(kind: str) -> Capabilities:
    """What a backend of ``kind`` does (``capabilities(stack.backend).billed``)."""
    return backend_type(kind).capabilities
