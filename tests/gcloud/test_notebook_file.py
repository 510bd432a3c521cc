"""``trainjobs convert NOTEBOOK.ipynb``: the notebook's gcloud training command, with the notebook's Python values.

The notebooks of tests/gcloud/notebooks/ are cut from public notebooks (each one's ``metadata.trainjobs_source``
names the repository, commit and path, and what was kept or changed); README.md there lists them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from provider.core.errors import UserError
from provider.document.ipython_expand import var_expand
from provider.document.python_values import scope_after
from provider.gcloud.notebook_expand import expand, notebook_environment
from provider.gcloud.notebook_file import Cell, chosen, commands, read_cells, scope_at

from ..conftest import ROOT, ipython_python

HERE = Path(__file__).parent / "notebooks"


def _convert(notebook: Path, *extra: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("CLOUDSDK_CORE_PROJECT", None)  # !gcloud config get-value project would read it
    return subprocess.run([sys.executable, "-m", "provider", "convert", str(notebook), "--output", "request", *extra],
                          cwd=cwd or notebook.parent, env=env, capture_output=True, text=True, timeout=120)


def _notebook(tmp: Path, name: str, cells: list[tuple[str, str]] | None = None, edit: dict[str, str] | None = None,
              source: Path | None = None) -> Path:
    """A notebook in ``tmp``: ``cells`` ((kind, text)), or ``source``'s cells with each ``edit`` (old -> new) made."""
    if cells is None:
        assert source is not None
        doc = json.loads(source.read_text())
        for cell in doc["cells"]:
            text = "".join(cell["source"])
            for old, new in (edit or {}).items():
                text = text.replace(old, new)
            cell["source"] = text
    else:
        doc = {"nbformat": 4, "nbformat_minor": 5, "metadata": {},
               "cells": [{"cell_type": k, "metadata": {}, "source": t, **({"outputs": [], "execution_count": None}
                                                                         if k == "code" else {})} for k, t in cells]}
    path = tmp / name
    path.write_text(json.dumps(doc))
    return path


def _line(cells: list[Cell], pick: int | None = None) -> tuple[str, list[str]]:
    command = chosen(cells, "nb.ipynb", pick)
    return expand(command.text, scope_at(cells, command), lambda i: f"nb.ipynb {command.place(i)}")


def _cells(*texts: str) -> list[Cell]:
    return [Cell(i, "code", t) for i, t in enumerate(texts, 1)]


# the public notebooks, end to end ------------------------------------------------------------------------------


def test_a_custom_job_from_vertex_ai_samples() -> None:
    both = _convert(HERE / "xgboost_dask_custom_job.ipynb")  # cell 4 runs a job with the SDK, cell 6 with gcloud
    assert both.returncode == 1
    assert ("submits a training job with gcloud (cell 6) and builds one with the Vertex AI SDK (cell 4: "
            "aiplatform.CustomContainerTrainingJob at line 7); give the cell to convert with --cell N") in both.stderr
    proc = _convert(HERE / "xgboost_dask_custom_job.ipynb", "--cell", "6")
    assert proc.returncode == 0, proc.stderr
    request = json.loads(proc.stdout)
    cells = read_cells((HERE / "xgboost_dask_custom_job.ipynb").read_bytes(), "nb")
    display_name = scope_after([(f"cell {c.number}", c.text) for c in cells]).get("display_name")
    assert request["body"]["displayName"] == display_name == "test_display_name"  # {display_name}, from cell 4
    assert request["parent"].endswith("/locations/us-central1")
    assert len(request["body"]["jobSpec"]["workerPoolSpecs"]) == 2  # from config.yaml
    assert "{display_name} = 'test_display_name'" in proc.stderr


