"""The CLI's error guard for commands that talk to a backend.

A backend's error (``provider.backends.base.BackendError``) is a user error: one line, no
traceback. So is a module of an optional part that is not installed, should a command reach one
before its own check (provider.core.optional): the message names the install command. The
backend seam is imported only when such an error is raised, so registering commands
(``trainjobs --help``, ``trainjobs validate``) never loads it.
"""

from __future__ import annotations

import argparse
import functools
from collections.abc import Callable
from typing import TYPE_CHECKING

from provider.core.errors import UserError

if TYPE_CHECKING:
    from provider.core.errors import BackendError

Command = Callable[[argparse.Namespace], int]


def user_error(exc: BackendError) -> UserError:
    """A backend's error as the CLI says it: its message, and the exit code of its kind (not found,
    invalid, unavailable: provider.core.exit_code)."""
    from provider.core.exit_code import of_rpc

    return UserError(exc.message, exit_code=of_rpc(exc.code))


def guard(fn: Command) -> Command:
    """Backend errors are user errors: one line, no traceback."""

    @functools.wraps(fn)
    def wrapped(args: argparse.Namespace) -> int:
        try:
            return fn(args)
        except Exception as exc:
            from provider.backends.base import BackendError

            if isinstance(exc, BackendError):
                raise user_error(exc) from exc
            if isinstance(exc, ModuleNotFoundError):
                from provider.core.optional import part_of, require

                part = part_of(exc.name)
                if part is not None:
                    require(part, f"trainjobs {getattr(args, 'command', None) or 'this command'}")
            raise

    return wrapped
