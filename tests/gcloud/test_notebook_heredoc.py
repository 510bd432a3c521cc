"""A here-document in a notebook's %%bash cell: a problem of the file it writes (the --config) is named at the cell
and the cell's own line, as every other message of the cell is (provider.cli.convert_gcloud._heres)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .test_notebook_file import _convert, _notebook

CELL = ("%%bash\nexport IMG=gcr.io/p/i:1\ncat > c.yaml <<EOF\nworkerPoolSpecs:\n- machineSpec:\n"
        "    machineType: n1-standard-4\n  replicaCount: 1\n  containerSpec:\n    imageUri: $IMG\n  BROKEN\nEOF\n"
        "gcloud ai custom-jobs create --region=us-central1 --display-name=x --config=c.yaml\n")


@pytest.mark.parametrize(("broken", "said"), [
    ("  bogus: 3", "cell 2, line 10, column 3: error: unknown key 'bogus'"),
    ("  bogus: [", "cell 2, line 11, column 1: error: YAML syntax error"),  # the end of the text: the EOF line
    ("  replicaCount: 2", "cell 2, line 10, column 3: error: duplicate key 'replicaCount'"),
])
def test_a_problem_of_the_written_config_is_at_the_cells_line(broken: str, said: str, tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    notebook = _notebook(tmp_path, "nb.ipynb", [("code", "print(1)"), ("code", CELL.replace("  BROKEN", broken))])
    done = _convert(notebook)
    assert done.returncode != 0
    assert f"nb.ipynb {said}" in done.stderr, done.stderr
    assert "(a here-document)" not in done.stderr
