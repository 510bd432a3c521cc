"""The plan as Markdown, for a pull-request comment: a summary table per stack, then each
touched job in a ``<details>`` block, the policy violations, who must review, and what the
cost estimates rest on."""

from __future__ import annotations

import json
from typing import IO

from provider.gitops import words
from provider.gitops.plan import JobPlan, Plan, StackPlan
from provider.submission.diffing import Action, FieldChange

MARKER = "<!-- trainjobs-plan -->"  # lets the workflow find and update its own comment


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _code(text: str) -> str:
    return f"`{text}`" if "`" not in text else text


def _changes(changes: tuple[FieldChange, ...], note: str = "") -> list[str]:
    rows = ["| Field | Before | After |", "|---|---|---|"]
    rows += [f"| {_cell(c.label)}{note} | {_cell(_code(words.value(c.old)))} | {_cell(_code(words.value(c.new)))} |"
             for c in changes]
    return rows


def _summary_row(s: StackPlan) -> str:
    started = s.started
    if not started.jobs:
        cost = "-"
    elif not started.billed_jobs:
        cost = "not billed"
    elif started.usd is None:
        cost = "n/a (prices missing)"
    else:
        cost = words.usd(started.usd)
        cost += f" + {len(started.unpriced)} unpriced" if started.unpriced else ""
        cost += " (unverified prices)" if started.unverified else ""
    new = sum(f.new for f in s.findings)
    policy = "ok" if not s.findings else f"**{len(s.findings)} violation{'s' if len(s.findings) != 1 else ''}** ({new} new)"
    counts = " | ".join(str(s.count(a)) for a in words.ORDER)
    return (f"| `{s.name}` | {counts} | {started.gpus_at_once} | {words.number(started.max_gpu_hours)} | {cost} "
            f"| {policy} |")


def _job(j: JobPlan, show_requests: bool) -> list[str]:
    where = f"`{j.file}`" + (f", moved from `{j.moved_from}`" if j.moved_from else "")
    lines = [f"<details><summary><b>{words.VERBS[j.action]}</b> <code>{j.name}</code> ({where})</summary>", ""]
    if j.action is Action.DELETE:
        lines += ["Its spec left the stack: the job is deleted (cancelled first if it is running).", ""]
    if j.action is Action.CANCEL:
        lines += ["`desiredState: CANCELLED`: the running job is cancelled.", ""]
    if j.replace_order:
        lines += [f"Order: {words.replace_order(j.replace_order)}.", ""]
    if j.action is not Action.DELETE:
        lines += [f"- Hardware: {words.job_hardware(j)}", f"- Capacity: {words.resources(j)}"]
        if j.starts:
            lines.append(f"- Cost: {words.cost(j.cost)}")
        if j.owners:
            lines.append(f"- Owners: {' '.join(j.owners)}")
        lines.append("")
    if j.action is not Action.CREATE and (j.changes or j.no_op_changes):
        lines += _changes(j.changes)
        if j.no_op_changes:
            lines += [f"| {_cell(c.label)} (no-op) | {_cell(_code(words.value(c.old)))} | "
                      f"{_cell(_code(words.value(c.new)))} |" for c in j.no_op_changes]
        lines.append("")
    if show_requests and j.starts:
        request = {"kind": j.live.request.kind, "parent": j.live.request.parent, "body": j.live.request.body}
        lines += ["Vertex AI request:", "", "```json", json.dumps(request, indent=2), "```", ""]
    lines += ["</details>", ""]
    return lines


def _stack(s: StackPlan, show_requests: bool) -> list[str]:
    status = {"added": " (new stack)", "removed": " (stack file removed)"}.get(s.status, "")
    lines = [f"### `{s.name}`{status}", "", f"Stack file `{s.file}`, backend {s.backend or 'unknown'}.", ""]
    if s.settings_changes:
        lines += ["Stack settings changed:", ""] + _changes(s.settings_changes) + [""]
    touched = [j for a in words.ORDER for j in s.jobs if j.action is a and j.touched]
    for j in touched:
        lines += _job(j, show_requests)
    quiet = s.count(Action.UNCHANGED) - sum(1 for j in touched if j.action is Action.UNCHANGED)
    if quiet:
        lines += [f"{quiet} other job{'s' if quiet != 1 else ''} unchanged.", ""]
    quota = f" (quota: {s.gpu_quota})" if s.gpu_quota is not None else ""
    lines += [f"Starts {words.totals(s.started)}. After the change the stack's jobs hold "
              f"{s.gpus_held} GPUs at once{quota}.", ""]
    if s.findings:
        lines += ["**Policy violations:**", ""]
        lines += [f"- {'**new**' if f.new else 'already at base'}: {_cell(f.violation.text())}" for f in s.findings]
        lines.append("")
    return lines


def render(plan: Plan, out: IO[str], show_requests: bool = False) -> None:
    verdict = "passes" if plan.ok else "**fails**"
    lines = [MARKER, "## trainjobs plan", "",
             f"`{plan.base}` -> {plan.head}: the plan {verdict}.", ""]
    if plan.stacks:
        header = " | ".join(words.VERBS[a].capitalize() for a in words.ORDER)
        lines += [f"| Stack | {header} | GPUs started | Max GPU-hours | Est. max cost | Policy |",
                  "|---|" + "---:|" * (len(words.ORDER) + 3) + "---|"]
        lines += [_summary_row(s) for s in plan.stacks]
        lines.append("")
    else:
        lines += ["No stack changes.", ""]
    if plan.unaffected:
        lines += ["Unchanged stacks: " + ", ".join(f"`{n}`" for n in plan.unaffected) + ".", ""]
    lines += [f"**This change starts** {words.totals(plan.started)}.", ""]
    if plan.owners:
        lines += ["**Reviews needed from:** " + " ".join(plan.owners), ""]
    if plan.problems:
        lines += ["**Invalid specs and stack files** (`trainjobs validate` shows them all):", ""]
        lines += [f"- `{p.where}`: {_cell(p.message)}" + (f" (allowed: {_cell(p.allowed)})" if p.allowed else "")
                  for p in plan.problems]
        lines.append("")
    for s in plan.stacks:
        lines += _stack(s, show_requests)
    lines += [f"<sub>{words.disclaimer()}</sub>", ""]
    out.write("\n".join(lines))
