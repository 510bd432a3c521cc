"""A positional parameter's default (``REGION=${1:-us-central1}``), read as the script run with no arguments
(provider.gcloud.parameters): the words must be those a real bash gives the training command when the script is
run so (``bash -c SCRIPT``: no argument after it), and a note names each such reading."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from provider.gcloud.words import ShellError, read_line

from .test_words_bash import BASH

STUB = 'gcloud() { printf "%s\\0" gcloud "$@"; }\n'
CREATE = "gcloud ai custom-jobs create --display-name=x --region=$REGION --worker-pool-spec=$SPEC --args=$ARGS"
SCRIPTS = {
    "colon_dash": 'REGION="${1:-us-central1}"\nSPEC=machine-type=n1-standard-4,container-image-uri=${2:-gcr.io/p/i:1}\n'
                  'ARGS=--n=${3:-512}\n',
    "dash": "REGION=${1-europe-west4}\nSPEC=machine-type=${2-e2-standard-4},container-image-uri=gcr.io/p/i:1\n"
            "ARGS=--x\n",
    "plus": "REGION=us-east1${1:+-$1}\nSPEC=machine-type=n1-standard-4,container-image-uri=gcr.io/p/i:1\n"
            "ARGS=--tag${2+=$2}\n",
    "nested_default": 'DEF=asia-east1\nREGION="${1:-$DEF}"\nSPEC=machine-type=n1-standard-4,'
                      'container-image-uri=gcr.io/p/i:1\nARGS="${10:-a b}"\n',
}


def _bash(script: str, tmp_path: Path) -> list[str]:
    done = subprocess.run([BASH, "-c", STUB + script], cwd=tmp_path, env={"PATH": "/usr/bin:/bin"},
                          capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.decode().split("\0")[:-1]


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_read_as_bash_runs_the_script_with_no_arguments(name: str, tmp_path: Path) -> None:
    script = SCRIPTS[name] + CREATE + "\n"
    line = read_line(script, {}, tmp_path)
    assert line.words == _bash(script, tmp_path)
    assert any("is read as the script run with no arguments" in note for note in line.notes)


@pytest.mark.parametrize(("text", "said"), [
    ("REGION=$1\n", "$1 is a special shell parameter; the script's arguments ($1.., $@, $*) are given when it runs "
                     "and not known here: write the value in its place"),
    ('ARGS=--args=$@\n', "$@ is a special shell parameter; the script's arguments"),  # --args=$@ of a public script
    ('ARGS="$*"\n', "$* is a special shell parameter; the script's arguments"),
    ("P=$$\n", "$$ is a special shell parameter; only variables of the environment are understood"),
    ("REGION=${1}\n", "${1...} is a special shell parameter"),
    ("REGION=${1:=us-east1}\n", "cannot assign a positional parameter"),
    ('REGION="${1:?usage: run.sh REGION}"\n', "bash would stop here with '1: usage: run.sh REGION' when the script "
                                             "is run with no arguments"),
])
def test_what_needs_the_arguments_is_refused(text: str, said: str, tmp_path: Path) -> None:
    with pytest.raises(ShellError) as refused:
        read_line(text + CREATE.replace("$SPEC", "s").replace("$ARGS", "a") + "\n", {}, tmp_path)
    assert said in refused.value.message
