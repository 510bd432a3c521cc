"""An ESTIMATE of a job's maximum cost, from the list prices in the catalog (catalog/pricing.json).

    maximum cost = sum over pools of replicas x (machine price + accelerator price x count)
                   x maximum running hours (maxRunningTime, or 7 days) x trials (maxTrials)

A machine type with no price of its own is priced from its family's vCPU-hour and GB-hour
rates and the catalog's vCPUs and memory. A price no Google page confirmed is "unverified", and
the estimate says so; a missing price gives no estimate, and says which price is missing.
Boot disks, storage, network, discounts and Spot are left out. Jobs of a local stack cost
nothing on Vertex AI.
"""

from __future__ import annotations

from collections.abc import Iterable

from provider.catalog import CATALOG
from provider.catalog.pricing import Priced, Pricing, accelerator_price, machine_price
from provider.core.record import Record
from provider.gitops.capacity import Capacity
from provider.spec.model import TrainingJob, WorkerPool


class Estimate(Record):
    """A job's estimated maximum cost in USD, from list prices, with the prices missing or unverified."""

    usd: float | None  # None: a price is missing (see ``missing``), or the job is not billed
    usd_per_hour: float | None  # one trial, every pool
    missing: tuple[str, ...] = ()  # prices the catalog lacks, e.g. "NVIDIA_L4 in us-central1"
    unverified: tuple[str, ...] = ()  # prices used that no Google page confirmed
    billed: bool = True  # False for a local stack


def _pool_prices(pricing: Pricing, region: str, pool: WorkerPool) -> list[tuple[str, Priced, int]]:
    out = [(pool.machine_type, machine_price(pricing, region, pool.machine_type), 1)]
    if pool.accelerator is not None and not CATALOG.implied_accelerator(pool.machine_type):
        acc = pool.accelerator
        out.append((acc.type, accelerator_price(pricing, region, acc.type), acc.count))
    return out


def estimate(job: TrainingJob, cap: Capacity, billed: bool = True, pricing: Pricing | None = None) -> Estimate:
    if not billed:
        return Estimate(None, None, billed=False)
    pricing = pricing or CATALOG.pricing()
    region = job.region or "?"
    per_hour = 0.0
    missing: list[str] = []
    unverified: list[str] = []
    for pool in job.pools:
        for name, priced, count in _pool_prices(pricing, region, pool):
            if priced.usd is None:
                missing.append(priced.missing or name)
                continue
            per_hour += priced.usd * count * pool.replica_count
            if priced.unverified:
                unverified.append(name)
    if missing:
        return Estimate(None, None, tuple(dict.fromkeys(missing)), tuple(dict.fromkeys(unverified)))
    return Estimate(per_hour * cap.max_hours * cap.trials, per_hour, (), tuple(dict.fromkeys(unverified)))


class CostTotal(Record):
    """The estimated maximum cost of several jobs: the billed jobs that have an estimate summed, and
    the billed jobs without one named apart ("N jobs unpriced"). The one total, for ``trainjobs
    plan`` and the console's stack usage alike: one unpriced job never hides the others' cost."""

    usd: float | None  # the billed jobs with an estimate; 0.0 with no billed job; None when none is priced
    billed_jobs: int
    unpriced: tuple[str, ...]  # billed jobs without an estimate (a price is missing, or no spec)
    unverified: bool  # an unverified price went into ``usd``

    def unpriced_text(self) -> str:
        """``2 jobs unpriced (a, b)``; empty when every billed job has an estimate."""
        n = len(self.unpriced)
        return f"{n} job{'s' if n != 1 else ''} unpriced ({', '.join(self.unpriced)})" if n else ""

    def text(self) -> str:
        """The total in words, as the plan's reports and the console write it."""
        if not self.billed_jobs:
            return "not billed"
        if self.usd is None:
            return f"no cost estimate: {self.unpriced_text()}"
        text = f"estimated maximum cost ${self.usd:,.2f}"
        text += f" + {self.unpriced_text()}" if self.unpriced else ""
        return text + (" (includes unverified prices)" if self.unverified else "")


def total(estimates: Iterable[tuple[str, Estimate]]) -> CostTotal:
    """Sum ``(job name, estimate)`` pairs: the jobs that are not billed count for nothing."""
    billed = [(name, e) for name, e in estimates if e.billed]
    priced = [e for _, e in billed if e.usd is not None]
    return CostTotal(
        usd=sum((e.usd for e in priced if e.usd is not None), 0.0) if priced or not billed else None,
        billed_jobs=len(billed),
        unpriced=tuple(name for name, e in billed if e.usd is None),
        unverified=any(bool(e.unverified) for e in priced),
    )


def unpriced(billed: bool, why: str) -> Estimate:
    """The estimate of a job whose cost cannot be estimated (``why``: e.g. its stack has no spec of it)."""
    return Estimate(None, None, (why,), billed=billed)
