"""What a backend type is: its kind, what it can do, and the references to its code.

A backend *kind* (``trainjobs:backend`` in a stack file, ``backend`` in a TrainingJob's inputs,
``JobStatus.backend``) is a ``BackendKind``: a string, open to kinds this module has never heard
of, so a third backend needs no change here. What a kind means is its ``BackendType``, declared
in provider.core.backend_registry: what it can do (``Capabilities``), its part of the stack
schema, the validation target of its stacks, and ``Ref``s ('module:attr', as Python entry points
name their code) to what lives in its own package: its typed settings, which open it, and its
team-infrastructure hook. Callers ask a capability (``capabilities(stack.backend).billed``), never
compare a backend's name.
"""

from __future__ import annotations

import enum
import importlib
from collections.abc import Mapping

from provider.core.record import Record, field


class BackendKind(str):
    """A backend's kind, as stacks, resource inputs and job statuses write it: ``local``, ``vertex``, ..."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"BackendKind({str(self)!r})"


class Outputs(enum.Enum):
    """Where a backend's jobs leave their outputs (``baseOutputDirectory``, a gs:// URI either way)."""

    THIS_MACHINE = "this machine"  # files in the backend's storage on this machine
    CLOUD_STORAGE = "Cloud Storage"  # objects in Cloud Storage (the emulator's, through its endpoint)


class Capabilities(Record):
    """What a backend does; each field is the question some caller used to answer by its name."""

    billed: bool  # its jobs cost money: the plan's and the console's cost totals count them
    remote: bool  # its jobs run elsewhere than this machine: followed by their logs, not the live replica view
    gpus: bool  # it runs accelerators (this machine's GPUs, Vertex AI's)
    builds_images: bool  # Pulumi builds a spec's image from source and pushes it to the team's registry
    persistent_resources: bool  # trainjobs:persistentResources are created (else warned about and ignored)
    service_accounts: bool  # its jobs run as the team's service account (TeamInfra creates it)
    needs_project: bool  # a stack of it names gcp:project (its bucket name, its requests' parent)
    outputs: Outputs
    # it serves the rest of Vertex AI's API (training pipelines, models, experiments): the console reads them there
    vertex_api: bool = False


class Ref(str):
    """Code named as 'package.module:attribute', imported only when it is loaded (Python's entry-point syntax)."""

    __slots__ = ()

    def load(self) -> object:
        module, _, attr = self.partition(":")
        if not module or not attr:
            raise ValueError(f"{self!r} is not a reference: write 'package.module:attribute'")
        return getattr(importlib.import_module(module), attr)


class BackendType(Record):
    """One registered backend: every answer about it that does not need its code, and references to that code."""

    kind: BackendKind
    title: str  # how messages name it: "the local backend", "Vertex AI"
    job_word: str  # how messages name one of its jobs: "a local job", "a Vertex AI job"
    capabilities: Capabilities
    validation_target: str  # the value of provider.validation.rules.Target its stacks' specs are checked for
    settings: Ref  # its typed settings class: of_stack(stack), of_props(props), to_props(), open(retry, timeout)
    team_infra: Ref  # what TeamInfra creates for a stack of it: a function (infra, child options) -> None
    # Its keys of a stack file's config, with their JSON Schema (provider.stack.schema adds them).
    stack_keys: Mapping[str, Mapping[str, object]] = field(default_factory=dict, compare=False)
    required_keys: tuple[str, ...] = ()  # keys a stack of this kind must set besides the common ones
    optional_part: str | None = None  # the provider.core.optional.Part (its name) its code needs installed
