"""Wording shared by the plan's text and Markdown reports: numbers, hardware, changes, estimates."""

from __future__ import annotations

import json
from typing import Any

from provider.catalog import CATALOG
from provider.gitops.capacity import Capacity
from provider.gitops.cost import Estimate
from provider.gitops.plan import JobPlan, Totals
from provider.spec.hardware import hardware
from provider.submission.diffing import Action, FieldChange

VERBS = {
    Action.CREATE: "create",
    Action.REPLACE: "replace",
    Action.CANCEL: "cancel",
    Action.DELETE: "delete",
    Action.UNCHANGED: "unchanged",
}
ORDER = (Action.CREATE, Action.REPLACE, Action.CANCEL, Action.DELETE, Action.UNCHANGED)
FORMULA = ("estimated maximum cost = sum over pools of replicas x (machine price + accelerator price x count) "
           "x maximum running hours (maxRunningTime, or 7 days when unset) x maxTrials")


def number(x: float) -> str:
    return f"{x:,.0f}" if float(x).is_integer() else f"{x:,.1f}"


def usd(x: float) -> str:
    return f"${x:,.2f}"


def value(v: Any) -> str:
    if v is None:
        return "(none)"
    if isinstance(v, str):
        return v
    return json.dumps(v, separators=(", ", ": "))


def change(c: FieldChange) -> str:
    return f"{c.label}: {value(c.old)} -> {value(c.new)}"


def duration(hours: float) -> str:
    return f"{number(hours * 60)} min" if hours < 1 else f"{number(hours)} h"


def running(cap: Capacity) -> str:
    text = duration(cap.max_hours)
    return text if cap.running_time_set else text + " (the 7-day default: no maxRunningTime)"


def resources(j: JobPlan) -> str:
    cap = j.capacity
    vcpus = number(cap.vcpus_at_once) if cap.vcpus_at_once is not None else "? (unknown machine type)"
    trials = f" x {cap.trials} trials ({cap.parallel_trials} at once)" if cap.trials > 1 else ""
    return (f"{cap.gpus_at_once} GPUs and {vcpus} vCPUs at once; at most {running(cap)}{trials}: "
            f"{number(cap.max_gpu_hours)} GPU-hours at most")


def cost(e: Estimate) -> str:
    if not e.billed:
        return "not billed (local backend)"
    if e.usd is None:
        return "no estimate: no price for " + ", ".join(e.missing)
    flag = f" (unverified price: {', '.join(e.unverified)})" if e.unverified else ""
    return f"estimate: at most {usd(e.usd)}{flag}"


def job_hardware(j: JobPlan) -> str:
    return hardware(j.live.job)


def totals(t: Totals) -> str:
    vcpus = number(t.vcpus_at_once) if t.vcpus_at_once is not None else "?"
    text = (f"{t.jobs} job{'s' if t.jobs != 1 else ''}, {t.gpus_at_once} GPUs and {vcpus} vCPUs at once, "
            f"{number(t.max_gpu_hours)} GPU-hours at most")
    return text + ", " + total_cost(t)


def total_cost(t: Totals) -> str:
    if not t.billed_jobs:
        return "no cost on Vertex AI" if t.jobs else "no cost"
    return t.cost.text()


def disclaimer() -> str:
    p = CATALOG.pricing()
    return (f"Costs are ESTIMATES of the maximum, from {p.currency} list prices of Vertex AI custom training as of "
            f"{p.as_of} (catalog pricing.json); boot disks, storage, network, discounts and Spot are left out, "
            f"and prices marked unverified were not confirmed on Google's pricing page. Formula: {FORMULA}.")


REPLACE_ORDERS = {
    "deleteFirst": "delete first: the old job is cancelled before the new one starts (trainjobs:replace)",
    "createFirst": "create first: the new job starts before the old one is cancelled, and both hold their "
                   "GPUs meanwhile (trainjobs:replace)",
}


def replace_order(order: str) -> str:
    return REPLACE_ORDERS.get(order, order)
