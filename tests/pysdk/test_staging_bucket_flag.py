"""``convert --staging-bucket`` for an SDK job whose staging bucket the code makes only when it runs (a bucket named
from ``uuid`` or the clock, as Google's notebooks write it): the flag gives the bucket in its place, with a note; the
refusal without it says so; a flag the job has no use for is refused, never dropped."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import run_cli

_POOLS = ('[{"machine_spec": {"machine_type": "n1-standard-4"}, "replica_count": 1, '
          '"container_spec": {"image_uri": "gcr.io/p/i:1"}}]')
_UNKNOWN = ("import uuid\nfrom google.cloud import aiplatform\nUUID = uuid.uuid4().hex[:8]\n"
            "BUCKET_URI = f'gs://my-bucket-{UUID}'\n")


def _script(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "train.py"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_bucket_known_only_when_the_code_runs_is_given_by_the_flag(tmp_path: Path) -> None:
    path = _script(tmp_path, _UNKNOWN + "aiplatform.init(project='p', location='us-central1', "
                   f"staging_bucket=BUCKET_URI)\njob = aiplatform.CustomJob(display_name='j', worker_pool_specs={_POOLS})"
                   "\njob.run()\n")
    refused = run_cli("convert", str(path), "--output", "request")
    assert refused.returncode == 1 and "or give the bucket with convert --staging-bucket gs://BUCKET" in refused.stderr
    done = run_cli("convert", str(path), "--output", "request", "--staging-bucket", "gs://mine")
    assert done.returncode == 0, done.stderr
    body = json.loads(done.stdout)["body"]
    assert body["jobSpec"]["baseOutputDirectory"]["outputUriPrefix"].startswith("gs://mine/aiplatform-custom-job-")
    assert "train.py:5:69: convert --staging-bucket gs://mine is written in its place" in done.stderr, done.stderr


def test_a_training_pipeline_class_takes_the_flag_too(tmp_path: Path) -> None:
    path = _script(tmp_path, _UNKNOWN + "aiplatform.init(project='p', location='us-central1')\n"
                   "job = aiplatform.CustomContainerTrainingJob(display_name='j', container_uri='gcr.io/p/i:1', "
                   "staging_bucket=BUCKET_URI)\njob.run(replica_count=1, machine_type='n1-standard-4')\n")
    done = run_cli("convert", str(path), "--output", "request", "--staging-bucket", "gs://mine")
    assert done.returncode == 0, done.stderr
    assert "gs://mine" in done.stdout and "CustomContainerTrainingJob(staging_bucket=BUCKET_URI" in done.stderr


def test_the_flag_where_the_code_names_its_bucket_is_refused(tmp_path: Path) -> None:
    path = _script(tmp_path, "from google.cloud import aiplatform\naiplatform.init(project='p', location='us-central1',"
                   f" staging_bucket='gs://b')\naiplatform.CustomJob(display_name='j', worker_pool_specs={_POOLS}).run()\n")
    done = run_cli("convert", str(path), "--output", "request", "--staging-bucket", "gs://mine")
    assert done.returncode == 2 and "--staging-bucket goes with" in done.stderr, done.stderr
    assert "an SDK job in Python or a notebook whose staging_bucket is known only when it runs" in done.stderr


def test_a_notebook_takes_the_flag(tmp_path: Path) -> None:
    cells = [_UNKNOWN, "aiplatform.init(project='p', location='europe-west4', staging_bucket=BUCKET_URI)",
             f"job = aiplatform.CustomJob(display_name='nb', worker_pool_specs={_POOLS})\njob.run()"]
    notebook = tmp_path / "nb.ipynb"
    notebook.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": c} for c in cells]}))
    done = run_cli("convert", str(notebook), "--output", "request", "--staging-bucket", "gs://nb-bucket")
    assert done.returncode == 0, done.stderr
    assert "gs://nb-bucket/aiplatform-custom-job-" in done.stdout
