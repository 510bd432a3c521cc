"""Python that creates a job with ``JobServiceClient.create_custom_job(...)`` converts to the request the client sends.

The oracle runs each corpus script with the installed client (google-cloud-aiplatform's ``aiplatform.gapic`` /
``aiplatform_v1``): credentials are anonymous and the call is stopped where the client hands its request to
the transport (``google.api_core.gapic_v1.method._GapicCallable``), so every message, enum and marshalling is
the client's own. trainjobs reads the same file without running it (provider/pysdk/gapic.py).
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import pytest

from ..conftest import no_traceback, run_cli
from .sdk_oracle import comparable

pytest.importorskip("google.cloud.aiplatform")

HERE = Path(__file__).parent / "gapic"
CORPUS = sorted((HERE / "corpus").glob("*.py"))
_FIELDS = {"CreateCustomJobRequest": ("CustomJob", "custom_job"),
           "CreateHyperparameterTuningJobRequest": ("HyperparameterTuningJob", "hyperparameter_tuning_job")}


class _Sent(Exception):
    pass


def client_request(path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """{kind, parent, body}: the request the client builds when ``path`` runs (never sent)."""
    import google.auth
    from google.api_core.gapic_v1 import method
    from google.auth.credentials import AnonymousCredentials

    sent: list[Any] = []
    monkeypatch.setattr(google.auth, "default", lambda *a, **k: (AnonymousCredentials(), "oracle-project"))

    def record(self: Any, request: Any, *args: Any, **kwargs: Any) -> None:
        sent.append(request)
        raise _Sent()

    monkeypatch.setattr(method._GapicCallable, "__call__", record)
    monkeypatch.delenv("HF_TOKEN", raising=False)
    with contextlib.suppress(_Sent):
        exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), {"__name__": "__main__"})
    assert len(sent) == 1, f"{path.name} sent {len(sent)} requests"
    request = sent[0]
    kind, field = _FIELDS[type(request).__name__]
    job = getattr(request, field)
    body = json.loads(type(job).to_json(job, use_integers_for_enums=False, always_print_fields_with_no_presence=False))
    return {"kind": kind, "parent": request.parent, "body": body}


def _ours(path: Path) -> tuple[dict[str, Any], str]:
    proc = run_cli("convert", str(path), "--format", "request")
    no_traceback(proc)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout), proc.stderr


@pytest.mark.parametrize("path", CORPUS, ids=[p.stem for p in CORPUS])
def test_a_client_call_converts_to_the_request_the_client_sends(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HF_TOKEN", raising=False)  # the script reads it: unset for both readings
    ours, said = _ours(path)
    assert comparable(ours) == comparable(client_request(path, monkeypatch))
    assert "is read as the job the request creates" in said


def test_the_call_options_and_the_project_are_named(monkeypatch: pytest.MonkeyPatch) -> None:
    _, said = _ours(HERE / "corpus" / "request_timedelta.py")
    assert "client.create_custom_job(timeout=...) is an option of the client's call, not part of the job" in said
    assert "the project acme-nlp is where the request would be sent" in said


def test_json_names_are_refused_as_the_client_refuses_them(monkeypatch: pytest.MonkeyPatch) -> None:
    path = HERE / "refused" / "reservation_json_names.py"
    with pytest.raises(ValueError, match="Unknown field for MachineSpec: reservationAffinity"):
        client_request(path, monkeypatch)  # the client itself refuses the script
    proc = run_cli("convert", str(path))
    no_traceback(proc)
    assert proc.returncode == 1
    line = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if '"reservationAffinity"' in text)
    assert (f"reservation_json_names.py:{line}:21: custom_job.job_spec.worker_pool_specs[0].machine_spec."
            "reservationAffinity: Unknown field for MachineSpec: reservationAffinity (its JSON name; the client takes "
            "the proto name reservation_affinity)") in proc.stderr, proc.stderr


def test_a_str_where_a_list_is_taken_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    path = HERE / "refused" / "reservation_values_str.py"
    sent = client_request(path, monkeypatch)  # the client splits the str: each character an item
    values = sent["body"]["jobSpec"]["workerPoolSpecs"][0]["machineSpec"]["reservationAffinity"]["values"]
    assert values[:3] == ["p", "r", "o"]
    proc = run_cli("convert", str(path))
    no_traceback(proc)
    assert proc.returncode == 1
    assert "reservation_affinity.values is a str where ReservationAffinity.values takes a list: the client would " \
           "send each of its" in proc.stderr, proc.stderr


def test_a_request_field_the_client_lacks_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "req.py"
    path.write_text("from google.cloud import aiplatform_v1\nc = aiplatform_v1.JobServiceClient()\n"
                    "c.create_custom_job(request={'parent': 'projects/p/locations/us-central1', "
                    "'customJob': {'display_name': 'x'}})\n")
    proc = run_cli("convert", str(path))
    no_traceback(proc)
    assert proc.returncode == 1
    assert "req.py:3:76: c.create_custom_job(request=...): Unknown field for CreateCustomJobRequest: customJob" \
        in proc.stderr, proc.stderr


def test_a_call_inside_a_function_is_named(tmp_path: Path) -> None:
    """Google's samples hold the call in a function that only their tests call: its arguments are not known."""
    path = tmp_path / "sample.py"
    path.write_text("from google.cloud import aiplatform\n\n\n"
                    "def create_custom_job_sample(project: str, display_name: str, image: str):\n"
                    "    client = aiplatform.gapic.JobServiceClient()\n"
                    "    job = {'display_name': display_name, 'job_spec': {'worker_pool_specs': []}}\n"
                    "    client.create_custom_job(parent=f'projects/{project}/locations/us-central1', custom_job=job)\n")
    proc = run_cli("convert", str(path))
    no_traceback(proc)
    assert proc.returncode == 1
    assert ("client.create_custom_job at " in proc.stderr and "sample.py:7:5 (inside def create_custom_job_sample at "
            "line 4, not called where it can be read" in proc.stderr), proc.stderr


