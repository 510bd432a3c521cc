"""`trainjobs up|preview|refresh|destroy --stack S`: thin wrappers over Pulumi's Automation API.

No pulumi CLI exists on these machines, so what is tested is the wrapper's own behaviour: the
message without the CLI, usage errors, and how it reports a CLI that is too old or that fails
(the latter with a stand-in `pulumi` script on PATH that answers `version` and fails the rest;
it stands in for nothing the project claims about Pulumi itself)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tests.conftest import ROOT, no_traceback, run_cli

COMMANDS = ["up", "preview", "refresh", "destroy"]


def _path_without_pulumi() -> str:
    dirs = [d for d in os.environ["PATH"].split(os.pathsep) if not (Path(d) / "pulumi").exists()]
    return os.pathsep.join(dirs)


@pytest.mark.parametrize("cmd", COMMANDS)
def test_without_the_cli_it_says_how_to_install_it(cmd: str) -> None:
    proc = run_cli(cmd, "--stack", "local", "--yes" if cmd in ("up", "destroy") else "--cwd=.",
                   env={"PATH": _path_without_pulumi()})
    assert proc.returncode == 2
    assert f"the pulumi CLI is not on PATH, and `trainjobs {cmd}` drives it" in proc.stderr
    assert "curl -fsSL https://get.pulumi.com | sh" in proc.stderr
    assert "pulumi login --local" in proc.stderr
    no_traceback(proc)


def test_usage_errors_name_what_exists(tmp_path: Path) -> None:
    proc = run_cli("preview", "--stack", "nope")
    assert proc.returncode == 2
    assert "no stack 'nope'" in proc.stderr and "local, nlp-dev, vision-dev, vision-prod" in proc.stderr
    proc = run_cli("preview", "--stack", "local", "--cwd", str(tmp_path))
    assert proc.returncode == 2 and f"no Pulumi.yaml in {tmp_path}" in proc.stderr
    no_traceback(proc)


def _fake_pulumi(bin_dir: Path, version: str) -> None:
    bin_dir.mkdir()
    script = bin_dir / "pulumi"
    script.write_text(f"""#!/bin/sh
if [ "$1" = "version" ]; then echo "{version}"; exit 0; fi
echo "error: no credentials to reach the state backend; run pulumi login" >&2
exit 255
""")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)


def test_a_cli_that_fails_is_reported_in_one_clear_message(tmp_path: Path) -> None:
    _fake_pulumi(tmp_path / "bin", "v3.200.0")
    proc = run_cli("preview", "--stack", "local", cwd=ROOT,
                   env={"PATH": f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}", "HOME": str(tmp_path)})
    assert proc.returncode == 1, proc.stderr
    assert "pulumi preview --stack local failed:" in proc.stderr
    assert "error: no credentials to reach the state backend; run pulumi login" in proc.stderr
    no_traceback(proc)


def test_a_cli_too_old_for_the_automation_api_is_named(tmp_path: Path) -> None:
    _fake_pulumi(tmp_path / "bin", "v2.0.0")
    proc = run_cli("refresh", "--stack", "local", cwd=ROOT,
                   env={"PATH": f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}", "HOME": str(tmp_path)})
    assert proc.returncode == 2, proc.stderr
    assert "the pulumi CLI on PATH is too old" in proc.stderr and "2.0.0" in proc.stderr
    no_traceback(proc)
