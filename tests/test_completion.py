"""Shell completion, in the real shells: bash (its completion function, as readline calls it), fish
(``complete -C``) and zsh (an interactive zsh driven through a terminal, Tab pressed).

Each test works in a project directory of its own (stacks/, specs/) with a private
``TRAINJOBS_HOME`` that holds one local job, so what is offered is what that directory holds.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from provider.backends.local.store import JobStore

BIN = Path(sys.executable).parent

pytestmark = pytest.mark.slow  # each case starts a shell and the trainjobs command


@pytest.fixture
def project(tmp_path: Path) -> Path:
    proj = tmp_path / "proj"
    (proj / "stacks").mkdir(parents=True)
    (proj / "specs" / "vision").mkdir(parents=True)
    for name in ("vision-dev", "nlp-prod"):
        (proj / "stacks" / f"Pulumi.{name}.yaml").write_text("config: {}\n")
    (proj / "specs" / "vision" / "resnet.yaml").write_text("{}\n")
    (proj / "specs" / "vision" / "notes.md").write_text("not a spec\n")
    return proj


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    job_dir = JobStore(home).create({"name": "vision_resnet", "create_time": "2026-11-23T10:00:00Z"})
    return {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}", "TRAINJOBS_HOME": str(home),
            "NO_COLOR": "1", "TERM": "dumb", "_JOB_ID": job_dir.name}


def _shell(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed here (scripts/test.sh installs it with apt-get where it can)")
    return path


BASH = """\
eval "$(trainjobs completion bash)"
COMP_LINE="$1"; COMP_POINT=${#COMP_LINE}
read -ra COMP_WORDS <<< "$COMP_LINE"; [[ "$COMP_LINE" == *" " ]] && COMP_WORDS+=("")
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
_python_argcomplete trainjobs "${COMP_WORDS[$COMP_CWORD]}" "${COMP_WORDS[$COMP_CWORD - 1]}"
printf '%s\\n' "${COMPREPLY[@]}"
"""


def bash(line: str, cwd: Path, env: dict[str, str]) -> list[str]:
    proc = subprocess.run([_shell("bash"), "-c", BASH, "bash", line], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120, check=True)
    return [w.strip() for w in proc.stdout.splitlines() if w.strip()]


def fish(line: str, cwd: Path, env: dict[str, str]) -> list[str]:
    script = f"trainjobs completion fish | source; complete -C{line!r}"
    proc = subprocess.run([_shell("fish"), "--no-config", "-c", script], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120, check=True)
    return [w.split("\t")[0].strip() for w in proc.stdout.splitlines() if w.strip()]


def test_bash_completes_commands_options_and_choices(project: Path, env: dict[str, str]) -> None:
    assert bash("trainjobs vali", project, env) == ["validate"]
    assert bash("trainjobs plan --format ", project, env) == ["text", "markdown", "json"]
    assert "--show-requests" in bash("trainjobs plan --", project, env)


def test_bash_completes_stacks_specs_and_jobs(project: Path, env: dict[str, str]) -> None:
    assert sorted(bash("trainjobs up --stack ", project, env)) == ["nlp-prod", "vision-dev"]
    assert bash("trainjobs validate specs/vision/", project, env) == ["specs/vision/resnet.yaml"]
    assert bash("trainjobs status ", project, env) == [env["_JOB_ID"], "vision_resnet"]


def test_fish_completes_stacks_and_commands(project: Path, env: dict[str, str]) -> None:
    assert sorted(fish("trainjobs preview --stack ", project, env)) == ["nlp-prod", "vision-dev"]
    assert "validate" in fish("trainjobs vali", project, env)
    assert fish("trainjobs logs ", project, env) == [env["_JOB_ID"], "vision_resnet"]


def test_zsh_completes_on_tab(project: Path, env: dict[str, str]) -> None:
    pexpect = pytest.importorskip("pexpect")
    shell = pexpect.spawn(_shell("zsh"), ["-f", "-i"], env=env, encoding="utf-8", timeout=60, cwd=str(project),
                          dimensions=(40, 200))
    try:
        shell.sendline("PS1='> '; autoload -Uz compinit && compinit -u; "
                       'eval "$(trainjobs completion zsh)"; echo READY')
        shell.expect("READY")
        shell.send("trainjobs destroy --stack vis\t")
        shell.expect("vision-dev")
        shell.sendcontrol("c")
        shell.send("trainjobs validate specs/vision/res\t")
        shell.expect("resnet.yaml")
    finally:
        shell.close(force=True)


def test_the_script_is_printed_for_each_shell_and_an_unknown_shell_is_a_usage_error() -> None:
    for name in ("bash", "zsh", "fish"):
        proc = subprocess.run([sys.executable, "-m", "provider", "completion", name], capture_output=True,
                              text=True, timeout=60, check=True)
        assert "trainjobs" in proc.stdout
    proc = subprocess.run([sys.executable, "-m", "provider", "completion", "tcsh"], capture_output=True, text=True,
                          timeout=60, check=False)
    assert proc.returncode == 2 and "invalid choice: 'tcsh'" in proc.stderr


def test_bash_completes_gpus_accelerators_machine_types_and_regions(project: Path, env: dict[str, str]) -> None:
    assert bash("trainjobs gpus A10", project, env) == ["A100-40GB", "A100-80GB"]
    assert bash("trainjobs gpus --machine-type a2-highgpu-", project, env) == [
        "a2-highgpu-1g", "a2-highgpu-2g", "a2-highgpu-4g", "a2-highgpu-8g"]
    assert "us-central1" in bash("trainjobs gpus --region us-c", project, env)
