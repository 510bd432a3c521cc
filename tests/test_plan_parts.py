"""The parts of a plan: stack globs over a file list, capacity, the cost estimate and its prices."""

from __future__ import annotations

import glob
import os
from pathlib import Path

import pytest

from provider.catalog import CATALOG
from provider.gitops.capacity import capacity
from provider.gitops.cost import estimate
from provider.gitops.globs import matching
from provider.spec.model import TrainingJob
from provider.stack.membership import StackIndex, spec_files
from provider.validation.validator import validate_bytes

from .conftest import ROOT

PATTERNS = [
    "specs/*.yaml", "specs/**/*.yaml", "specs/**", "specs/**/*", "specs/*/*.y*ml", "specs/.*.yaml",
    "specs/.hid/*.yaml", "./specs/*.yaml", "specs/c/[w].yaml", "specs/c/[!x].yaml", "specs/?.yaml", "**/*.yml",
    "specs/a/**/*.yml", "specs/c/[[]w].yaml", "specs/c/[]]x.yaml", "specs/c/[!]]*.yaml", "specs/c/[a-z].yaml",
    "specs/c/[", "specs/c/*[.yaml", "specs/x.yaml",
]


def test_globs_match_like_glob_on_disk(tmp_path: Path) -> None:
    names = ["specs/x.yaml", "specs/.h.yaml", "specs/a/y.yaml", "specs/a/b/z.yml", "specs/.hid/q.yaml",
             "specs/c/[w].yaml", "specs/c/w.yaml", "specs/c/]x.yaml", "specs/c/^.yaml", "other/p.yml"]
    for name in names:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x")
    for pattern in PATTERNS:
        on_disk = sorted(os.path.normpath(m) for m in glob.glob(pattern, root_dir=tmp_path, recursive=True)
                         if (tmp_path / m).is_file())
        assert matching([pattern], names) == on_disk, pattern


def test_membership_from_a_file_list_equals_the_stack_index() -> None:
    index = StackIndex.load(ROOT / "stacks")
    files = [str(p.relative_to(ROOT)) for p in (ROOT / "specs").rglob("*") if p.is_file()]
    for stack in index.stacks:
        on_disk = [str(p.relative_to(ROOT)) for p in spec_files(stack, ROOT)]
        assert matching(stack.specs, files) == on_disk, stack.name
        assert on_disk  # the comparison is not vacuous


def _job(text: str) -> TrainingJob:
    result = validate_bytes(text.encode(), "job.yaml")
    assert result.job is not None, result.problems
    return result.job


SPEC = """apiVersion: trainjobs/v1
kind: TrainingJob
metadata: {{name: j}}
spec:
  region: {region}
  workerPools:
    chief: {{machineType: n1-standard-4{acc}}}
    workers: {{machineType: n1-standard-4, replicas: 2{acc}}}
  application: {{container: {{image: gcr.io/p/i:1}}}}
{extra}"""


def test_capacity_counts_gpus_vcpus_and_gpu_hours() -> None:
    job = _job(SPEC.format(region="us-central1", acc=", accelerator: {type: NVIDIA_TESLA_T4, count: 2}",
                           extra="  scheduling: {maxRunningTime: 36000s}\n"))
    cap = capacity(job)
    assert (cap.gpus_per_trial, cap.gpus_at_once, cap.vcpus_at_once, cap.max_hours) == (6, 6, 12, 10)
    assert cap.max_gpu_hours == 60 and cap.running_time_set


def test_tuning_holds_parallel_trials_and_runs_max_trials() -> None:
    tuning = ("  hyperparameters:\n    goal: MAXIMIZE\n    metric: m\n    maxTrials: 10\n    maxParallelTrials: 3\n"
              "    algorithm: RANDOM_SEARCH\n    params: [{name: x, type: DOUBLE, min: 0, max: 1}]\n")
    job = _job(SPEC.format(region="us-central1", acc=", accelerator: {type: NVIDIA_TESLA_T4, count: 1}",
                           extra=tuning))
    cap = capacity(job)
    assert (cap.gpus_per_trial, cap.gpus_at_once, cap.vcpus_at_once) == (3, 9, 36)
    assert cap.max_hours == 7 * 24 and not cap.running_time_set  # the 7-day default
    assert cap.max_gpu_hours == 3 * 168 * 10
    est = estimate(job, cap)
    per_hour = 3 * (0.21849885 + 0.4025)
    assert est.usd_per_hour == pytest.approx(per_hour)
    assert est.usd == pytest.approx(per_hour * 168 * 10)


def test_estimate_flags_unverified_and_missing_prices() -> None:
    cpu = _job(SPEC.format(region="us-central1", acc="", extra="  scheduling: {maxRunningTime: 7200s}\n"))
    est = estimate(cpu, capacity(cpu))
    assert est.usd == pytest.approx(3 * 0.21849885 * 2) and est.unverified == () and est.missing == ()
    gpu = _job(SPEC.format(region="us-central1", acc=", accelerator: {type: NVIDIA_TESLA_T4, count: 1}", extra=""))
    assert estimate(gpu, capacity(gpu)).unverified == ("NVIDIA_TESLA_T4",)
    europe = _job(SPEC.format(region="europe-west4", acc="", extra=""))  # N1 there: derived, so unverified
    est = estimate(europe, capacity(europe))
    rate = CATALOG.pricing().regions["europe-west4"].machine_families["n1"]
    assert est.usd_per_hour == pytest.approx(3 * (4 * rate.usd_per_vcpu_hour + 15 * rate.usd_per_gb_hour))
    assert est.unverified == ("n1-standard-4",) and est.missing == ()
    elsewhere = _job(SPEC.format(region="me-central2", acc="", extra=""))
    est = estimate(elsewhere, capacity(elsewhere))
    why = CATALOG.pricing().not_priced.machine_families["n1"]
    assert est.usd is None and est.missing == (f"machine type n1-standard-4 in me-central2 ({why})",)
    local = estimate(cpu, capacity(cpu), billed=False)
    assert local.usd is None and not local.billed


def test_family_rate_prices_other_n1_shapes_as_unverified() -> None:
    job = _job(SPEC.format(region="us-central1", acc="", extra="  scheduling: {maxRunningTime: 3600s}\n")
               .replace("n1-standard-4}", "n1-highmem-8}").replace("n1-standard-4,", "n1-highmem-8,"))
    est = estimate(job, capacity(job))
    rate = CATALOG.pricing().regions["us-central1"].machine_families["n1"]
    assert est.usd == pytest.approx(3 * (8 * rate.usd_per_vcpu_hour + 52 * rate.usd_per_gb_hour))
    assert est.unverified == ("n1-highmem-8",)


def test_pricing_keeps_its_sources_date_and_flags() -> None:
    pricing = CATALOG.pricing()
    assert pricing.as_of == "2026-10-07" and pricing.currency == "USD" and pricing.sources
    us = pricing.regions["us-central1"]
    n1 = us.machine_types["n1-standard-4"]
    assert n1.usd_per_hour == 0.21849885 and n1.verified and "342263c3" in n1.source
    assert not us.accelerators["NVIDIA_TESLA_T4"].verified
    # The family rate reproduces the one verified machine price (what the derivation claims).
    rate = us.machine_families["n1"]
    assert 4 * rate.usd_per_vcpu_hour + 15 * rate.usd_per_gb_hour == pytest.approx(n1.usd_per_hour, abs=1e-8)
