"""google.rpc.Code: the one table of numbers and HTTP statuses, checked against googleapis' own
code.proto as the installed googleapis-common-protos carries it (google.rpc.code_pb2)."""

from __future__ import annotations

import pytest
from google.rpc import code_pb2

from provider.core.rpc_code import RpcCode

# google/rpc/code.proto's "HTTP Mapping" comment of each code.
GOOGLE_HTTP = {"OK": 200, "CANCELLED": 499, "UNKNOWN": 500, "INVALID_ARGUMENT": 400, "DEADLINE_EXCEEDED": 504,
               "NOT_FOUND": 404, "ALREADY_EXISTS": 409, "PERMISSION_DENIED": 403, "UNAUTHENTICATED": 401,
               "RESOURCE_EXHAUSTED": 429, "FAILED_PRECONDITION": 400, "ABORTED": 409, "OUT_OF_RANGE": 400,
               "UNIMPLEMENTED": 501, "INTERNAL": 500, "UNAVAILABLE": 503, "DATA_LOSS": 500}


def test_every_google_code_with_its_number() -> None:
    google = {name: number for name, number in code_pb2.Code.items()}
    assert {c.name: c.number for c in RpcCode} == google


@pytest.mark.parametrize("code", list(RpcCode), ids=lambda c: c.name)
def test_http_status_is_googles(code: RpcCode) -> None:
    assert code.http == GOOGLE_HTTP[code.name]


def test_a_status_read_back_is_a_code_of_that_status() -> None:
    for code in RpcCode:
        if code is not RpcCode.OK:
            back = RpcCode.of_http(code.http)
            assert back is not None and back.http == code.http
    assert RpcCode.of_http(400) is RpcCode.INVALID_ARGUMENT
    assert RpcCode.of_http(500) is RpcCode.INTERNAL
    assert RpcCode.of_http(502) is RpcCode.UNAVAILABLE
    assert RpcCode.of_http(200) is None
    assert RpcCode.of_http(418) is None


def test_named() -> None:
    assert RpcCode.named("NOT_FOUND") is RpcCode.NOT_FOUND
    assert RpcCode.named("nonsense") is RpcCode.UNKNOWN
    assert RpcCode.named("nonsense", RpcCode.INTERNAL) is RpcCode.INTERNAL
