"""Google-style API errors: ``{"error": {"code", "message", "status", "details"}}``.

``code`` is the HTTP status, ``status`` the google.rpc code name, and field problems travel as a
``google.rpc.BadRequest`` detail with ``fieldViolations`` (snake_case field paths, as Google
writes them).
"""

from __future__ import annotations

from typing import Any

from provider.core.record import Record

HTTP_STATUS = {
    "CANCELLED": 499, "UNKNOWN": 500, "INVALID_ARGUMENT": 400, "DEADLINE_EXCEEDED": 504, "NOT_FOUND": 404,
    "ALREADY_EXISTS": 409, "PERMISSION_DENIED": 403, "RESOURCE_EXHAUSTED": 429, "FAILED_PRECONDITION": 400,
    "ABORTED": 409, "OUT_OF_RANGE": 400, "UNIMPLEMENTED": 501, "INTERNAL": 500, "UNAVAILABLE": 503,
    "DATA_LOSS": 500, "UNAUTHENTICATED": 401,
}
# google.rpc.Code numbers, for the ``error`` of a job (google.rpc.Status).
RPC_CODE = {
    "OK": 0, "CANCELLED": 1, "UNKNOWN": 2, "INVALID_ARGUMENT": 3, "DEADLINE_EXCEEDED": 4, "NOT_FOUND": 5,
    "ALREADY_EXISTS": 6, "PERMISSION_DENIED": 7, "RESOURCE_EXHAUSTED": 8, "FAILED_PRECONDITION": 9, "ABORTED": 10,
    "OUT_OF_RANGE": 11, "UNIMPLEMENTED": 12, "INTERNAL": 13, "UNAVAILABLE": 14, "DATA_LOSS": 15,
    "UNAUTHENTICATED": 16,
}


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
        self.http = http or HTTP_STATUS.get(status, 500)
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