def test_two_training_cells_are_named_and_one_is_picked(tmp_path: Path) -> None:
    notebook = HERE / "persistent_resource_cli.ipynb"
    proc = _convert(notebook)
    assert proc.returncode == 1
    assert "2 commands submit a training job (cell 10, line 2; cell 11, line 4); give the cell to convert with --cell N" \
        in proc.stderr
    proc = _convert(notebook, "--cell", "10")  # as fetched: its config's image still holds Google's placeholder
    assert proc.returncode == 1 and "custom_job_spec.yaml:8:17: error: the image" in proc.stderr, proc.stderr
    assert "read by --config at persistent_resource_cli.ipynb cell 10, line 5, column 5" in proc.stderr
    shutil.copy(notebook, tmp_path / notebook.name)  # the placeholder filled, as a user runs it
    (tmp_path / "custom_job_spec.yaml").write_text((HERE / "custom_job_spec.yaml").read_text(encoding="utf-8").replace(
        "[your-project-id]", "my-project"), encoding="utf-8")
    for cell in ("10", "11"):  # cell 11's command is inside a for loop: the values are those before the loop
        proc = _convert(tmp_path / notebook.name, "--cell", cell)
        assert proc.returncode == 0, proc.stderr
        body = json.loads(proc.stdout)["body"]
        assert json.loads(proc.stdout)["parent"].endswith("/locations/us-central1")  # {REGION}
        assert body["displayName"] == "Single CPU Job" and body["labels"] == {"presistent_resource_job": "true"}
    proc = _convert(notebook, "--cell", "3")
    assert proc.returncode == 1 and "--cell 3: cell 3 (code) runs no gcloud ai custom-jobs create" in proc.stderr
    assert "cells that do: 10, 11" in proc.stderr
    proc = _convert(notebook, "--cell", "99")
    assert proc.returncode == 1 and "the notebook has cells 1 to 11" in proc.stderr


def test_an_ai_platform_job_whose_values_come_from_env_magics(tmp_path: Path) -> None:
    notebook = HERE / "time_series_ai_platform.ipynb"
    proc = _convert(notebook)
    assert proc.returncode == 1
    assert ("time_series_ai_platform.ipynb cell 8, line 3: $TRAIN_DIR is read from the environment the notebook sets, "
            "and its value cannot be known without running the notebook: the environment variable TRAIN_DIR, set by "
            "'%env TRAIN_DIR=$TRAIN_DIR' at cell 7, line 4 from TRAIN_DIR; TRAIN_DIR is set from a call to os.getcwd() "
            "at cell 7, line 2") in proc.stderr
    # $RUNTIME_VERSION is no Python variable: IPython hands the line to the shell as written, which reads the
    # environment the notebook's %env lines set; $JOB_NAME is 'caip_training_' + str(int(time.time())): the time
    # of the conversion
    fixed = _notebook(tmp_path, "ts.ipynb", source=notebook, edit={"os.getcwd() + '/' + trainer_dir": "trainer_dir"})
    (tmp_path / "trainer").mkdir()
    (tmp_path / "trainer" / "__init__.py").write_text("")
    (tmp_path / "trainer" / "model.py").write_text("print('hi')\n")
    (tmp_path / ".git").mkdir()
    before = int(time.time())
    proc = _convert(fixed)
    assert proc.returncode == 0, proc.stderr
    body = json.loads(proc.stdout)["body"]
    assert body["displayName"].startswith("caip_training_")
    assert before <= int(body["displayName"].removeprefix("caip_training_")) <= time.time()
    assert (f"time.time() at ts.ipynb cell 6, line 4: the time the code runs, written as "
            f"'{body['displayName'].removeprefix('caip_training_')}', the time of the conversion") in proc.stderr
    pool = body["jobSpec"]["workerPoolSpecs"][0]
    assert pool["pythonPackageSpec"]["pythonModule"] == "trainer.model"  # %env MODULE_NAME=$MODULE_NAME
    assert "tf-cpu.2-1" in pool["pythonPackageSpec"]["executorImageUri"]  # %env RUNTIME_VERSION = $runtime_version
    assert "$RUNTIME_VERSION='2.1'" in proc.stderr


