"""envsubst < TEMPLATE > FILE (and | gcloud ... --config=-) before the training command (provider.gcloud.envsubst).

What envsubst writes is asked of the real GNU envsubst: each script runs in bash, in a scratch folder, and the file
it writes must be exactly the text trainjobs reads for it. Then convert of such a script must make the request the
same config written beside it makes, and refuse by name (the template's line, the variable) what envsubst would
write from an environment not known here.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from provider.gcloud.words import ShellError, read_line

from ..conftest import run_cli
from .test_words_bash import BASH

CREATE = "gcloud ai custom-jobs create --region=us-central1 --display-name=x --config=job.yaml"
TEMPLATE = ("workerPoolSpecs:\n- machineSpec:\n    machineType: ${MACHINE}\n  replicaCount: 1\n  containerSpec:\n"
            "    imageUri: $IMG\n    args: ['--out=gs://b/${RUN}', '$IMG_X', '\\$IMG', '${IMG:-d}', '$$IMG', '${IMG',"
            " '$1']\n")
ENV = {"IMG": "gcr.io/p/img:1", "MACHINE": "n1-standard-4"}
ENVSUBST = shutil.which("envsubst")

# what the script does before the training command: every form envsubst reads differently
FORMS = {
    "all": "export RUN=r1 IMG_X=x\nenvsubst < job.tpl > job.yaml\n",
    "exported_later": "RUN=r1\nIMG_X=\nexport RUN IMG_X\nenvsubst < job.tpl > job.yaml\n",
    "shell_format": "envsubst '$IMG ${MACHINE}' < job.tpl > job.yaml\n",
    "shell_format_prose": "export RUN=r2\nenvsubst 'only ${RUN} and $MACHINE' < job.tpl >job.yaml\n",
    "prefix_assignment": "RUN=r3 IMG_X=y envsubst < job.tpl > job.yaml\n",
    "output_first": "export RUN=r1 IMG_X=x\nenvsubst > job.yaml < job.tpl\n",
    "overridden": "export IMG=gcr.io/p/other:2 RUN=r1 IMG_X=x\nenvsubst < job.tpl > job.yaml\n",
}


@pytest.mark.skipif(ENVSUBST is None, reason="GNU envsubst (gettext-base) is not installed")
@pytest.mark.parametrize("name", sorted(FORMS))
def test_the_file_is_what_envsubst_writes(name: str, tmp_path: Path) -> None:
    (tmp_path / "job.tpl").write_text(TEMPLATE)
    done = subprocess.run([BASH, "-c", FORMS[name]], cwd=tmp_path, env={"PATH": "/usr/bin:/bin", **ENV},
                          capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    line = read_line(FORMS[name] + CREATE + "\n", ENV, tmp_path)
    assert len(line.heres) == 1
    assert line.heres[0].text == (tmp_path / "job.yaml").read_text()
    assert line.heres[0].path == str(tmp_path / "job.yaml") and line.heres[0].source == "job.tpl"
    assert any("envsubst writes job.tpl into job.yaml" in note for note in line.notes)


@pytest.mark.parametrize(("script", "said"), [
    ("envsubst < job.tpl > job.yaml\n", "job.tpl:7: $RUN is not set in the script nor in the environment"),
    ("RUN=r1 && IMG_X=x\nenvsubst < job.tpl > job.yaml\n", "job.tpl:7: $RUN is set in the script but not exported"),
    ("export RUN=1 IMG_X=1\nenvsubst < job.tpl\n", "stdout is printed"),
    ("export RUN=1 IMG_X=1\nenvsubst < job.tpl >> job.yaml\n", "stdout is appended to job.yaml"),
    ("export RUN=1 IMG_X=1\nenvsubst -v < job.tpl > job.yaml\n", "envsubst '-v' is not read"),
    ("export RUN=1 IMG_X=1\nenvsubst < nope.tpl > job.yaml\n", "envsubst reads nope.tpl (< nope.tpl), which cannot be"),
    ("envsubst '$HF_TOKEN' < tok.tpl > job.yaml\n", "tok.tpl:1: $HF_TOKEN: envsubst writes its value, whose name looks"),
    ("python3 fill.py < job.tpl > job.yaml\n", "gives the command a file as its standard input: 'python3' would run"),
    ("export RUN=1 IMG_X=1\nenvsubst < job.tpl | kubectl apply -f -\n", "envsubst's output is piped into 'kubectl"),
])
def test_what_is_not_read_is_refused_by_name(script: str, said: str, tmp_path: Path) -> None:
    (tmp_path / "job.tpl").write_text(TEMPLATE)
    (tmp_path / "tok.tpl").write_text("token: $HF_TOKEN\n")
    with pytest.raises(ShellError) as refused:
        read_line(script + CREATE + "\n", {**ENV, "HF_TOKEN": "hf_x"}, tmp_path)
    assert said in refused.value.message
    assert "envsubst [SHELL-FORMAT] < TEMPLATE > FILE" in refused.value.message
    assert "hf_x" not in str(refused.value)


def _request(folder: Path, script: str) -> dict[str, object]:
    (folder / "train.sh").write_text(script)
    done = run_cli("convert", "train.sh", "--format", "request", cwd=folder, env={"MACHINE": "n1-standard-4"})
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


CONFIG = ("workerPoolSpecs:\n- machineSpec:\n    machineType: ${MACHINE}\n  replicaCount: 1\n  containerSpec:\n"
          "    imageUri: $IMG\n    args: ['--out=gs://b/${RUN}']\n")


@pytest.mark.parametrize("form", ["file", "piped", "redirected"])
def test_convert_reads_the_config_envsubst_writes(form: str, tmp_path: Path) -> None:
    """The request equals that of the same config written beside the script."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "job.tpl").write_text(CONFIG)
    head = "export IMG=gcr.io/p/img:1\nexport RUN=r1\n"
    script = {"file": f"{head}envsubst < job.tpl > job.yaml\n{CREATE}\n",
              "piped": f"{head}envsubst < job.tpl | {CREATE.replace('job.yaml', '-')}\n",
              "redirected": f"{CREATE.replace('job.yaml', '-')} < filled.yaml\n"}[form]
    filled = CONFIG.replace("${MACHINE}", "n1-standard-4").replace("$IMG", "gcr.io/p/img:1").replace("${RUN}", "r1")
    (tmp_path / "filled.yaml").write_text(filled)
    written = _request(tmp_path, script)
    assert not (tmp_path / "job.yaml").exists()  # nothing ran
    (tmp_path / "job.yaml").write_text(filled)
    assert written == _request(tmp_path, f"{CREATE}\n")
    assert written["body"]["jobSpec"]["workerPoolSpecs"][0]["containerSpec"]["args"] == [  # type: ignore[index]
        "--out=gs://b/r1"]


