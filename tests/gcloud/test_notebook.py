"""A gcloud command as a notebook cell holds it (provider.gcloud.notebook): ``!gcloud ...`` and ``%%bash``.

IPython's readings here (the joined line of a ``\\``-continued ``!`` cell, what var_expand replaces)
were taken from IPython 9.18.1 itself (TransformerManager().transform_cell, DollarFormatter), which
the project does not depend on; the ``! gcloud`` form (with a space, bash's pipeline negation) is
also held against a real bash, which passes the same words. Public cells: find_string ids
7632761974 (``--region={REGION}``, a Python variable), 55082256198 (``!gcloud`` with ``$VAR``s).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from provider.gcloud.words import ShellError, split_words

from ..conftest import run_cli
from .test_words_bash import BASH, ENV

PLAIN = "gcloud ai custom-jobs create --region=$REGION --display-name=nb --config=c.yaml"
VARS = {"REGION": "europe-west1"}


@pytest.mark.parametrize("prefix", ["!", "! ", "!!", "  !", "# submit the job\n!", "\n\n! "])
def test_a_bang_line_is_the_shell_line_ipython_runs(prefix: str) -> None:
    assert split_words(prefix + PLAIN, VARS) == split_words(PLAIN, VARS) != []


def test_bang_space_is_read_as_bash_runs_it(tmp_path: Path) -> None:
    import subprocess

    out = subprocess.run([BASH, "-c", '! printf "%s\\0" ai "--region=$REGION" {a} x\\\n  y'], cwd=tmp_path,
                         env={**ENV, **VARS}, capture_output=True, timeout=60).stdout
    bash = [w.decode() for w in out.split(b"\0")[:-1]]
    assert split_words('! gcloud ai "--region=$REGION" x\\\n  y', VARS)[1:] == [w for w in bash if w != "{a}"]


def test_a_continued_cell_is_joined_as_ipython_joins_it() -> None:
    # IPython: 'gcloud a \\\n  --b=c\\\nd\n' -> system('gcloud a    --b=c d'): each backslash-newline is one
    # space, so a value continued inside it is two words there, one in bash.
    assert split_words("!gcloud a \\\n  --b=c\\\nd\n", {}) == ["gcloud", "a", "--b=c", "d"]
    assert split_words("gcloud a \\\n  --b=c\\\nd\n", {}) == ["gcloud", "a", "--b=cd"]


def test_python_code_after_the_cell_line_is_not_the_command() -> None:
    with pytest.raises(ShellError, match="a newline without a backslash ends the command"):
        split_words("!gcloud ai custom-jobs create --region=x\nprint('done')\n", {})


@pytest.mark.parametrize(("line", "shown", "column"), [
    ("!gcloud ai custom-jobs create \\\n  --region={REGION} \\\n  --display-name={JOB_NAME}", "{REGION}", 43),
    ("! gcloud x --display-name='{JOB_NAME}'", "{JOB_NAME}", 28),  # IPython formats inside quotes too
    ("!gcloud x --args={n//4}", "{n//4}", 18),
])
def test_a_python_substitution_is_refused_by_name(line: str, shown: str, column: int) -> None:
    with pytest.raises(ShellError) as refused:
        split_words(line, {"REGION": "europe-west1", "JOB_NAME": "j"})
    assert f"column {column}: {shown} in a notebook's ! line is IPython's substitution" in str(refused.value)
    assert "trainjobs cannot know" in str(refused.value)


def test_doubled_braces_are_refused() -> None:
    with pytest.raises(ShellError, match=r"\{\{ in a notebook's ! line is read by IPython as \{ only when"):
        split_words("!gcloud x --args={{a}}", {})


def test_dollar_names_come_from_the_environment() -> None:
    # IPython replaces $REGION / ${REGION} only from a Python variable; without one the shell reads them
    assert split_words("!gcloud x --region=${REGION} --zone=$REGION", VARS)[2:] == [
        "--region=europe-west1", "--zone=europe-west1"]
    with pytest.raises(ShellError, match=r"\$REGION is not defined in the environment"):
        split_words("!gcloud x --region=$REGION", {})


def test_a_line_python_cannot_format_reaches_the_shell_as_written() -> None:
    # Formatter().parse raises on the lone }: IPython's var_expand gives up and the shell gets the braces
    assert split_words("!gcloud x --display-name={JOB} --args=a}", {})[2:] == ["--display-name={JOB}", "--args=a}"]


def test_a_bash_cell_is_bash_as_written() -> None:
    cell = "%%bash\ngcloud ai custom-jobs create \\\n  --display-name={JOB} --region=$REGION\n"
    assert split_words(cell, VARS) == ["gcloud", "ai", "custom-jobs", "create", "--display-name={JOB}",
                                       "--region=europe-west1"]
    assert split_words("%%script bash\n" + PLAIN, VARS) == split_words(PLAIN, VARS)


def test_convert_refuses_the_notebook_cell_and_notes_a_plain_placeholder(tmp_path: Path) -> None:
    cell = ("!gcloud ai custom-jobs create \\\n  --region={REGION} \\\n  --display-name={JOB_NAME} \\\n"
            "  --worker-pool-spec=machine-type=n1-standard-4,container-image-uri=gcr.io/p/i")
    done = run_cli("convert", "--gcloud", cell, cwd=tmp_path)
    assert done.returncode == 1
    assert "{REGION} in a notebook's ! line is IPython's substitution of the notebook's Python value of REGION" \
        in done.stderr
    assert "Traceback" not in done.stderr
    plain = cell[1:].replace("{REGION}", "us-central1")  # bash passes {JOB_NAME} as written: a note says so
    done = run_cli("convert", "--gcloud", plain, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "{JOB_NAME} in '--display-name={JOB_NAME}' is passed to gcloud as written, as bash passes it" \
        in done.stdout + done.stderr
