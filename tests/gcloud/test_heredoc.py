"""Here-documents that write the --config file before the training command (provider.gcloud.heredoc).

What bash writes is asked of a real bash: each script's ``cat ... <<`` line runs in bash, in a scratch folder,
and the file it writes must be exactly the text trainjobs reads for it. Then ``trainjobs convert train.sh`` of a
script that writes its config with a here-document must make the request the same script makes with the file
written beside it, and point a problem of that config at the script's own line.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from provider.gcloud.words import ShellError, read_line

from ..conftest import run_cli
from .test_words_bash import BASH

CREATE = "gcloud ai custom-jobs create --region=us-central1 --display-name=x --config=c.yaml"
ENV = {"IMG": "gcr.io/p/img:1", "EMPTY": "", "SPACED": "a  b"}

# (what is written before the command, as scripts write it): every form bash reads differently
FORMS = {
    "unquoted": 'cat > c.yaml <<EOF\nimage: $IMG\nbraced: ${IMG}\ndefault: ${NOPE:-d}\nquotes: "$IMG" \'$IMG\'\n'
                'escaped: \\$IMG \\\\ \\` \\" \\n\nspaced: $SPACED\njoined: a\\\nb\nEOF\n',
    "single_quoted": "cat > c.yaml <<'EOF'\nimage: $IMG\nescaped: \\$IMG \\\\\nEOF\n",
    "double_quoted": 'cat > c.yaml <<"EOF"\nimage: ${IMG}\nEOF\n',
    "backslashed": "cat > c.yaml <<\\EOF\nimage: $IMG\nEOF\n",
    "partly_quoted": "cat > c.yaml <<E'O'F\nimage: $IMG\nEOF\n",
    "tabs_stripped": "cat > c.yaml <<-EOF\n\timage: $IMG\n\t\tnested: x\n\tEOF\n",
    "redirect_after": "cat <<EOF > c.yaml\nimage: $IMG\nEOF\n",
    "glued": "cat >c.yaml<<EOF\nimage: $IMG\nEOF\n",
    "assigned_before": "V=set-before\nexport W=exported\ncat > c.yaml << EOF\nv: $V\nw: ${W}\nEOF\n",
    "other_delimiter": "cat > ./c.yaml <<YAML\nEOF\nimage: $IMG\nYAML\n",
    "empty_value": "cat > c.yaml <<EOF\nempty: '$EMPTY'\nEOF\n",
}


@pytest.mark.parametrize("name", sorted(FORMS))
def test_the_file_is_what_bash_writes(name: str, tmp_path: Path) -> None:
    script = FORMS[name]
    done = subprocess.run([BASH, "-c", script], cwd=tmp_path, env={"PATH": "/usr/bin:/bin", **ENV},
                          capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    line = read_line(script + CREATE + "\n", ENV, tmp_path)
    assert len(line.heres) == 1
    assert line.heres[0].text == (tmp_path / "c.yaml").read_text()
    assert line.heres[0].path == str(tmp_path / "c.yaml")
    assert any("cat writes the here-document" in note for note in line.notes)


def test_the_lines_of_the_document_are_not_read_as_commands(tmp_path: Path) -> None:
    """A line of the document that would be a command (a gcloud one too) is text, not run."""
    script = "cat > c.yaml <<EOF\ngcloud ai custom-jobs create --region=x\nrm -rf /\nEOF\n" + CREATE + "\n"
    line = read_line(script, ENV, tmp_path)
    assert line.words[:4] == ["gcloud", "ai", "custom-jobs", "create"]
    assert "--config=c.yaml" in line.words
    assert line.heres[0].text == "gcloud ai custom-jobs create --region=x\nrm -rf /\n"


@pytest.mark.parametrize(("script", "said"), [
    ("python - <<EOF\nprint(1)\nEOF\n" + CREATE, "gives 'python' the lines that follow as its standard input"),
    ("cat >> c.yaml <<EOF\na: 1\nEOF\n" + CREATE, "stdout is appended to c.yaml"),
    ("cat <<EOF\na: 1\nEOF\n" + CREATE, "cat with a here-document: stdout is printed"),
    ("cat > c.yaml <<EOF | tee d\na: 1\nEOF\n" + CREATE, "cat with a here-document"),
    (CREATE + " <<EOF\na: 1\nEOF\n", "gives gcloud the lines that follow as its standard input"),
    ("cat > c.yaml <<EOF\na: 1\n" + CREATE, "never ended by a line EOF"),
    ("cat > c.yaml <<\n" + CREATE, "<< without a delimiter word"),
    ("cat > c.yaml <<$X\na\n$X\n" + CREATE, "delimiter word with $ or `"),
    ("cat > c.yaml <<EOF <<END\na\nEOF\nb\nEND\n" + CREATE, "a second here-document in one command"),
    ("cat > c.yaml <<EOF\na: $HF_TOKEN\nEOF\n" + CREATE, "uses $HF_TOKEN, whose name looks secret"),
    ("cat > c.yaml <<EOF\na: $UNSET_ONE\nEOF\n" + CREATE, "$UNSET_ONE is not defined"),
    ("cat > c.yaml <<EOF\na: $(hostname)\nEOF\n" + CREATE, "command substitution"),
    ("cat > c.yaml <<EOF\na: 1\nEOF\n" + CREATE.replace("--config=", "--flags-file="),
     "read by the training command otherwise than by --config"),
])
def test_what_is_not_read_is_refused_by_name(script: str, said: str, tmp_path: Path) -> None:
    with pytest.raises(ShellError) as refused:
        read_line(script + "\n", {**ENV, "HF_TOKEN": "hf_x"}, tmp_path)
    assert said in refused.value.message
    if "<<" in said or "here-document" in said or "EOF" in said:  # a here-document's own: what is read instead
        assert "cat > FILE <<EOF" in refused.value.message
    assert "hf_x" not in str(refused.value)


def test_the_place_of_a_refused_here_document(tmp_path: Path) -> None:
    with pytest.raises(ShellError) as refused:
        read_line("X=1\npython - <<EOF\nprint(1)\nEOF\n" + CREATE + "\n", ENV, tmp_path)
    assert (refused.value.line, refused.value.column) == (2, 10)  # at its <<


CONFIG = """workerPoolSpecs:
- machineSpec:
    machineType: n1-standard-4
  replicaCount: 1
  containerSpec:
    imageUri: ${IMG}
    args: ["--out", "gs://b/${RUN}"]
