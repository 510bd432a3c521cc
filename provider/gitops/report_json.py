"""The plan as JSON (the shape is documented in docs/gitops.md)."""

from __future__ import annotations

import json
from typing import IO, Any

from provider.catalog import CATALOG
from provider.core.record import asdict
from provider.gitops import words
from provider.gitops.plan import Finding, JobPlan, Plan, StackPlan, Totals
from provider.submission.diffing import FieldChange


def _changes(changes: tuple[FieldChange, ...]) -> list[dict[str, Any]]:
    return [{"path": c.path, "label": c.label, "old": c.old, "new": c.new} for c in changes]


def _totals(t: Totals) -> dict[str, Any]:
    return {"jobs": t.jobs, "gpus_at_once": t.gpus_at_once, "vcpus_at_once": t.vcpus_at_once,
            "max_gpu_hours": t.max_gpu_hours, "estimated_max_usd": t.usd, "unpriced_jobs": list(t.unpriced),
            "unverified_prices": t.unverified, "billed_jobs": t.billed_jobs}


def _finding(f: Finding) -> dict[str, Any]:
    v = f.violation
    return {"rule": v.rule, "job": v.job, "limit": v.limit, "value": v.value, "message": v.message, "new": f.new}


def _job(j: JobPlan, show_requests: bool) -> dict[str, Any]:
    out: dict[str, Any] = {
        "name": j.name, "action": j.action.value, "file": j.file, "moved_from": j.moved_from,
        "changes": _changes(j.changes), "no_op_changes": _changes(j.no_op_changes),
        "capacity": {**asdict(j.capacity), "max_gpu_hours": j.capacity.max_gpu_hours},
        "cost": {"estimated_max_usd": j.cost.usd, "usd_per_hour": j.cost.usd_per_hour, "billed": j.cost.billed,
                 "missing_prices": list(j.cost.missing), "unverified_prices": list(j.cost.unverified)},
        "owners": list(j.owners),
        "replace_order": j.replace_order,
    }
    if show_requests and j.starts:
        out["request"] = {"kind": j.live.request.kind, "parent": j.live.request.parent, "body": j.live.request.body}
    return out


def _stack(s: StackPlan, show_requests: bool) -> dict[str, Any]:
    return {
        "name": s.name, "file": s.file, "status": s.status, "backend": s.backend,
        "counts": {words.VERBS[a]: s.count(a) for a in words.ORDER},
        "settings_changes": _changes(s.settings_changes),
        "started": _totals(s.started), "gpus_held_after": s.gpus_held, "max_gpus_per_stack": s.gpu_quota,
        "violations": [_finding(f) for f in s.findings], "owners": list(s.owners),
        "jobs": [_job(j, show_requests) for j in s.jobs],
    }


def render(plan: Plan, out: IO[str], show_requests: bool = False) -> None:
    pricing = CATALOG.pricing()
    data = {
        "base": plan.base, "head": plan.head, "ok": plan.ok,
        "stacks": [_stack(s, show_requests) for s in plan.stacks],
        "unaffected_stacks": list(plan.unaffected),
        "started": _totals(plan.started),
        "owners": list(plan.owners),
        "problems": [p.as_dict() for p in plan.problems],
        "estimate": {"as_of": pricing.as_of, "currency": pricing.currency, "formula": words.FORMULA,
                     "note": "costs are estimates of the maximum, from list prices; see docs/gitops.md"},
    }
    json.dump(data, out, indent=2)
    out.write("\n")
