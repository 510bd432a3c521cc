"""A hostile notebook or Python file whose code nests past Python's own limits (a chain of 50,000 terms, a list
hundreds of levels deep) gets one message naming the file, never an internal error, whichever reader reads it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .conftest import run_cli

_JOB = ("from google.cloud import aiplatform\n"
        "aiplatform.CustomJob(display_name=x, worker_pool_specs=[], staging_bucket='gs://bkt').run()\n")
_DEEP = {
    "chain": "x = " + "+".join(['"a"'] * 50000) + "\n",
    "evaluated": "x = " + "+".join(['"a"'] * 2000) + "\n",
    "nested past the parser": "x = " + "[" * 1000 + "]" * 1000 + "\n",
}


def _notebook(code: str) -> str:
    cells = [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": source}
             for source in (code, "!gcloud ai custom-jobs create --region=us-central1 --display-name={x} "
                                  "--worker-pool-spec=machine-type=n1-standard-4,container-image-uri=gcr.io/p/t")]
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells})


@pytest.mark.parametrize("kind", list(_DEEP))
def test_code_nested_past_pythons_limits_is_refused_by_name(kind: str, tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text(_DEEP[kind] + _JOB)
    (tmp_path / "train.ipynb").write_text(_notebook(_DEEP[kind]))
    for name in ("train.py", "train.ipynb"):
        done = run_cli("convert", name, cwd=tmp_path)
        assert done.returncode == 1, done.stderr
        assert "internal error" not in done.stderr and "Traceback" not in done.stderr, done.stderr
        assert done.stderr.startswith(f"trainjobs: {name}") and done.stderr.count("\n") == 1, done.stderr
