"""The checks that keep the code honest run with the suite: the layer contract, ruff and mypy.

``lint-imports`` holds provider/ to the layers written in pyproject.toml (``[tool.importlinter]``),
ruff to the lint rules, and mypy (strict) to the types. Each runs from this checkout's .venv, as
``bash scripts/test.sh`` sets it up, so a failure here is the tool's own report.
"""

from __future__ import annotations

import os
import re
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


def _provider_modules() -> list[Path]:
    return sorted(p for p in (ROOT / "provider").rglob("*.py") if "__pycache__" not in p.parts)


def test_no_module_of_provider_is_over_400_lines() -> None:
    long = {str(p.relative_to(ROOT)): n for p in _provider_modules()
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 400}
    assert not long, f"split these by concept: {long}"


def test_complexity_stays_low() -> None:
    """Radon's cyclomatic complexity: none over 30, at most five over 20 (issue 14); a long if-chain
    over keys is better as a table."""
    from radon.complexity import cc_visit

    scores = {f"{p.relative_to(ROOT)}:{block.fullname}": block.complexity
              for p in _provider_modules() for block in cc_visit(p.read_text(encoding="utf-8"))}
    assert not {k: v for k, v in scores.items() if v > 30}
    over_20 = {k: v for k, v in scores.items() if v > 20}
    assert len(over_20) <= 5, over_20


def test_every_dataclass_and_record_has_a_docstring() -> None:
    """A dataclass without one has ``inspect.signature`` called when it is created, to make one:
    about 0.5 ms a class, paid at every start of every command that imports it (issue 13). A
    record (provider.core.record) is a value of the model: it says what it is."""
    import ast

    missing = [f"{p.relative_to(ROOT)}:{node.lineno} {node.name}"
               for p in _provider_modules() for node in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
               if isinstance(node, ast.ClassDef) and not ast.get_docstring(node)
               and (any("dataclass" in ast.unparse(d) for d in node.decorator_list)
                    or any(ast.unparse(b) == "Record" for b in node.bases))]
    assert not missing, missing


def test_values_are_records_not_dataclasses() -> None:
    """One way to declare a value: provider.core.record (a dataclass compiles its methods at import)."""
    uses = [str(p.relative_to(ROOT)) for p in _provider_modules()
            if re.search(r"^\s*(from dataclasses import|import dataclasses)", p.read_text(encoding="utf-8"), re.M)]
    assert not uses, uses


def test_a_cold_validate_defines_no_dataclass() -> None:
    """The modules one spec's check imports define records, not dataclasses: on Python 3.11 a
    dataclass compiles its methods when its module is imported (issue 13, provider.core.record)."""
    import subprocess
    import sys

    code = ("import sys\n"
            "from provider.cli import main\n"
            "main(['validate', 'specs/seeds/custom_cpu_cluster.yaml', 'specs/seeds/cassava_multiworker_sdk.yaml',"
            " 'specs/local/simple.yaml', 'specs/vision/resnet_t4.yaml'])\n"
            "print('LOADED', 'dataclasses' in sys.modules, 'inspect' in sys.modules)\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert "LOADED False False" in proc.stdout, proc.stdout[-2000:] + proc.stderr[-2000:]
