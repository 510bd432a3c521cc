"""trainjobs' request equals what Google's SDK builds, field by field, for every seed example.

``aiplatform.CustomJob(...)`` is built (never submitted) with the same inputs, and its
``job_spec`` is compared with trainjobs' ``jobSpec`` after both pass through the aiplatform_v1
message types. The SDK names the staging prefix after the time; trainjobs after the job.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

import pytest

from provider.submission.request import build_request
from provider.validation.validator import validate_bytes

from .conftest import ROOT

SEEDS = sorted((ROOT / "specs" / "seeds").glob("*.yaml"))
FIXTURES = Path(__file__).parent / "fixtures" / "seed_configs"
PACKAGE = "gs://seeds-bucket/packages/trainer-0.1.tar.gz"
SDK_PREFIX = re.compile(r"^(gs://[^/]+)/aiplatform-custom-job-.+$")


@pytest.fixture(scope="module")
def sdk() -> Any:
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import aiplatform

    aiplatform.init(project="example-project", location="us-central1", credentials=AnonymousCredentials())
    return aiplatform


def _proto_json(message: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(type(message).to_json(
        message, use_integers_for_enums=False, always_print_fields_with_no_presence=False))
    return data


def _ours(path: Path) -> tuple[dict[str, Any], str | None, Any]:
    result = validate_bytes(path.read_bytes(), str(path))
    assert result.job is not None, result.problems
    body = build_request(result.job, "example-project", package_uris=[PACKAGE]).body
    spec = body.get("jobSpec") or body["trialJobSpec"]
    return spec, result.job.staging_bucket, result.job


def _sdk_job_spec(sdk: Any, spec: dict[str, Any], staging: str | None) -> dict[str, Any]:
    """The SDK's CustomJob for the same pools and outputs (scheduling is set by run(), so not here)."""
    from google.cloud import aiplatform_v1

    # The pools as the SDK's users pass them: WorkerPoolSpec messages (dicts are turned into these).
    snake = [aiplatform_v1.WorkerPoolSpec.from_json(json.dumps(p)) if p else {} for p in spec["workerPoolSpecs"]]
    base = spec.get("baseOutputDirectory", {}).get("outputUriPrefix")
    kwargs: dict[str, Any] = {"display_name": "x", "worker_pool_specs": snake}
    if staging is not None and not (base and not SDK_PREFIX.match(base)):
        kwargs["staging_bucket"] = staging
    else:
        kwargs["staging_bucket"] = "gs://unused-staging"
        kwargs["base_output_dir"] = base
    job = sdk.CustomJob(**kwargs)
    return _proto_json(job._gca_resource.job_spec)


def _comparable(spec: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in spec.items() if k != "scheduling"}
    base = out.get("baseOutputDirectory", {}).get("outputUriPrefix")
    if base and SDK_PREFIX.match(base):
        out["baseOutputDirectory"] = {"outputUriPrefix": SDK_PREFIX.sub(r"\1/aiplatform-custom-job-*", base)}
    return out


@pytest.mark.parametrize("path", SEEDS, ids=[p.stem for p in SEEDS])
def test_request_equals_the_sdks_custom_job(sdk: Any, path: Path) -> None:
    from google.cloud import aiplatform_v1

    spec, staging, _ = _ours(path)
    ours = _proto_json(aiplatform_v1.CustomJobSpec.from_json(json.dumps(spec)))
    theirs = _sdk_job_spec(sdk, spec, staging)
    assert set(_comparable(ours)) == set(_comparable(theirs))
    for field in _comparable(theirs):
        assert _comparable(ours)[field] == _comparable(theirs)[field], field


def test_seed004_verbatim_worker_pool_specs_with_staging_bucket(sdk: Any) -> None:
    """Seed 004's own call: CustomJob(worker_pool_specs=..., staging_bucket=...)."""
    from google.cloud import aiplatform_v1

    module = ast.parse((FIXTURES / "seed004_worker_pool_specs.py.txt").read_text(encoding="utf-8"))
    specs = next(ast.literal_eval(n.value) for n in module.body
                 if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "worker_pool_specs")
    specs = json.loads(json.dumps(specs).replace("{YOUR-PROJECT-ID}", "seeds-project"))
    theirs = _proto_json(sdk.CustomJob(display_name="multiworker-cassava-sdk", worker_pool_specs=specs,
                                       staging_bucket="gs://seeds-bucket")._gca_resource.job_spec)
    spec, _, job = _ours(ROOT / "specs" / "seeds" / "cassava_multiworker_sdk.yaml")
    ours = _proto_json(aiplatform_v1.CustomJobSpec.from_json(json.dumps(spec)))
    assert ours["workerPoolSpecs"] == theirs["workerPoolSpecs"]
    # The SDK gives the job a per-job prefix under the staging bucket: AIP_MODEL_DIR and friends.
    assert SDK_PREFIX.match(theirs["baseOutputDirectory"]["outputUriPrefix"])
    assert ours["baseOutputDirectory"] == {
        "outputUriPrefix": f"gs://seeds-bucket/aiplatform-custom-job-{job.name}"}
    assert _comparable(ours) == _comparable(theirs)


def test_custom_jobs_encryption_spec_key_name_is_the_jobs_key(sdk: Any) -> None:
    """aiplatform.CustomJob(encryption_spec_key_name=KEY) puts KEY in the CustomJob's encryptionSpec; the SDK's
    snake_case body takes the argument by its name and sends the same (kms_key is the same field: one of them)."""
    from provider.validation.validator import validate_data

    key = "projects/p/locations/us-central1/keyRings/ml/cryptoKeys/train"
    pools = [{"machine_spec": {"machine_type": "n1-standard-4"}, "replica_count": 1,
              "container_spec": {"image_uri": "us-docker.pkg.dev/acme/train/trainer:1"}}]
    theirs = _proto_json(sdk.CustomJob(display_name="x", worker_pool_specs=pools, staging_bucket="gs://b",
                                       encryption_spec_key_name=key)._gca_resource)
    doc = {"apiVersion": "trainjobs/v1", "kind": "TrainingJob", "metadata": {"name": "kms"},
           "spec": {"region": "us-central1", "worker_pool_specs": pools, "encryption_spec_key_name": key}}
    result = validate_data(doc)
    assert result.job is not None and not [p for p in result.problems if p.is_error], result.problems
    assert build_request(result.job, "p").body["encryptionSpec"] == theirs["encryptionSpec"] == {"kmsKeyName": key}
    both = validate_data({**doc, "spec": {**doc["spec"], "kms_key": key}})
    assert [p.path for p in both.problems if p.is_error] == ["spec"], both.problems
