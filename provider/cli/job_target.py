"""Which backend a job command talks to: ``--stack S`` (its backend, its jobs), or the local one.

``trainjobs jobs list|status|logs|cancel|artifacts|tensorboard`` share this, so a job is found the
same way everywhere: an id, a full resource name, a unique id prefix, or a spec's job name (its
newest run), among the stack's jobs.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from provider.core.backend_registry import backend_type
from provider.core.errors import UserError
from provider.core.record import Record

if TYPE_CHECKING:
    from provider.backends.base import Backend
    from provider.stack.config import StackConfig


class Target(Record):
    """The backend a job command talks to, and which of its jobs it sees (a stack's, or every local one)."""

    backend: Backend  # local or Vertex AI
    labels: dict[str, str] | None  # the stack's jobs, or None for every local job
    where: str  # "the local backend" or "stack S (vertex: project/region)"
    stack: StackConfig | None = None  # when --stack was given


def add_stack_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--stack", metavar="S", help="the jobs of this stack, on its backend (local, Vertex AI or "
                        "the emulator, from stacks/Pulumi.S.yaml); default: the local backend")
    parser.add_argument("--stacks-dir", default="stacks", metavar="DIR", help=argparse.SUPPRESS)


def target(args: argparse.Namespace) -> Target:
    name = getattr(args, "stack", None)
    if not name:
        from provider.backends.settings import open_local

        return Target(open_local().backend, None, "the local backend")
    from provider.backends.for_stack import stack_labels
    from provider.backends.settings import open_backend, settings_of_stack
    from provider.workspace import Workspace

    index = Workspace.here(Path(getattr(args, "stacks_dir", "stacks"))).index  # also from a subfolder
    stack = index.stack(name)
    if stack is None:
        known = ", ".join(sorted(s.name for s in index.stacks)) or "none"
        raise UserError(f"--stack {name!r}: no stacks/Pulumi.{name}.yaml here (or it is invalid: run trainjobs "
                        f"validate stacks/); stacks: {known}", exit_code=2)
    declared = backend_type(stack.backend)
    if declared.optional_part:
        from provider.core.optional import Part, require

        require(Part[declared.optional_part], f"--stack {name} (a {declared.title} stack)")
    where = f"stack {stack.name} ({stack.backend}" + (
        f": {stack.project_id}/{stack.region}" + (f" at {stack.api_endpoint}" if stack.api_endpoint else "")
        if declared.capabilities.remote else "") + ")"
    return Target(open_backend(settings_of_stack(stack)).backend, stack_labels(stack), where, stack)


def resolve(t: Target, ref: str) -> str:
    return t.backend.resolve(ref, labels=t.labels)
