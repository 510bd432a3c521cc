"""Hyperparameter tuning on the local backend: trials, their ids and directories, the best one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from provider.backends.base import JobState
from provider.backends.local.backend import LocalBackend

from .conftest import probe_spec, submit


def tuning(algorithm: str, params: list[dict], max_trials: int, parallel: int) -> dict:
    return {"goal": "MAXIMIZE", "metric": "score", "maxTrials": max_trials, "maxParallelTrials": parallel,
            "algorithm": algorithm, "params": params}


def test_grid_search_finds_the_best_trial_and_gives_each_trial_its_id_and_dirs(
    backend: LocalBackend, tmp_path: Path
) -> None:
    dump = tmp_path / "dump"
    lrs = [0.1, 0.2, 0.3, 0.4, 0.5]
    # the chief ends last (--chief-last): a trial ends with its chief, and each worker's dump is read below
    doc = probe_spec("grid", workers=1, args=["--dump", str(dump), "--steps", "2", "--step-seconds", "0.1",
                                              "--chief-last", "2"],
                     tuning=tuning("GRID_SEARCH", [{"name": "lr", "type": "DISCRETE", "values": lrs}], 5, 2))
    job = backend.wait(submit(backend, doc).id, timeout=300)
    assert job.state is JobState.SUCCEEDED, job.error
    assert job.kind == "HyperparameterTuningJob"
    assert [t.id for t in job.trials] == ["1", "2", "3", "4", "5"]
    assert sorted(dict(t.parameters)["lr"] for t in job.trials) == lrs
    best = next(t for t in job.trials if t.id == job.best_trial)
    assert dict(best.parameters)["lr"] == 0.3 and best.metric == pytest.approx(0.0)
    storage = backend.storage.root
    for trial in job.trials:
        for replica, task_type in (("workerpool0-0", "chief"), ("workerpool1-0", "worker")):
            data = json.loads((dump / f"{replica}-trial{trial.id}.json").read_text())
            env = data["env"]
            assert json.loads(env["CLUSTER_SPEC"])["task"]["trial"] == trial.id
            tf = json.loads(env["TF_CONFIG"])["task"]
            assert (tf["trial"], tf["type"]) == (trial.id, task_type)
            assert env["CLOUD_ML_TRIAL_ID"] == trial.id
            assert env["AIP_MODEL_DIR"] == f"{storage}/test-bucket/out/{trial.id}/model/"
            assert f"--lr={dict(trial.parameters)['lr']!r}" in data["argv"]
    # at most maxParallelTrials trials ran at the same time
    spans = [(json.loads((dump / f"workerpool0-0-trial{t.id}.json").read_text())["start"],
              float((dump / f"workerpool0-0-trial{t.id}.done").read_text())) for t in job.trials]
    peak = max(sum(1 for s, e in spans if s <= moment < e) for moment, _ in spans)
    assert 1 <= peak <= 2


def test_random_search_honours_max_trials(backend: LocalBackend) -> None:
    doc = probe_spec("random", tuning=tuning(
        "RANDOM_SEARCH", [{"name": "lr", "type": "DOUBLE", "min": 0.01, "max": 1.0, "scale": "UNIT_LOG_SCALE"}], 4, 4))
    job = backend.wait(submit(backend, doc).id, timeout=300)
    assert job.state is JobState.SUCCEEDED, job.error
    assert len(job.trials) == 4
    lrs = [dict(t.parameters)["lr"] for t in job.trials]
    assert all(0.01 <= lr <= 1.0 for lr in lrs) and len(set(lrs)) == 4
    best = max(job.trials, key=lambda t: t.metric or -1e9)
    assert job.best_trial == best.id


def test_bayesian_optimisation_with_optuna(backend: LocalBackend) -> None:
    import optuna  # the dev extra installs it: this test must not be skipped  # noqa: F401

    doc = probe_spec("bayes", tuning=tuning(
        "ALGORITHM_UNSPECIFIED", [{"name": "lr", "type": "DOUBLE", "min": 0.0, "max": 1.0}], 6, 1))
    job = backend.wait(submit(backend, doc).id, timeout=300)
    assert job.state is JobState.SUCCEEDED, job.error
    assert len(job.trials) == 6 and job.message is None  # no fallback note: Optuna ran
    assert all(t.state == "SUCCEEDED" for t in job.trials)


def test_failed_trials_fail_the_job_past_max_failed(backend: LocalBackend) -> None:
    doc = probe_spec("failing", args=["--fail-replica", "workerpool0-0", "--fail-step", "0", "--steps", "1"],
                     tuning={**tuning("GRID_SEARCH", [{"name": "lr", "type": "DISCRETE", "values": [0.1, 0.2, 0.3]}],
                                      3, 1), "maxFailedTrials": 1})
    job = backend.wait(submit(backend, doc).id, timeout=300)
    assert job.state is JobState.FAILED
    assert "2 trial(s) failed (maxFailedTrialCount 1)" in (job.error or "")
    assert [t.state for t in job.trials] == ["FAILED", "FAILED"]
