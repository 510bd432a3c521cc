"""Drive the Pulumi SDK's own dynamic-provider host over gRPC, as the engine does.

The engine starts dynamic providers with ``python -u -m pulumi.dynamic``; the host prints its
port, serves pulumirpc.ResourceProvider, and deserialises the provider from ``__provider``.
ProviderHost does the same and calls Configure, Check, Diff, Create, Read, Update and Delete
with properties serialised by the SDK's own rpc module.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
from google.protobuf import struct_pb2
from pulumi.dynamic.dynamic import serialize_provider
from pulumi.runtime import rpc
from pulumi.runtime.proto import provider_pb2, provider_pb2_grpc

ROOT = Path(__file__).resolve().parents[2]
PROVIDER_KEY = "__provider"
URN = "urn:pulumi:test::trainjobs::pulumi-python:dynamic/trainjobs:TrainingJob::{name}"


def provider_string(provider: Any) -> str:
    return serialize_provider(provider)


@dataclass(frozen=True)
class DiffAnswer:
    changes: str  # DIFF_SOME | DIFF_NONE | DIFF_UNKNOWN
    replaces: tuple[str, ...]
    delete_before_replace: bool


class HostError(Exception):
    """The host answered with an error status: ``details`` is what the engine would print."""

    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        super().__init__(details)
        self.code = code
        self.details = details

    @property
    def last_line(self) -> str:
        lines = [line for line in self.details.strip().splitlines() if line.strip()]
        return lines[-1] if lines else ""


class ProviderHost:
    def __init__(self, env: dict[str, str] | None = None, cwd: Path = ROOT) -> None:
        # The engine starts a provider plugin in the program's directory (pkg/resource/plugin:
        # newPlugin(ctx, ctx.Pwd, ...), cmd.Dir = pwd): relative paths in the state resolve there.
        self.proc = subprocess.Popen(
            [sys.executable, "-u", "-m", "pulumi.dynamic"], cwd=cwd, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, env={**os.environ, **(env or {})}, start_new_session=True,
        )
        self.channel: grpc.Channel | None = None
        self._stderr: threading.Thread | None = None
        try:  # a host that fails to start is still killed: the test owns it
            assert self.proc.stdout is not None
            line = self.proc.stdout.readline().decode().strip()
            if not line.isdigit():
                self.proc.kill()
                _, err = self.proc.communicate(timeout=60)
                raise RuntimeError(f"the dynamic provider host did not start: {line!r} {err.decode(errors='replace')}")
            self.port = int(line)
            self.channel = grpc.insecure_channel(f"127.0.0.1:{self.port}")
            self.stub = provider_pb2_grpc.ResourceProviderStub(self.channel)
            self._stderr = threading.Thread(target=self._drain, daemon=True)
            self._stderr.start()
            self.stub.Configure(provider_pb2.ConfigureRequest(args=struct_pb2.Struct(), acceptSecrets=False,
                                                              acceptResources=True))
        except BaseException:
            self.close()
            raise

    def _drain(self) -> None:
        assert self.proc.stderr is not None
        for _ in self.proc.stderr:
            pass

    def close(self) -> None:
        if self.channel is not None:
            self.channel.close()
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=60)
        if self._stderr is not None:
            self._stderr.join(timeout=60)
        for pipe in (self.proc.stdout, self.proc.stderr):
            if pipe is not None:
                pipe.close()

    def __enter__(self) -> ProviderHost:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- serialisation, with the SDK's own code ---------------------------------------------
    @staticmethod
    def struct(props: dict[str, Any]) -> struct_pb2.Struct:
        loop = asyncio.new_event_loop()
        try:
            return loop.run_until_complete(rpc.serialize_properties(props, {}))
        finally:
            loop.close()

    @staticmethod
    def props(struct: struct_pb2.Struct) -> dict[str, Any]:
        return dict(rpc.deserialize_properties(struct, keep_unknowns=True))

    def _call(self, method: str, request: Any) -> Any:
        try:
            return getattr(self.stub, method)(request, timeout=600)
        except grpc.RpcError as exc:
            raise HostError(exc.code(), exc.details() or "") from None

    # -- the ResourceProvider calls ------------------------------------------------------------
    def check(self, news: dict[str, Any], olds: dict[str, Any] | None = None,
              name: str = "job") -> tuple[dict[str, Any], list[tuple[str, str]]]:
        resp = self._call("Check", provider_pb2.CheckRequest(
            urn=URN.format(name=name), olds=self.struct(olds or {}), news=self.struct(news)))
        return self.props(resp.inputs), [(f.property, f.reason) for f in resp.failures]

    def diff(self, id_: str, olds: dict[str, Any], news: dict[str, Any], name: str = "job") -> DiffAnswer:
        resp = self._call("Diff", provider_pb2.DiffRequest(
            id=id_, urn=URN.format(name=name), olds=self.struct(olds), news=self.struct(news)))
        changes = provider_pb2.DiffResponse.DiffChanges.Name(resp.changes)
        return DiffAnswer(changes, tuple(resp.replaces), resp.deleteBeforeReplace)

    def create(self, props: dict[str, Any], name: str = "job") -> tuple[str, dict[str, Any]]:
        resp = self._call("Create", provider_pb2.CreateRequest(urn=URN.format(name=name), properties=self.struct(props)))
        return resp.id, self.props(resp.properties)

    def read(self, id_: str, props: dict[str, Any], name: str = "job") -> tuple[str, dict[str, Any]]:
        resp = self._call("Read", provider_pb2.ReadRequest(id=id_, urn=URN.format(name=name),
                                                           properties=self.struct(props)))
        return resp.id, self.props(resp.properties)

    def update(self, id_: str, olds: dict[str, Any], news: dict[str, Any], name: str = "job") -> dict[str, Any]:
        resp = self._call("Update", provider_pb2.UpdateRequest(
            id=id_, urn=URN.format(name=name), olds=self.struct(olds), news=self.struct(news)))
        return self.props(resp.properties)

    def delete(self, id_: str, props: dict[str, Any], name: str = "job") -> None:
        self._call("Delete", provider_pb2.DeleteRequest(id=id_, urn=URN.format(name=name),
                                                        properties=self.struct(props)))

    def check_and_create(self, inputs: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """What the engine does for a new resource: Check, then Create with the checked inputs."""
        inputs = dict(inputs)
        if rpc.is_rpc_secret(inputs.get(PROVIDER_KEY)):
            inputs[PROVIDER_KEY] = rpc.unwrap_rpc_secret(inputs[PROVIDER_KEY])
        checked, failures = self.check(inputs)
        if failures:
            raise HostError(grpc.StatusCode.INVALID_ARGUMENT, "; ".join(f"{p}: {r}" for p, r in failures))
        return self.create(checked)
