"""trainjobs jobs prune: finished jobs and idle environments go, running jobs and outputs stay."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from provider.backends.local import envs, prune
from provider.backends.local.backend import LocalBackend

from ..conftest import run_cli
from .conftest import probe_spec, submit


def test_ages_are_parsed_or_refused_with_what_is_allowed() -> None:
    assert prune.parse_age("7d") == 7 * 86400 and prune.parse_age("30m") == 1800 and prune.parse_age("2w") == 14 * 86400
    with pytest.raises(ValueError, match="a whole number and a unit, one of s, m, h, d, w"):
        prune.parse_age("7 days")


@pytest.mark.slow
def test_prune_removes_old_finished_jobs_and_idle_environments(backend: LocalBackend, tmp_path: Path,
                                                                env_cache: Path) -> None:
    done = [submit(backend, probe_spec(f"old_{i}")) for i in range(3)]
    for job in done:
        backend.wait(job.id, timeout=300)
    running = submit(backend, probe_spec("still_running", args=["--steps", "600", "--step-seconds", "0.5"]))
    cache = tmp_path / "envs"
    idle = cache / "pkg-idle"
    idle.mkdir(parents=True)
    (idle / "big.bin").write_bytes(b"x" * 100_000)
    envs.mark_used(idle)
    week_ago = time.time() - 8 * 86400
    os.utime(idle / envs.USED, (week_ago, week_ago))
    later = time.time() + 8 * 86400  # as if a week had passed
    fresh = cache / "deps-fresh"
    fresh.mkdir()
    envs.mark_used(fresh)
    os.utime(fresh / envs.USED, (later, later))  # a job used it just now (in that future)
    outputs = backend.storage.path("gs://test-bucket/out")
    dry = prune.prune(backend, cache, keep=1, dry_run=True, now=later)
    assert len(dry.jobs) == 2 and dry.environments == [idle] and all(backend.get(j.id) for j in done)
    result = prune.prune(backend, cache, keep=1, now=later)
    assert sorted(result.jobs) == sorted(j.id for j in done[:2])  # the newest finished one is kept
    assert result.freed >= 100_000 and not idle.exists() and fresh.exists()
    remaining = {j.id for j in backend.list()}
    assert running.id in remaining and len(remaining & {j.id for j in done}) == 1  # the newest finished one kept
    assert outputs.exists()  # outputs in storage are never pruned
    proc = run_cli("jobs", "prune", "--older-than", "soon", env={"TRAINJOBS_HOME": str(backend.home)})
    assert proc.returncode == 2 and "--older-than: 'soon' is not an age" in proc.stderr
    text = run_cli("jobs", "prune", "--dry-run", env={"TRAINJOBS_HOME": str(backend.home),
                                                      "TRAINJOBS_ENV_CACHE": str(cache)}).stdout
    assert text.startswith("would remove 0 finished job(s) and 0 environment(s)")
