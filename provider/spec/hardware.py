"""What a job runs on: its pools' shapes, the one hardware line, and the GPUs and TPUs it holds.

Every summary of a job's hardware is made here, whether the job is read from its spec
(``trainjobs validate --summary``, ``trainjobs plan``, the console for a Vertex AI job of a
stack) or from its request (``trainjobs jobs list``/``status``, the console, through
provider.backends.summary), so they all read alike::

    n1-standard-8 + 4 x T4, 2 x n1-standard-8 + 4 x T4

each pool in order, chief first: ``REPLICAS x MACHINE`` (``1 x`` left out), then ``+ COUNT x
ACCELERATOR`` with ``NVIDIA_`` and ``TESLA_`` dropped. What counts as a GPU and what as a TPU is
the catalog's answer (``CATALOG.kind_of``); a TPU is never counted as a GPU.
"""

from __future__ import annotations

from collections.abc import Iterable

from provider.catalog import CATALOG, AcceleratorKind
from provider.core.record import Record
from provider.spec.model import TrainingJob


class PoolShape(Record):
    """A worker pool that runs replicas: its machine type, replicas and accelerators per replica."""

    machine_type: str
    replicas: int
    accelerator_type: str = ""
    accelerator_count: int = 0
    tpu_topology: str = ""  # a TPU slice (ct5lp-, ct6e-, tpu7x- machine types): its chips come with it

    def held(self, kind: AcceleratorKind) -> int:
        """Accelerators of ``kind`` the pool's replicas hold together (a TPU slice: its topology's chips)."""
        if self.tpu_topology and not self.accelerator_count:
            return slice_chips(self.tpu_topology) if kind is AcceleratorKind.TPU else 0
        if not self.accelerator_type or CATALOG.kind_of(self.accelerator_type) is not kind:
            return 0
        return self.accelerator_count * self.replicas

    def text(self) -> str:
        out = f"{self.replicas} x {self.machine_type}" if self.replicas != 1 else self.machine_type
        if self.accelerator_type and self.accelerator_count:
            out += f" + {self.accelerator_count} x {short_name(self.accelerator_type)}"
        if self.tpu_topology:
            out += f" ({self.tpu_topology} TPU slice)"
        return out


class Held(Record):
    """Accelerators a job holds at once (a tuning job: per trial x parallel trials), GPUs and TPUs apart."""

    gpus: int
    tpus: int


def slice_chips(topology: str) -> int:
    """The TPU chips of a slice: the product of its topology (``2x2`` -> 4, ``2x2x4`` -> 16; 0 if unreadable)."""
    chips = 1
    for dim in topology.lower().split("x"):
        if not dim.isdigit():
            return 0
        chips *= int(dim)
    return chips


def short_name(accelerator_type: str) -> str:
    """``NVIDIA_TESLA_T4`` -> ``T4``, ``NVIDIA_A100_80GB`` -> ``A100_80GB``; a TPU keeps its name."""
    return accelerator_type.removeprefix("NVIDIA_").removeprefix("TESLA_")


def shapes(job: TrainingJob) -> tuple[PoolShape, ...]:
    """The spec's pools as shapes (every pool of a spec runs at least one replica)."""
    return tuple(PoolShape(p.machine_type, p.replica_count, p.accelerator.type if p.accelerator else "",
                           p.accelerator.count if p.accelerator else 0, p.tpu_topology or "") for p in job.pools)


def line(pools: Iterable[PoolShape]) -> str:
    """The one hardware line (``-`` when no pool runs a replica)."""
    return ", ".join(p.text() for p in pools) or "-"


def held(pools: Iterable[PoolShape], parallel: int = 1) -> Held:
    """GPUs and TPUs held at once: per trial, times the trials that run in parallel."""
    pools = tuple(pools)
    times = max(parallel, 1)
    return Held(sum(p.held(AcceleratorKind.GPU) for p in pools) * times,
                sum(p.held(AcceleratorKind.TPU) for p in pools) * times)


def parallel_trials(job: TrainingJob) -> int:
    return max(job.hyperparameters.max_parallel_trials, 1) if job.hyperparameters else 1


def hardware(job: TrainingJob) -> str:
    """The hardware line of a spec."""
    return line(shapes(job))


def held_by(job: TrainingJob) -> Held:
    """GPUs and TPUs a spec's job holds at once."""
    return held(shapes(job), parallel_trials(job))
