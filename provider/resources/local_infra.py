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
from pathlib import Path
from typing import Any

import pulumi
from pulumi.dynamic import CreateResult, DiffResult, ReadResult, ResourceProvider

from provider.resources.training_job import _props


def _home(p: dict[str, Any]) -> Path:
    from provider.backends.local.paths import default_home

    return Path(p["localHome"]) if p.get("localHome") else default_home()


def _storage(p: dict[str, Any]) -> Path:
    from provider.backends.local.paths import default_storage

    return Path(p["localStorage"]) if p.get("localStorage") else default_storage(_home(p))


def _write(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True))
    os.replace(tmp, path)


class _FileProvider(ResourceProvider):
    """A resource that is one description file (and, for some, a directory)."""

    serialize_as_secret_always = False
    kind = ""

    def where(self, p: dict[str, Any]) -> Path:
        raise NotImplementedError

    def describe(self, p: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def create(self, props: dict[str, Any]) -> CreateResult:
        p = _props(props)
        path = self.where(p)
        _write(path, self.describe(p))
        return CreateResult(str(path), {**props, "path": str(path)})

    def diff(self, _id: str, olds: dict[str, Any], news: dict[str, Any]) -> DiffResult:
        old, new = _props(olds), _props(news)
        keys = [k for k in set(old) | set(new) if k not in ("path", "__provider") and old.get(k) != new.get(k)]
        if not keys:
            return DiffResult(changes=False)
        moved = self.where(old) != self.where(new)
        return DiffResult(changes=True, replaces=sorted(keys) if moved else [], delete_before_replace=moved)

    def update(self, _id: str, _olds: dict[str, Any], news: dict[str, Any]) -> Any:
        from pulumi.dynamic import UpdateResult

        p = _props(news)
        _write(self.where(p), self.describe(p))
        return UpdateResult({**news, "path": str(self.where(p))})

    def read(self, id_: str, props: dict[str, Any]) -> ReadResult:
        return ReadResult(id_ if Path(id_).exists() else "", props if Path(id_).exists() else {})

    def delete(self, id_: str, _props_: dict[str, Any]) -> None:
        with contextlib.suppress(FileNotFoundError):
            Path(id_).unlink()


class LocalBucketProvider(_FileProvider):
    kind = "bucket"

    def where(self, p: dict[str, Any]) -> Path:
        return _storage(p) / str(p["name"]) / ".trainjobs-bucket.json"

    def describe(self, p: dict[str, Any]) -> dict[str, Any]:
        return {"name": p["name"], "location": p["location"], "versioning": True,
                "lifecycle": p.get("lifecycle", []), "labels": p.get("labels", {})}

    def delete(self, id_: str, props: dict[str, Any]) -> None:
        super().delete(id_, props)
        with contextlib.suppress(OSError):
            Path(id_).parent.rmdir()  # only if empty: the data stays


class LocalRegistryProvider(_FileProvider):
    kind = "registry"

    def where(self, p: dict[str, Any]) -> Path:
        return _home(p) / "registry" / str(p["repositoryId"]) / ".trainjobs-registry.json"

    def describe(self, p: dict[str, Any]) -> dict[str, Any]:
        return {"repositoryId": p["repositoryId"], "location": p["location"], "format": "DOCKER",
                "labels": p.get("labels", {})}

    def delete(self, id_: str, props: dict[str, Any]) -> None:
        super().delete(id_, props)
        with contextlib.suppress(OSError):
            Path(id_).parent.rmdir()


class LocalServiceAccountProvider(_FileProvider):
    kind = "service account"

    def where(self, p: dict[str, Any]) -> Path:
        return _home(p) / "service-accounts" / f"{p['email']}.json"

    def describe(self, p: dict[str, Any]) -> dict[str, Any]:
        return {"email": p["email"], "displayName": p.get("displayName", ""), "roles": p.get("roles", [])}


class LocalBucket(pulumi.dynamic.Resource, module="trainjobs", name="LocalBucket"):
    path: pulumi.Output[str]

    def __init__(self, name: str, props: dict[str, Any], opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__(LocalBucketProvider(), name, {"path": None, **props}, opts)


class LocalRegistry(pulumi.dynamic.Resource, module="trainjobs", name="LocalRegistry"):
    path: pulumi.Output[str]

    def __init__(self, name: str, props: dict[str, Any], opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__(LocalRegistryProvider(), name, {"path": None, **props}, opts)


class LocalServiceAccount(pulumi.dynamic.Resource, module="trainjobs", name="LocalServiceAccount"):
    path: pulumi.Output[str]

    def __init__(self, name: str, props: dict[str, Any], opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__(LocalServiceAccountProvider(), name, {"path": None, **props}, opts)
