"""The checks that keep the code honest run with the suite: the layer contract, ruff and mypy.

``lint-imports`` holds provider/ to the layers written in pyproject.toml (``[tool.importlinter]``),
ruff to the lint rules, and mypy (strict) to the types. Each runs from this checkout's .venv, as
``bash scripts/test.sh`` sets it up, so a failure here is the tool's own report.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def _run(*command: str, timeout: float) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout, check=False)


def test_the_layers_hold() -> None:
    proc = _run(str(BIN / "lint-imports"), "--no-cache", timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 broken" in proc.stdout


def test_ruff_is_clean() -> None:
    proc = _run(str(BIN / "ruff"), "check", "provider", "tests", "tools", "bench", "policy", timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.slow
def test_mypy_strict_is_clean() -> None:
    proc = _run(str(BIN / "mypy"), timeout=1500)
    assert proc.returncode == 0, proc.stdout + proc.stderr
