"""The lowest versions pyproject.toml allows for the two runtime dependencies give the same verdicts.

A fresh virtual environment gets PyYAML and jsonschema-rs at their lower bounds (from
``.venv/wheelhouse``: no index is reached) and runs ``trainjobs validate`` from this source tree
over the project's specs and the whole negative corpus; its output must equal the pinned
environment's, byte for byte.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
WHEELHOUSE = ROOT / ".venv" / "wheelhouse"

pytestmark = pytest.mark.slow


def lower_bounds() -> dict[str, str]:
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    out = {}
    for dep in deps:
        m = re.fullmatch(r"([A-Za-z0-9_.-]+)>=([0-9.]+)(,.*)?", dep.replace(" ", ""))
        assert m, f"{dep}: every runtime dependency needs a lower bound"
        out[m.group(1)] = m.group(2)
    return out


def validate(python: str, *paths: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    return subprocess.run([python, "-m", "provider", "validate", "--format", "json", *paths], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600, check=False)


def test_the_lowest_runtime_versions_give_the_same_output(tmp_path: Path) -> None:
    bounds = lower_bounds()
    assert {"PyYAML", "jsonschema-rs"} <= set(bounds)
    if not any(WHEELHOUSE.glob("*.whl")):
        pytest.fail(f"{WHEELHOUSE} has no wheels: run bash scripts/setup.sh dev")
    env_dir = tmp_path / "lowest"
    venv.create(env_dir, with_pip=True)
    python = str(env_dir / "bin" / "python")
    pins = [f"PyYAML=={bounds['PyYAML']}", f"jsonschema-rs=={bounds['jsonschema-rs']}"]
    subprocess.run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-index",
                    "--find-links", str(WHEELHOUSE), *pins], check=True, timeout=600, capture_output=True)
    probe = subprocess.run([python, "-c", "import yaml, jsonschema_rs, importlib.metadata as m; "
                            "print(yaml.__version__, m.version('jsonschema-rs'))"],
                           capture_output=True, text=True, check=True)
    assert probe.stdout.split() == [bounds["PyYAML"], bounds["jsonschema-rs"]]
    for paths in (["specs"], ["tests/negative"]):
        lowest, pinned = validate(python, *paths), validate(sys.executable, *paths)
        assert "Traceback" not in lowest.stderr, lowest.stderr
        assert (lowest.returncode, lowest.stdout) == (pinned.returncode, pinned.stdout)
