"""Which labels mark a stack's jobs.

Every job a stack starts carries ``trainjobs-stack=<stack>`` (provider.submission.launch.labels_for); the job
commands (``--stack``) and the console list a stack's jobs by it. The stack's backend itself is
built by provider.backends.settings.open_backend.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from provider.core.labels import STACK_LABEL  # set on every job a stack starts (provider.core.labels)

if TYPE_CHECKING:
    from provider.stack.config import StackConfig


def stack_labels(stack: StackConfig) -> dict[str, str]:
    """The labels every job of ``stack`` carries (what ``jobs list --stack`` filters on)."""
    from provider.core.labels import label_value

    return {STACK_LABEL: label_value(stack.name)}
