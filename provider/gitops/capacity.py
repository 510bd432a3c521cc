"""What a job holds and for how long: GPUs, vCPUs, and its maximum GPU-hours.

* GPUs per trial: GPUs per replica x replicas, summed over the pools (provider.spec.hardware;
  TPUs are counted apart, as TPUs at once).
* GPUs at once: a tuning job runs maxParallelTrials trials at the same time.
* vCPUs at once: the catalog's vCPUs of each machine type x replicas, x parallel trials.
* Maximum GPU-hours: GPUs per trial x maximum running hours x trials, where the maximum
  running time is scheduling.maxRunningTime or Vertex AI's default of 7 days, and a tuning job
  runs at most maxTrials trials, each up to that time.
"""

from __future__ import annotations

from provider.catalog import CATALOG
from provider.core.record import Record
from provider.spec.hardware import held, shapes
from provider.spec.model import TrainingJob


def default_running_seconds() -> float:
    """Vertex AI's default maxRunningTime (7 days), from the catalog."""
    return float(CATALOG.limits()["max_running"]["default_seconds"])


class Capacity(Record):
    """What a job holds and for how long: GPUs and vCPUs, maximum hours per trial, and its trials."""

    gpus_per_trial: int
    gpus_at_once: int
    tpus_at_once: int
    vcpus_at_once: float | None  # None when the catalog does not know a machine type's vCPUs
    max_hours: float  # per trial
    running_time_set: bool  # False: the 7-day default applies
    trials: int  # maxTrials, 1 without tuning
    parallel_trials: int

    @property
    def max_gpu_hours(self) -> float:
        return self.gpus_per_trial * self.max_hours * self.trials


def capacity(job: TrainingJob) -> Capacity:
    hp = job.hyperparameters
    parallel = max(hp.max_parallel_trials, 1) if hp else 1
    vcpus: float | None = 0.0
    for pool in job.pools:
        machine = CATALOG.machine(pool.machine_type)
        if machine is None or machine.vcpus is None or vcpus is None:
            vcpus = None
            continue
        vcpus += machine.vcpus * pool.replica_count
    running = job.scheduling.max_running_seconds
    per_trial = held(shapes(job))
    return Capacity(
        gpus_per_trial=per_trial.gpus,
        gpus_at_once=per_trial.gpus * parallel,
        tpus_at_once=per_trial.tpus * parallel,
        vcpus_at_once=vcpus * parallel if vcpus is not None else None,
        max_hours=(running if running is not None else default_running_seconds()) / 3600,
        running_time_set=running is not None,
        trials=max(hp.max_trials, 1) if hp else 1,
        parallel_trials=parallel,
    )
