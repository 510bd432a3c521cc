"""A notebook's ``!`` training line inside a block (``if``, ``for``, ``def``, ``with``, ``try``): the values it is
expanded with are those at its line, or it is refused by name (provider.gcloud.notebook_file.blocks).

IPython itself is the oracle where a python with it is installed (system python3 with IPython 8.12): each notebook
runs in an InteractiveShell whose ``system`` only records the line the shell would get, so the test knows every
line IPython would run, with the values it would have; a converted line must be that line (each turn of a loop
the same one), and a refused one must name why (the line never runs, or runs with values each turn of its own).
The gcloud line is the brief's repro of issue 29 (cell 1 sets REGION and IMAGE, cell 2 sets IMAGE again in an if).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from provider.core.errors import UserError
from provider.gcloud.notebook_expand import expand
from provider.gcloud.notebook_file import Cell, blocks, chosen

from ..conftest import ipython_python
from .test_notebook_file import _convert, _notebook

FIRST = "REGION='us-central1'\nIMAGE='gcr.io/p/i:1'"
LINE = ("!gcloud ai custom-jobs create --region={REGION} --display-name=x --worker-pool-spec=machine-type=n1-standard-4,"
        "replica-count=1,container-image-uri={IMAGE}")

CONVERTED = [  # (id, cell 2, image the job runs, a note that must be said or None)
    ("if", f"if REGION == 'us-central1':\n    IMAGE = 'gcr.io/p/j:2'\n    {LINE}", "gcr.io/p/j:2", None),
    ("elif", f"if REGION == 'x':\n    IMAGE = 'a'\nelif REGION == 'us-central1':\n    IMAGE = 'gcr.io/p/k:3'\n    {LINE}"
             "\nelse:\n    IMAGE = 'b'", "gcr.io/p/k:3", None),
    ("nested_else", f"if not REGION:\n    pass\nelse:\n    IMAGE = 'gcr.io/p/m:4'\n    if IMAGE.endswith(':4'):\n"
                    f"        {LINE}\n    IMAGE = 'after'", "gcr.io/p/m:4", None),
    ("for_same_each_turn", f"for i in range(3):\n    print(i)\n    {LINE}", "gcr.io/p/i:1", "for loop at cell 2, line 1"),
    ("loop_else", f"for i in range(2):\n    print(i)\nelse:\n    {LINE}", "gcr.io/p/i:1", None),
    ("after_the_block", f"if True:\n    IMAGE = 'gcr.io/p/n:5'\n{LINE}", "gcr.io/p/n:5", None),
    ("output_bound", f"if REGION:\n    IMAGE = 'gcr.io/p/o:6'\n    out = {LINE}", "gcr.io/p/o:6", None),
]
REFUSED = [  # (id, cell 2, what the refusal says)
    ("branch_not_taken", f"if REGION == 'europe-west4':\n    IMAGE = 'gcr.io/p/j:2'\n    {LINE}",
     "cell 2, line 3: this ! line never runs: it is in the if branch of the if at cell 2, line 1, whose test is False"),
    ("else_not_taken", f"if REGION:\n    pass\nelse:\n    {LINE}", "never runs: it is in the else branch of the if"),
    ("unknown_test", f"import os\nif os.path.exists('x'):\n    IMAGE = 'gcr.io/p/j:2'\n    {LINE}",
     "cell 2, line 4: this ! line is inside the if at cell 2, line 2, whose test is not known"),
    ("loop_variable", f"for IMAGE in ['gcr.io/p/a:1', 'gcr.io/p/b:1']:\n    {LINE}", "IMAGE is set inside the for"),
    ("set_after_in_loop", f"for i in range(2):\n    {LINE}\n    IMAGE = 'gcr.io/p/z:9'",
     "{IMAGE} reads IMAGE, which the for loop at cell 2, line 1 sets: each turn runs the line with its own value"),
    ("test_reads_loop", f"for i in range(2):\n    if i == 1:\n        {LINE}",
     "the test of the if at cell 2, line 2 reads i, which the for loop at cell 2, line 1 sets"),
    ("loop_else_break", f"for i in range(2):\n    if i:\n        break\nelse:\n    {LINE}",
     "in the else of the for loop at cell 2, line 1, which runs only when the loop ends without its break"),
    ("set_in_loop_read_in_else", f"for i in range(2):\n    IMAGE = 'gcr.io/p/x:0'\nelse:\n    {LINE}",
     "IMAGE is set inside the for at cell 2, line 1"),  # IPython runs it once, with the last turn's value
    ("def", f"def submit():\n    {LINE}\nsubmit()", "inside the function submit defined at cell 2, line 1: it runs only "
                                                   "when the function is called"),
    ("with", f"with open('/dev/null') as f:\n    IMAGE = 'gcr.io/p/w:1'\n    {LINE}", "inside the with at cell 2, line 1"),
    ("try", f"try:\n    IMAGE = 'gcr.io/p/t:1'\n    {LINE}\nexcept Exception:\n    pass", "inside the try at cell 2, line 1"),
]
CASES = [(c[0], c[1]) for c in CONVERTED + REFUSED]


def _ours(cell: str) -> tuple[str, list[str]] | str:
    """The line the converter hands the shell and its notes, or the refusal's message."""
    cells = [Cell(1, "code", FIRST), Cell(2, "code", cell)]
    command = chosen(cells, "nb.ipynb", None)
    try:
        scope, notes = blocks(cells, command, "nb.ipynb")
        return expand(command.text, scope, command.place)[0], notes
    except UserError as exc:
        return str(exc)


def _ipython() -> str | None:
    return ipython_python("IPython.core.interactiveshell")