"""


def _request(folder: Path, script: str) -> dict[str, object]:
    (folder / "train.sh").write_text(script)
    done = run_cli("convert", "train.sh", "--format", "request", cwd=folder)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_convert_reads_the_config_the_script_writes(tmp_path: Path) -> None:
    """The request of the script that writes its config equals that of the same config written beside it."""
    (tmp_path / ".git").mkdir()
    head = "IMG=gcr.io/p/img:1\nRUN=r1\n"
    written = _request(tmp_path, f"{head}cat > c.yaml <<EOF\n{CONFIG}EOF\n{CREATE}\n")
    assert not (tmp_path / "c.yaml").exists()  # nothing ran
    (tmp_path / "c.yaml").write_text(CONFIG.replace("${IMG}", "gcr.io/p/img:1").replace("${RUN}", "r1"))
    beside = _request(tmp_path, f"{head}{CREATE}\n")
    assert written == beside
    pool = written["body"]["jobSpec"]["workerPoolSpecs"][0]  # type: ignore[index]
    assert pool["containerSpec"] == {"imageUri": "gcr.io/p/img:1", "args": ["--out", "gs://b/r1"]}


def test_a_problem_of_the_written_config_is_at_the_script_line(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    script = "IMG=gcr.io/p/img:1\ncat > c.yaml <<EOF\nworkerPoolSpecs:\n- machineSpec:\n    machineType: n1-standard-4\n" \
             "    acceleratorType: NVIDIA_TESLA_Q99\n  replicaCount: 1\n  containerSpec: {imageUri: $IMG}\nEOF\n" \
             f"{CREATE}\n"
    (tmp_path / "train.sh").write_text(script)
    done = run_cli("convert", "train.sh", cwd=tmp_path)
    assert done.returncode != 0
    assert "train.sh:6:" in done.stderr and "NVIDIA_TESLA_Q99" in done.stderr, done.stderr
    assert "--config c.yaml" in done.stderr  # the command names the file as it wrote it


def test_a_temporary_file_the_script_makes_for_its_config(tmp_path: Path) -> None:
    """CFG=$(mktemp) (or "$(mktemp -t NAME.XXXXXX).yaml", or a file in $(mktemp -d)), a here-document into it,
    --config "$CFG", rm "$CFG" after: the file is read as written; its name, made when the script runs, reaches no
    job."""
    (tmp_path / ".git").mkdir()
    head = "IMG=gcr.io/p/img:1\nRUN=r1\n"
    for made in ("$(mktemp)", '"$(mktemp -t train_job.XXXXXX).yaml"', "$(mktemp --suffix=.yaml job.XXXXXX)",
                 '"$(mktemp -d)/job.yaml"'):
        script = f'{head}CFG={made}\ncat > "$CFG" <<EOF\n{CONFIG}EOF\n{CREATE.replace("c.yaml", "$CFG")}\nrm -f "$CFG"\n'
        line = read_line(script, {}, tmp_path)
        assert any("'s name when the script runs: read as" in note for note in line.notes)
        assert any("rm after the training command" in note for note in line.notes)
        assert _request(tmp_path, script) == _request(tmp_path, f"{head}cat > c.yaml <<EOF\n{CONFIG}EOF\n{CREATE}\n")


@pytest.mark.parametrize(("script", "said"), [
    ("T=$(mktemp)\n" + CREATE + " --labels=t=$T", "the name $(mktemp) makes is known only when the script runs"),
    ('T=$(mktemp)\ncat > "$T" <<EOF\nname: $T\nEOF\n' + CREATE.replace("c.yaml", "$T"),
     "holds the name $(mktemp) makes"),
    ("T=$(mktemp -t train_job)\n" + CREATE, "too few X's in template 'train_job'"),  # GNU mktemp stops
    ("T=$(mktemp --mode=600)\n" + CREATE, "mktemp '--mode=600' is not read"),
    (CREATE + "\nrm -rf build", "'rm' after the training command would run as well"),
])
def test_a_temporary_name_that_would_reach_the_job_is_refused(script: str, said: str, tmp_path: Path) -> None:
    with pytest.raises(ShellError) as refused:
        read_line(script + "\n", {}, tmp_path)
    assert said in refused.value.message


@pytest.mark.parametrize("flag", ["--config=-", "--config -", "--config=/dev/stdin", "--config /dev/stdin"])
def test_the_training_commands_own_here_document_is_the_config_it_reads(flag: str, tmp_path: Path) -> None:
    """gcloud ai custom-jobs create --config=- <<EOF (its loader reads - as standard input) or --config=/dev/stdin:
    the request equals that of the same config written beside the script (the oracle's corpus asks gcloud)."""
    (tmp_path / ".git").mkdir()
    head = "IMG=gcr.io/p/img:1\nRUN=r1\n"
    create = CREATE.replace("--config=c.yaml", flag)
    written = _request(tmp_path, f"{head}{create} <<EOF\n{CONFIG}EOF\necho submitted\n")
    (tmp_path / "c.yaml").write_text(CONFIG.replace("${IMG}", "gcr.io/p/img:1").replace("${RUN}", "r1"))
    beside = _request(tmp_path, f"{head}{CREATE}\n")
    assert written == beside
    line = read_line(f"{head}{create} <<'EOF'\n{CONFIG}EOF\n", ENV, tmp_path)
    assert line.heres[0].text == CONFIG  # a quoted delimiter: written as it is
    assert any("is the training command's standard input" in note for note in line.notes)


@pytest.mark.parametrize("command", [
    "gcloud ai hp-tuning-jobs create --region=us-central1 --display-name=t --config=-",
    "gcloud ai-platform jobs submit training j --region=us-central1 --master-image-uri=gcr.io/p/i:1 --config -",
])
def test_config_dash_of_another_command_is_refused_as_gcloud_refuses_it(command: str, tmp_path: Path) -> None:
    """Only custom-jobs create reads --config - from standard input; the others open a file named -."""
    with pytest.raises(ShellError) as refused:
        read_line(f"{command} <<EOF\na: 1\nEOF\n", ENV, tmp_path)
    assert "--config - is read as standard input by gcloud ai custom-jobs create only" in refused.value.message
    assert "--config=/dev/stdin" in refused.value.message
