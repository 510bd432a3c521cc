"""What a script runs before its gcloud command (export, declare, set, #! lines), and a lone trailing
backslash, read as a real bash reads them (provider.gcloud.prelude).

Each script is given to bash with ``printf "%s\\0"`` in place of ``gcloud`` (test_words_bash.ENV: a
UTF-8 locale, a scratch folder as the current directory); the words split_words reads must be
exactly the words bash passes. What bash would stop at, or what would change how it reads the
line, is refused by name at its column. The end-to-end case is a public submit script
(find_string id 21835885619), through ``trainjobs convert --gcloud``.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from provider.gcloud.command import GcloudError, parse
from provider.gcloud.words import ShellError, split_words

from ..conftest import run_cli
from .test_words_bash import BASH, ENV, bash_words


def _bash(script: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([BASH, "-c", script], cwd=cwd, env=ENV, capture_output=True, timeout=60)


def _bash_after(prefix: str, words: str, cwd: Path) -> list[str]:
    done = _bash(f'{prefix}printf "%s\\0" {words}', cwd)
    assert done.returncode == 0, done.stderr
    return [w.decode("utf-8", "surrogateescape") for w in done.stdout.split(b"\0")[:-1]]


RUN_FIRST = [
    ("export A=1 B=2 && ", "$A $B"),
    ("export REGION=europe-west1\n", "--region=$REGION"),
    ("export A=$SPACED B=*.py C=\"$LEAD\" D=a:b=c; ", '"$A" "$B" "$C" $A $D'),  # neither split nor globbed
    ("A=0; export A=1 B=$A; ", "$A $B"),  # every word is expanded before export assigns: B is the earlier A
    ("export A=${X:-d} B=${A:+set} C=${Y:=y} && ", "$A \"$B\" $C $Y"),
    ("export V; ", "$V"),  # a bare NAME changes no value: the environment's
    ("export A=1 V B && ", "$A $V ${B-unset}"),
    ("declare A=x && declare B=$A CLOUDSDK_CORE_PROJECT=p\n", "$A $B"),  # declare does not export
    ("export JOB_DIR=gs://b/${V}/out \\\n  REGION=us-east1 &&\\\n", "--job-dir=$JOB_DIR --region $REGION"),
    ("#!/bin/bash\n# submit a job\nset -euo pipefail\n\nexport JOB=j1\n", "$JOB ${X:-d} ${X+y} \"${EMPTY-e}\""),
    ("#!/usr/bin/env bash\nset -e; set -x; set +u\nset -o errexit -o nounset +o xtrace\n", "$V"),
    ("set -eo pipefail && set -ue && A=a\n", "$A"),
    ("set -u; set +u; ", "a${X:-}b"),
    ("V=shadow && export V && ", "$V"),
]


@pytest.mark.parametrize(("prefix", "words"), RUN_FIRST)
def test_export_declare_and_set_before_the_command_read_as_bash_runs_them(prefix: str, words: str,
                                                                          tmp_path: Path) -> None:
    (tmp_path / "trainer.py").write_text("")  # a file B=*.py would match, were it globbed
    assert split_words(f"{prefix}gcloud {words}", ENV, tmp_path)[1:] == _bash_after(prefix, words, tmp_path)


@pytest.mark.parametrize("words", ["a \\", "a\\", "'a b' \\", "a \\\n\\", "--region=x\\"])
def test_a_lone_backslash_at_the_very_end_is_kept_as_bash_keeps_it(words: str, tmp_path: Path) -> None:
    read = split_words("gcloud " + words, ENV, tmp_path)[1:]
    assert read == bash_words(words, tmp_path)
    assert read[-1].endswith("\\")


def test_a_continuation_at_the_end_stays_one(tmp_path: Path) -> None:
    assert split_words("gcloud a \\\n", ENV, tmp_path)[1:] == bash_words("a \\\n", tmp_path) == ["a"]


@pytest.mark.parametrize(("script", "at"), [
    ("set -u; gcloud x $X", "column 18"),
    ("set -euo pipefail\nA=${V}$X && gcloud x", "line 2, column 7"),
    ("set -o nounset; gcloud x \"$X\"", "column 27"),
])
def test_an_unset_variable_after_set_u_is_bashs_own_message(script: str, at: str, tmp_path: Path) -> None:
    done = _bash(script.replace("gcloud", "printf '%s\\0'"), tmp_path)
    assert done.returncode != 0 and b"X: unbound variable" in done.stderr  # what bash says
    with pytest.raises(ShellError) as exc:
        split_words(script, ENV, tmp_path)
    assert f"{at}: bash would stop here with 'X: unbound variable' (set -u is on); export X=... first" \
           in str(exc.value)


@pytest.mark.parametrize(("line", "says"), [
    ("export -n A && gcloud x", "column 8: export '-n': the options of export are not read; write export "
                                "NAME=value"),
    ("declare -x A=1 && gcloud x", "column 9: declare '-x': the options of declare are not read"),
    ("export A=1 gcloud x --region=y", "column 21: export takes NAME=value (the name and = unquoted) or NAME, and "
                                       "'--region=y' is neither; end the export with &&, ; or a newline before"),
    ("export 'A=1' && gcloud x", "column 8: export takes NAME=value (the name and = unquoted) or NAME, and 'A=1'"),
    ("export A=1 CLOUDSDK_AI_REGION=us-east1 && gcloud x", "column 12: export CLOUDSDK_AI_REGION sets a gcloud "
                                                           "property for the gcloud command"),
    ("CLOUDSDK_CORE_PROJECT=p && export CLOUDSDK_CORE_PROJECT && gcloud x", "column 35: export CLOUDSDK_CORE_PROJECT"),
    ("export && gcloud x", "column 1: export alone prints the shell's variables or options"),
    ("set\ngcloud x", "column 1: set alone prints"),
    ("export C={a,b} && gcloud x $C", "column 8: the word 'C={a,b}' holds an unquoted brace expansion"),
    ("export A=~/x && gcloud x", "column 8: the word 'A=~/x' would be expanded by bash: ~ becomes a home folder"),
    ("export A=$(date) && gcloud x", "column 10: '$(date)': date without +FORMAT"),
    ("export A=$(hostname) && gcloud x", "column 10: '$(hostname)': $(...) is command substitution"),
    ("set -f; gcloud x *.py", "column 5: set -f is not read: it changes how bash reads or runs what follows; "
                              "allowed: set -e, -u"),
    ("set -e +B && gcloud x", "column 8: set +B is not read"),
    ("set -a; CLOUDSDK_CORE_PROJECT=p; gcloud x", "column 5: set -a is not read"),  # it would export what follows
    ("set -o allexport; gcloud x", "column 8: set -o 'allexport' is not read"),
    ("set -eo noglob; gcloud x", "column 9: set -o 'noglob' is not read"),
    ("set -o; gcloud x", "column 5: set -o without an option's name prints the options"),
    ("set -- a b; gcloud x", "column 5: set '--' would set the positional parameters ($1, $2...)"),
    ("set -e x; gcloud x", "column 8: set 'x' would set the positional parameters"),
    ('"export" A=1 && gcloud x', "column 14: a second command (&&) is not part of one gcloud command (only "
                                 "NAME=value assignments, export NAME=value, set options and gcloud config set"),
    ("readonly A=1 && gcloud x", "column 14: a second command (&&) is not part of one gcloud command (only"),
    ("A=1 export B=2 && gcloud x", "column 16: a second command (&&)"),
    ("export A=1 | gcloud x", "column 12: a pipe (|) after 'export A=1'"),
    ("set -e\nexport A=1", "not a gcloud command"),
])
def test_what_else_comes_first_is_refused_by_name_at_its_column(line: str, says: str, tmp_path: Path) -> None:
    (tmp_path / "trainer.py").write_text("")
    with pytest.raises((ShellError, GcloudError)) as exc:
        parse(split_words(line, ENV, tmp_path))
    assert says in str(exc.value)


@pytest.mark.parametrize(("script", "bash_gives"), [
    ('export C={a,b}; printf "%s\\0" "$C"', ["b"]),  # export's word is brace-expanded: C=a, then C=b
    ('set -f; printf "%s\\0" *.py', ["*.py"]),  # noglob: the glob would be kept, not refused
    ('"export" A=$SPACED; printf "%s\\0" "$A"', ["a"]),  # quoted, it is no declaration: the value is split
])
def test_what_is_refused_is_indeed_read_otherwise_by_bash(script: str, bash_gives: list[str], tmp_path: Path) -> None:
    (tmp_path / "trainer.py").write_text("")
    done = _bash(script, tmp_path)
    assert [w.decode() for w in done.stdout.split(b"\0")[:-1]] == bash_gives


def _repo(tmp_path: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "torchf").mkdir()
    (tmp_path / "torchf" / "__init__.py").write_text("")
    return tmp_path


# A public submit script (find_string id 21835885619), as written but for its placeholders <...> and its last
# flag (--impersonate-service-account=<<SRVC_ACCOUNT>>, a gcloud setting).
SCRIPT = """#!/bin/bash
# submit training job to Vertex Training with
# pre-built container using gcloud CLI

