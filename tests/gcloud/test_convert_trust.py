"""``trainjobs convert --gcloud`` at its boundary (issue 27, part 3), run as a user runs it, in a real git repository.

* a variable whose name looks secret never reaches what is written or printed; the trainer's
  args that held it are left out with a note naming the stack setting; anywhere else it is refused;
* any other variable's value is written with a note that says so;
* ``--flags-file`` and ``--config`` are read only inside the repository (no symlink out, no FIFO,
  size-capped), and an error never quotes the file;
* ``--package-path`` outside the repository is refused by convert itself;
* invalid UTF-8 anywhere in the line is one message, and nothing is written.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from provider.core.secret_names import looks_secret

from ..conftest import no_traceback, run_cli

SECRET = "s3cr3t-value-9f2c"  # must never be seen
AI = ("gcloud ai-platform jobs submit training j1 --region us-central1 --package-path trainer "
      "--module-name trainer.task --job-dir gs://my-bucket/jobs/j1 ")
VERTEX = ("gcloud ai custom-jobs create --region=us-central1 --display-name=j2 "
          "--worker-pool-spec=machine-type=n1-standard-4,container-image-uri=us-docker.pkg.dev/p/r/i:1 ")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository with a trainer package, and a folder beside it (outside)."""
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True, timeout=60)
    (root / "trainer").mkdir()
    (root / "trainer" / "__init__.py").write_text("")
    (root / "trainer" / "task.py").write_text("print('hi')\n")
    (tmp_path / "outside").mkdir()
    return root


