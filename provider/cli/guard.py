"""The CLI's error guard for commands that talk to a backend.

A backend's error (``provider.backends.base.BackendError``) is a user error: one line, no
traceback. The backend seam is imported only when such an error is raised, so registering
commands (``trainjobs --help``, ``trainjobs validate``) never loads it.
"""

from __future__ import annotations

import argparse
import functools
from collections.abc import Callable

from provider.core.errors import UserError

Command = Callable[[argparse.Namespace], int]


def guard(fn: Command) -> Command:
    """Backend errors are user errors: one line, no traceback."""

    @functools.wraps(fn)
    def wrapped(args: argparse.Namespace) -> int:
        try:
            return fn(args)
        except Exception as exc:
            from provider.backends.base import BackendError

            if isinstance(exc, BackendError):
                raise UserError(exc.message) from exc
            raise

    return wrapped