export JOB_NAME='openml_fashionmnist_minivgg16'
export REGION='asia-south1'
export IMAGE_URI='asia-docker.pkg.dev/vertex-ai/training/pytorch-gpu.1-13.py310:latest'
export PACKAGE_PATH='gs://BUCKET_NAME/torchf-0.1.0.tar.gz'
export JOB_DIR='gs://BUCKET_NAME'

export GOOGLE_APPLICATION_CREDENTIALS='$(pwd)/sounish-cloud-workstation-701639c35724.json'

gcloud beta ai custom-jobs create \\
    --display-name=${JOB_NAME} \\
    --region ${REGION} \\
    --python-package-uris=${PACKAGE_PATH} \\
    --worker-pool-spec=replica-count=1,machine-type='n1-standard-8',accelerator-type='NVIDIA_TESLA_T4',\
accelerator-count=1,executor-image-uri=${IMAGE_URI},python-module='torchf.main' \\
    --args="--model-name","openml_fashionmnist_minivgg16","--job-dir",$JOB_DIR
"""


def test_convert_reads_a_script_of_exports_as_bash_does(tmp_path: Path) -> None:
    filled = SCRIPT.replace("BUCKET_NAME", "my-bucket")
    done = run_cli("convert", "--gcloud", filled, cwd=_repo(tmp_path), env={"REGION": "us-central1"})
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "  region: asia-south1\n" in out and "  displayName: openml_fashionmnist_minivgg16\n" in out
    assert "      - gs://my-bucket/torchf-0.1.0.tar.gz\n" in out and "      - --job-dir\n      - gs://my-bucket\n" in out
    assert "read from the environment" not in out + done.stderr  # each value came from the script


def test_convert_reads_an_export_of_the_date_and_refuses_another_command(tmp_path: Path) -> None:
    # a public script (find_string id 4704910499), its first line; the region and image added
    line = ('export JOB_NAME="lstm_train_$(date +%Y%m%d_%H%M%S)"\ngcloud ml-engine jobs submit training ${JOB_NAME} '
            "--region us-central1 --master-image-uri gcr.io/p/i:1")
    repo = _repo(tmp_path)
    done = run_cli("convert", "--gcloud", line, cwd=repo)
    assert done.returncode == 0, done.stderr
    assert re.search(r"\n  name: lstm_train_[0-9]{8}_[0-9]{6}\n", done.stdout)
    assert "$(date +%Y%m%d_%H%M%S) is the time the script runs" in done.stdout + done.stderr
    done = run_cli("convert", "--gcloud", line.replace("date +", "hostname +"), cwd=repo)
    assert done.returncode == 1
    assert "line 1, column 29: '$(hostname +%Y%m%d_%H%M%S)': $(...) is command substitution" in done.stderr
    assert "Traceback" not in done.stderr
