"""A gcloud command written for Windows PowerShell or cmd.exe, pasted as it is (provider.gcloud.other_shells).

The line is read as bash reads it; where that stops at another shell's line continuation, the message
names the shell and what bash takes instead, never a reason that does not apply (PowerShell's
backtick is no command substitution). Public inputs: a lesson that gives one command for bash, cmd.exe
and PowerShell (find_string id 51764829831), PowerShell scripts (ids 37658277682, 11459730969) and
cmd.exe ones (ids 16091682979, 12764421219).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from provider.gcloud.script import position
from provider.gcloud.words import ShellError, split_words

from ..conftest import run_cli
from .test_real_inputs import _repo

LESSON = {  # find_string id 51764829831, "Windows users — line continuation syntax"
    "bash": "gcloud ai custom-jobs create \\\n    --region=us-central1 \\\n    --display-name=cli-xgb-titanic \\\n"
            "    --config=xgb_job.yaml",
    "cmd": "gcloud ai custom-jobs create ^\n    --region=us-central1 ^\n    --display-name=cli-xgb-titanic ^\n"
           "    --config=xgb_job.yaml",
    "powershell": "gcloud ai custom-jobs create `\n    --region=us-central1 `\n    --display-name=cli-xgb-titanic `\n"
                  "    --config=xgb_job.yaml",
}


def test_the_bash_form_is_read() -> None:
    assert split_words(LESSON["bash"], {}) == ["gcloud", "ai", "custom-jobs", "create", "--region=us-central1",
                                               "--display-name=cli-xgb-titanic", "--config=xgb_job.yaml"]


@pytest.mark.parametrize(("line", "says", "column"), [
    (LESSON["powershell"], "a ` that ends a line is PowerShell's line continuation", 30),
    # find_string id 37658277682: trailing spaces after the backtick are still its line's end
    ("gcloud ai custom-jobs create `  \n  --region=us-west1 `\n  --config=vertex_job_config.yaml", "PowerShell", 30),
    (LESSON["cmd"], "a ^ that ends a line is cmd.exe's line continuation", 31),
    # find_string id 12764421219, a .bat file's command
    ("gcloud ai custom-jobs create ^\n  --region=asia-northeast3 ^\n  --display-name=lisa-btc-trade-rl", "cmd.exe", 31),
])
def test_another_shells_continuation_is_named(line: str, says: str, column: int) -> None:
    with pytest.raises(ShellError) as refused:
        split_words(line, {})
    at = position(line, column - 1)  # a script of several lines: its line and column
    assert str(refused.value).startswith(f"line {at[0]}, column {at[1]}: ")
    assert says in str(refused.value)
    assert "end each continued line with \\ instead" in str(refused.value)


@pytest.mark.parametrize(("line", "says"), [
    ("gcloud ai custom-jobs create --region=`echo us-central1`", "backticks are command substitution"),
    ("gcloud ai custom-jobs create --display-name=a\n--region=x", "a newline without a backslash ends the command"),
    ("gcloud ai custom-jobs create --display-name=a^b\n--region=x", "a newline without a backslash ends the command"),
])
def test_what_bash_means_keeps_its_own_reason(line: str, says: str) -> None:
    with pytest.raises(ShellError) as refused:
        split_words(line, {})
    assert says in str(refused.value)
    assert "PowerShell" not in str(refused.value) and "cmd.exe" not in str(refused.value)


def test_convert_names_a_cmd_variable_bash_passes_as_written(tmp_path: Path) -> None:
    # find_string id 25666099419 (a .bat file): --region=%REGION%, on one line
    done = run_cli("convert", "--gcloud", "gcloud ai custom-jobs create --region=us-central1 --display-name=%JOB% "
                   "--worker-pool-spec=machine-type=n1-standard-4,container-image-uri=gcr.io/p/i", cwd=_repo(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "%JOB% in '--display-name=%JOB%' is passed to gcloud as written, as bash passes it; in Windows cmd.exe" \
        in done.stdout + done.stderr


def test_a_makefile_variable_is_named_as_makes() -> None:
    # find_string id 62756632021, a Makefile's gcp-train recipe as written
    recipe = ("gcloud ai custom-jobs create \\\n\t\t--region=$(GCP_REGION) \\\n\t\t--display-name=train-$(TAG) \\\n"
              "\t\t--worker-pool-spec=machine-type=n1-standard-4,replica-count=1,"
              "container-image-uri=$(GCP_REGION)-docker.pkg.dev/$(GCP_PROJECT_ID)/mlops-training/train:$(TAG)")
    with pytest.raises(ShellError) as refused:
        split_words(recipe, {})
    assert str(refused.value) == (
        "line 2, column 12: $(GCP_REGION) is command substitution to bash (trainjobs never runs commands); in a Makefile it is "
        "make's variable GCP_REGION, replaced before the shell runs: write its value, or $GCP_REGION from the "
        "environment")
    with pytest.raises(ShellError, match=r"^line 2, column 12: '\$\(shell date\)': \$\(\.\.\.\) is command substitution"):
        split_words(recipe.replace("$(GCP_REGION)", "$(shell date)", 1), {})


@pytest.mark.parametrize("word", ["$(date)", "$(hostname)/trainer", "$(git rev-parse HEAD)"])  # $(pwd) is read
def test_a_command_substitution_is_not_called_makes(word: str) -> None:
    with pytest.raises(ShellError) as refused:
        split_words(f"gcloud x {word}", {})
    said = str(refused.value)
    assert f"'{word.split('/')[0]}': $(...) is command substitution" in said or "'$(date)': date without +FORMAT" in said
    assert "Makefile" not in str(refused.value)


@pytest.mark.parametrize(("name", "text", "says", "at"), [
    # find_string id 37453889757, a .bat file: set VAR=..., call gcloud ml-engine jobs submit training %JOB_NAME% ...
    ("train.bat", "@echo off\r\nset REGION=europe-west1\r\ncall gcloud ml-engine jobs submit training %JOB% "
                  "--region %REGION%\r\n", "a Windows batch file", ":3:6"),
    # find_string id 57802966824, a PowerShell snippet: gcloud ai custom-jobs create `
    ("deploy.ps1", "# Create fine-tuning pipeline\ngcloud ai custom-jobs create `\n  --region=us-central1\n",
     "a PowerShell script", ":2:1"),
    # find_string id 52135142664, a README's ```bash block
    ("README.md", "### GCP Vertex AI\n\n```bash\ngcloud ai custom-jobs create \\\n  --region=us-central1\n```\n",
     "a Markdown document", ":4:1"),
    ("notes.md", "# nothing to run here\n", "a Markdown document", ""),
])
def test_a_file_of_another_kind_is_named_never_read_as_yaml(tmp_path: Path, name: str, text: str, says: str,
                                                             at: str) -> None:
    (tmp_path / name).write_bytes(text.encode())
    done = run_cli("convert", name, cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.startswith(f"trainjobs: {name}{at}: {says} (")
    assert ("): its gcloud command is not read (" if at else "): it is not read (") in done.stderr
    assert "YAML syntax error" not in done.stderr and "not a mapping" not in done.stderr
    assert "allowed: the gcloud command written for bash in a .sh file" in done.stderr