def convert(line: str, cwd: Path, *extra: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    proc = run_cli("convert", "--gcloud", line, *extra, cwd=cwd, env=env)
    no_traceback(proc)
    return proc


def never_seen(proc: subprocess.CompletedProcess[str], *files: Path) -> None:
    assert SECRET not in proc.stdout and SECRET not in proc.stderr
    for f in files:
        assert not f.exists() or SECRET not in f.read_text()


@pytest.mark.parametrize(("name", "secret"), [
    ("API_KEY", True), ("APIKEY", True), ("GITHUB_TOKEN", True), ("db_password", True), ("DB_PASSWD", True),
    ("CLIENT_SECRET", True), ("GOOGLE_APPLICATION_CREDENTIALS", True), ("PRIVATE_KEY", True),
    ("OAUTH_CLIENT", True), ("DB_PWD", True), ("WANDB_API_KEYS", True), ("SENTRY_DSN", True),
    ("GITHUB_PAT", True), ("SLACK_WEBHOOK_URL", True), ("AWS_SECRET_ACCESS_KEY", True), ("HF_TOKEN", True),
    ("PATH", False), ("MODEL_DIR", False),
    ("PWD", False), ("OLDPWD", False), ("REGION", False), ("JOB_DIR", False), ("AUTHOR", False),
    ("KEYRING_NAME", False), ("MONKEY_COUNT", True),  # ends with KEY: the heuristic errs on the safe side
])
def test_the_secret_name_heuristic(name: str, secret: bool) -> None:
    assert looks_secret(name) is secret


@pytest.mark.parametrize("line", [
    AI + "-- --epochs 2 --api-key=$API_KEY --lr 0.1",
    AI + "-- --epochs 2 --api-key \"$API_KEY\" --lr 0.1",
    VERTEX + "--args=--epochs,2,--api-key=${API_KEY},--lr,0.1",
])
def test_a_secret_in_the_trainer_args_is_left_out_with_the_stack_setting(line: str, repo: Path) -> None:
    spec = repo / "specs" / "j.yaml"
    spec.parent.mkdir()
    proc = convert(line, repo, "--write", str(spec), env={"API_KEY": SECRET})
    assert proc.returncode == 0, proc.stderr
    never_seen(proc, spec)
    text = spec.read_text()
    assert "trainjobs:secretEnv.API_KEY" in text and "$API_KEY looks secret" in text
    native = yaml.safe_load(text)
    args = native["spec"].get("args") or native["spec"]["application"]["container"]["args"]
    assert args == ["--epochs", "2", "--lr", "0.1"]  # the option that took the secret went with it
    assert run_cli("validate", str(spec), "--stacks", "none", cwd=repo).returncode == 0


@pytest.mark.parametrize(("line", "flag"), [
    (AI + "--labels team=$TEAM_TOKEN", "--labels"),
    (VERTEX.replace("--display-name=j2", "--display-name=$NAME_SECRET"), "--display-name"),
    (AI + "--master-image-uri gcr.io/p/$IMAGE_KEY", "--master-image-uri"),
])
def test_a_secret_anywhere_else_is_refused_without_its_value(line: str, flag: str, repo: Path) -> None:
    spec = repo / "j.yaml"
    env = {"TEAM_TOKEN": SECRET, "NAME_SECRET": SECRET, "IMAGE_KEY": SECRET}
    proc = convert(line, repo, "--write", str(spec), env=env)
    assert proc.returncode == 1 and not spec.exists()
    never_seen(proc)
    assert f"{flag} takes its value from $" in proc.stderr and "trainjobs:secretEnv." in proc.stderr


def test_a_secret_in_a_value_gcloud_refuses_is_named_not_printed(repo: Path) -> None:
    proc = convert(AI + "--scale-tier $SCALE_SECRET", repo, env={"SCALE_SECRET": SECRET})
    assert proc.returncode == 1
    never_seen(proc)
    assert "Invalid choice: '$SCALE_SECRET'" in proc.stderr


def test_a_plain_variable_is_written_with_a_note_that_says_so(repo: Path) -> None:
    spec = repo / "j.yaml"
    proc = convert(AI.replace("us-central1", "$REGION"), repo, "--write", str(spec), env={"REGION": "europe-west4"})
    assert proc.returncode == 0, proc.stderr
    header = [ln for ln in spec.read_text().splitlines() if ln.startswith("# note: read from the environment")]
    assert header and "$REGION='europe-west4'" in header[0]


def test_flags_file_and_config_stay_inside_the_repository(repo: Path) -> None:
    outside = repo.parent / "outside"
    (outside / "flags.yaml").write_text("--region: us-east1\n")
    (repo / "link.yaml").symlink_to(outside / "flags.yaml")
    os.mkfifo(repo / "fifo.yaml")
    (repo / "big.yaml").write_text("--region: us-east1\n" + "# padding\n" * 120_000)
    for flag in ("--flags-file", "--config"):
        for name, says in (("../outside/flags.yaml", "outside the repository"),
                           ("link.yaml", "outside the repository"),
                           (str(outside / "flags.yaml"), "outside the repository"),
                           ("fifo.yaml", "not a regular file (it is a FIFO)"),
                           ("big.yaml", "larger than the 1,048,576-byte limit"),
                           ("missing.yaml", "does not exist")):
            proc = convert(f"{AI}{flag}={name}", repo)
            assert proc.returncode == 1, (flag, name, proc.stderr)
            assert says in proc.stderr, (flag, name, proc.stderr)
            assert flag in proc.stderr or proc.stderr.startswith(name + ":")  # --config: its problems at the file


@pytest.mark.parametrize("content", [
    f"password: {SECRET}\n",  # a mapping whose keys are not flags
    f"- {SECRET}\n",  # not a mapping
    f"{SECRET}: [unclosed\n",  # not YAML
    f"--region: &a [{SECRET}]\n--labels: *a\n" + "k: v\n",  # YAML the strict reader reports
])
def test_a_flags_file_error_never_quotes_the_file(content: str, repo: Path) -> None:
    (repo / "notes.txt").write_text(content)
    proc = convert(AI + "--flags-file notes.txt", repo)
    assert proc.returncode == 1
    never_seen(proc)
    assert "--flags-file" in proc.stderr


def test_a_flags_file_inside_the_repository_is_read(repo: Path) -> None:
    (repo / "cfg").mkdir()
    (repo / "cfg" / "flags.yaml").write_text("--region: europe-west4\n--labels: {team: vision}\n")
    (repo / "flags_link.yaml").symlink_to("cfg/flags.yaml")
    proc = convert(AI + "--flags-file=flags_link.yaml", repo)
    assert proc.returncode == 0, proc.stderr
    native = yaml.safe_load(proc.stdout)
    assert native["spec"]["region"] == "europe-west4" and native["metadata"]["labels"] == {"team": "vision"}


def test_a_package_path_outside_the_repository_is_refused_by_convert(repo: Path) -> None:
    (repo.parent / "outside" / "pkg").mkdir()
    (repo.parent / "outside" / "pkg" / "__init__.py").write_text("")
    (repo / "pkg_link").symlink_to(repo.parent / "outside" / "pkg")
    spec = repo / "j.yaml"
    for path in ("../outside/pkg", "pkg_link", str(repo.parent / "outside" / "pkg")):
        proc = convert(AI.replace("--package-path trainer", f"--package-path {path}"), repo, "--write", str(spec))
        assert proc.returncode == 1 and not spec.exists(), proc.stderr
        assert "--package-path" in proc.stderr and "outside the repository" in proc.stderr


def test_home_folder_words_are_refused_by_name(repo: Path) -> None:
    proc = convert(AI.replace("--package-path trainer", "--package-path ~/pkg"), repo)
    assert proc.returncode == 1
    assert "the word '~/pkg' would be expanded by bash" in proc.stderr and "write the path out" in proc.stderr


@pytest.mark.parametrize("tail", ["--region $'\\xff\\xfe'", "-- --arg $'\\xff'", "-- --arg $BAD"])
def test_invalid_utf8_is_one_message_and_nothing_is_written(tail: str, repo: Path) -> None:
    spec = repo / "j.yaml"
    env = {**os.environ, "NO_COLOR": "1"}
    env_bytes = {k.encode(): v.encode() for k, v in env.items()} | {b"BAD": b"x\xffy"}
    proc = subprocess.run([sys.executable, "-m", "provider", "convert", "--gcloud", AI + tail, "--write", str(spec)],
                          cwd=repo, env=env_bytes, capture_output=True, timeout=60)
    err = proc.stderr.decode()
    assert proc.returncode == 1 and not spec.exists(), err
    assert "is not valid UTF-8" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_invalid_utf8_in_the_line_itself(repo: Path) -> None:
    line = (AI + "-- --arg ").encode() + b"\xfe\xff"
    proc = subprocess.run([sys.executable, "-m", "provider", "convert", "--gcloud", line], cwd=repo,
                          capture_output=True, timeout=60, env={**os.environ, "NO_COLOR": "1"})
    err = proc.stderr.decode()
    assert proc.returncode == 1 and "the command line is not valid UTF-8 (byte 0xfe is not UTF-8)" in err, err
    assert "Traceback" not in err



@pytest.mark.parametrize("output", ["json", "request"])
def test_json_outputs_say_the_same_notes_on_stderr(output: str, repo: Path) -> None:
    proc = convert(AI.replace("us-central1", "$REGION") + "-- --key=$API_KEY", repo, "--output", output,
                   env={"REGION": "europe-west4", "API_KEY": SECRET})
    assert proc.returncode == 0, proc.stderr
    never_seen(proc)
    assert "$REGION='europe-west4'" in proc.stderr and "trainjobs:secretEnv.API_KEY" in proc.stderr
