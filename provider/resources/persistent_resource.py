"""The PersistentResource dynamic resource: a Vertex AI PersistentResource a stack declares.

Its inputs are ``persistentResourceId``, ``project``, ``region``, ``apiEndpoint`` (optional) and
``body`` (the REST JSON of provider.stack.persistent.PersistentResource.body()). The program
declares one per entry of ``trainjobs:persistentResources`` in a vertex stack, before the jobs
that name it in ``persistentResourceId`` (they depend on it).

* check()  the ID and the pools (the stack schema checked them already; this guards direct use).
* diff()   any change replaces the resource (its pools' machines are immutable, and the ID is
           reused, so the old one is deleted first).
* create() ``persistentResources.create`` and waits for the operation (machines are provisioned).
* read()   ``persistentResources.get``; one deleted elsewhere is gone from the state.
* delete() ``persistentResources.delete`` and waits for it.

The provider holds no state; the Vertex AI client is built inside each method. Facts and
sources: docs/pulumi.md ("Persistent resources").
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

import pulumi
from pulumi.dynamic import CheckFailure, CheckResult, CreateResult, DiffResult, ReadResult, ResourceProvider

from provider.resources.props import Props
from provider.resources.unknowns import has_unknown
from provider.stack.persistent import ID_PATTERN

TYPE_MODULE = "trainjobs"
OUTPUTS = ("resourceName", "state")


class PersistentResourceArgs(Props):
    """The resource's inputs (each one, changed, replaces it)."""

    persistent_resource_id: str | None = None
    project: str | None = None
    region: str | None = None
    body: dict[str, Any] | None = None  # provider.stack.persistent.PersistentResource.body()
    api_endpoint: str | None = None


REPLACING = PersistentResourceArgs.props_of(tuple(f.name for f in PersistentResourceArgs.__record_fields__))
OPERATION_TIMEOUT_SECONDS = 3600.0  # provisioning a pool's machines takes minutes


class PersistentResourceError(Exception):
    """Why a create or delete failed, in one line: which resource, what Vertex AI said."""


def resource_name(p: PersistentResourceArgs) -> str:
    return f"projects/{p.project}/locations/{p.region}/persistentResources/{p.persistent_resource_id}"


def check_failures(props: Mapping[str, Any]) -> list[CheckFailure]:
    """What is wrong with the inputs, as the engine sends them (nothing is checked while a value is unknown)."""
    p = PersistentResourceArgs.from_props(props)
    if has_unknown(p.persistent_resource_id) or has_unknown(p.body):
        return []
    failures = [CheckFailure(p.prop(k), f"{p.prop(k)} is required")
                for k in ("persistent_resource_id", "project", "region", "body") if getattr(p, k) in (None, "")]
    rid = p.persistent_resource_id
    if isinstance(rid, str) and not re.fullmatch(ID_PATTERN, rid):
        failures.append(CheckFailure("persistentResourceId", f"persistentResourceId {rid!r} is not a valid ID; "
                                     f"allowed: {ID_PATTERN} (at most 63 characters)"))
    body = p.body
    if isinstance(body, Mapping) and not body.get("resourcePools"):
        failures.append(CheckFailure("body", "body.resourcePools is empty; allowed: at least one resource pool"))
    return failures


def _client(p: PersistentResourceArgs) -> Any:
    """The Vertex AI client for the resource's region, as the Vertex backend builds its own: gRPC
    with Application Default Credentials, or REST for an endpoint given as a URL (anonymous for an
    ``http://`` one: the trainjobs emulator)."""
    from google.auth.exceptions import GoogleAuthError
    from google.cloud import aiplatform_v1

    endpoint = p.api_endpoint or f"{p.region}-aiplatform.googleapis.com"
    options = {"api_endpoint": endpoint}
    try:
        if endpoint.startswith("http://"):
            from google.auth.credentials import AnonymousCredentials

            return aiplatform_v1.PersistentResourceServiceClient(
                transport="rest", client_options=options,
                credentials=AnonymousCredentials())  # type: ignore[no-untyped-call]  # google-auth leaves it untyped
        if "://" in endpoint:
            return aiplatform_v1.PersistentResourceServiceClient(transport="rest", client_options=options)
        return aiplatform_v1.PersistentResourceServiceClient(client_options=options)
    except GoogleAuthError as exc:
        raise PersistentResourceError(f"PersistentResource {p.persistent_resource_id}: no Google credentials to "
                                      f"reach Vertex AI at {endpoint}: {exc}; run gcloud auth application-default "
                                      "login") from None