def test_bash_cells_and_the_environment_they_read(tmp_path: Path) -> None:
    notebook = HERE / "babyweight_vertex_bash.ipynb"
    proc = _convert(notebook)
    assert proc.returncode == 1
    assert "3 commands submit a training job (cell 6, line 29; cell 7, line 48; cell 8, line 28)" in proc.stderr
    proc = _convert(notebook, "--cell", "6")
    assert proc.returncode == 1
    assert ("cell 6, line 29: $BUCKET is read from the environment the notebook sets, and its value cannot be known "
            "without running the notebook: BUCKET is set from PROJECT at cell 2, line 3; PROJECT is set from a shell "
            "command's output: gcloud config get-value project prints the core/project property of the gcloud "
            "configuration of the machine that runs the notebook, which is not known here; give it: "
            "CLOUDSDK_CORE_PROJECT=VALUE in the environment of trainjobs convert") in proc.stderr


def test_a_local_package_takes_a_staging_bucket(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "trainer").mkdir()
    (tmp_path / "trainer" / "__init__.py").write_text("")
    (tmp_path / "trainer" / "task.py").write_text("print('hi')\n")
    notebook = _notebook(tmp_path, "lp.ipynb", [
        ("code", 'IMAGE = "us-docker.pkg.dev/vertex-ai/training/tf-cpu.2-12.py310:latest"'),
        ("code", "!gcloud ai custom-jobs create --region=us-central1 --display-name=lp \\\n"
                 "  --worker-pool-spec=machine-type=n1-standard-4,executor-image-uri={IMAGE},local-package-path=.,"
                 "python-module=trainer.task")])
    proc = _convert(notebook)
    assert proc.returncode == 1 and "trainjobs convert --gcloud takes --staging-bucket" in proc.stderr
    proc = _convert(notebook, "--staging-bucket", "gs://my-bucket")
    assert proc.returncode == 0, proc.stderr
    spec = json.loads(proc.stdout)["body"]["jobSpec"]["workerPoolSpecs"][0]["pythonPackageSpec"]
    assert spec["executorImageUri"].endswith("tf-cpu.2-12.py310:latest")  # {IMAGE}
    assert spec["packageUris"][0].startswith("gs://my-bucket/")


def test_a_secret_the_notebook_sets_is_never_shown(tmp_path: Path) -> None:
    notebook = _notebook(tmp_path, "s.ipynb", [
        ("code", "%env WANDB_API_KEY=s3cr3t-value\n%env REGION=us-east1"),
        ("code", "!gcloud ai custom-jobs create --region=$REGION --display-name=j \\\n"
                 "  --worker-pool-spec=machine-type=n1-standard-4,container-image-uri=gcr.io/p/i:1 \\\n"
                 "  --args=--key=$WANDB_API_KEY")])
    proc = _convert(notebook)
    assert "s3cr3t-value" not in proc.stdout + proc.stderr
    assert "$REGION='us-east1'" in proc.stderr and "$WANDB_API_KEY" in proc.stderr
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["parent"].endswith("/locations/us-east1")


