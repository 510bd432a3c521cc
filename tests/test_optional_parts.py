"""A command that needs an optional part (an extra of pyproject.toml) says so at start (issue 27, part 5).

A real virtual environment holds the base install only (trainjobs' runtime requirements, from the
wheelhouse scripts/setup.sh dev downloads; this checkout on its path): no Google Cloud SDK. There
``trainjobs emulator`` and every ``--stack`` command on a Vertex AI stack end at once with one
message naming the missing extra and the exact command that installs it, exit code 2, no
traceback; a local stack still works.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from provider.core.optional import Part, install_command, missing, part_of

from .conftest import ROOT

WHEELHOUSE = ROOT / ".venv" / "wheelhouse"
RUNTIME = ("PyYAML==6.0.3", "jsonschema_rs==0.60.3", "build", "pyproject_hooks", "packaging", "argcomplete")


@pytest.fixture(scope="module")
def base_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv with trainjobs' runtime requirements and this checkout, without any extra."""
    if not WHEELHOUSE.is_dir():
        pytest.fail(f"{WHEELHOUSE} is missing: run bash scripts/setup.sh dev (it downloads the offline wheels)")
    venv = tmp_path_factory.mktemp("base") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=300)
    (site,) = (venv / "lib").glob("python3.*/site-packages")
    env = {**os.environ, "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(WHEELHOUSE)}
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--target",
                    str(site), *RUNTIME], env=env, check=True, capture_output=True, timeout=600)
    (site / "trainjobs-checkout.pth").write_text(f"{ROOT}\n")
    return venv


def trainjobs(venv: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "TRAINJOBS_DEBUG")}
    env.update(NO_COLOR="1", PYTHONNOUSERSITE="1", TRAINJOBS_HOME=str(cwd / "home"))
    return subprocess.run([str(venv / "bin" / "python"), "-m", "provider", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def expected_line(venv: Path) -> str:
    return f"install it with: {venv / 'bin' / 'python'} -m pip install -e '{ROOT}[vertex]'"


@pytest.mark.slow  # builds a venv
def test_the_base_venv_has_no_google_sdk(base_venv: Path, tmp_path: Path) -> None:
    proc = trainjobs(base_venv, "validate", str(ROOT / "specs"), "--stacks", "none", cwd=tmp_path)
    assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    probe = subprocess.run([str(base_venv / "bin" / "python"), "-c", "import google.cloud.aiplatform_v1"],
                           capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONNOUSERSITE": "1"})
    assert probe.returncode == 1 and "ModuleNotFoundError" in probe.stderr


@pytest.mark.slow  # builds a venv
def test_the_emulator_says_it_needs_the_vertex_extra(base_venv: Path, tmp_path: Path) -> None:
    proc = trainjobs(base_venv, "emulator", "--port", "0", "--state-dir", str(tmp_path / "state"), cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr and "This is a bug" not in proc.stderr
    assert "trainjobs emulator needs the Google Cloud SDK" in proc.stderr and "the 'vertex' extra" in proc.stderr
    assert expected_line(base_venv) in proc.stderr
    assert "Vertex AI on" not in proc.stdout  # it never started serving
    assert not (tmp_path / "state").exists()


@pytest.mark.slow  # builds a venv
@pytest.mark.parametrize("command", [
    ("jobs", "list", "--stack", "vision-dev"),
    ("status", "abc123", "--stack", "vision-dev"),
    ("logs", "abc123", "--stack", "vision-dev"),
    ("cancel", "abc123", "--stack", "vision-dev"),
    ("artifacts", "abc123", "--stack", "vision-dev"),
])
def test_a_vertex_stack_command_says_it_needs_the_vertex_extra(command: tuple[str, ...], base_venv: Path,
                                                               tmp_path: Path) -> None:
    (tmp_path / "stacks").mkdir()
    shutil.copy(ROOT / "stacks" / "Pulumi.vision-dev.yaml", tmp_path / "stacks")
    proc = trainjobs(base_venv, *command, cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr
    assert "--stack vision-dev (a Vertex AI stack) needs the Google Cloud SDK" in proc.stderr
    assert expected_line(base_venv) in proc.stderr


@pytest.mark.slow  # builds a venv
@pytest.mark.parametrize(("command", "part"), [
    (("tensorboard", "abc123"), "tensorboard"),
    (("console", "--port", "0"), "console"),
])
def test_tensorboard_and_the_console_say_which_extra_they_need(command: tuple[str, ...], part: str, base_venv: Path,
                                                              tmp_path: Path) -> None:
    proc = trainjobs(base_venv, *command, cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr
    assert f"the '{part}' extra" in proc.stderr
    assert f"install it with: {base_venv / 'bin' / 'python'} -m pip install -e '{ROOT}[{part}]'" in proc.stderr


@pytest.mark.slow  # builds a venv
def test_a_local_stack_needs_no_extra(base_venv: Path, tmp_path: Path) -> None:
    (tmp_path / "stacks").mkdir()
    shutil.copy(ROOT / "stacks" / "Pulumi.local.yaml", tmp_path / "stacks")
    proc = trainjobs(base_venv, "jobs", "list", "--stack", "local", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_install_command_fits_the_install(tmp_path: Path) -> None:
    checkout = tmp_path / "checkout"
    (checkout / "scripts").mkdir(parents=True)
    (checkout / "scripts" / "setup.sh").write_text("")
    (checkout / ".venv" / "bin").mkdir(parents=True)
    (checkout / ".venv" / "bin" / "python").write_text("")
    own = checkout / ".venv"
    assert install_command(Part.VERTEX, checkout, own, cwd=checkout) == "bash scripts/setup.sh vertex"
    assert install_command(Part.VERTEX, checkout, own, cwd=tmp_path) == f"bash {checkout}/scripts/setup.sh vertex"
    other = tmp_path / "other"
    (other / "bin").mkdir(parents=True)
    (other / "bin" / "python").write_text("")
    assert install_command(Part.VERTEX, checkout, other, tmp_path) == f"{other}/bin/python -m pip install -e '{checkout}[vertex]'"
    assert install_command(Part.VERTEX, None, other, tmp_path) == f"{other}/bin/python -m pip install 'trainjobs[vertex]'"


def test_the_dev_install_has_the_vertex_extra() -> None:
    assert missing(Part.VERTEX) == []


@pytest.mark.slow  # builds a venv
def test_the_guard_turns_a_missing_optional_module_into_the_install_line(base_venv: Path, tmp_path: Path) -> None:
    """Should a command reach a module of a missing part before its own check, it still ends in one line."""
    code = ("import argparse\n"
            "from provider.cli.guard import guard\n"
            "@guard\n"
            "def status(args):\n"
            "    from google.cloud import aiplatform_v1\n"
            "try:\n"
            "    status(argparse.Namespace(command='status'))\n"
            "except Exception as exc:\n"
            "    print(type(exc).__name__, exc.exit_code, exc)\n")
    proc = subprocess.run([str(base_venv / "bin" / "python"), "-c", code], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120, env={**os.environ, "PYTHONNOUSERSITE": "1"})
    assert proc.stdout.startswith("UserError 2 trainjobs status needs the Google Cloud SDK"), proc.stdout + proc.stderr
    assert expected_line(base_venv) in proc.stdout


@pytest.mark.parametrize(("module", "part"), [("google", Part.VERTEX), ("google.cloud.storage", Part.VERTEX),
                                              ("google_crc32c", Part.VERTEX), ("yaml", None), (None, None)])
def test_which_part_a_module_belongs_to(module: str | None, part: Part | None) -> None:
    assert part_of(module) is part
