"""Errors meant for the user: printed as one clear message, never as a traceback."""

from __future__ import annotations


class UserError(Exception):
    """Something the user can fix. ``exit_code`` 1 for a failed check, 2 for a usage error."""

    def __init__(self, message: str, exit_code: int = 1) -> None:
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code
