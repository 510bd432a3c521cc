"""The trials of a local tuning job (a HyperparameterTuningJob), run as Vertex AI runs them.

A ``Tuner`` asks the study's suggester (tuning.py) for parameters, starts each trial as its own
cluster of replicas (replicas.py) on its own slot of GPUs, at most ``parallelTrialCount`` at a
time and ``maxTrialCount`` in all, and records each trial in the job's state: ACTIVE, then
SUCCEEDED with its final metric, INFEASIBLE when it reported none, or FAILED. A trial that runs
past the max running time fails. More failed trials than ``maxFailedTrialCount`` (or every one)
fail the job; otherwise the job succeeds with the best trial by the study's goal.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from provider.backends.base import JobState, TrialState
from provider.backends.local import cluster as cl
from provider.backends.local import store, tuning
from provider.backends.local.replicas import Cluster, Finished

if TYPE_CHECKING:
    from provider.backends.local.supervisor import Supervisor

Json = dict[str, Any]


class Tuner:
    """The trials of one tuning job; ``run`` ends by raising the job's Finished."""

    def __init__(self, sup: Supervisor, devices: list[int] | None) -> None:
        assert sup.study is not None
        self.sup = sup
        body = sup.record["request"]
        self.max_trials = int(body.get("maxTrialCount", 1))
        per_run = sum(cl.gpus_per_replica(s) * int(s.get("replicaCount", 1)) for s in cl.pool_specs(sup.job_spec) if s)
        parallel = min(sup.parallel_trials(per_run), self.max_trials)
        self.max_failed = int(body.get("maxFailedTrialCount", 0)) or self.max_trials
        self.goal = sup.study["metrics"][0].get("goal", "MAXIMIZE")
        self.suggest, self.note = tuning.suggester(sup.study, seed=int(sup.job_id[-9:]))
        self.slots: list[list[int] | None] = [None] * parallel if devices is None else [
            devices[i * per_run:(i + 1) * per_run] for i in range(parallel)]
        self.free = list(range(parallel))
        self.active: dict[str, tuple[Cluster, int, Json]] = {}
        self.started = self.failed = 0
        self.exhausted = False

    def run(self) -> None:
        sup = self.sup
        if self.note:
            sup.write(message=self.note)
        while True:
            if sup.cancel_requested():
                raise sup.cancelled()
            self.start_trials()
            if not self.active:
                break
            self.poll_trials()
            sup.write_if_changed()
            sup.write()
            sup.sleep()
        sup.write(best_trial=self.best()["id"])
        raise Finished(JobState.SUCCEEDED)

    def start_trials(self) -> None:
        """Start trials while a slot is free, trials are left and the suggester has parameters."""
        while self.free and self.started < self.max_trials and not self.exhausted:
            params = self.suggest.suggest()
            if params is None:
                self.exhausted = True
                return
            self.start(params)

    def start(self, params: Json) -> None:
        sup = self.sup
        self.started += 1
        trial_id, slot = str(self.started), self.free.pop(0)
        run = Cluster(sup, sup.job_spec, trial_id, params, self.slots[slot])
        sup.clusters.append(run)
        run.start()
        record = {"id": trial_id, "state": TrialState.ACTIVE.value, "parameters": params, "start_time": store.now()}
        sup.trials.append(record)
        self.active[trial_id] = (run, slot, record)
        sup.event(f"trial {trial_id} started: {params}")
        if sup.started_at is None:
            sup.started_at = time.time()
            sup.write(state=JobState.RUNNING.value, start_time=store.now())

    def outcome(self, trial_id: str, run: Cluster) -> Finished | None:
        """How the trial ended, if it did: its replicas' outcome, or FAILED past the max running time."""
        outcome = run.poll()
        timeout = self.sup.timeout
        if outcome is None and timeout is not None and time.time() - run.started_at > timeout:
            outcome = Finished(JobState.FAILED, f"trial {trial_id} ran longer than its max running time "
                               f"({timeout:g}s)", code=4)
        return outcome

    def poll_trials(self) -> None:
        for trial_id, (run, slot, record) in list(self.active.items()):
            outcome = self.outcome(trial_id, run)
            if outcome is not None:
                self.end(trial_id, run, slot, record, outcome)

    def end(self, trial_id: str, run: Cluster, slot: int, record: Json, outcome: Finished) -> None:
        """Record the ended trial, tell the suggester, free its slot; fail the job past maxFailedTrialCount."""
        sup = self.sup
        run.stop(graceful=True)
        chief = next(p for p in run.procs if p.replica.pool == 0)
        metric = tuning.read_metric(run.metrics_path(chief), sup.metric_tag or "")
        record["end_time"] = store.now()
        if outcome.state is JobState.SUCCEEDED:
            state = TrialState.SUCCEEDED if metric is not None else TrialState.INFEASIBLE
            record["final_metric"] = metric
            if metric is None:
                record["error"] = f"the trial reported no value for {sup.metric_tag!r}"
        else:
            state = TrialState.FAILED
            record["error"] = outcome.message
            self.failed += 1
        record["state"] = state.value
        self.suggest.observe(record["parameters"], metric if state is TrialState.SUCCEEDED else None)
        sup.event(f"trial {trial_id} {state.value}: {sup.metric_tag}={metric}")
        del self.active[trial_id]
        sup.clusters.remove(run)
        self.free.append(slot)
        if self.failed > self.max_failed or self.failed == self.max_trials:
            for other, _, _ in self.active.values():
                other.stop()
            raise Finished(JobState.FAILED, f"{self.failed} trial(s) failed (maxFailedTrialCount {self.max_failed}); "
                           f"last: {outcome.message}", code=13)

    def best(self) -> Json:
        """The trial with the best final metric by the study's goal (the first of equals)."""
        scored = [t for t in self.sup.trials if t.get("final_metric") is not None]
        if not scored:
            raise Finished(JobState.FAILED, f"no trial reported {self.sup.metric_tag!r}", code=13)
        best = scored[0]
        for t in scored[1:]:
            if tuning.better(self.goal, t["final_metric"], best["final_metric"]):
                best = t
        return best
