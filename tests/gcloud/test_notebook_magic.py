"""A ``%%bash`` cell's magic words (``-s ARGS``, ``--out VAR``, ``%%script bash``...): provider.gcloud.notebook_magic.

IPython and bash themselves are the oracle where a python with IPython is installed (system python3, IPython 8.12):
each notebook runs in an InteractiveShell, whose %%bash runs the real bash, with a ``gcloud`` on PATH that only
writes the words it gets; the words trainjobs reads from the cell must be those. ``%%bash -s "$PROJECT" ...`` is
how Google's notebooks pass Python values to a bash cell (e.g. GoogleCloudPlatform/training-data-analyst,
find_string id 4656839196's notebook family); the cells here are written for the test.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from provider.core.errors import UserError
from provider.gcloud.notebook_expand import expand
from provider.gcloud.notebook_file import Cell, blocks, chosen
from provider.gcloud.notebook_magic import read
from provider.gcloud.words import split_words

from ..conftest import ipython_python
from .test_notebook_file import _convert, _notebook

FIRST = "REGION = 'europe-west4'\nNAME = 'nb job'"
JOB = ('gcloud ai custom-jobs create --region=$1 --display-name="$2" --worker-pool-spec=machine-type=n1-standard-4,'
       'replica-count=1,container-image-uri=gcr.io/p/i:1')
SINGLE = JOB.replace('--display-name="$2"', "'--display-name=$2'")  # single quotes: bash keeps $2 as written
SPLIT = JOB.replace("=$1", "=x").replace('"$2"', "$1")  # $1 unquoted
READ = [  # (id, cell 2, a note that must be said)
    ("s", f"%%bash -s us-central1 'my job'\n{JOB}", "$1 = 'us-central1', $2 = 'my job'"),
    ("python_values", f'%%bash -s {{REGION}} "$NAME"\n{JOB}', "{REGION} = 'europe-west4', $NAME = 'nb job'"),
    ("out", f"%%bash --out OUT -s {{REGION}} x\n{JOB}", "--out OUT keeps the cell's output in the Python variable OUT"),
    ("out_after", f"%%bash -s {{REGION}} x --err=ERR\n{JOB}", "--err ERR keeps the cell's error output"),
    ("abbreviated", f"%%bash --o OUT -s {{REGION}} x\n{JOB}", "--out OUT"),
    ("script", f"%%script bash -s us-central1 y\n{JOB}", "$1 = 'us-central1'"),
    ("sh", f"%%sh -es us-central1 z\n{JOB}", "%%sh -e (errexit) changes nothing in the job"),
    ("no_raise", f"%%bash --no-raise-error -s us-central1 w\nREGION=$1\n{JOB.replace('$1', '$REGION')}", "no-raise-error"),
    ("count_and_all", f'%%bash -s us-central1 "a b"\n{JOB.replace("$2", "n$#")} --labels="k=$*"', "$2 = 'a b'"),
    ("quoted_at", '%%bash -s us-central1 --labels=a=1\ngcloud ai custom-jobs create --region="$1" x"$@"y', "$2 = "),
    ("double_dash", f"%%bash -s -- us-central1 --bg\n{JOB}", "$2 = '--bg'"),  # after --, no option of either
    ("abbreviated_no", f"%%bash --no -s us-central1 v\n{JOB}", "--no-raise-error lets the cell fail"),
    ("single_quotes", f"%%bash -s us-central1 n\n{SINGLE}", "$1 = 'us-central1'"),
]
REFUSED = [  # (id, cell 2, what the refusal says)
    ("file", f"%%bash us-central1\n{JOB}", "cell 2, line 1: %%bash us-central1: without -s, bash runs the file "
                                           "'us-central1' instead of the cell"),
    ("python", f"%%script python3\n{JOB}", "cell 2, line 1: %%script python3 runs the cell with python3, not bash"),
    ("unset", f"%%bash -s us-central1\n{JOB}", f"cell 2, line 2, column {JOB.index('$2') + 1}: $2 is not given: the magic "
                                            "passes 1 argument(s)"),
    ("login", f"%%bash -l\n{JOB}", "cell 2, line 1: %%bash -l: bash's option -l is not read"),
    ("split", f"%%bash -s 'a b' n\n{SPLIT}", "$1 unquoted is 'a b', which bash splits"),
]


def _ours(cell: str) -> list[str] | str:
    cells = [Cell(1, "code", FIRST), Cell(2, "code", cell)]
    command = chosen(cells, "nb.ipynb", None)
    scope, _ = blocks(cells, command, "nb.ipynb")
    try:
        made, _ = read(command.text, lambda line, at: expand(line, scope, str)[0], "nb.ipynb cell 2")
        return split_words(made.text, {})
    except UserError as exc:
        return str(exc)


def _ipython() -> str | None:
    return ipython_python("IPython.core.interactiveshell")


_RUNNER = """import json, os, sys
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
for n, cells in enumerate(json.loads(sys.argv[1])):
    shell.reset(new_session=False)
    os.environ["WORDS"] = os.path.join(sys.argv[2], str(n))
    for cell in cells:
        shell.run_cell(cell, store_history=False, silent=True)
