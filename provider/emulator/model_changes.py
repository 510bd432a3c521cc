"""What the model registry does to models beyond uploading them: ``patch``, ``export``, ``copy``
and the ``orderBy`` of ``models.list``, as Vertex AI's v1 REST reference has them
(https://cloud.google.com/vertex-ai/docs/reference/rest/v1/projects.locations.models).

* ``patch`` PATCH ``{model.name}?updateMask=...``: the model's own fields (``displayName``,
  ``description``, ``labels``), on every version, with a name without ``@VERSION`` (as the SDK's
  ``Model.update`` sends them; a versioned name is refused for them); a version's own fields (``versionDescription``, ``versionAliases``,
  ``metadata``) on the version named (the default one when none is). Any other path is refused by
  name, with the list of what can be updated. The answer is the Model (not an operation).
* ``export`` POST ``{name}:export``: an Operation (ExportModelOperationMetadata with
  ``outputInfo.artifactOutputUri``). A custom model declares the one format Vertex AI gives it,
  ``custom-trained`` (ARTIFACT): its files under ``artifactUri`` are copied, in the emulated
  storage, to ``{outputUriPrefix}/model-{ID}/custom-trained/{time}/``. A container image export
  (``imageDestination``) is refused by name: there is no container registry here.
* ``copy`` POST ``{parent}/models:copy``: an Operation (CopyModelOperationMetadata) whose response
  is a CopyModelResponse: the source version, copied as a new model (``modelId`` or a generated
  one) or as a new version of ``parentModel``; its artifacts stay where they are (one storage).
* ``models.list`` ``orderBy``: ``create_time``, ``update_time``, ``display_name``, each ``asc``
  (the default) or ``desc``, comma separated; a page token then holds the last model's sort key.
"""

from __future__ import annotations

import functools
import json
import shutil
from typing import TYPE_CHECKING, Any

from provider.backends.local.paths import Storage, StorageError
from provider.backends.local.store import now
from provider.emulator import filters, paging, wire
from provider.emulator.errors import ApiError, FieldViolation, invalid
from provider.emulator.model_registry import KIND, ModelRegistry, check_aliases, split_name
from provider.emulator.operations import typed
from provider.emulator.storage import folder_stamp

if TYPE_CHECKING:
    from pathlib import Path

Json = dict[str, Any]

MODEL_FIELDS = ("displayName", "description", "labels")  # the model's: every version carries them
VERSION_FIELDS = ("versionDescription", "versionAliases", "metadata")  # one version's
ORDER_FIELDS = {"create_time": "createTime", "createTime": "createTime", "update_time": "updateTime",
                "updateTime": "updateTime", "display_name": "displayName", "displayName": "displayName"}


def _violation(field: str, description: str) -> ApiError:
    return invalid(f"List of found errors:\t1.Field: {field}; Message: {description}\t",
                   (FieldViolation(field, description),))


def _snake(name: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in name)


def _camel(path: str) -> str:
    head, *rest = path.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


