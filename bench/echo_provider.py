"""The floor's dynamic provider (bench/program_bench.py, bench/provider_bench.py): it echoes its inputs
and checks nothing.

It lives in a module of its own so that the SDK serialises it by reference, as it serialises
trainjobs' provider (a class importable from its module), not by value.
"""

from __future__ import annotations

from typing import Any

import pulumi
from pulumi.dynamic import CreateResult, DiffResult, Resource, ResourceProvider


class EchoProvider(ResourceProvider):
    """Check: the SDK's default (the news, no failures). Diff: no change, without reading anything
    (bench/provider_bench.py's floor: the host's own cost for the same inputs)."""

    def diff(self, _id: str, _olds: dict[str, Any], _news: dict[str, Any]) -> DiffResult:
        return DiffResult(changes=False)

    def create(self, props: dict[str, Any]) -> CreateResult:
        return CreateResult(id_="echo", outs=props)


class Echo(Resource):
    def __init__(self, name: str, props: dict[str, Any], opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__(EchoProvider(), name, props, opts)
