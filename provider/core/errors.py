"""Errors meant for the user: printed as one clear message, never as a traceback.

UserError is what the CLI prints; BackendError and its subclasses (one per google.rpc code) are
what a backend, a stager or the packaging raise, and what the CLI's guard and the Pulumi provider
turn into one line. ``provider.backends.base`` re-exports them: the seam's callers import them there.
"""

from __future__ import annotations


class UserError(Exception):
    """Something the user can fix; ``exit_code`` from provider.core.exit_code.ExitCode (default: INVALID, 1)."""

    def __init__(self, message: str, exit_code: int = 1) -> None:
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code


class BackendError(Exception):
    """A failure the user can act on; ``code`` is the google.rpc code name."""

    code = "UNKNOWN"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class NotFound(BackendError):
    code = "NOT_FOUND"


class InvalidArgument(BackendError):
    code = "INVALID_ARGUMENT"


class FailedPrecondition(BackendError):
    code = "FAILED_PRECONDITION"


class PermissionDenied(BackendError):
    code = "PERMISSION_DENIED"


class QuotaExceeded(BackendError):
    code = "RESOURCE_EXHAUSTED"


class Unavailable(BackendError):
    code = "UNAVAILABLE"
