"""A field set on the client's message after it is built (provider/pysdk/message_changes.py): read as proto-plus sets
it, refused where proto-plus raises (checked against the installed client), and refused by name where the value the
code has is not the one read (a change the reader does not follow, a change to an SDK job object)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from ..conftest import no_traceback, run_cli
from .test_gapic import client_request

_HEAD = ("from google.cloud import aiplatform, aiplatform_v1\n"
         "c = aiplatform_v1.JobServiceClient()\n"
         "spec = aiplatform_v1.CustomJobSpec(worker_pool_specs=[aiplatform_v1.WorkerPoolSpec(\n"
         "    machine_spec=aiplatform_v1.MachineSpec(machine_type='n1-standard-4'), replica_count=1,\n"
         "    container_spec=aiplatform_v1.ContainerSpec(image_uri='gcr.io/p/i:1'))])\n")
_SEND = ("job = aiplatform_v1.CustomJob(display_name='x', job_spec=spec)\n"
         "c.create_custom_job(parent='projects/p/locations/us-central1', custom_job=job)\n")


def _refused(tmp_path: Path, change: str) -> str:
    path = tmp_path / "train.py"
    path.write_text(_HEAD + change + "\n" + _SEND)
    proc = run_cli("convert", str(path))
    no_traceback(proc)
    assert proc.returncode == 1, proc.stdout
    return proc.stderr


@pytest.mark.parametrize(("change", "raised", "said"), [
    ("spec.timeout = '60s'", AttributeError,
     "train.py:6:1: spec.timeout: Unknown field for CustomJobSpec: timeout (proto-plus raises AttributeError"),
    ("spec.worker_pool_specs[0].machine_spec.acelerator_count = 2", AttributeError,
     "Unknown field for MachineSpec: acelerator_count"),
    ("spec.scheduling = '3600s'", TypeError,
     "train.py:6:19: spec.scheduling = '3600s': a str for a field that takes a message (proto-plus raises TypeError)"),
    ("spec.worker_pool_specs[0].machine_spec.accelerator_count = '2'", TypeError,
     "accelerator_count = '2': a str for a field that takes a number"),
    ("spec.worker_pool_specs[1].replica_count = 2", IndexError,
     "train.py:6:1: spec.worker_pool_specs[1].replica_count: [1] is not an item of spec.worker_pool_specs (1 items): "
     "Python raises IndexError"),
    ("spec['network'] = 'n'", TypeError, "spec is a CustomJobSpec message: Python raises TypeError"),
])
def test_a_change_the_client_refuses_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: str,
                                                raised: type[Exception], said: str) -> None:
    stderr = _refused(tmp_path, change)
    assert said in stderr, stderr
    with pytest.raises(raised):
        client_request(tmp_path / "train.py", monkeypatch)


@pytest.mark.parametrize(("change", "said"), [
    ("spec.worker_pool_specs.append(aiplatform_v1.WorkerPoolSpec(replica_count=2))",
     "train.py:7:58: c.create_custom_job(custom_job=...).job_spec: spec holds the client's message classes or enum "
     "members and spec may be changed by spec.worker_pool_specs.append() at "),
    ("spec.worker_pool_specs[0].replica_count += 1", "is changed by an augmented assignment or del at "),
    ("pools = spec.worker_pool_specs\npools[0].replica_count = 3", "is changed through another name at "),
])
def test_a_change_not_followed_is_refused(tmp_path: Path, change: str, said: str) -> None:
    assert said in _refused(tmp_path, change)


def test_a_field_set_on_an_sdk_job_is_refused(tmp_path: Path) -> None:
    """aiplatform.CustomJob's job_spec is the request's: a field set on it is sent by run(), so it is refused by name
    rather than left out."""
    path = tmp_path / "sdk.py"
    path.write_text("from google.cloud import aiplatform\n"
                    "aiplatform.init(project='p', location='us-central1', staging_bucket='gs://b')\n"
                    "job = aiplatform.CustomJob(display_name='j', worker_pool_specs=[{'machine_spec': {'machine_type': "
                    "'n1-standard-4'}, 'replica_count': 1, 'container_spec': {'image_uri': 'gcr.io/p/t:1'}}])\n"
                    "job.job_spec.worker_pool_specs[0].machine_spec.machine_type = 'n1-standard-8'\n"
                    "job.run()\n")
    proc = run_cli("convert", str(path))
    no_traceback(proc)
    assert proc.returncode == 1
    assert ("sdk.py:4:1: job.job_spec.worker_pool_specs[0].machine_spec.machine_type: a change to the job job after it "
            "is built is not read") in proc.stderr, proc.stderr


def test_a_changed_request_built_again_before_it_runs_converts(tmp_path: Path) -> None:
    """Google's migration notebooks (vertex-ai-samples notebooks/community/migration, UJ10 legacy ...) build a request,
    set its body, print it, then build it again with body= and execute that one: the first, changed, never runs."""
    cells = ["from googleapiclient import discovery\nclient = discovery.build('ml', 'v1')",
             "body = {'jobId': 'j1', 'trainingInput': {'scaleTier': 'BASIC', 'region': 'us-central1', "
             "'masterConfig': {'imageUri': 'gcr.io/p/t:1'}}}\n"
             "request = client.projects().jobs().create(parent='projects/p')\nrequest.body = body\n"
             "print(request.to_json())\nrequest = client.projects().jobs().create(parent='projects/p', body=body)",
             "response = request.execute()"]

    def convert(cells: list[str]) -> subprocess.CompletedProcess[str]:
        notebook = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
            {"cell_type": "code", "metadata": {}, "source": c, "outputs": [], "execution_count": None} for c in cells]}
        (tmp_path / "nb.ipynb").write_text(json.dumps(notebook))
        proc = run_cli("convert", str(tmp_path / "nb.ipynb"), "--output", "request")
        no_traceback(proc)
        return proc

    proc = convert(cells)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["body"]["displayName"] == "j1"
    # the changed job that is run stays refused: test_a_field_set_on_an_sdk_job_is_refused


def test_a_dict_the_evaluator_holds_changed_after_it_is_put_in_the_job_is_the_jobs_too(tmp_path: Path) -> None:
    """Plain dicts are shared, as Python shares them: pool's change after the job holds it is the job's (the
    evaluator's value), never refused as a message's would be."""
    path = tmp_path / "shared.py"
    path.write_text("from google.cloud import aiplatform\nc = aiplatform.gapic.JobServiceClient()\n"
                    "pool = {'machine_spec': {'machine_type': 'n1-standard-4'}, 'replica_count': 1, "
                    "'container_spec': {'image_uri': 'gcr.io/p/i:1'}}\n"
                    "job = {'display_name': 'x', 'job_spec': {'worker_pool_specs': [pool, dict(pool)]}}\n"
                    "job['job_spec']['worker_pool_specs'][1]['replica_count'] = 3\npool['container_spec'] = "
                    "{'image_uri': 'gcr.io/p/i:2'}\n"
                    "c.create_custom_job(parent='projects/p/locations/us-central1', custom_job=job)\n")
    proc = run_cli("convert", str(path), "--format", "request")
    no_traceback(proc)
    assert proc.returncode == 0, proc.stderr
    pools = json.loads(proc.stdout)["body"]["jobSpec"]["workerPoolSpecs"]
    assert [p["replicaCount"] for p in pools] == ["1", "3"]
    assert [p["containerSpec"]["imageUri"] for p in pools] == ["gcr.io/p/i:2", "gcr.io/p/i:1"]
