"""google.api_core errors -> the backend's errors, each with a message a user can act on.

Google's status (``PERMISSION_DENIED``, ``RESOURCE_EXHAUSTED`` ...) is read from the error body
when the REST transport has one (a 400 may be INVALID_ARGUMENT or FAILED_PRECONDITION), else
from the gRPC status, else from the HTTP code. Google's own message is always echoed.

Transient, retried with backoff: UNAVAILABLE (503), DEADLINE_EXCEEDED (504), INTERNAL (500),
other 5xx, a connection that failed or was dropped, and a RESOURCE_EXHAUSTED (429) that is a
rate limit (ErrorInfo reason RATE_LIMIT_EXCEEDED, or a quota "per minute"). A 429 for a quota
such as GPUs or CPUs for training is not transient: it fails at once as QuotaExceeded.
"""

from __future__ import annotations

import json
from typing import Any

from provider.backends.base import (
    BackendError,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    QuotaExceeded,
    Unavailable,
)
from provider.core.record import Record
from provider.core.rpc_code import RpcCode

_TRANSIENT = frozenset({"UNAVAILABLE", "DEADLINE_EXCEEDED", "INTERNAL", "UNKNOWN_5XX"})


class Call(Record):
    """What the backend was doing, for the message: ``create`` a ``customJobs`` in a project."""

    action: str  # create | get | list | cancel | delete
    collection: str  # customJobs | hyperparameterTuningJobs
    project: str
    location: str
    endpoint: str
    target: str = ""  # the resource name, when there is one

    @property
    def permission(self) -> str:
        return f"aiplatform.{self.collection}.{self.action}"


def _body(exc: BaseException) -> dict[str, Any]:
    """The ``error`` object of a REST error response, or {}."""
    response = getattr(exc, "response", None)
    text = getattr(response, "text", None)
    if not isinstance(text, str) or not text:
        return {}
    try:
        data = json.loads(text)
    except ValueError:
        return {}
    error = data.get("error") if isinstance(data, dict) else None
    return error if isinstance(error, dict) else {}


def is_connection_error(exc: BaseException) -> bool:
    try:
        import requests
    except ImportError:  # pragma: no cover - requests comes with google-auth
        return False
    return isinstance(exc, requests.exceptions.ConnectionError | requests.exceptions.Timeout)


def is_auth_error(exc: BaseException) -> bool:
    """google-auth could not find, refresh or use the credentials."""
    try:
        from google.auth.exceptions import GoogleAuthError
    except ImportError:  # pragma: no cover - google-auth comes with the SDK
        return False
    return isinstance(exc, GoogleAuthError)


LOGIN_HINT = "Run `gcloud auth application-default login`, or set GOOGLE_APPLICATION_CREDENTIALS"


def status_of(exc: BaseException) -> str | None:
    """Google's status name for an API error (None for anything else)."""
    body = _body(exc)
    if isinstance(body.get("status"), str) and body["status"]:
        return str(body["status"])
    grpc_code = getattr(exc, "grpc_status_code", None)
    if grpc_code is not None:
        return str(getattr(grpc_code, "name", grpc_code))
    code = getattr(exc, "code", None)
    if isinstance(code, int):
        known = RpcCode.of_http(code)
        if known is not None:
            return known.name
        if 500 <= code < 600:
            return "UNKNOWN_5XX"
    return None


def google_message(exc: BaseException) -> str:
    """Google's message, without the ``POST https://...:`` the REST transport puts before it."""
    body = _body(exc)
    if isinstance(body.get("message"), str) and body["message"]:
        return str(body["message"])
    message = getattr(exc, "message", None)
    return str(message if message else exc)


def _reasons(exc: BaseException) -> list[str]:
    details = _body(exc).get("details") or getattr(exc, "details", None) or []
    out = []
    for d in details if isinstance(details, list) else []:
        if isinstance(d, dict) and d.get("reason"):
            out.append(str(d["reason"]))
    reason = getattr(exc, "reason", None)
    if reason:
        out.append(str(reason))
    return out


def is_rate_limit(exc: BaseException) -> bool:
    return "RATE_LIMIT_EXCEEDED" in _reasons(exc) or "per minute" in google_message(exc).lower()


def is_transient(exc: BaseException) -> bool:
    """Worth another try: the service was unavailable, slow, failed inside, or rate-limited us."""
    if is_connection_error(exc):
        return True
    status = status_of(exc)
    if status in _TRANSIENT:
        return True
    return status == "RESOURCE_EXHAUSTED" and is_rate_limit(exc)


def translate(exc: BaseException, call: Call) -> BackendError | None:
    """The backend error for ``exc``; None when it is not an API or connection error (a bug)."""
    where = f"project {call.project!r} ({call.location})"
    what = f"{call.target}" if call.target else f"{call.collection} in {where}"
    if is_connection_error(exc):
        return Unavailable(f"cannot reach Vertex AI at {call.endpoint} to {call.action} {what}: {exc}. Check the "
                           "network (or that the emulator is running), then try again")
    if is_auth_error(exc):
        return PermissionDenied(f"no usable Google credentials to {call.action} {what}: {exc}. {LOGIN_HINT}")
    status = status_of(exc)
    if status is None:
        return None
    message = google_message(exc)
    if status == "PERMISSION_DENIED":
        extra = (" If the job runs as a service account, you also need roles/iam.serviceAccountUser on it."
                 if call.action == "create" else "")
        return PermissionDenied(
            f"permission denied to {call.action} {what}: {message}. The caller needs {call.permission} on "
            f"{where}, which the role roles/aiplatform.user grants (check the Vertex AI API is enabled too).{extra}")
    if status == "UNAUTHENTICATED":
        return PermissionDenied(f"Vertex AI did not accept the credentials to {call.action} {what}: {message}. "
                                f"{LOGIN_HINT}")
    if status == "RESOURCE_EXHAUSTED":
        return QuotaExceeded(
            f"quota exceeded to {call.action} {what}: {message}. Ask for more quota (Google Cloud console, IAM & "
            "Admin > Quotas, service aiplatform.googleapis.com), use fewer or other accelerators, or another region")
    if status in ("INVALID_ARGUMENT", "OUT_OF_RANGE"):
        return InvalidArgument(f"Vertex AI refused to {call.action} {what}: {message}")
    if status == "FAILED_PRECONDITION":
        return FailedPrecondition(f"Vertex AI cannot {call.action} {what} now: {message}")
    if status == "NOT_FOUND":
        return NotFound(f"no Vertex AI job {call.target or what}: {message}" if call.target
                        else f"not found in {where}: {message}")
    if status in _TRANSIENT:
        return Unavailable(f"Vertex AI is unavailable ({status}) to {call.action} {what}, after retries: {message}")
    return BackendError(f"Vertex AI failed to {call.action} {what} ({status}): {message}")