_RECORDER = """import json, sys
import IPython.core.interactiveshell as m
from IPython.core.interactiveshell import InteractiveShell
calls = []
m.system = lambda cmd: calls.append(cmd) or 0  # what system_piped hands the shell, once IPython has expanded it
m.getoutput = lambda cmd: calls.append(cmd) or ""  # and getoutput (x = !cmd)
shell = InteractiveShell.instance()
out = []
for cells in json.loads(sys.argv[1]):
    shell.reset(new_session=False)
    calls.clear()
    for cell in cells:
        shell.run_cell(cell, store_history=False, silent=True)
    out.append(list(calls))
print("\\nORACLE" + json.dumps(out))
"""


@pytest.fixture(scope="module")
def ipython_runs() -> dict[str, list[str]]:
    python = _ipython()
    if python is None:
        pytest.skip("no python with IPython installed: the oracle needs IPython's InteractiveShell")
    notebooks = [[FIRST, cell] for _, cell in CASES]
    proc = subprocess.run([python, "-c", _RECORDER, json.dumps(notebooks)], capture_output=True, text=True,
                          timeout=120, cwd="/tmp")
    assert proc.returncode == 0, proc.stderr
    runs = json.loads(proc.stdout.rsplit("\nORACLE", 1)[1])
    return dict(zip([c[0] for c in CASES], runs, strict=True))


@pytest.mark.parametrize(("case", "cell", "image", "note"), CONVERTED, ids=[c[0] for c in CONVERTED])
def test_the_line_is_expanded_with_the_values_at_it(case: str, cell: str, image: str, note: str | None,
                                                    ipython_runs: dict[str, list[str]]) -> None:
    ours = _ours(cell)
    assert not isinstance(ours, str), ours
    line, notes = ours
    assert ipython_runs[case] and set(ipython_runs[case]) == {line}  # every turn IPython runs is this line
    assert f"container-image-uri={image}" in line
    assert (note is None) == (not notes) and all(note in n for n in notes if note)


@pytest.mark.parametrize(("case", "cell", "said"), REFUSED, ids=[c[0] for c in REFUSED])
def test_a_line_whose_values_are_not_known_is_refused(case: str, cell: str, said: str,
                                                      ipython_runs: dict[str, list[str]]) -> None:
    ours = _ours(cell)
    assert isinstance(ours, str) and said in ours, ours
    runs = ipython_runs[case]
    if "never runs" in said or case == "loop_else_break":
        assert runs == []
    elif case in ("loop_variable", "set_after_in_loop"):
        assert len(set(runs)) > 1  # each turn its own line: one spec could not say them
    elif case in ("def", "with", "try"):
        assert len(runs) == 1  # it runs, but with values the evaluator does not follow there


def test_the_repro_converts_with_the_value_of_the_if(tmp_path: Path) -> None:
    notebook = _notebook(tmp_path, "nb.ipynb", [("code", FIRST), ("code", CONVERTED[0][1])])
    proc = _convert(notebook)
    assert proc.returncode == 0, proc.stderr
    pools = json.loads(proc.stdout)["body"]["jobSpec"]["workerPoolSpecs"]
    assert pools[0]["containerSpec"]["imageUri"] == "gcr.io/p/j:2"
    loop = _notebook(tmp_path, "loop.ipynb", [("code", FIRST), ("code", CONVERTED[3][1])])
    proc = _convert(loop)
    assert proc.returncode == 0 and "inside the for loop at cell 2, line 1, which runs it once each turn" in proc.stderr
    refused = _notebook(tmp_path, "no.ipynb", [("code", FIRST), ("code", REFUSED[0][1])])
    proc = _convert(refused)
    assert proc.returncode == 1 and "no.ipynb cell 2, line 3: this ! line never runs" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_field_problem_names_the_cell_and_line_of_the_command(tmp_path: Path) -> None:
    bad = LINE.replace("n1-standard-4", "n1-bogus-4")
    notebook = _notebook(tmp_path, "nb.ipynb", [("markdown", "# x"), ("code", FIRST),
                                                ("code", f"if REGION:\n    {bad}")])
    proc = _convert(notebook)
    assert proc.returncode == 1
    assert "nb.ipynb cell 3, line 2 (its gcloud command): error: 'n1-bogus-4' is not allowed for machineType" \
        in proc.stderr and "at spec.workerPoolSpecs[0].machineSpec.machineType" in proc.stderr
    script = bad.replace("!", "").replace("{REGION}", "us-central1").replace("{IMAGE}", "gcr.io/p/i:1")
    continued = script.replace(" --", " \\\n  --")
    bash = _notebook(tmp_path, "bash.ipynb", [("code", f"%%bash\necho submitting\n{continued}")])
    proc = _convert(bash)
    assert proc.returncode == 1  # the line its gcloud begins on, not the %%bash line
    assert "bash.ipynb cell 1, line 3 (its gcloud command): error: 'n1-bogus-4' is not allowed" in proc.stderr


def test_a_bang_line_with_output_redirections(tmp_path: Path) -> None:
    notebook = _notebook(tmp_path, "nb.ipynb", [("code", FIRST), ("code", f"if REGION:\n    {LINE} 2>&1 | tee job.log")])
    proc = _convert(notebook)
    assert proc.returncode == 0, proc.stderr
    assert "gcloud ai custom-jobs create's stderr goes to stdout (2>&1)" in proc.stderr
    assert "| tee: the output before it is also written to job.log" in proc.stderr
    bad = _notebook(tmp_path, "in.ipynb", [("code", FIRST), ("code", f"{LINE} < answers.txt")])
    proc = _convert(bad)
    assert proc.returncode == 1 and "an input redirection (<)" in proc.stderr
