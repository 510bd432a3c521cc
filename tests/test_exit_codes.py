"""One table of exit codes (provider.core.exit_code, README "Exit codes"), every command's failure
modes run as a user runs them, each in a process of its own. ``logs`` has its own file
(tests/test_logs_cli.py: an unknown replica 2, a missing job 4, --follow 0 / 6 / 7)."""

from __future__ import annotations

import json
import re
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from provider.core.exit_code import ExitCode

from .conftest import ROOT, no_traceback, run_cli
from .local.conftest import local_home, probe_spec


@pytest.fixture
def home(tmp_path: Path, env_cache: Path) -> Iterator[dict[str, str]]:
    yield from local_home(tmp_path, env_cache)


def _code(proc: subprocess.CompletedProcess[str], expected: ExitCode) -> None:
    no_traceback(proc)
    assert proc.returncode == expected, f"{proc.args}: {proc.returncode} != {expected!r}\n{proc.stdout}{proc.stderr}"


def test_the_table_is_the_readmes() -> None:
    """Each code in the README's "Exit codes" table, with its name; none left out, none invented."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Exit codes", 1)[1].split("\n## ", 1)[0]
    rows = dict(re.findall(r"^\| (\d+) +\| `(\w+)`", section, flags=re.M))
    assert {int(k): v for k, v in rows.items()} == {c.value: c.name for c in ExitCode}


def test_validate(tmp_path: Path) -> None:
    _code(run_cli("validate", "specs/local/simple.yaml"), ExitCode.SUCCESS)
    _code(run_cli("validate", "tests/negative/three_t4.yaml"), ExitCode.INVALID)
    _code(run_cli("validate", "no/such/spec.yaml"), ExitCode.NOT_FOUND)
    _code(run_cli("validate", "--format", "yaml", "specs/local/simple.yaml"), ExitCode.USAGE)
    _code(run_cli("validate", "--no-such-option"), ExitCode.USAGE)
    _code(run_cli("validate", cwd=tmp_path), ExitCode.USAGE)  # no PATH given, and no specs/ here to default to


def test_misspelled_command_and_no_command() -> None:
    _code(run_cli("vaildate"), ExitCode.USAGE)
    _code(run_cli(), ExitCode.USAGE)


def test_run(home: dict[str, str], tmp_path: Path) -> None:
    _code(run_cli("run", "no/such/spec.yaml", env=home), ExitCode.NOT_FOUND)
    _code(run_cli("run", "tests/negative/three_t4.yaml", env=home), ExitCode.INVALID)
    _code(run_cli("run", "specs/local/simple.yaml", "--stack", "nope", env=home), ExitCode.USAGE)
    # a job that runs past its max running time ends CANCELLED, as Vertex AI ends it
    slow = probe_spec("exit_slow", args=["--steps", "100000", "--step-seconds", "0.05"],
                      scheduling={"maxRunningTime": "3s"})
    path = tmp_path / "slow.yaml"
    path.write_text(json.dumps(slow))
    _code(run_cli("run", str(path), env=home, timeout=400), ExitCode.JOB_CANCELLED)


def test_convert(tmp_path: Path) -> None:
    _code(run_cli("convert", "no/such/config.yaml"), ExitCode.NOT_FOUND)
    _code(run_cli("convert"), ExitCode.USAGE)
    _code(run_cli("convert", "specs/local/simple.yaml", "--gcloud", "gcloud ai custom-jobs create"), ExitCode.USAGE)
    bad = tmp_path / "bad.yaml"
    bad.write_text("spec: [unclosed\n")
    _code(run_cli("convert", str(bad)), ExitCode.INVALID)


def test_job_commands(home: dict[str, str]) -> None:
    for command in (("status", "no_such_job"), ("cancel", "no_such_job"), ("logs", "no_such_job"),
                    ("artifacts", "no_such_job")):
        _code(run_cli(*command, env=home), ExitCode.NOT_FOUND)
    _code(run_cli("jobs", "list", "--stack", "nope", env=home), ExitCode.USAGE)
    _code(run_cli("jobs", "prune", "--older-than", "soon", env=home), ExitCode.USAGE)
    _code(run_cli("status", env=home), ExitCode.USAGE)  # JOB missing


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_backend_that_cannot_be_reached(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "stacks").mkdir(parents=True)
    (project / "stacks" / "Pulumi.gone.yaml").write_text(f"""\
config:
  trainjobs:backend: vertex
  trainjobs:team: team
  trainjobs:environment: gone
  gcp:project: test-project
  gcp:region: us-central1
  trainjobs:apiEndpoint: http://127.0.0.1:{_closed_port()}
  trainjobs:specs:
    - specs/*.yaml
""")
    _code(run_cli("jobs", "list", "--stack", "gone", cwd=project, timeout=300), ExitCode.UNAVAILABLE)


def test_the_other_commands(tmp_path: Path) -> None:
    _code(run_cli("gpus", "NVIDIA_TESLA_T5"), ExitCode.USAGE)
    _code(run_cli("gpus", "--count", "0"), ExitCode.USAGE)
    _code(run_cli("plan", cwd=tmp_path), ExitCode.USAGE)  # not a git checkout
    _code(run_cli("emulator", "--port", "99999"), ExitCode.USAGE)
    _code(run_cli("console", "--plan", str(tmp_path / "missing.json")), ExitCode.NOT_FOUND)
    _code(run_cli("schema", "--nope"), ExitCode.USAGE)
