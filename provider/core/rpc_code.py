"""google.rpc.Code: each code's number and its HTTP status, as Google maps them. The one table.

Source: google/rpc/code.proto (googleapis), whose comment on each code gives its "HTTP Mapping",
and the API design guide's error table (cloud.google.com/apis/design/errors). Every server of
trainjobs (the emulator, its Cloud Storage and Cloud Logging stand-ins, the console) answers with
``RpcCode.X.http``, and every client reading an HTTP status without a google.rpc name (the Vertex
backend) reads it with ``RpcCode.of_http``.
"""

from __future__ import annotations

import enum


class RpcCode(enum.Enum):
    """A google.rpc.Code: ``(number, HTTP status)``."""

    OK = (0, 200)
    CANCELLED = (1, 499)
    UNKNOWN = (2, 500)
    INVALID_ARGUMENT = (3, 400)
    DEADLINE_EXCEEDED = (4, 504)
    NOT_FOUND = (5, 404)
    ALREADY_EXISTS = (6, 409)
    PERMISSION_DENIED = (7, 403)
    RESOURCE_EXHAUSTED = (8, 429)
    FAILED_PRECONDITION = (9, 400)
    ABORTED = (10, 409)
    OUT_OF_RANGE = (11, 400)
    UNIMPLEMENTED = (12, 501)
    INTERNAL = (13, 500)
    UNAVAILABLE = (14, 503)
    DATA_LOSS = (15, 500)
    UNAUTHENTICATED = (16, 401)

    @property
    def number(self) -> int:
        return self.value[0]

    @property
    def http(self) -> int:
        return self.value[1]

    @classmethod
    def named(cls, name: str, default: RpcCode | None = None) -> RpcCode:
        """The code called ``name`` (``"NOT_FOUND"``); ``default`` (else UNKNOWN) for any other word."""
        try:
            return cls[name]
        except KeyError:
            return default or cls.UNKNOWN

    @classmethod
    def of_http(cls, status: int) -> RpcCode | None:
        """The code an HTTP status stands for when a response names none; None for a status outside
        the mapping. Where several codes share a status (400, 409, 500), the one read is the code a
        client can act on most generally: INVALID_ARGUMENT, ALREADY_EXISTS, INTERNAL (as
        google.api_core reads a bare 500); 502, outside Google's table, is UNAVAILABLE (a proxy in
        front of the service failed: retried as a 503 is)."""
        return _OF_HTTP.get(status)


_SHARED = {400: RpcCode.INVALID_ARGUMENT, 409: RpcCode.ALREADY_EXISTS, 500: RpcCode.INTERNAL, 502: RpcCode.UNAVAILABLE}
_OF_HTTP: dict[int, RpcCode] = {**{c.http: c for c in RpcCode if c is not RpcCode.OK}, **_SHARED}
