"""What a job runs on and what a GPU is: one answer from every entry point (issue 28, part 4).

The same specs (GPUs, a TPU scale tier, a tuning job with parallel trials) are read as
``trainjobs validate --summary`` prints them, as ``jobs list --format json`` prints the job their
request makes (the request the backends keep), as the console shows it (from its request, and
from its stack's spec for a job read from Vertex AI) and as ``trainjobs plan`` counts them: one
hardware line, the same GPUs, and TPUs counted apart from GPUs.
"""

from __future__ import annotations

import pytest

from provider.backends.base import JobState, JobStatus
from provider.catalog import CATALOG, AcceleratorKind
from provider.cli.live import job_json
from provider.console import views
from provider.gitops.capacity import capacity
from provider.spec import hardware
from provider.spec.model import TrainingJob
from provider.submission.request import build_request
from provider.validation.validator import validate_bytes

from .conftest import ROOT, run_cli

SPECS = ["specs/vision/resnet_t4.yaml", "specs/seeds/basic_tpu_tier.yaml", "specs/vision/hptune_container.yaml",
         "specs/vision/cassava_multiworker.yaml", "specs/nlp/bert_a100.yaml", "specs/nlp/tpu_v5e.yaml"]


def _job(rel: str) -> TrainingJob:
    path = ROOT / rel
    result = validate_bytes(path.read_bytes(), str(path))
    assert result.job is not None, [p.message for p in result.problems]
    return result.job


def _status(job: TrainingJob) -> JobStatus:
    request = build_request(job, "p", image_uri="us-docker.pkg.dev/p/r/i:1", package_uris=["gs://b/p.tar.gz"])
    return JobStatus(id="1", kind=request.kind, display_name=job.name, state=JobState.RUNNING, backend="vertex",
                     extra={"request": request.body})


def _summary_rows(rel: str) -> list[list[str]]:
    proc = run_cli("validate", rel, "--summary")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    header = next(i for i, ln in enumerate(lines) if ln.startswith("JOB "))
    # the columns start where their titles do (KIND may read "container, tuning x20")
    starts = [lines[header].index(title) for title in ("JOB", "FORMAT", "REGION", "KIND", "GPUS", "TPUS", "POOLS")]
    bounds = list(zip(starts, [*starts[1:], None], strict=True))
    return [[ln[a:b].strip() for a, b in bounds] for ln in lines[header + 1:] if ln.strip()]


def test_a_tpu_is_not_a_gpu_for_the_catalog() -> None:
    assert CATALOG.kind_of("NVIDIA_TESLA_T4") is AcceleratorKind.GPU
    assert CATALOG.kind_of("TPU_V2") is AcceleratorKind.TPU
    assert CATALOG.kind_of("TPU_V9_FUTURE") is AcceleratorKind.TPU  # unknown yet: its enum name says TPU
    assert CATALOG.kind_of("NVIDIA_FUTURE") is AcceleratorKind.GPU
    assert all(a.kind is CATALOG.kind_of(a.name) for a in CATALOG.accelerators.values())


@pytest.mark.parametrize("rel", SPECS)
def test_every_entry_point_gives_the_same_hardware_gpus_and_tpus(rel: str) -> None:
    job = _job(rel)
    status = _status(job)
    line, held = hardware.hardware(job), hardware.held_by(job)
    listed = job_json(status)  # what `jobs list --format json` prints for the job
    from_request = views.hardware(status)
    from_spec = views.hardware(JobStatus(id="1", kind=status.kind, display_name=job.name, state=JobState.RUNNING,
                                         backend="vertex"), job)
    row = _summary_rows(rel)[0]
    cap = capacity(job)
    assert (listed["hardware"], listed["gpus"], listed["tpus"]) == (line, held.gpus, held.tpus)
    assert (from_request.summary, from_request.gpus, from_request.tpus) == (line, held.gpus, held.tpus)
    assert (from_spec.summary, from_spec.gpus, from_spec.tpus) == (line, held.gpus, held.tpus)
    assert (row[4], row[5], row[6]) == (str(held.gpus), str(held.tpus), line)
    assert (cap.gpus_at_once, cap.tpus_at_once) == (held.gpus, held.tpus)


def test_the_counts_and_the_line_are_what_the_specs_say() -> None:
    tpu = hardware.held_by(_job("specs/seeds/basic_tpu_tier.yaml"))
    assert tpu.gpus == 0 and tpu.tpus > 0  # jobs list used to count these TPUs as GPUs
    tuning = _job("specs/vision/hptune_container.yaml")
    assert tuning.hyperparameters is not None and tuning.hyperparameters.max_parallel_trials > 1
    per_trial = hardware.held(hardware.shapes(tuning))
    assert hardware.held_by(tuning).gpus == per_trial.gpus * tuning.hyperparameters.max_parallel_trials
    shapes = (hardware.PoolShape("n1-standard-8", 1, "NVIDIA_TESLA_T4", 4),
              hardware.PoolShape("n1-standard-8", 2, "NVIDIA_TESLA_T4", 4), hardware.PoolShape("n1-highmem-2", 1))
    assert hardware.line(shapes) == "n1-standard-8 + 4 x T4, 2 x n1-standard-8 + 4 x T4, n1-highmem-2"
    assert hardware.held(shapes, parallel=3) == hardware.Held(gpus=36, tpus=0)
    assert hardware.line(()) == "-"
    v5e = _job("specs/nlp/tpu_v5e.yaml")  # ct5lp-hightpu-4t, tpuTopology 2x2: four chips, no GPU
    assert hardware.held_by(v5e) == hardware.Held(gpus=0, tpus=4)
    assert hardware.hardware(v5e) == "ct5lp-hightpu-4t (2x2 TPU slice)"


def test_jobs_list_json_of_a_tpu_job_reports_tpus_apart() -> None:
    status = _status(_job("specs/seeds/basic_tpu_tier.yaml"))
    listed = job_json(status)
    assert listed["gpus"] == 0 and listed["tpus"] == hardware.held_by(_job("specs/seeds/basic_tpu_tier.yaml")).tpus
