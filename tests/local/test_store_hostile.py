"""The job store against broken files: each job is read on its own, nothing is rewritten; and its modes."""

from __future__ import annotations

import json
import os
import stat
import time
from pathlib import Path

import pytest

from provider.backends.local import store
from provider.backends.local.backend import JobUnreadable, LocalBackend
from tests.conftest import no_traceback, run_cli

# What a crash, a full disk or a careless edit leaves behind, and the reason each is shown with.
BROKEN = {
    "empty": (b"", "the file is empty"),
    "blank": (b"  \n", "the file is empty"),
    "truncated": (b'{"state": "RUNN', "not valid JSON"),
    "binary": (b"\xff\xfe\x00garbage", "not UTF-8"),
    "array": (b"[1, 2]", "a JSON list, not an object"),
    "deep": (b"[" * 100_000 + b"]" * 100_000, "JSON nested too deeply"),
}


def finished_job(jobs: store.JobStore, name: str) -> str:
    record = {"kind": "CustomJob", "parent": "projects/p/locations/us-central1", "display_name": name,
              "labels": {}, "request": {"displayName": name, "jobSpec": {}}, "create_time": store.now(),
              "home": str(jobs.home), "storage_root": str(jobs.home / "storage"), "options": {}}
    job_id = jobs.create(record).name
    jobs.update(job_id, state="SUCCEEDED", end_time=store.now())
    return job_id


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TRAINJOBS_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("TRAINJOBS_LOCAL_GPUS", "none")
    return tmp_path / "home"


@pytest.mark.parametrize("which", ["job.json", "state.json"])
@pytest.mark.parametrize("kind", sorted(BROKEN))
def test_one_broken_job_file_does_not_hide_the_others(home: Path, which: str, kind: str) -> None:
    backend = LocalBackend()
    good = [finished_job(backend.store, f"good_{i}") for i in range(2)]
    bad = finished_job(backend.store, "bad")
    path = backend.store.job_dir(bad) / which
    content, reason = BROKEN[kind]
    path.write_bytes(content)
    before = {p: p.read_bytes() for p in backend.store.job_dir(bad).iterdir() if p.is_file()}

    jobs, broken = backend.scan()
    assert sorted(j.id for j in jobs) == sorted(good)
    assert [(b.id, b.path) for b in broken] == [(bad, path)] and reason in broken[0].reason
    with pytest.raises(JobUnreadable) as exc:
        backend.get(bad)
    assert str(path) in exc.value.message and reason in exc.value.message
    assert backend.get(good[0]).display_name == "good_0"
    assert backend.resolve("good_1") == good[1]

    listed = run_cli("jobs", "list", env={"TRAINJOBS_HOME": str(home)})
    no_traceback(listed)
    assert listed.returncode == 0 and "good_0" in listed.stdout and "good_1" in listed.stdout
    assert f"{bad}  UNREADABLE  {path}: " in listed.stdout and reason in listed.stdout
    as_json = json.loads(run_cli("jobs", "list", "--format", "json", env={"TRAINJOBS_HOME": str(home)}).stdout)
    assert {"id": bad, "state": "UNREADABLE", "path": str(path)}.items() <= as_json[-1].items()
    status = run_cli("status", bad, env={"TRAINJOBS_HOME": str(home)})
    no_traceback(status)
    assert status.returncode == 1 and str(path) in status.stderr and len(status.stderr.strip().splitlines()) == 1

    after = {p: p.read_bytes() for p in backend.store.job_dir(bad).iterdir() if p.is_file()}
    assert after == before  # nothing rewritten, nothing deleted


def test_a_record_that_is_json_but_not_a_job_is_unreadable_not_a_crash(home: Path) -> None:
    backend = LocalBackend()
    good = finished_job(backend.store, "good")
    bad = finished_job(backend.store, "bad")
    (backend.store.job_dir(bad) / "state.json").write_text(json.dumps({"state": "EXPLODED"}))
    jobs, broken = backend.scan()
    assert [j.id for j in jobs] == [good] and [b.id for b in broken] == [bad]
    assert "not a job's" in broken[0].reason


def test_job_dirs_are_0700_and_their_files_0600(home: Path) -> None:
    backend = LocalBackend()
    job_id = finished_job(backend.store, "private")
    job_dir = backend.store.job_dir(job_id)
    for d in (home, home / "jobs", job_dir, job_dir / "logs"):
        assert stat.S_IMODE(d.stat().st_mode) == 0o700, d
    for f in ("job.json", "state.json"):
        assert stat.S_IMODE((job_dir / f).stat().st_mode) == 0o600, f
    backend.store.request_cancel(job_id)
    assert stat.S_IMODE((job_dir / "cancel").stat().st_mode) == 0o600


def test_an_existing_open_home_is_narrowed_to_0700(home: Path) -> None:
    (home / "jobs").mkdir(parents=True, mode=0o755)
    os.chmod(home, 0o755)
    os.chmod(home / "jobs", 0o755)
    finished_job(LocalBackend().store, "narrowed")
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    assert stat.S_IMODE((home / "jobs").stat().st_mode) == 0o700


def test_a_failed_write_leaves_no_temporary_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "state.json"
    store.write_json(target, {"state": "RUNNING"})

    def full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OSError):
        store.write_json(target, {"state": "SUCCEEDED"})
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]
    assert json.loads(target.read_text()) == {"state": "RUNNING"}


def test_the_listing_is_kept_while_the_jobs_folder_is_unchanged_and_read_again_when_it_changes(home: Path) -> None:
    """ids() lists jobs/ again only when its mtime moves (once it has settled): an entry slipped in with the
    old mtime put back is not seen, the next real change is, and a folder changed just now is never kept."""
    from provider.backends.local.store import JobStore
    from tests.history import write_history

    ids = write_history(home, 3)
    store = JobStore(home)
    jobs = home / "jobs"
    assert store.ids() == ids  # just written: listed, not kept
    (jobs / "0").mkdir()
    assert store.ids() == [*ids, "0"]  # so a change in the same tick of the clock is seen
    old = time.time() - 60
    os.utime(jobs, (old, old))
    assert store.ids() == [*ids, "0"]  # settled: kept
    (jobs / "00").mkdir()
    os.utime(jobs, (old, old))
    assert store.ids() == [*ids, "0"]  # the kept listing, not a listing per call
    newer = write_history(home, 1)
    assert store.ids() == [*newer, *ids, "00", "0"]