"""
_GCLOUD = '#!/bin/sh\nfor w in "$@"; do printf "%s\\0" "$w"; done > "$WORDS"\n'


@pytest.fixture(scope="module")
def ipython_words(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str] | None]:
    python = _ipython()
    if python is None or shutil.which("bash") is None:
        pytest.skip("no python with IPython installed (or no bash): the oracle needs IPython's %%bash")
    base = tmp_path_factory.mktemp("magic")
    (base / "bin").mkdir()
    (base / "bin" / "gcloud").write_text(_GCLOUD)
    (base / "bin" / "gcloud").chmod(0o755)
    cases = READ + REFUSED
    env = {**os.environ, "PATH": f"{base / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"}
    proc = subprocess.run([python, "-c", _RUNNER, json.dumps([[FIRST, c[1]] for c in cases]), str(base)],
                          capture_output=True, text=True, timeout=300, env=env, cwd=base)
    assert proc.returncode == 0, proc.stderr
    found: dict[str, list[str] | None] = {}
    for n, case in enumerate(cases):
        words = base / str(n)
        found[case[0]] = ["gcloud", *words.read_text().split("\0")[:-1]] if words.exists() else None
    return found


@pytest.mark.parametrize(("case", "cell", "note"), READ, ids=[c[0] for c in READ])
def test_the_magic_words_are_read_as_ipython_and_bash_run_them(case: str, cell: str, note: str,
                                                              ipython_words: dict[str, list[str] | None]) -> None:
    ours = _ours(cell)
    assert not isinstance(ours, str), ours
    assert ours == ipython_words[case]


@pytest.mark.parametrize(("case", "cell", "said"), REFUSED, ids=[c[0] for c in REFUSED])
def test_what_ipython_or_bash_would_not_run_as_read_is_refused(case: str, cell: str, said: str | None,
                                                                ipython_words: dict[str, list[str] | None]) -> None:
    ours = _ours(cell)
    assert isinstance(ours, str), ours
    if said is not None:
        assert said in ours
    theirs = ipython_words[case]
    if case in ("file", "python"):
        assert theirs is None  # the cell never reaches gcloud
    if case == "unset":
        assert theirs is not None and "--display-name=" in theirs  # bash drops the unset $2 without a word
    if case == "split":
        assert theirs is not None and "--display-name=a" in theirs and "b" in theirs  # two words


@pytest.mark.parametrize(("case", "cell", "note"), READ[:4], ids=[c[0] for c in READ[:4]])
def test_convert_notes_each_magic_word(case: str, cell: str, note: str, tmp_path: Path) -> None:
    notebook = _notebook(tmp_path, "nb.ipynb", [("code", FIRST), ("code", cell)])
    proc = _convert(notebook)
    assert proc.returncode == 0, proc.stderr
    assert note in proc.stderr


def test_a_bash_cell_with_magic_words_is_never_missed(tmp_path: Path) -> None:
    notebook = _notebook(tmp_path, "nb.ipynb", [("code", FIRST), ("code", f"%%script --bg python3\n{JOB}")])
    proc = _convert(notebook)
    assert proc.returncode == 1 and "no cell submits" not in proc.stderr
    assert "%%script python3 runs the cell with python3, not bash" in proc.stderr


def test_a_word_after_a_replaced_parameter_is_at_its_column_in_the_cell(tmp_path: Path) -> None:
    """``$1`` is 2 characters in the cell and 15 once bash writes 'n1-standard-5' there: a message about a word after
    it (a flag gcloud does not know, a shell error) names its column in the cell as written, not in the text made."""
    job = ("gcloud ai custom-jobs create --region=us-central1 --display-name=j --worker-pool-spec=machine-type=$1,"
           "replica-count=1,container-image-uri=gcr.io/p/i:1")
    for after, at, said in ((" --bogus-flag=1", "--bogus", "unrecognized arguments: --bogus-flag"),
                            (" --labels=a=$TJ_TEST_UNSET", "$TJ", "$TJ_TEST_UNSET is not defined in the environment")):
        line = job + after
        notebook = _notebook(tmp_path, "nb.ipynb", [("code", FIRST), ("code", f'%%bash -s "n1-standard-5"\n{line}')])
        proc = _convert(notebook)
        assert proc.returncode == 1
        column = line.index(at) + 1
        assert f"nb.ipynb cell 2, line 2, column {column}: {said}" in proc.stderr, proc.stderr
    # the same in a ! line, after an {expr} whose value is longer than it is
    line = "!" + job.replace("$1", "{MACHINE}") + " --bogus-flag=1"
    notebook = _notebook(tmp_path, "nb.ipynb", [("code", "MACHINE = 'n1-standard-4'"), ("code", f"x = 1\n{line}")])
    proc = _convert(notebook)
    assert proc.returncode == 1
    assert f"nb.ipynb cell 2, line 2, column {line.index('--bogus') + 1}: unrecognized arguments: --bogus-flag" \
        in proc.stderr, proc.stderr


def test_spliced_text_knows_where_each_character_was_written() -> None:
    from provider.gcloud.spliced import spliced

    made = spliced("a $$x {V} b", "a $x VAL b", [(6, 9, "VAL")])  # IPython: $$x is $x, {V} is VAL
    assert [made.written(i) for i in (0, 2, 3, 5, 7, 9)] == [0, 2, 4, 6, 6, 10]
    assert made.after(3, "ab\n").written(12) == 13  # after a magic line kept as it is
