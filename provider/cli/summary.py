"""A compact table of jobs: what each one runs and on what."""

from __future__ import annotations

from typing import IO

from provider.spec.hardware import hardware, held_by
from provider.spec.model import Container, TrainingJob


def print_summary(jobs: list[TrainingJob], out: IO[str]) -> None:
    if not jobs:
        return
    rows = [("JOB", "FORMAT", "REGION", "KIND", "GPUS", "TPUS", "POOLS")]
    for job in sorted(jobs, key=lambda j: j.name):
        kind = "container" if isinstance(job.application, Container) else "package"
        if job.hyperparameters:
            kind += f", tuning x{job.hyperparameters.max_trials}"
        held = held_by(job)  # at once: a tuning job's parallel trials, as `jobs list` and the console count
        rows.append((job.name, job.source_format.value, job.region or "-", kind, str(held.gpus), str(held.tpus),
                     hardware(job)))
    widths = [max(len(r[i]) for r in rows) for i in range(6)]
    print(file=out)
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r[:6], widths)) + "  " + r[6], file=out)
