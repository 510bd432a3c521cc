"""The local equivalents of a team's bucket, registry and service account, as dynamic resources.

On a local stack, ``pulumi up`` creates them through the local backend's storage:

* LocalBucket          ``<storage>/<bucket>/`` with ``.trainjobs-bucket.json`` (location, versioning,
                       lifecycle), where ``gs://<bucket>/...`` paths land;
* LocalRegistry        ``<home>/registry/<repository>/`` with its description;
* LocalServiceAccount  ``<home>/service-accounts/<email>.json``, with the roles it holds.

Deleting never loses data: a bucket directory that still holds files keeps them (only its
description goes), like a Cloud Storage bucket without force_destroy.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

import pulumi
from pulumi.dynamic import CreateResult, DiffResult, ReadResult, ResourceProvider

from provider.resources.props import Props


class LocalArgs(Props):
    """What every local resource carries: where the local backend keeps its files (unset: TRAINJOBS_HOME)."""

    local_home: str | None = None
    local_storage: str | None = None

    def home(self) -> Path:
        from provider.backends.local.paths import default_home

        return Path(self.local_home) if self.local_home else default_home()

    def storage(self) -> Path:
        from provider.backends.local.paths import default_storage

        return Path(self.local_storage) if self.local_storage else default_storage(self.home())


class LocalBucketArgs(LocalArgs):
    name: str | None = None
    location: str | None = None
    labels: dict[str, str] | None = None
    lifecycle: list[dict[str, Any]] | None = None


class LocalRegistryArgs(LocalArgs):
    repository_id: str | None = None
    location: str | None = None
    labels: dict[str, str] | None = None


class LocalServiceAccountArgs(LocalArgs):
    email: str | None = None
    display_name: str | None = None
    roles: list[str] | None = None


def _write(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True))
    os.replace(tmp, path)


class _FileProvider(ResourceProvider):
    """A resource that is one description file (and, for some, a directory)."""

    serialize_as_secret_always = False
    kind = ""
    args: ClassVar[type[LocalArgs]] = LocalArgs

    def where(self, p: Any) -> Path:
        raise NotImplementedError

    def describe(self, p: Any) -> dict[str, Any]:
        raise NotImplementedError

    def read_args(self, props: Mapping[str, Any]) -> Any:
        return self.args.from_props(props)

    def create(self, props: dict[str, Any]) -> CreateResult:
        p = self.read_args(props)
        path = self.where(p)
        _write(path, self.describe(p))
        return CreateResult(str(path), {**props, "path": str(path)})

    def diff(self, _id: str, olds: dict[str, Any], news: dict[str, Any]) -> DiffResult:
        old, new = self.read_args(olds), self.read_args(news)
        keys = [self.args.prop(f.name) for f in self.args.__record_fields__
                if getattr(old, f.name) != getattr(new, f.name)]
        if not keys:
            return DiffResult(changes=False)
        moved = self.where(old) != self.where(new)
        return DiffResult(changes=True, replaces=sorted(keys) if moved else [], delete_before_replace=moved)

    def update(self, _id: str, _olds: dict[str, Any], news: dict[str, Any]) -> Any:
        from pulumi.dynamic import UpdateResult

        p = self.read_args(news)
        _write(self.where(p), self.describe(p))
        return UpdateResult({**news, "path": str(self.where(p))})

    def read(self, id_: str, props: dict[str, Any]) -> ReadResult:
        return ReadResult(id_ if Path(id_).exists() else "", props if Path(id_).exists() else {})

    def delete(self, id_: str, _props_: dict[str, Any]) -> None:
        with contextlib.suppress(FileNotFoundError):
            Path(id_).unlink()


class LocalBucketProvider(_FileProvider):
    kind = "bucket"
    args = LocalBucketArgs

    def where(self, p: LocalBucketArgs) -> Path:
        return p.storage() / str(p.name) / ".trainjobs-bucket.json"

    def describe(self, p: LocalBucketArgs) -> dict[str, Any]:
        return {"name": p.name, "location": p.location, "versioning": True,
                "lifecycle": p.lifecycle or [], "labels": p.labels or {}}

    def delete(self, id_: str, props: dict[str, Any]) -> None:
        super().delete(id_, props)
        with contextlib.suppress(OSError):
            Path(id_).parent.rmdir()  # only if empty: the data stays


class LocalRegistryProvider(_FileProvider):
    kind = "registry"
    args = LocalRegistryArgs

    def where(self, p: LocalRegistryArgs) -> Path:
        return p.home() / "registry" / str(p.repository_id) / ".trainjobs-registry.json"

    def describe(self, p: LocalRegistryArgs) -> dict[str, Any]:
        return {"repositoryId": p.repository_id, "location": p.location, "format": "DOCKER",
                "labels": p.labels or {}}

    def delete(self, id_: str, props: dict[str, Any]) -> None:
        super().delete(id_, props)
        with contextlib.suppress(OSError):
            Path(id_).parent.rmdir()


class LocalServiceAccountProvider(_FileProvider):
    kind = "service account"
    args = LocalServiceAccountArgs

    def where(self, p: LocalServiceAccountArgs) -> Path:
        return p.home() / "service-accounts" / f"{p.email}.json"

    def describe(self, p: LocalServiceAccountArgs) -> dict[str, Any]:
        return {"email": p.email, "displayName": p.display_name or "", "roles": p.roles or []}


class LocalBucket(pulumi.dynamic.Resource, module="trainjobs", name="LocalBucket"):
    """Its only output: the description file's path (also its id)."""

    path: pulumi.Output[str]

    def __init__(self, name: str, args: LocalBucketArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__(LocalBucketProvider(), name, {"path": None, **args.to_props()}, opts)


class LocalRegistry(pulumi.dynamic.Resource, module="trainjobs", name="LocalRegistry"):
    path: pulumi.Output[str]

    def __init__(self, name: str, args: LocalRegistryArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__(LocalRegistryProvider(), name, {"path": None, **args.to_props()}, opts)


class LocalServiceAccount(pulumi.dynamic.Resource, module="trainjobs", name="LocalServiceAccount"):
    path: pulumi.Output[str]

    def __init__(self, name: str, args: LocalServiceAccountArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__(LocalServiceAccountProvider(), name, {"path": None, **args.to_props()}, opts)
