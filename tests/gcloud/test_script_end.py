"""A script file whose last line ends with a lone backslash and no newline (a continuation left at the end, as
public scripts have it: find_string id 52007575272): bash, reading the file, drops the backslash (``bash -c`` would
keep it as a word), so gcloud gets the command without it, and so does convert (provider/cli/convert_script.py)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from ..conftest import run_cli
from .test_words_bash import BASH

COMMAND = ("gcloud ai custom-jobs create --region=us-central1 --display-name=x \\\n"
           "  --worker-pool-spec=machine-type=n1-standard-4,container-image-uri=gcr.io/p/i:1 \\")


def test_bash_drops_the_backslash_that_ends_the_file(tmp_path: Path) -> None:
    (tmp_path / "words.sh").write_text(COMMAND.replace("gcloud", "printf '[%s]'", 1))
    done = subprocess.run([BASH, "words.sh"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.stdout.endswith("container-image-uri=gcr.io/p/i:1]"), done.stdout  # no [\] word after it


def test_convert_reads_the_file_as_bash_does(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    requests = []
    for text in (COMMAND, COMMAND.removesuffix(" \\") + "\n"):
        (tmp_path / "train.sh").write_text(text)
        done = run_cli("convert", "train.sh", "--output", "request", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        requests.append(json.loads(done.stdout))
    assert requests[0] == requests[1]
