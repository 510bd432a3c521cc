"""The seeds' own examples, wrapped in the envelope, are valid specs, body verbatim."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
import yaml

from provider.spec.model import Role, SourceFormat
from provider.validation.validator import validate_bytes

from .conftest import ROOT

FIXTURES = Path(__file__).parent / "fixtures" / "seed_configs"
SEEDS = ROOT / "specs" / "seeds"


def _python_literal(path: Path, name: str) -> object:
    module = ast.parse(path.read_text(encoding="utf-8"))
    values: dict[str, object] = {}
    for node in module.body:
        if isinstance(node, ast.Assign):
            target = node.targets[0]
            assert isinstance(target, ast.Name)
            if isinstance(node.value, ast.Dict) and any(isinstance(v, ast.Name) for v in node.value.values):
                # job_spec = {'jobId': ..., 'trainingInput': training_inputs}
                values[target.id] = {
                    ast.literal_eval(k): values[v.id] if isinstance(v, ast.Name) else ast.literal_eval(v)
                    for k, v in zip(node.value.keys, node.value.values)  # type: ignore[arg-type]
                }
            else:
                values[target.id] = ast.literal_eval(node.value)
    return values[name]


def _spec(name: str) -> dict:
    return yaml.safe_load((SEEDS / name).read_text(encoding="utf-8"))


def test_seed001_example1_is_verbatim_and_valid() -> None:
    expected = yaml.safe_load((FIXTURES / "seed001_example1.yaml").read_text())
    assert _spec("gpu_compute_engine_t4.yaml")["spec"]["trainingInput"] == expected["trainingInput"]
    result = validate_bytes((SEEDS / "gpu_compute_engine_t4.yaml").read_bytes(), "x")
    assert result.ok, result.problems
    job = result.job
    assert job is not None and job.source_format is SourceFormat.AI_PLATFORM
    assert [(p.role, p.machine_type, p.replica_count, p.gpus) for p in job.pools] == [
        (Role.CHIEF, "n1-highcpu-16", 1, 4),
        (Role.WORKER, "n1-highcpu-16", 9, 4),
        (Role.PARAMETER_SERVER, "n1-highmem-8", 3, 0),
    ]


def test_seed001_example2_is_verbatim_and_valid_under_the_seeds() -> None:
    expected = yaml.safe_load((FIXTURES / "seed001_example2.yaml").read_text())
    assert _spec("gpu_legacy_machine_types.yaml")["spec"]["trainingInput"] == expected["trainingInput"]
    result = validate_bytes((SEEDS / "gpu_legacy_machine_types.yaml").read_bytes(), "x")
    assert result.ok
    # Valid under the seeds, but K80 is not offered by Vertex AI: a warning says so, with what to use.
    k80 = [p for p in result.problems if p.rule == "gpu.offered"]
    assert k80 and not k80[0].is_error and "NVIDIA_TESLA_T4" in (k80[0].allowed or "")
    job = result.job
    assert job is not None
    assert job.chief.legacy_machine_type == "complex_model_m_gpu"
    assert job.chief.machine_type == "n1-standard-16" and job.chief.accelerator is not None
    assert (job.chief.accelerator.type, job.chief.accelerator.count) == ("NVIDIA_TESLA_K80", 4)


def test_seed003_example2_is_verbatim_and_valid() -> None:
    expected = yaml.safe_load((FIXTURES / "seed003_example2.yaml").read_text())
    assert _spec("custom_cpu_cluster.yaml")["spec"]["trainingInput"] == expected["trainingInput"]
    result = validate_bytes((SEEDS / "custom_cpu_cluster.yaml").read_bytes(), "x")
    assert result.ok, result.problems
    job = result.job
    assert job is not None
    assert job.scheduling.max_wait_seconds == 3600 and job.scheduling.max_running_seconds == 7200


def test_seed003_job_spec_dict_is_verbatim_and_valid() -> None:
    expected = _python_literal(FIXTURES / "seed003_job_spec.py.txt", "job_spec")
    spec = _spec("job_spec_dict.yaml")["spec"]
    assert {"jobId": spec["jobId"], "trainingInput": spec["trainingInput"]} == expected
    assert validate_bytes((SEEDS / "job_spec_dict.yaml").read_bytes(), "x").ok


def test_seed004_worker_pool_specs_are_verbatim_with_the_project_filled_in_and_valid() -> None:
    expected = _python_literal(FIXTURES / "seed004_worker_pool_specs.py.txt", "worker_pool_specs")
    filled = json.loads(json.dumps(expected).replace("{YOUR-PROJECT-ID}", "seeds-project"))
    assert _spec("cassava_multiworker_sdk.yaml")["spec"]["worker_pool_specs"] == filled
    result = validate_bytes((SEEDS / "cassava_multiworker_sdk.yaml").read_bytes(), "x")
    assert result.ok, result.problems
    job = result.job
    assert job is not None and job.source_format is SourceFormat.VERTEX
    assert [(p.role, p.machine_type, p.gpus) for p in job.pools] == [
        (Role.CHIEF, "n1-standard-8", 1), (Role.WORKER, "n1-standard-8", 1)]


def test_flags_beside_training_input_win_like_gcloud() -> None:
    """Seed 003: a value given as a flag replaces the same value in config.yaml."""
    text = (SEEDS / "job_spec_dict.yaml").read_text()
    text = text.replace("  jobId: my_job_name\n", "  jobId: my_job_name\n  region: europe-west4\n  args: [--from-flag]\n")
    result = validate_bytes(text.encode(), "x")
    assert result.job is not None
    assert result.job.region == "europe-west4"
    assert result.job.user_args == ("--from-flag",)


def _as_vertex(body: dict, job_name: str, region: str | None) -> dict:
    """The request's CustomJobSpec written back as a verbatim Vertex spec (REST camelCase)."""
    spec = dict(body.get("jobSpec") or body["trialJobSpec"])
    return {"apiVersion": "trainjobs/v1", "kind": "TrainingJob", "metadata": {"name": job_name},
            "spec": {"region": region, **spec}}