def _message(p: PersistentResourceArgs) -> Any:
    from google.cloud import aiplatform_v1

    return aiplatform_v1.PersistentResource.from_json(json.dumps(p.body))


def _state(resource: Any) -> str:
    state = getattr(resource, "state", None)
    return str(getattr(state, "name", state or "STATE_UNSPECIFIED"))


def _fail(p: PersistentResourceArgs, action: str, exc: Exception) -> PersistentResourceError:
    text = " ".join(str(getattr(exc, "message", exc)).split())
    return PersistentResourceError(f"PersistentResource {p.persistent_resource_id}: {action} failed: {text}")


class PersistentResourceProvider(ResourceProvider):
    """No fields: everything comes from the resource's inputs."""

    def check(self, _olds: dict[str, Any], news: dict[str, Any]) -> CheckResult:
        return CheckResult(news, check_failures(news))

    def diff(self, _id: str, olds: dict[str, Any], news: dict[str, Any]) -> DiffResult:
        old, new = PersistentResourceArgs.from_props(olds), PersistentResourceArgs.from_props(news)
        changed = [old.prop(f.name) for f in old.__record_fields__ if getattr(old, f.name) != getattr(new, f.name)]
        return DiffResult(changes=bool(changed), replaces=changed, delete_before_replace=True)

    def create(self, props: dict[str, Any]) -> CreateResult:
        from google.api_core import exceptions

        p = PersistentResourceArgs.from_props(props)
        parent = f"projects/{p.project}/locations/{p.region}"
        try:
            operation = _client(p).create_persistent_resource(
                parent=parent, persistent_resource=_message(p), persistent_resource_id=p.persistent_resource_id)
            resource = operation.result(timeout=OPERATION_TIMEOUT_SECONDS)
        except (exceptions.GoogleAPIError, TimeoutError) as exc:
            raise _fail(p, "create", exc) from None
        return CreateResult(resource_name(p), {**props, "resourceName": resource_name(p), "state": _state(resource)})

    def read(self, id_: str, props: dict[str, Any]) -> ReadResult:
        from google.api_core import exceptions

        p = PersistentResourceArgs.from_props(props)
        try:
            resource = _client(p).get_persistent_resource(name=id_)
        except exceptions.NotFound:
            return ReadResult("", {})  # deleted outside Pulumi: the engine drops it from the state
        return ReadResult(id_, {**props, "resourceName": id_, "state": _state(resource)})

    def delete(self, id_: str, props: dict[str, Any]) -> None:
        from google.api_core import exceptions

        p = PersistentResourceArgs.from_props(props)
        try:
            _client(p).delete_persistent_resource(name=id_).result(timeout=OPERATION_TIMEOUT_SECONDS)
        except exceptions.NotFound:
            return  # gone already: what was asked
        except (exceptions.GoogleAPIError, TimeoutError) as exc:
            raise _fail(p, "delete", exc) from None


class PersistentResource(pulumi.dynamic.Resource, module=TYPE_MODULE, name="PersistentResource"):
    """A Vertex AI PersistentResource of a stack (type pulumi-python:dynamic/trainjobs:PersistentResource)."""

    resourceName: pulumi.Output[str]
    state: pulumi.Output[str]

    def __init__(self, name: str, args: PersistentResourceArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__(PersistentResourceProvider(), name, {**dict.fromkeys(OUTPUTS), **args.to_props()}, opts)
