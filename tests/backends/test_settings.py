"""One factory: a stack's settings (or a TrainingJob's inputs), typed by its backend type -> (backend, stager)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from provider.backends.local.backend import LocalBackend
from provider.backends.local.settings import LocalSettings
from provider.backends.polling import Backoff
from provider.backends.settings import open_backend, open_local, settings_of_props, settings_of_stack
from provider.backends.vertex.backend import VertexBackend
from provider.backends.vertex.settings import GcsOnDemand, VertexSettings
from provider.core.backend_registry import UnknownBackend
from provider.core.backend_types import BackendKind
from provider.packaging.stage import LocalStager
from provider.stack.config import StackConfig


def _stack(backend: str, **kw: Any) -> StackConfig:
    return StackConfig(name="vision-dev", backend=BackendKind(backend), team="vision", region="europe-west4", specs=(), **kw)


def test_a_local_stack_opens_the_local_backend_in_its_home_with_a_stager_into_its_storage(tmp_path: Path) -> None:
    settings = settings_of_stack(_stack("local", local_home=str(tmp_path / "home")))
    assert settings == LocalSettings(home=str(tmp_path / "home")) and settings.kind == "local"
    backend, stager = open_backend(settings)
    assert isinstance(backend, LocalBackend) and backend.home == tmp_path / "home"
    assert isinstance(stager, LocalStager) and stager.storage is backend.storage


def test_a_vertex_stack_opens_vertex_ai_at_its_endpoint_and_a_cloud_storage_stager_built_on_use() -> None:
    stack = _stack("vertex", project="my-proj", api_endpoint="http://127.0.0.1:9")
    settings = settings_of_stack(stack)
    assert settings == VertexSettings("my-proj", "europe-west4", "http://127.0.0.1:9") and settings.kind == "vertex"
    backend, stager = open_backend(settings)
    assert isinstance(backend, VertexBackend)
    assert (backend.project, backend.location, backend.api_endpoint) == ("my-proj", "europe-west4", "http://127.0.0.1:9")
    assert isinstance(stager, GcsOnDemand) and stager._stager is None  # no client until a package is staged
    assert (stager.project, stager.api_endpoint) == ("my-proj", "http://127.0.0.1:9")


def test_a_caller_that_must_answer_fast_tunes_the_vertex_client() -> None:
    fast = Backoff(initial=0.5, maximum=2.0, attempts=2)
    backend = open_backend(VertexSettings(project="p", region="us-central1"), retry=fast,
                           timeout=15.0).backend
    assert isinstance(backend, VertexBackend) and backend.retry == fast and backend.timeout == 15.0


def test_a_training_jobs_inputs_give_the_same_settings(tmp_path: Path) -> None:
    local = settings_of_props({"backend": "local", "localHome": str(tmp_path), "localStorage": "",
                               "project": "local", "region": "us-central1"})
    assert local == LocalSettings(home=str(tmp_path))
    vertex = settings_of_props({"backend": "vertex", "project": "p", "region": "asia-east1", "apiEndpoint": ""})
    assert vertex == VertexSettings(project="p", region="asia-east1")
    # A state written before the backend input existed ran on Vertex AI.
    assert settings_of_props({"project": "p", "region": "r"}).kind == "vertex"


def test_an_unknown_backend_says_which_exist() -> None:
    with pytest.raises(UnknownBackend, match="unknown backend 'gke': local or vertex"):
        settings_of_props({"backend": "gke"})


def test_open_local_defaults_to_trainjobs_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TRAINJOBS_HOME", str(tmp_path))
    backend, stager = open_local()
    assert backend.home == tmp_path and stager.storage is backend.storage

