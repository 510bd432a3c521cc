"""Google-style API errors: ``{"error": {"code", "message", "status", "details"}}``.

``code`` is the HTTP status, ``status`` the google.rpc code name, and field problems travel as a
``google.rpc.BadRequest`` detail with ``fieldViolations`` (snake_case field paths, as Google
writes them).
"""

from __future__ import annotations

from typing import Any

from provider.core.record import Record
from provider.core.rpc_code import RpcCode


class FieldViolation(Record):
    """One field's problem in an error answer (a ``fieldViolations`` entry of google.rpc.BadRequest)."""

    field: str  # job_spec.worker_pool_specs[0].machine_spec.accelerator_count
    description: str


class ApiError(Exception):
    """An error answer: raised anywhere below the HTTP handler, written by it."""

    def __init__(self, status: str, message: str, violations: tuple[FieldViolation, ...] = (),
                 http: int | None = None, headers: tuple[tuple[str, str], ...] = (), reason: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.violations = violations
        self.http = http or RpcCode.named(status, RpcCode.INTERNAL).http
        self.headers = headers
        self.reason = reason  # the Cloud Storage JSON API's errors[].reason (notFound, conditionNotMet ...)

    def body(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.http, "message": self.message, "status": self.status}
        if self.reason:
            error["errors"] = [{"message": self.message, "domain": "global", "reason": self.reason}]
        if self.violations:
            error["details"] = [{
                "@type": "type.googleapis.com/google.rpc.BadRequest",
                "fieldViolations": [{"field": v.field, "description": v.description} for v in self.violations],
            }]
        return {"error": error}


def invalid(message: str, violations: tuple[FieldViolation, ...] = ()) -> ApiError:
    return ApiError("INVALID_ARGUMENT", message, violations)


def not_found(message: str) -> ApiError:
    return ApiError("NOT_FOUND", message)


def failed_precondition(message: str) -> ApiError:
    return ApiError("FAILED_PRECONDITION", message)