def test_a_notebook_cell_that_calls_the_client_converts_as_the_script_does(tmp_path: Path) -> None:
    script = HERE / "corpus" / "request_timedelta.py"
    cells = [{"cell_type": "markdown", "metadata": {}, "source": "# Fine-tune"}] + [
        {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": part}
        for part in script.read_text().replace("\nREGION = ", "\n\x00REGION = ").split("\x00", 1)]
    notebook = tmp_path / "train.ipynb"
    notebook.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells}))
    assert len(cells) == 3
    proc = run_cli("convert", str(notebook), "--format", "request")
    no_traceback(proc)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == _ours(script)[0]


def test_a_name_holding_the_clients_forms_assigned_again_is_refused() -> None:
    """Its value at the use is one the evaluator cannot hold, and the code read would be the later one's."""
    path = HERE / "refused" / "reassigned_message_pool.py"
    proc = run_cli("convert", str(path))
    no_traceback(proc)
    assert proc.returncode == 1
    assert "pool holds the client's message classes or enum members and is assigned again at " in proc.stderr
    assert "reassigned_message_pool.py:5:8, after the value used here" in proc.stderr, proc.stderr


def test_a_name_assigned_from_itself_is_read_as_python_reads_it(tmp_path: Path) -> None:
    path = tmp_path / "itself.py"
    path.write_text("from google.cloud import aiplatform\nc = aiplatform.gapic.JobServiceClient()\n"
                    "spec = {'worker_pool_specs': [{'machine_spec': {'machine_type': 'n1-standard-4'}, "
                    "'replica_count': 1, 'container_spec': {'image_uri': 'gcr.io/p/i:1'}}]}\n"
                    "job = {'display_name': 'x'}\njob = {**job, 'job_spec': spec}\n"
                    "c.create_custom_job(parent='projects/p/locations/us-central1', custom_job=job)\n")
    proc = run_cli("convert", str(path), "--format", "request")
    no_traceback(proc)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["body"]["displayName"] == "x"
