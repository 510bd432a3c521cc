"""Helpers for the Pulumi tests: run the program under mocks in a fresh process."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]


def stack_config(stack: str, project: Path = ROOT, **overrides: Any) -> dict[str, str]:
    data = yaml.safe_load((project / "stacks" / f"Pulumi.{stack}.yaml").read_text())["config"]
    data.update(overrides)
    return {k: v if isinstance(v, str) else json.dumps(v) for k, v in data.items()}


def run_program(tmp_path: Path, stack: str, config: dict[str, str] | None = None, *, forward: bool = False,
                secret_keys: list[str] | None = None, project: Path = ROOT,
                env: dict[str, str] | None = None, preview: bool = False, wait_notice: str = "") -> dict[str, Any]:
    out = tmp_path / f"report-{stack}-{len(list(tmp_path.glob('report-*')))}.json"
    cmd = [sys.executable, "-m", "tests.pulumi.harness", stack, "--out", str(out), "--project", str(project),
           "--secret-keys", json.dumps(secret_keys or [])]
    if config is not None:
        cmd += ["--config-json", json.dumps(config)]
    if forward:
        cmd.append("--forward-dynamic")
    if preview:
        cmd.append("--preview")
    if wait_notice:
        cmd += ["--wait-notice", wait_notice]
    import os

    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=900,
                          env={**os.environ, **(env or {})})
    assert out.exists(), proc.stderr[-3000:]
    report: dict[str, Any] = json.loads(out.read_text())
    return report


def project_copy(tmp: Path) -> Path:
    """A copy of the project (program, stacks, specs, examples) that a test may change."""
    copy = tmp / "project"
    copy.mkdir()
    for name in ("Pulumi.yaml", "__main__.py"):
        shutil.copy(ROOT / name, copy / name)
    for name in ("stacks", "specs", "examples"):
        shutil.copytree(ROOT / name, copy / name)
    return copy


def by_type(report: dict[str, Any], type_: str) -> dict[str, dict[str, Any]]:
    return {name: r for name, r in report["resources"].items() if r["type"] == type_}


def registration(report: dict[str, Any], name: str) -> dict[str, Any]:
    return next(r for r in report["registrations"] if r["name"] == name)


@pytest.fixture
def local_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("TRAINJOBS_LOCAL_GPUS", "none")
    monkeypatch.setenv("TRAINJOBS_HOME", str(home))
    return home
