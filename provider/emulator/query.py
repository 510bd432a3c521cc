"""What every route of the emulator checks in a request's query, and the parent its path names.

Google's front end refuses a query parameter that the method's request message has no field for
(400, "Cannot bind query parameter"), beside the system parameters every method takes ($alt, fields,
key ...). The job, PersistentResource, training and TensorBoard/metadata routes all check it here.
"""

from __future__ import annotations

from collections.abc import Mapping

from provider.emulator.errors import invalid

COMMON = ("$alt", "alt", "$prettyPrint", "prettyPrint", "$fields", "fields", "key", "$callback")
LIST = ("filter", "pageSize", "pageToken", "readMask")  # what a list method takes


def check_params(params: Mapping[str, str], allowed: tuple[str, ...] = (), method: str | None = None) -> None:
    """400 INVALID_ARGUMENT for the first parameter neither ``allowed`` nor a system one; ``method``
    (``trainingPipelines.list``) names what the method takes in the message."""
    for key in params:
        if key not in COMMON and key not in allowed:
            takes = f" ({method} takes {', '.join(allowed) or 'no query parameter'})" if method else ""
            raise invalid(f"Invalid JSON payload received. Unknown name \"{key}\": Cannot bind query parameter. "
                          f"Field '{key}' could not be found in request message{takes}.")


def parent(m: Mapping[str, str]) -> str:
    """``projects/P/locations/L`` of a route's match."""
    return f"projects/{m['project']}/locations/{m['location']}"