def test_a_problem_of_the_filled_config_is_at_the_templates_line(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "job.tpl").write_text(CONFIG.replace("replicaCount: 1", "replicaCount: 1\n  bogus: $RUN"))
    (tmp_path / "train.sh").write_text(f"export IMG=gcr.io/p/img:1 RUN=r1\nenvsubst < job.tpl > job.yaml\n{CREATE}\n")
    done = run_cli("convert", "train.sh", cwd=tmp_path, env={"MACHINE": "n1-standard-4"})
    assert done.returncode != 0
    assert "job.tpl:5:3: error: unknown key 'bogus'" in done.stderr, done.stderr
    assert "read by --config at train.sh:3:" in done.stderr


def test_gcloud_reads_its_standard_input_for_config_dash_only(tmp_path: Path) -> None:
    (tmp_path / "filled.yaml").write_text("a: 1\n")
    with pytest.raises(ShellError) as refused:
        read_line("gcloud ai hp-tuning-jobs create --region=us-central1 --display-name=t --config=- < filled.yaml\n",
                  ENV, tmp_path)
    assert "write --config=filled.yaml" in refused.value.message and "gcloud may read its standard input" in \
        refused.value.message


@pytest.mark.parametrize(("head", "image"), [("IMG ?= gcr.io/p/img:1\nexport IMG\n", "gcr.io/p/img:1"),
                                             ("export IMG := gcr.io/p/img:2\n", "gcr.io/p/img:2"),
                                             ("IMG = gcr.io/p/img:3\n", None)])  # not exported: envsubst sees none
def test_a_makefile_recipe_sees_the_exported_make_variables(head: str, image: str | None, tmp_path: Path) -> None:
    """make puts its exported variables in each recipe line's environment, where envsubst reads them."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "job.tpl").write_text(CONFIG.replace("${RUN}", "r1").replace("${MACHINE}", "n1-standard-4"))
    (tmp_path / "Makefile").write_text(f"{head}\ntrain:\n\tenvsubst < job.tpl > job.yaml\n\t{CREATE}\n")
    done = run_cli("convert", "Makefile", "--output", "request", cwd=tmp_path)
    if image is None:
        assert done.returncode == 1 and "job.tpl:6: $IMG is not set in the script nor in the environment" in done.stderr
        return
    assert done.returncode == 0, done.stderr
    pool = json.loads(done.stdout)["body"]["jobSpec"]["workerPoolSpecs"][0]
    assert pool["containerSpec"]["imageUri"] == image


@pytest.mark.parametrize("cell", [
    f"%%bash\nenvsubst < job.tpl > job.yaml\n{CREATE}",
    f"!envsubst < job.tpl | {CREATE.replace('job.yaml', '-')}",  # a ! line: no newline ends the command
])
def test_a_notebook_cell_reads_the_template_with_the_notebooks_environment(cell: str, tmp_path: Path) -> None:
    """%env sets what envsubst replaces; a problem of the filled config is at the template's own line."""
    from .test_notebook_file import _convert, _notebook

    (tmp_path / ".git").mkdir()
    (tmp_path / "job.tpl").write_text(CONFIG.replace("replicaCount: 1", "replicaCount: 1\n  bogus: 1"))
    notebook = _notebook(tmp_path, "nb.ipynb", [("code", "%env IMG=gcr.io/p/img:9\n%env RUN=r9\n%env MACHINE=n1-standard-4"),
                                                ("code", cell)])
    done = _convert(notebook)
    assert "envsubst writes job.tpl into" in done.stderr and "$IMG='gcr.io/p/img:9'" in done.stderr, done.stderr
    assert "job.tpl:5:3: error: unknown key 'bogus'" in done.stderr


def test_a_piped_envsubst_without_a_last_newline(tmp_path: Path) -> None:
    (tmp_path / "job.tpl").write_text(CONFIG)
    line = read_line(f"export RUN=1\nenvsubst < job.tpl | {CREATE.replace('job.yaml', '-')}", ENV, tmp_path)
    assert [h.target for h in line.heres] == ["-"] and line.heres[0].shown == "job.tpl"
