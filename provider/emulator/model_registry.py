"""The model registry: Vertex AI's ``projects.locations.models``, emulated (no serving).

* ``upload``  POST ``{parent}/models:upload`` (UploadModelRequest: model, modelId, parentModel): an
  Operation (UploadModelOperationMetadata) whose response is an UploadModelResponse
  (``model``, ``modelVersionId``). A new model's ID is ``modelId`` (``[a-z0-9_-]``, up to 63, not
  starting with a digit or ``-``) or a generated number; ``parentModel`` adds a version instead.
* ``get``     GET ``{name}``, ``{name}@VERSION`` or ``{name}@ALIAS``: one version (the default one
  when none is named). ``list`` GET ``{parent}/models``: each model's default version, newest
  first, with the list filter (display_name, labels.KEY, create_time, update_time) and paging.
* ``listVersions`` GET ``{name}:listVersions``: every version, oldest first.
* ``mergeVersionAliases`` POST ``{name}@VERSION:mergeVersionAliases``: ``alias`` adds, ``-alias``
  removes; an alias names one version of a model, so adding it elsewhere moves it.
* ``delete`` DELETE ``{name}`` (the model, every version) and ``deleteVersion`` DELETE
  ``{name}@VERSION:deleteVersion`` (not the default version): Operations, response Empty.

Version 1 of a model is its default (alias ``default``); a later version becomes the default
when its upload carries the ``default`` alias (the SDK's ``is_default_version``). The model's
fields are kept as given: ``containerSpec``, ``artifactUri``, labels, description.
"""

from __future__ import annotations

import re
import threading
from typing import Any

from provider.backends.local.store import new_job_id, now
from provider.emulator import listing, wire
from provider.emulator.errors import FieldViolation, failed_precondition, invalid, not_found
from provider.emulator.operations import EMPTY, Operations, typed
from provider.emulator.store import EmulatorStore

Json = dict[str, Any]

KIND = "Model"
DEFAULT = "default"
_MODEL_ID = re.compile(r"^[a-z_][a-z0-9_-]{0,62}$")
_ALIAS = re.compile(r"^[a-z][a-zA-Z0-9-]{0,126}[a-z0-9]$")
_OUTPUT_ONLY = ("name", "versionId", "createTime", "updateTime", "versionCreateTime", "versionUpdateTime",
                "deployedModels", "supportedExportFormats", "trainingPipeline", "etag", "modelSourceInfo", "originalModelInfo")
# The one export format Vertex AI gives a custom model (model_changes.py exports it).
EXPORT_FORMATS = ({"id": "custom-trained", "exportableContents": ["ARTIFACT"]},)


def with_export_formats(version: Json) -> Json:
    """The version, with the export formats Vertex AI gives a custom model's version with artifacts:
    set when it is registered, and on read for a version stored before the emulator kept them."""
    if version.get("artifactUri") and "supportedExportFormats" not in version:
        version["supportedExportFormats"] = [dict(f) for f in EXPORT_FORMATS]
    return version


def _key(model_id: str) -> str:
    """The store's id of a model's record (models and jobs share the store; a model ID never has a dot)."""
    return f"{KIND}.{model_id}"


def split_name(name: str) -> tuple[str, str, str]:
    """``projects/P/locations/L/models/ID@V`` -> (parent, ID, V or '')."""
    parent, _, rest = name.partition("/models/")
    model_id, _, version = rest.partition("@")
    return parent, model_id, version


def _violation(field: str, description: str) -> Exception:
    v = FieldViolation(field, description)
    return invalid(f"List of found errors:\t1.Field: {field}; Message: {description}\t", (v,))


def check_model(model: Json, at: str = "model") -> None:
    """What a Model must carry to be registered: a display name and a serving container image."""
    if not model.get("displayName"):
        raise _violation(f"{at}.display_name", "Required field is not set.")
    if not (model.get("containerSpec") or {}).get("imageUri"):
        raise _violation(f"{at}.container_spec.image_uri", "Required field is not set: the emulator registers "
                                                            "custom models, whose serving container is required.")
    check_aliases(model.get("versionAliases") or [], f"{at}.version_aliases")


