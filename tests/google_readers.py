"""Google's own readers of a CustomJobSpec, and trainjobs' request beside them, for the tests.

* ``sdk_pools``: ``aiplatform.CustomJob(worker_pool_specs=...)`` (proto-plus), built offline
  with anonymous credentials; what it would send, as the REST JSON.
* ``rest_spec``: the REST API's JSON reading (``aiplatform_v1.CustomJobSpec.from_json``).
* ``gcloud_spec``: ``gcloud ai custom-jobs create --config`` 's loader, the installed Cloud
  SDK's own ``export_util.Import`` into its generated ``CustomJobSpec`` message, run in a
  child process so gcloud's bundled libraries never enter the test process.

Each result is made canonical the way the request golden files are (parsed into the
aiplatform_v1 message and written back), which is what the API receives: the proto3
defaults gcloud writes out explicitly (``acceleratorCount: 0``) are not sent.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

from provider.submission.request import build_request
from provider.validation.validator import SpecResult, validate_data

from .requests_util import canonical

Json = dict[str, Any]
PROJECT = "example-project"
REGION = "us-central1"

_GCLOUD_IMPORT = """
import json, sys
lib = sys.argv[1]
sys.path[:0] = [lib, lib + "/third_party"]
from apitools.base.py import encoding
from googlecloudsdk.command_lib.export import util as export_util
from googlecloudsdk.generated_clients.apis.aiplatform.v1 import aiplatform_v1_messages as m
spec = export_util.Import(m.GoogleCloudAiplatformV1CustomJobSpec, sys.stdin.read())
print(encoding.MessageToJson(spec))
"""


def document(body: Json, name: str = "forms") -> Json:
    """A TrainingJob whose spec is ``body`` (a Vertex body) with the region beside it."""
    return {"apiVersion": "trainjobs/v1", "kind": "TrainingJob", "metadata": {"name": name},
            "spec": {"region": REGION, **body}}


def trainjobs(body: Json) -> tuple[Json, SpecResult]:
    """The CustomJobSpec trainjobs would send for ``body`` (canonical), and the validation result."""
    result = validate_data(document(body))
    errors = [p for p in result.problems if p.is_error]
    assert not errors and result.job is not None, [f"{p.path}: {p.message}" for p in result.problems]
    request = build_request(result.job, PROJECT)
    return canonical(request.kind, request.body)["jobSpec"], result


def _spec_json(message: Any) -> Json:
    return canonical("CustomJob", {"displayName": "x", "jobSpec": json.loads(type(message).to_json(message))})["jobSpec"]


def sdk_spec(worker_pool_specs: Any) -> Json:
    """What ``aiplatform.CustomJob(worker_pool_specs=...)`` puts in its request's jobSpec."""
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import aiplatform

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        job = aiplatform.CustomJob(display_name="forms", worker_pool_specs=worker_pool_specs, project=PROJECT,
                                   location=REGION, staging_bucket="gs://forms-bucket",
                                   credentials=AnonymousCredentials())
    return _spec_json(job._gca_resource.job_spec)


def rest_spec(body: Json) -> Json:
    """The REST API's reading of a camelCase CustomJobSpec (protobuf JSON)."""
    from google.cloud import aiplatform_v1

    return _spec_json(aiplatform_v1.CustomJobSpec.from_json(json.dumps(body)))


def gcloud_lib() -> Path:
    found = shutil.which("gcloud")
    if found is None:
        pytest.skip("gcloud is not installed: its --config loader cannot be compared")
    lib = Path(found).resolve().parents[1] / "lib"
    if not (lib / "googlecloudsdk").is_dir():
        pytest.skip(f"no Cloud SDK lib beside {found}")
    return lib


def gcloud_run(body: Json) -> subprocess.CompletedProcess[str]:
    text = json.dumps(body)  # JSON is YAML, every string quoted: gcloud's YAML 1.1 loader reads y as true
    return subprocess.run([sys.executable, "-s", "-c", _GCLOUD_IMPORT, str(gcloud_lib())], input=text,
                          capture_output=True, text=True, timeout=120, check=False)


def gcloud_spec(body: Json) -> Json:
    """``gcloud ai custom-jobs create --config`` 's reading of ``body``, as the API receives it."""
    proc = gcloud_run(body)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return rest_spec(json.loads(proc.stdout))