def test_a_secret_read_from_the_environment_is_refused(tmp_path: Path) -> None:
    notebook = _notebook(tmp_path, "s.ipynb", [
        ("code", "import os\nT = os.environ['TJ_TEST_API_TOKEN']\nR = os.getenv('TJ_TEST_REGION')"),
        ("code", "!gcloud ai custom-jobs create --region={R} --display-name=j --args=--t={T} \\\n"
                 "  --worker-pool-spec=machine-type=n1-standard-4,container-image-uri=gcr.io/p/i:1")])
    env = {"TJ_TEST_API_TOKEN": "tok-123456", "TJ_TEST_REGION": "us-east1"}
    proc = subprocess.run([sys.executable, "-m", "provider", "convert", str(notebook), "--output", "request"],
                          cwd=tmp_path, env={**os.environ, **env, "PYTHONPATH": str(ROOT)}, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 1
    assert "the line holds the value of $TJ_TEST_API_TOKEN, which the notebook reads from the environment" in proc.stderr
    assert "tok-123456" not in proc.stdout + proc.stderr


def test_a_notebook_of_sdk_calls_is_read_by_pysdk() -> None:
    """Its two aiplatform.CustomJob cells are named (tests/pysdk/test_notebooks.py converts them)."""
    proc = _convert(HERE / "taxifare_sdk.ipynb")
    assert proc.returncode == 1
    assert "the notebook launches several jobs" in proc.stderr
    assert "taxifare_sdk.ipynb cell 4, line 49, column 16; aiplatform.CustomJob at" in proc.stderr
    assert "taxifare_sdk.ipynb cell 6, line 48, column 16" in proc.stderr
    assert "Traceback" not in proc.stderr


# IPython's expansion ------------------------------------------------------------------------------------------


def test_values_and_positions() -> None:
    cells = _cells('REGION = "us-central1"\nN = 2\nNAMES = ["a", "b"]',
                   'import os\nJOB = f"job-{N:03d}"\n!gcloud ai custom-jobs create --region={REGION} \\\n'
                   '  --display-name=$JOB --labels=n={N*2},first={NAMES[0]!r} \\\n  --config=c.yaml')
    line, replaced = _line(cells)
    assert line == ("gcloud ai custom-jobs create --region=us-central1    --display-name=job-002 "
                    "--labels=n=4,first='a'    --config=c.yaml")  # "\\" + newline: IPython's join (see the oracle below)
    assert replaced == ["{REGION} = 'us-central1'", "$JOB = 'job-002'", "{N*2} = '4'", "{NAMES[0]!r} = \"'a'\""]
    cells = _cells('import uuid\nJOB = "j-" + uuid.uuid4().hex', 'X = 1\n!gcloud ai custom-jobs create \\\n'
                   '   --region=us-east1 --display-name={JOB}')
    with pytest.raises(UserError) as refused:
        _line(cells)
    text = cells[1].text.split("\n")[2]
    column = text.index("{JOB}") + 1
    assert refused.value.message.startswith(f"nb.ipynb cell 2, line 3, column {column}: {{JOB}} is IPython's "
                                            "substitution of the notebook's Python value of JOB, which cannot be known")
    assert "JOB is set from a random value at cell 1, line 2" in refused.value.message


def test_what_ipython_leaves_as_written() -> None:
    # $HOME is no Python variable: IPython replaces nothing, and gcloud would get {REGION} with its braces
    line = '!gcloud ai custom-jobs create --region={REGION} --config=$HOME/c.yaml'
    with pytest.raises(UserError) as refused:
        _line(_cells('REGION = "us-central1"', line))
    assert f"column {line.index('{') + 1}: {{REGION}} would reach the shell as written, braces and all" \
        in refused.value.message
    assert f"$HOME (nb.ipynb cell 2, line 1, column {line.index('$') + 1}) names HOME, which the notebook does not " \
        "assign" in refused.value.message
    # only shell variables: the line as written, for the shell
    assert _line(_cells('!gcloud ai custom-jobs create --region=$REGION --config=c.yaml')) == (
        "gcloud ai custom-jobs create --region=$REGION --config=c.yaml", [])
    # awk's braces are no Python: as written
    line = "!gcloud ai custom-jobs create --config=c.yaml | awk '{print $1}'"
    assert _line(_cells(line))[0] == line[1:]
    # $$NAME is the shell's $NAME; {{ }} are braces
    assert _line(_cells('R = "x"', '!gcloud ai custom-jobs create --region=$R --labels=a=$$USER,b={{c}}'))[0] == \
        "gcloud ai custom-jobs create --region=x --labels=a=$USER,b={c}"


def test_what_is_refused() -> None:
    with pytest.raises(UserError, match=r"column 40: \$\{REGION\} in a ! line is a \$ followed by IPython's \{REGION\}"):
        _line(_cells('REGION = "us-central1"', '!gcloud ai custom-jobs create --region=${REGION}'))
    with pytest.raises(UserError, match=r"API_TOKEN\} is a Python variable whose name looks secret"):
        _line(_cells('API_TOKEN = "abc"', '!gcloud ai custom-jobs create --args=--token={API_TOKEN}'))
    with pytest.raises(UserError, match=r"R may be set in cell 2, which does not parse as Python"):
        _line(_cells('R = "a"', 'R = (', '!gcloud ai custom-jobs create --region={R}'))


def test_the_values_before_the_line_of_its_cell() -> None:
    cells = _cells('R = "a"', 'R = "b"\n!gcloud ai custom-jobs create --region={R}\nR = "c"')
    assert _line(cells)[0] == "gcloud ai custom-jobs create --region=b"
    cells = _cells('R = "a"', 'if R == "a":\n    R = "b"\nelse:\n    R = "z"\n', '!gcloud ai custom-jobs create --region={R}')
    assert _line(cells)[0] == "gcloud ai custom-jobs create --region=b"
    cells = _cells('import os\nos.environ["R"] = "env-r"', '!gcloud ai custom-jobs create --region=$R')
    command = chosen(cells, "nb", None)
    assert notebook_environment(command.text, scope_at(cells, command), "nb") == {"R": "env-r"}


def test_finding_training_commands() -> None:
    cell = Cell(3, "code", "x = 1\nout = !gcloud beta ai hp-tuning-jobs create \\\n  --config=h.yaml\n"
                           "!gcloud ai custom-jobs list\n!!gcloud ai-platform jobs submit training j --config=c.yaml")
    found = commands(cell)
    assert [(c.line, c.text) for c in found] == [
        (2, "gcloud beta ai hp-tuning-jobs create    --config=h.yaml"),
        (5, "gcloud ai-platform jobs submit training j --config=c.yaml")]
    assert found[0].place(found[0].text.index("--config")) == "cell 3, line 3, column 3"
    assert found[0].place(found[0].text.index("beta")) == "cell 3, line 2, column 15"
    assert commands(Cell(1, "markdown", "!gcloud ai custom-jobs create")) == []
    assert [c.bash for c in commands(Cell(1, "code", "%%bash\ngcloud ai custom-jobs create --config=c.yaml\n"))] == [True]


@pytest.mark.parametrize(("content", "said"), [
    (b"{not json", "nb.ipynb:1:2: not JSON"),
    (b"\xff\xfe", "not UTF-8"),
    (b"[1, 2]", "a JSON list without \"cells\""),
    (json.dumps({"nbformat": 3, "cells": []}).encode(), "\"nbformat\" is 3"),
    (json.dumps({"nbformat": 4, "cells": {}}).encode(), "\"cells\" is a dict"),
    (json.dumps({"nbformat": 4, "cells": [{"cell_type": "code"}]}).encode(), "cell 1 (cells[0]) has \"source\": null"),
    (json.dumps({"nbformat": 4, "cells": [{"cell_type": "code", "source": ["a", 1]}]}).encode(), "has \"source\""),
    (json.dumps({"nbformat": 4, "cells": [{"cell_type": "heading", "source": ""}]}).encode(), "\"cell_type\": \"heading\""),
    (json.dumps({"nbformat": 4, "cells": ["x"]}).encode(), "cell 1 (cells[0]) is a str"),
])
def test_malformed_notebooks(content: bytes, said: str) -> None:
    with pytest.raises(UserError) as refused:
        read_cells(content, "nb.ipynb")
    assert said in refused.value.message
    assert "allowed: a Jupyter notebook in nbformat 4" in refused.value.message


def test_malformed_notebook_end_to_end(tmp_path: Path) -> None:
    bad = tmp_path / "bad.ipynb"
    bad.write_text('{"nbformat": 4, "cells": [{"cell_type": "code", "source": 5}]}')
    proc = _convert(bad)
    assert proc.returncode == 1 and "bad.ipynb: cell 1 (cells[0]) has \"source\": 5" in proc.stderr
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr
    spec = tmp_path / "spec.yaml"
    spec.write_text("a: 1\n")
    proc = _convert(spec, "--cell", "2")
    assert proc.returncode == 2 and "--cell goes with a notebook FILE" in proc.stderr


# IPython itself as the oracle of the expansion ----------------------------------------------------------------

_IPYTHON_LINES = [
    "gcloud x --region={REGION} --name=$JOB", "a {N*2} {L[0:1]} {L!r} {S!a}", "'$JOB' $JOB \"$JOB\"", "$$JOB {{x}} $JOB",
    "x {N:>5} y", "{print $1}", "$JOB.upper", "a}b", "{", "${JOB}", "$N $N.real", "{REGION.upper()}-{len(L)}",
    "--x=$UNSET {REGION}", "{'q' + REGION}", "it's $JOB and {N}", "{{{N}}}", "$JOB_x", "{L[1]!s:}",
]


def _ipython() -> str | None:
    return ipython_python("IPython.utils.text")


_CELLS = [
    "!gcloud ai custom-jobs create --region={R} \\\n  --display-name=$J --x=1 \\\n  --config=c.yaml\n",
    "out = !gcloud ai custom-jobs create  \\\n--a \\  \n--b\n",
    "x = 1\nif x:\n    !! gcloud ai custom-jobs create \\\n      --region=r\n",
    "!gcloud ai custom-jobs create --a=b\t \n",
]


def test_joined_lines_agree_with_ipython() -> None:
    python = _ipython()
    if python is None:
        pytest.skip("no python with IPython installed: the oracle needs IPython's input transformer")
    program = ("import json, sys, ast\nfrom IPython.core.inputtransformer2 import TransformerManager\nout = []\n"
               "for cell in json.loads(sys.argv[1]):\n    tree = ast.parse(TransformerManager().transform_cell(cell))\n"
               "    out.append([n.args[0].value for n in ast.walk(tree) if isinstance(n, ast.Call) and "
               "getattr(n.func, 'attr', '') in ('system', 'getoutput')])\nprint(json.dumps(out))\n")
    proc = subprocess.run([python, "-c", program, json.dumps(_CELLS)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    for cell, theirs in zip(_CELLS, json.loads(proc.stdout), strict=True):
        ours = [c.text for c in commands(Cell(1, "code", cell))]
        assert ours == theirs, cell


def test_var_expand_agrees_with_ipython() -> None:
    python = _ipython()
    if python is None:
        pytest.skip("no python with IPython installed: the oracle needs IPython's DollarFormatter")
    code = 'REGION = "us-central1"\nJOB = "job_1"\nN = 3\nL = [1, "b"]\nS = "é"\n'
    values = {k: v for k, v in scope_after([("c", code)]).__dict__["_values"].items() if k != "__name__"}
    program = ("import json, sys\nfrom IPython.utils.text import DollarFormatter\nns = json.loads(sys.argv[1])\n"
               "out = []\nfor line in json.loads(sys.argv[2]):\n"
               "    try:\n        out.append(DollarFormatter().vformat(line, args=[], kwargs=dict(ns)))\n"
               "    except Exception:\n        out.append(line)\nprint(json.dumps(out))\n")
    proc = subprocess.run([python, "-c", program, json.dumps(values), json.dumps(_IPYTHON_LINES)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    theirs = json.loads(proc.stdout)
    scope = scope_after([("c", code)])
    for line, their in zip(_IPYTHON_LINES, theirs, strict=True):
        ours = var_expand(line, scope)
        if ours.unknown is not None and ours.failed is None:  # $N.real: an attribute, not evaluated here
            assert "attribute" in ours.unknown[1].why, (line, ours)
            continue
        assert ours.text == their, line
