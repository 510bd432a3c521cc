"""The oracle: what the installed Vertex AI SDK itself sends for a corpus script, never sent.

The script is run by Python with the real ``google.cloud.aiplatform`` (AnonymousCredentials, a fresh
global config); only the SDK's service client is replaced, by one that records the request the SDK
hands it (``create_custom_job`` / ``create_hyperparameter_tuning_job``) and stops the script there.
So every value, default and merge is the SDK's own; trainjobs reads the same file without running it.
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path
from typing import Any

import pytest

_KINDS = {"create_custom_job": ("CustomJob", "custom_job"),
          "create_hyperparameter_tuning_job": ("HyperparameterTuningJob", "hyperparameter_tuning_job"),
          "create_training_pipeline": ("TrainingPipeline", "training_pipeline")}
# The SDK names the output prefix after the time it builds the job (a TrainingPipeline's: aiplatform-custom-training-,
# which trainjobs says in a note); trainjobs after the job.
_PREFIX = re.compile(r"/aiplatform-custom-(?:job|training)-[^/\"]+")


class Sent(Exception):
    """The request the SDK would send."""

    def __init__(self, kind: str, parent: str, body: dict[str, Any]) -> None:
        super().__init__(kind)
        self.kind, self.parent, self.body = kind, parent, body


class _Client:
    def __init__(self, sent: list[Sent]) -> None:
        self.sent = sent

    def __getattr__(self, name: str) -> Any:
        if name not in _KINDS:
            raise AttributeError(name)
        kind, field = _KINDS[name]

        def create(parent: str, timeout: object = None, **message: Any) -> None:
            proto = message[field]
            body = json.loads(type(proto).to_json(proto, use_integers_for_enums=False,
                                                  always_print_fields_with_no_presence=False))
            self.sent.append(Sent(kind, parent, body))
            raise self.sent[-1]
        return create


def sdk_request(path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """{kind, parent, body}: the request the SDK builds when ``path`` runs."""
    from google.auth.credentials import AnonymousCredentials
    from google.cloud.aiplatform import base, initializer
    from google.cloud.aiplatform.utils import source_utils

    initializer.global_config.__init__()  # aiplatform.init is this object's method: reset it, never replace it
    sent: list[Sent] = []
    monkeypatch.setattr(base.VertexAiResourceNoun, "_instantiate_client",
                        classmethod(lambda cls, *a, **k: _Client(sent)))
    # from_local_script's upload of the script's package: its URI only (tests/pysdk/test_corpus.py sets it aside)
    monkeypatch.setattr(source_utils._TrainingScriptPythonPackager, "package_and_copy_to_gcs",
                        lambda self, gcs_staging_dir, project=None, credentials=None: f"{gcs_staging_dir}/sdk.tar.gz")
    for name in ("GOOGLE_CLOUD_REGION", "CLOUD_ML_REGION"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(sys, "argv", [str(path)])  # run as `python FILE`: argparse reads no arguments
    initializer.global_config.init(project="oracle-project", credentials=AnonymousCredentials())
    code = compile(path.read_text(encoding="utf-8"), str(path), "exec")
    try:
        exec(code, {"__name__": "__main__", "__file__": str(path)})  # the oracle: the SDK itself runs the script
    except (Sent, SystemExit):  # stopped where the SDK sends, or the script's own sys.exit(main())
        pass
    except Exception:  # the script went on after its request was recorded (an except clause caught Sent, then the
        if not sent:   # job object, never created, raised): what it does after that is not the request
            raise
    finally:
        initializer.global_config.__init__()
    deadline = time.monotonic() + 30  # run(sync=False) creates the job in the SDK's own thread
    while not sent and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(sent) == 1, f"{path.name} sent {len(sent)} requests through the SDK"
    if sent[0].kind == "TrainingPipeline":
        return _pipelines_job(sent[0])
    return {"kind": sent[0].kind, "parent": sent[0].parent, "body": sent[0].body}


def _pipelines_job(sent: Sent) -> dict[str, Any]:
    """The CustomJob a TrainingPipeline runs: its training task inputs (a Struct the SDK fills with snake_case, and
    camelCase for a container's spec) read as a CustomJobSpec; the pipeline's name, labels and key. Its Model
    upload is what trainjobs does not carry (a note says so), so it is not compared."""
    from google.cloud import aiplatform_v1

    pipeline = sent.body
    spec = aiplatform_v1.CustomJobSpec.from_json(json.dumps(pipeline["trainingTaskInputs"]))
    body = {"displayName": pipeline["displayName"],
            "jobSpec": json.loads(aiplatform_v1.CustomJobSpec.to_json(
                spec, use_integers_for_enums=False, always_print_fields_with_no_presence=False))}
    body.update({key: pipeline[key] for key in ("labels", "encryptionSpec") if key in pipeline})
    return {"kind": "CustomJob", "parent": sent.parent, "body": body}


def comparable(request: dict[str, Any]) -> dict[str, Any]:
    """The request with the project left out of the parent and the output prefix's time or name as *."""
    parent = re.sub(r"^projects/[^/]+/", "projects/*/", request["parent"])
    body = json.loads(_PREFIX.sub("/aiplatform-custom-job-*", json.dumps(request["body"])))
    return {"kind": request["kind"], "parent": parent, "body": body}