def assert_same_pools(ours: Json, theirs: Json) -> None:
    """Field by field: every pool's machineSpec, replicaCount, diskSpec and task."""
    mine, other = ours["workerPoolSpecs"], theirs["workerPoolSpecs"]
    assert len(mine) == len(other), (mine, other)
    for index, (a, b) in enumerate(zip(mine, other)):
        for field in sorted(set(a) | set(b)):
            assert a.get(field) == b.get(field), f"workerPoolSpecs[{index}].{field}: trainjobs {a.get(field)!r}, " \
                                                 f"Google {b.get(field)!r}"


def _tuning_json(message: Any) -> Json:
    """A HyperparameterTuningJob message as the API receives it (canonical)."""
    return canonical("HyperparameterTuningJob", json.loads(type(message).to_json(message)))


def trainjobs_tuning(body: Json) -> Json:
    """The HyperparameterTuningJob trainjobs would send for ``body`` (canonical)."""
    result = validate_data(document(body))
    errors = [p for p in result.problems if p.is_error]
    assert not errors and result.job is not None, [f"{p.path}: {p.message}" for p in result.problems]
    request = build_request(result.job, PROJECT)
    assert request.kind == "HyperparameterTuningJob", request.kind
    return canonical(request.kind, request.body)


def sdk_low_level_tuning(body: Json) -> Json:
    """What ``JobServiceClient.create_hyperparameter_tuning_job(hyperparameter_tuning_job=body)`` sends: proto-plus
    reads the low-level client's dict."""
    from google.cloud import aiplatform_v1

    return _tuning_json(aiplatform_v1.HyperparameterTuningJob(body))


def _hpt_objects(written: Json) -> Json:
    """The ``hpt`` objects a script builds for ``parameter_spec`` as a spec writes it (children first)."""
    from google.cloud.aiplatform import hyperparameter_tuning as hpt

    out = {}
    for name, spec in written.items():
        (cls, kwargs), = spec.items()
        kwargs = dict(kwargs)
        if "conditional_parameter_spec" in kwargs:
            kwargs["conditional_parameter_spec"] = _hpt_objects(kwargs["conditional_parameter_spec"])
        out[name] = getattr(hpt, cls.removeprefix("hpt."))(**kwargs)
    return out


def sdk_tuning_args(body: Json) -> Json:
    """What ``aiplatform.HyperparameterTuningJob(custom_job=aiplatform.CustomJob(...), metric_spec=...,
    parameter_spec=...)`` sends for the arguments ``body`` writes (built offline, never submitted)."""
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import aiplatform

    where = {"project": PROJECT, "location": REGION, "credentials": AnonymousCredentials()}
    job_args = dict(body["custom_job"])
    job_args.setdefault("staging_bucket", "gs://forms-bucket")
    tuning = {k: v for k, v in body.items() if k not in ("custom_job", "parameter_spec")}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        custom = aiplatform.CustomJob(**{"display_name": "trial", **job_args}, **where)
        job = aiplatform.HyperparameterTuningJob(custom_job=custom, parameter_spec=_hpt_objects(body["parameter_spec"]),
                                                 **{"display_name": "tune", **tuning}, **where)
    return _tuning_json(job._gca_resource)


def assert_same_tuning(ours: Json, theirs: Json) -> None:
    """The study, the trial counts and the trial job's pools, field by field."""
    for field in ("studySpec", "maxTrialCount", "parallelTrialCount", "maxFailedTrialCount"):
        assert ours.get(field) == theirs.get(field), f"{field}: trainjobs {ours.get(field)!r}, Google {theirs.get(field)!r}"
    assert_same_pools(ours["trialJobSpec"], theirs["trialJobSpec"])
    for field in ("scheduling", "serviceAccount", "network"):
        assert ours["trialJobSpec"].get(field) == theirs["trialJobSpec"].get(field), field
    # the SDK names the prefix under a staging bucket after the time, trainjobs after the job
    prefix = [spec.get("baseOutputDirectory", {}).get("outputUriPrefix", "").partition("aiplatform-custom-job-")[:2]
              for spec in (ours["trialJobSpec"], theirs["trialJobSpec"])]
    assert prefix[0] == prefix[1], f"baseOutputDirectory: trainjobs {prefix[0]}, Google {prefix[1]}"
