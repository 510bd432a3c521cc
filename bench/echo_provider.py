"""The floor's dynamic provider (bench/program_bench.py): it echoes its inputs and checks nothing.

It lives in a module of its own so that the SDK serialises it by reference, as it serialises
trainjobs' provider (a class importable from its module), not by value.
"""

from __future__ import annotations

from typing import Any

import pulumi
from pulumi.dynamic import CreateResult, Resource, ResourceProvider


class EchoProvider(ResourceProvider):
    def create(self, props: dict[str, Any]) -> CreateResult:
        return CreateResult(id_="echo", outs=props)


class Echo(Resource):
    def __init__(self, name: str, props: dict[str, Any], opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__(EchoProvider(), name, props, opts)
