"""A stack's backend: where the jobs of one Pulumi stack run, built from its settings.

The one place that turns ``trainjobs:backend`` and its settings into a backend (the local backend
with the stack's ``trainjobs:localHome``, or Vertex AI in the stack's project and region through
its ``trainjobs:apiEndpoint``, which may be the emulator), and that says which labels mark the
stack's jobs. The job commands (``--stack``) and the console use it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from provider.backends import get_backend
from provider.labels import STACK_LABEL  # set on every job a stack starts (provider.labels)

if TYPE_CHECKING:
    from provider.backends.base import Backend
    from provider.stack.config import StackConfig


def backend_for_stack(stack: StackConfig, **vertex_options: Any) -> Backend:
    """``vertex_options`` (retry, timeout) tune the Vertex AI client, for callers that must answer fast."""
    if stack.backend == "local":
        return get_backend("local", home=stack.local_home or None)
    return get_backend("vertex", project=stack.project_id, location=stack.region,
                       api_endpoint=stack.api_endpoint or None, **vertex_options)


def stack_labels(stack: StackConfig) -> dict[str, str]:
    """The labels every job of ``stack`` carries (what ``jobs list --stack`` filters on)."""
    from provider.labels import label_value

    return {STACK_LABEL: label_value(stack.name)}
