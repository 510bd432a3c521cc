"""What an editor shows while a spec is typed: the real yaml-language-server over LSP (tests/lsp.py)
with the committed schema, found through each spec's ``# yaml-language-server: $schema=`` line.

Each mistake gets one diagnostic, short, saying what fits; a machine type shows its shape on hover.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from .lsp import YamlLanguageServer

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "specs" / "vision" / "resnet_t4.yaml"
MAX_MESSAGE = 200  # an editor's tooltip, not a page

pytestmark = pytest.mark.slow  # a Node.js language server per module


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    ws = tmp_path_factory.mktemp("workspace")
    shutil.copytree(ROOT / "schemas", ws / "schemas")
    (ws / "specs" / "vision").mkdir(parents=True)
    return ws


@pytest.fixture(scope="module")
def server(workspace: Path) -> Iterator[YamlLanguageServer]:
    with YamlLanguageServer(workspace) as ls:
        yield ls


def typed(workspace: Path, server: YamlLanguageServer, name: str, old: str = "", new: str = "") -> list[str]:
    text = SPEC.read_text(encoding="utf-8")
    if old:
        assert old in text, old
        text = text.replace(old, new, 1)
    path = workspace / "specs" / "vision" / f"{name}.yaml"
    path.write_text(text, encoding="utf-8")
    return [d.message for d in server.diagnostics(path)]


def test_a_valid_spec_shows_nothing(workspace: Path, server: YamlLanguageServer) -> None:
    assert typed(workspace, server, "valid") == []


def test_a_wrong_gpu_count_is_one_message_naming_the_counts(workspace: Path, server: YamlLanguageServer) -> None:
    (message,) = typed(workspace, server, "count3", "count: 4", "count: 3")
    assert message == "NVIDIA_TESLA_T4 on n1-highcpu-16, n1-highmem-16, n1-standard-16 comes in counts of 1, 2, 4"


def test_a_count_written_as_a_string_is_one_message(workspace: Path, server: YamlLanguageServer) -> None:
    assert typed(workspace, server, "count_string", "count: 4", 'count: "4"') == ['Incorrect type. Expected "integer".']


@pytest.mark.parametrize(("old", "new", "words"), [
    ("us-central1", "us-central9", "not a region that offers Vertex AI custom training"),
    ("n1-highcpu-16", "n1-highcpu-17", "not a machine type Vertex AI offers for training"),
    ("NVIDIA_TESLA_T4", "NVIDIA_TESLA_T5", "not an accelerator type of the Vertex AI API"),
])
def test_an_unknown_name_is_one_short_message(workspace: Path, server: YamlLanguageServer, old: str, new: str,
                                              words: str) -> None:
    (message,) = typed(workspace, server, f"unknown_{new}", old, new)
    assert message.startswith(words) and len(message) <= MAX_MESSAGE, message
    assert "trainjobs validate" in message


def test_an_accelerator_that_does_not_fit_names_those_that_do(workspace: Path, server: YamlLanguageServer) -> None:
    messages = typed(workspace, server, "a100_on_n1", "NVIDIA_TESLA_T4", "NVIDIA_TESLA_A100")
    assert messages == ["this accelerator does not fit n1-highcpu-16, n1-highmem-16, n1-standard-16; these do: "
                        "NVIDIA_TESLA_P4, NVIDIA_TESLA_T4, NVIDIA_TESLA_V100"]  # K80 and P100 are retired: never offered


def test_an_unknown_key_is_named(workspace: Path, server: YamlLanguageServer) -> None:
    assert "Property replicaz is not allowed." in typed(workspace, server, "key", "replicas: 4", "replicaz: 4")


def test_hover_on_a_machine_type_shows_its_shape(workspace: Path, server: YamlLanguageServer) -> None:
    path = workspace / "specs" / "vision" / "hover.yaml"
    path.write_text(SPEC.read_text(encoding="utf-8"), encoding="utf-8")
    server.diagnostics(path)
    lines = path.read_text(encoding="utf-8").splitlines()
    row = next(i for i, line in enumerate(lines) if "machineType: n1-highcpu-16" in line)
    text = server.hover(path, row + 1, lines[row].index("n1-highcpu-16") + 3)
    assert "`n1-highcpu-16`: 16 vCPUs, 14.4 GB; accelerators: NVIDIA_TESLA_K80" in text
