"""Hostile input gets one clear message with a position: no crash, no hang, no traceback."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from provider.document.yaml_loader import MAX_BYTES
from provider.validation.validator import validate_bytes

from .conftest import no_traceback, run_cli

VALID = b"""\
apiVersion: trainjobs/v1
kind: TrainingJob
metadata: {name: hostile_ok}
spec:
  region: us-central1
  workerPools:
    chief: {machineType: n1-standard-4}
  application:
    pythonPackage:
      uris: [gs://bucket/trainer-0.1.tar.gz]
      module: trainer.task
      executorImage: us-docker.pkg.dev/vertex-ai/training/pytorch-xla.2-4.py310:latest
  args: [--epochs, "20", --learning_rate, "0.2"]
"""


def _only_error(data: bytes) -> str:
    result = validate_bytes(data, "f.yaml")
    errors = [p for p in result.problems if p.is_error]
    assert errors, "accepted"
    assert all(p.file == "f.yaml" for p in errors)
    return " | ".join(p.message for p in errors)


@pytest.mark.timeout(10)
def test_billion_laughs_is_refused_quickly() -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 12):
        refs = ", ".join([f"*a{i - 1}"] * 10)
        lines.append(f"a{i}: &a{i} [{refs}]")
    start = time.perf_counter()
    message = _only_error("\n".join(lines).encode())
    assert "expands to more than" in message
    assert time.perf_counter() - start < 2


@pytest.mark.timeout(10)
def test_deep_nesting_is_refused() -> None:
    assert "nesting is deeper than" in _only_error(("a: " + "[" * 5000 + "]" * 5000).encode())
    assert "nesting is deeper than" in _only_error(("".join(f"{' ' * i}k{i}:\n" for i in range(200)) + " " * 200 + "v").encode())


def test_very_large_file_is_refused_without_reading_it_all(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    with big.open("wb") as f:
        f.write(VALID)
        f.write(b"#" * (MAX_BYTES + 10))
    proc = run_cli("validate", str(big))
    no_traceback(proc)
    assert proc.returncode == 1 and "larger than the 1,048,576-byte limit" in proc.stdout


def test_binary_and_non_utf8() -> None:
    assert "binary file" in _only_error(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    assert "not valid UTF-8" in _only_error("name: caf\xe9\n".encode("latin-1"))


def test_utf8_bom_is_fine() -> None:
    assert validate_bytes(b"\xef\xbb\xbf" + VALID, "f.yaml").ok


def test_special_files_are_not_read(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    proc = run_cli("validate", str(fifo), timeout=20)
    no_traceback(proc)
    assert proc.returncode == 1 and "not a regular file" in proc.stdout


def test_unreadable_file(tmp_path: Path) -> None:
    secret = tmp_path / "secret.yaml"
    secret.write_bytes(VALID)
    secret.chmod(0)
    proc = run_cli("validate", str(secret))
    no_traceback(proc)
    if os.geteuid() == 0:  # root reads anyway: then it must simply be valid
        assert proc.returncode == 0
    else:
        assert proc.returncode == 1 and "cannot read the file" in proc.stdout


def test_missing_path_is_a_usage_error() -> None:
    proc = run_cli("validate", "no/such/file.yaml")
    no_traceback(proc)
    assert proc.returncode == 2 and "no/such/file.yaml: no such file or directory" in proc.stderr


def test_wrong_types_everywhere() -> None:
    text = VALID.decode().replace("machineType: n1-standard-4", "machineType: [n1-standard-4]")
    assert "machineType is a list" in _only_error(text.encode())
    text = VALID.decode().replace('args: [--epochs, "20", --learning_rate, "0.2"]', "args: {epochs: 20}")
    assert "spec.args is a mapping, expected a list" in _only_error(text.encode())


def test_yaml_syntax_error_has_a_position() -> None:
    result = validate_bytes(b"apiVersion: trainjobs/v1\nkind: [TrainingJob\nmetadata: x\n", "f.yaml")
    (problem,) = result.problems
    assert problem.line is not None and "YAML syntax error" in problem.message


def test_control_characters_and_odd_unicode() -> None:
    message = _only_error(b"apiVersion: trainjobs/v1\nkind: \x07bell\n")
    assert message
    result = validate_bytes("a: '\u202e\u0000'\n".encode(), "f.yaml")
    assert not result.ok


def test_many_hostile_files_in_one_run_each_get_their_message(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_bytes(b"")
    (tmp_path / "b.yaml").write_bytes(b"\x00\x01")
    (tmp_path / "c.yaml").write_text("x: &a [*a]\n")
    (tmp_path / "d.yaml").write_text("- just\n- a list\n")
    (tmp_path / "e.yml").write_text("k: 1\nk: 2\n")
    proc = run_cli("validate", str(tmp_path), "--stacks", str(tmp_path / "none"))
    no_traceback(proc)
    assert proc.returncode == 1
    assert "5 specs checked: 0 valid, 5 invalid" in proc.stdout
    for text in ("the file is empty", "binary file", "unknown alias", "is a list, not a mapping", "duplicate key"):
        assert text in proc.stdout
