"""Job kind -> REST collection, SDK method and spec field: one table (provider.core.job_kinds) that the
emulator, both backends, the requests and the CLI read (issue 28, part 4)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from provider.backends.local.status import checked_status
from provider.backends.vertex import backend as vertex_backend
from provider.core import job_kinds
from provider.core.vertex_request import VertexRequest
from provider.emulator import routes, service
from provider.spec.formats.vertex_tuning.convert import _NAME as TUNING_NAME

from .conftest import ROOT


@pytest.mark.parametrize("kind", job_kinds.KINDS, ids=lambda k: k.name)
def test_every_reader_names_a_kind_alike(kind: job_kinds.JobKind, tmp_path: Path) -> None:
    assert VertexRequest(kind.name, "projects/p/locations/l", {}).collection == kind.collection
    assert service.KINDS[kind.collection] == kind.name
    assert vertex_backend.KINDS[kind.name] == kind.collection
    assert vertex_backend.COLLECTIONS[kind.collection] == kind.name
    route = re.compile(routes._COLLECTION)
    assert route.fullmatch(kind.collection) and not route.fullmatch(kind.collection + "x")
    record = {"id": "7", "kind": kind.name, "parent": "projects/local/locations/us-central1", "display_name": "j",
              "labels": {}, "request": {kind.spec_field: {"baseOutputDirectory": {"outputUriPrefix": "gs://b/o"}}}}
    status = checked_status("7", tmp_path, record, {"state": "RUNNING"})
    assert status.name == f"projects/local/locations/us-central1/{kind.collection}/7"
    assert status.output_dir == "gs://b/o"  # the spec field is read where the kind keeps it


@pytest.mark.parametrize("kind", job_kinds.KINDS, ids=lambda k: k.name)
def test_the_sdk_has_the_methods_the_table_names(kind: job_kinds.JobKind) -> None:
    aiplatform_v1 = pytest.importorskip("google.cloud.aiplatform_v1")
    client = aiplatform_v1.JobServiceClient
    for verb in ("create", "get", "cancel", "delete"):
        assert hasattr(client, f"{verb}_{kind.method}"), (verb, kind.method)
    assert hasattr(client, f"list_{kind.method}s")
    assert hasattr(aiplatform_v1, kind.list_response)
    assert kind.spec_field in aiplatform_v1.types.__dict__[kind.name].meta.fields or \
        kind.spec_field_snake in aiplatform_v1.types.__dict__[kind.name].meta.fields


def test_the_table_is_the_only_one() -> None:
    """No module of provider/ holds a collection name of its own: no table, no comparison, no route
    pattern outside provider.core.job_kinds (messages that mention one in prose aside)."""
    import ast

    found = []
    for path in sorted((ROOT / "provider").rglob("*.py")):
        if path.name == "job_kinds.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                      if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                      and n.body and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings \
                    and re.fullmatch(r".*?\b(customJobs|hyperparameterTuningJobs)\b(\|.*|/?)", node.value):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value[:60]!r}")
    assert TUNING_NAME.match("projects/p/locations/l/hyperparameterTuningJobs/1")
    assert found == [], "\n".join(found)