class ModelChanges:
    """patch, export, copy and ordered lists over the registry's records."""

    def __init__(self, registry: ModelRegistry, storage_root: Path) -> None:
        self.registry = registry
        self.storage = Storage(root=storage_root)

    # -- patch ----------------------------------------------------------------------------------
    def patch(self, name: str, raw: bytes, mask_text: str) -> Json:
        body = wire.parse("Model", raw)
        paths = [_camel(p.strip()) for p in mask_text.split(",") if p.strip()]
        parent, model_id, version = split_name(name)
        _check_patch(name, body, paths)
        registry = self.registry
        with registry.lock:
            record = registry.record(parent, model_id)
            target = registry.version(record, version, name)
            was_default = registry.is_default(record, target)
            stamp = now()
            for path in paths:
                changed = [target] if path in VERSION_FIELDS else record["body"]["versions"]
                for entry in changed:
                    if path in body:
                        entry[path] = body[path]
                    else:
                        entry.pop(path, None)
                    entry["updateTime"] = entry["versionUpdateTime"] = stamp
            if "versionAliases" in paths:
                target["versionAliases"] = sorted(set(target.get("versionAliases") or []) |
                                                  ({"default"} if was_default else set()))
                registry.claim([v for v in record["body"]["versions"] if v is not target],
                               target["versionAliases"], stamp)
            registry.store.put_job(record)
            return dict(target)

    # -- export ---------------------------------------------------------------------------------
    def export(self, name: str, raw: bytes) -> Json:
        request = wire.parse("ExportModelRequest", raw)
        config = request.get("outputConfig") or {}
        model = self.registry.get(name)
        formats = [f["id"] for f in model.get("supportedExportFormats") or []]
        wanted = config.get("exportFormatId", "")
        if not wanted:
            raise _violation("output_config.export_format_id", f"Required field is not set; this model exports "
                                                                f"as {', '.join(formats) or 'nothing'}.")
        if wanted not in formats:
            raise ApiError("FAILED_PRECONDITION", f"The Model {name} does not support export format {wanted!r}; it "
                                                  f"supports {', '.join(formats) or 'none'}.")
        if config.get("imageDestination"):
            raise ApiError("UNIMPLEMENTED", "Exporting a model as a container image (output_config.image_destination)"
                                            " is not emulated: there is no container registry here. Export its "
                                            "artifacts with output_config.artifact_destination.")
        prefix = (config.get("artifactDestination") or {}).get("outputUriPrefix", "")
        if not prefix:
            raise _violation("output_config.artifact_destination", "Required field is not set: the gs:// folder "
                                                                    "the model's artifacts are copied to.")
        target = f"{prefix.rstrip('/')}/model-{split_name(name)[1]}/{wanted}/{folder_stamp()}"
        try:
            source = self.storage.path(model["artifactUri"].rstrip("/") + "/")
            destination = self.storage.path(target + "/")
        except StorageError as exc:
            raise _violation("output_config.artifact_destination.output_uri_prefix", str(exc)) from None
        if not source.is_dir():
            raise ApiError("FAILED_PRECONDITION", f"The Model {name} has no files under its artifact_uri "
                                                  f"{model['artifactUri']} to export.")
        shutil.copytree(source, destination, dirs_exist_ok=True)
        return self.registry.operations.finished(
            model["name"], "ExportModelOperationMetadata", typed("ExportModelResponse", {}),
            metadata={"outputInfo": {"artifactOutputUri": target}})

    # -- copy -----------------------------------------------------------------------------------
    def copy(self, parent: str, raw: bytes) -> Json:
        request = wire.parse("CopyModelRequest", raw)
        source_name = request.get("sourceModel", "")
        if not source_name:
            raise _violation("source_model", "Required field is not set.")
        source = self.registry.get(source_name)
        model = {k: v for k, v in source.items() if k != "versionAliases"}
        origin = {"modelSourceInfo": {"sourceType": "CUSTOM", "copy": True},
                  "originalModelInfo": {"model": f"{source['name']}@{source['versionId']}"}}
        name, version = self.registry.register(parent, model, request.get("modelId", ""),
                                               request.get("parentModel", ""), origin)
        response = typed("CopyModelResponse", {"model": name, "modelVersionId": version})
        return self.registry.operations.finished(name, "CopyModelOperationMetadata", response)

    # -- list orderBy ---------------------------------------------------------------------------
    def ordered_page(self, parent: str, params: dict[str, str]) -> Json:
        order = _order(params["orderBy"])
        text = params.get("filter", "")
        keep = filters.compile_filter(text)
        views = [v for r in self.registry.store.walk(KIND, parent) if keep.predicate(v := self.registry.default(r))]
        def key_of(view: Json) -> list[str]:
            return [str(view.get(field, "")) for field, _ in order] + [view["name"]]
        def compare(a: list[str], b: list[str]) -> int:
            for i, (x, y) in enumerate(zip(a, b, strict=True)):
                if x != y:
                    sign = -1 if i < len(order) and order[i][1] else 1
                    return sign * (-1 if x < y else 1)
            return 0
        views.sort(key=lambda v: functools.cmp_to_key(compare)(key_of(v)))
        request = (parent, "models", text, params["orderBy"], params.get("readMask", ""))
        after = paging.decode(params.get("pageToken"), *request)
        if after is not None:
            position = json.loads(after[0])
            views = [v for v in views if compare(key_of(v), position) > 0]
        size = paging.page_size(params.get("pageSize"))
        mask = [_camel(f.strip()) for f in params.get("readMask", "").split(",") if f.strip()]
        out: Json = {"models": [{k: v for k, v in view.items() if not mask or k in mask} for view in views[:size]]}
        if len(views) > size:
            out["nextPageToken"] = paging.encode((json.dumps(key_of(views[size - 1])), "model"), *request)
        return out


def _check_patch(name: str, body: Json, paths: list[str]) -> None:
    """400 for a mask that is empty, names a field that cannot be updated, or a model field on a version."""
    allowed = ", ".join(_snake(f) for f in MODEL_FIELDS + VERSION_FIELDS)
    if not paths:
        raise _violation("update_mask", f"Required field is not set: name the fields to update ({allowed}).")
    for path in paths:
        if path not in MODEL_FIELDS + VERSION_FIELDS:
            raise _violation("update_mask", f"{_snake(path)!r} cannot be updated; a model's updatable fields are "
                                            f"{allowed}.")
    parent, model_id, version = split_name(name)
    model_wide = [_snake(p) for p in paths if p in MODEL_FIELDS]
    if version and model_wide:
        raise _violation("model.name", f"{name} names a version, but {', '.join(model_wide)} belong to the whole "
                                       f"model: update {parent}/models/{model_id}.")
    if "displayName" in paths and not body.get("displayName"):
        raise _violation("model.display_name", "Required field is not set: a model keeps a display name.")
    if "versionAliases" in paths:
        check_aliases(body.get("versionAliases") or [], "model.version_aliases")


def _order(text: str) -> list[tuple[str, bool]]:
    """``display_name, create_time desc`` -> [(displayName, False), (createTime, True)]."""
    order = []
    for part in text.split(","):
        words = part.split()
        if not words:
            continue
        field = ORDER_FIELDS.get(words[0])
        direction = words[1].lower() if len(words) > 1 else "asc"
        if field is None or len(words) > 2 or direction not in ("asc", "desc"):
            raise invalid(f"Invalid order_by {text!r}: models are ordered by create_time, update_time or "
                          "display_name, each optionally followed by asc or desc, separated by commas.")
        order.append((field, direction == "desc"))
    if not order:
        raise invalid("Invalid order_by: it names no field (create_time, update_time or display_name).")
    return order