def check_aliases(aliases: list[str], at: str) -> None:
    for alias in aliases:
        if not _ALIAS.match(alias) or alias.isdigit():
            raise _violation(at, f"Invalid alias {alias!r}: an alias matches [a-z][a-zA-Z0-9-]{{0,126}}[a-z0-9] "
                                 "and is not a number.")


class ModelRegistry:
    def __init__(self, store: EmulatorStore, operations: Operations) -> None:
        self.store = store
        self.operations = operations
        self.lock = threading.Lock()

    # -- reading --------------------------------------------------------------------------------
    def record(self, parent: str, model_id: str) -> Json:
        record = self.store.job(_key(model_id))
        if record is None or record["kind"] != KIND or record["parent"] != parent:
            raise not_found(f"The Model {parent}/models/{model_id} does not exist.")
        for version in record["body"]["versions"]:
            with_export_formats(version)
        return record

    @staticmethod
    def default(record: Json) -> Json:
        versions: list[Json] = record["body"]["versions"]
        return with_export_formats(next((v for v in versions if DEFAULT in (v.get("versionAliases") or [])),
                                        versions[-1]))

    @staticmethod
    def is_default(record: Json, version: Json) -> bool:
        return ModelRegistry.default(record) is version

    @staticmethod
    def version(record: Json, version: str, name: str) -> Json:
        if not version:
            return ModelRegistry.default(record)
        versions: list[Json] = record["body"]["versions"]
        found = next((v for v in versions if v["versionId"] == version or version in (v.get("versionAliases") or [])),
                     None)
        if found is None:
            raise not_found(f"The Model {name} does not exist: model {split_name(name)[1]} has no version or alias "
                            f"{version!r} (versions: {', '.join(v['versionId'] for v in versions)}).")
        return found

    def get(self, name: str) -> Json:
        parent, model_id, version = split_name(name)
        return self.version(self.record(parent, model_id), version, name)

    def page(self, parent: str, params: dict[str, str]) -> Json:
        return listing.page(lambda after: self.store.walk(KIND, parent, after), self.default, "models", parent, params)

    def list_versions(self, name: str, params: dict[str, str]) -> Json:
        parent, model_id, version = split_name(name)
        if version:
            raise invalid(f"listVersions takes a model's name without a version: {parent}/models/{model_id}.")
        versions = self.record(parent, model_id)["body"]["versions"]
        # Oldest first, as Vertex AI lists versions; positions are (create time, version id).
        ordered = [{**v, "create_time": v["versionCreateTime"], "id": f"{int(v['versionId']):012d}"}
                   for v in versions]
        def walk(after: tuple[str, str] | None) -> list[Json]:
            return [r for r in reversed(ordered) if after is None or (r["create_time"], r["id"]) < after]
        def strip(v: Json) -> Json:
            return {k: val for k, val in v.items() if k not in ("create_time", "id")}
        page = listing.page(walk, strip, "models", name, params)
        page["models"].reverse()
        return page

    # -- writing --------------------------------------------------------------------------------
    def upload(self, parent: str, raw: bytes) -> Json:
        request = wire.parse("UploadModelRequest", raw)
        model = request.get("model")
        if not isinstance(model, dict):
            raise _violation("model", "Required field is not set.")
        name, version = self.register(parent, model, request.get("modelId", ""), request.get("parentModel", ""))
        response = typed("UploadModelResponse", {"model": name, "modelVersionId": version})
        return self.operations.finished(name, "UploadModelOperationMetadata", response)

    def register(self, parent: str, model: Json, model_id: str = "", parent_model: str = "",
                 source: Json | None = None) -> tuple[str, str]:
        """Add ``model`` as a new model or as a new version of ``parent_model``: (its name, its version id)."""
        check_model(model)
        body = {k: v for k, v in model.items() if k not in _OUTPUT_ONLY}
        if source:
            body.update(source)
        stamp = now()
        with self.lock:
            if parent_model:
                if model_id:
                    raise _violation("model_id", "model_id and parent_model cannot both be set: a new version "
                                                 "keeps its parent's ID.")
                p_parent, p_id, p_version = split_name(parent_model)
                if p_parent != parent or p_version:
                    raise _violation("parent_model", f"{parent_model!r} is not a model of {parent} (give "
                                                     f"{parent}/models/ID, without a version).")
                record = self.record(parent, p_id)
                versions = record["body"]["versions"]
                version = str(max(int(v["versionId"]) for v in versions) + 1)
                first = versions[0]
                entry = {**body, "name": first["name"], "versionId": version, "createTime": first["createTime"]}
            else:
                if model_id and not _MODEL_ID.match(model_id):
                    raise _violation("model_id", f"Invalid model_id {model_id!r}: up to 63 characters of "
                                                 "[a-z0-9_-], not starting with a digit or '-'.")
                model_id = model_id or new_job_id()
                if self.store.job(_key(model_id)) is not None:
                    raise invalid(f"The Model {parent}/models/{model_id} already exists: give another model_id, "
                                  "or parent_model to add a version.")
                record = {"id": _key(model_id), "kind": KIND, "parent": parent, "create_time": stamp,
                          "body": {"versions": []}}
                versions = record["body"]["versions"]
                version = "1"
                entry = {**body, "name": f"{parent}/models/{model_id}", "versionId": version, "createTime": stamp}
                # The first version is the default; Vertex keeps the aliases in the order given, with
                # ``default`` after them when the upload did not name it (the SDK compares the lists).
                given = list(dict.fromkeys(entry.get("versionAliases") or []))
                entry["versionAliases"] = given if DEFAULT in given else [*given, DEFAULT]
            entry.update(updateTime=stamp, versionCreateTime=stamp, versionUpdateTime=stamp)
            with_export_formats(entry)
            self.claim(versions, entry.get("versionAliases") or [], stamp)
            versions.append(entry)
            self.store.put_job(record)
        return entry["name"], version

    @staticmethod
    def claim(versions: list[Json], aliases: list[str], stamp: str) -> None:
        """An alias names one version: take ``aliases`` off every other version."""
        for other in versions:
            kept = [a for a in other.get("versionAliases") or [] if a not in aliases]
            if kept != (other.get("versionAliases") or []):
                other["versionAliases"] = kept
                other["versionUpdateTime"] = stamp

    def merge_aliases(self, name: str, raw: bytes) -> Json:
        parent, model_id, version = split_name(name)
        if not version:
            raise invalid(f"mergeVersionAliases needs a version: {name}@VERSION.")
        request = wire.parse("MergeVersionAliasesRequest", raw)
        changes: list[str] = request.get("versionAliases") or []
        if not changes:
            raise _violation("version_aliases", "Required field is not set.")
        adds = [a for a in changes if not a.startswith("-")]
        removes = [a[1:] for a in changes if a.startswith("-")]
        check_aliases(adds + removes, "version_aliases")
        if DEFAULT in removes:
            raise _violation("version_aliases", "The default alias cannot be removed: add it to another version "
                                                "to move it.")
        with self.lock:
            record = self.record(parent, model_id)
            target = self.version(record, version, name)
            stamp = now()
            self.claim([v for v in record["body"]["versions"] if v is not target], adds, stamp)
            aliases = [a for a in target.get("versionAliases") or [] if a not in removes]
            target["versionAliases"] = aliases + [a for a in adds if a not in aliases]
            target["versionUpdateTime"] = stamp
            self.store.put_job(record)
            return dict(target)

    def delete(self, name: str) -> Json:
        parent, model_id, version = split_name(name)
        if version:
            raise invalid(f"models.delete deletes a whole model; to delete one version use "
                          f"DELETE {name}:deleteVersion.")
        with self.lock:
            self.record(parent, model_id)
            self.store.drop_job(_key(model_id))
        return self.operations.finished(name, "DeleteOperationMetadata", EMPTY)

    def delete_version(self, name: str) -> Json:
        parent, model_id, version = split_name(name)
        with self.lock:
            record = self.record(parent, model_id)
            target = self.version(record, version, name)
            if DEFAULT in (target.get("versionAliases") or []):
                raise failed_precondition(f"Version {target['versionId']} of {parent}/models/{model_id} is its "
                                          "default version and cannot be deleted: make another version the default "
                                          "(mergeVersionAliases with 'default'), or delete the whole model.")
            record["body"]["versions"] = [v for v in record["body"]["versions"] if v is not target]
            self.store.put_job(record)
        return self.operations.finished(f"{parent}/models/{model_id}", "DeleteOperationMetadata", EMPTY)