SEED_SPECS = sorted(SEEDS.glob("*.yaml"))


@pytest.mark.parametrize("path", SEED_SPECS, ids=[p.stem for p in SEED_SPECS])
def test_each_seed_example_reads_the_same_in_all_three_formats(path: Path) -> None:
    """Its own format, the native spec `convert` prints, and the Vertex CustomJobSpec it becomes."""
    from provider.submission.emit import to_native
    from provider.submission.request import build_request
    from provider.validation.rules import Context

    ctx = Context(spec_dir=path.parent)
    first = validate_bytes(path.read_bytes(), path.name, ctx)
    assert first.ok and first.job is not None, first.problems
    uris = ["gs://seeds-bucket/packages/trainer.tar.gz"]
    request = build_request(first.job, "p", package_uris=uris, image_uri="gcr.io/p/built:1")
    native = validate_bytes(yaml.safe_dump(to_native(first.job)).encode(), "native.yaml", ctx)
    assert native.ok and native.job is not None, native.problems
    assert build_request(native.job, "p", package_uris=uris, image_uri="gcr.io/p/built:1").body == request.body
    if request.kind == "CustomJob":
        vertex_doc = _as_vertex(request.body, first.job.name, first.job.region)
        vertex = validate_bytes(yaml.safe_dump(vertex_doc).encode(), "vertex.yaml", ctx)
        assert vertex.ok and vertex.job is not None, vertex.problems
        again = build_request(vertex.job, "p").body["jobSpec"]
        assert again == request.body["jobSpec"]


def test_seed004_as_written_is_refused_only_for_its_placeholder_image() -> None:
    """Seed 004's gcr.io/{YOUR-PROJECT-ID}/... is a template to fill: one error per image, nothing else."""
    verbatim = _python_literal(FIXTURES / "seed004_worker_pool_specs.py.txt", "worker_pool_specs")
    doc = _spec("cassava_multiworker_sdk.yaml")
    doc["spec"]["worker_pool_specs"] = verbatim
    result = validate_bytes(yaml.safe_dump(doc, sort_keys=False).encode(), "seed004.yaml")
    errors = [p for p in result.problems if p.is_error]
    assert [p.rule for p in errors] == ["image.placeholder"]
    assert "{YOUR-PROJECT-ID}" in errors[0].message and "placeholder" in errors[0].message
