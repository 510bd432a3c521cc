"""The plan as text, for a terminal.

Names, paths, values and messages come from the repository: every line is written through
provider.document.excerpt.printable, so a control character, an ANSI escape or a bidi override
in them is shown as an escape (``\\x1b``), never sent to the terminal.
"""

from __future__ import annotations

import json
from typing import IO

from provider.document.excerpt import printable
from provider.gitops import words
from provider.gitops.plan import JobPlan, Plan, StackPlan
from provider.submission.diffing import Action

MARKS = {Action.CREATE: "+", Action.REPLACE: "~", Action.CANCEL: "!", Action.DELETE: "-", Action.UNCHANGED: "="}


def _job(j: JobPlan, show_requests: bool) -> list[str]:
    where = f"{j.file} (moved from {j.moved_from})" if j.moved_from else j.file
    if j.action is Action.DELETE:
        where = f"{j.file} (its spec left the stack: the job is deleted, cancelled first if running)"
    lines = [f"  {MARKS[j.action]} {words.VERBS[j.action]:<9} {j.name}  {where}"]
    if j.action is not Action.CREATE:
        lines += [f"      {words.change(c)}" for c in j.changes]
        lines += [f"      {words.change(c)} (no-op: does not change what runs)" for c in j.no_op_changes]
    if j.replace_order:
        lines.append(f"      order: {words.replace_order(j.replace_order)}")
    if j.action in (Action.CREATE, Action.REPLACE):
        lines.append(f"      {words.job_hardware(j)}")
        lines.append(f"      {words.resources(j)}")
        lines.append(f"      {words.cost(j.cost)}")
        if show_requests:
            request = {"kind": j.live.request.kind, "parent": j.live.request.parent, "body": j.live.request.body}
            lines += ["      " + line for line in json.dumps(request, indent=2).splitlines()]
    return lines


def _stack(s: StackPlan, show_requests: bool) -> list[str]:
    counts = ", ".join(f"{s.count(a)} to {words.VERBS[a]}" for a in words.ORDER[:-1])
    status = {"added": " [new stack]", "removed": " [stack file removed]",
              "unreadable": " [stack file unreadable: nothing planned until it is fixed]"}.get(s.status, "")
    lines = [f"stack {s.name} ({s.file}){status}: {counts}, {s.count(Action.UNCHANGED)} unchanged"]
    if s.settings_changes:
        lines.append("  stack settings:")
        lines += [f"      {words.change(c)}" for c in s.settings_changes]
    for action in words.ORDER:
        for j in s.jobs:
            if j.action is action and (action is not Action.UNCHANGED or j.touched):
                lines += _job(j, show_requests)
    lines.append(f"  starts: {words.totals(s.started)}")
    quota = f" (quota maxGpusPerStack {s.gpu_quota})" if s.gpu_quota is not None else ""
    lines.append(f"  after the change, the stack's jobs hold {s.gpus_held} GPUs at once{quota}")
    if s.findings:
        new = sum(f.new for f in s.findings)
        lines.append(f"  policy: {len(s.findings)} violation{'s' if len(s.findings) != 1 else ''} ({new} new)")
        lines += [f"    {'NEW ' if f.new else 'already at base '}{f.violation.text()}" for f in s.findings]
    else:
        lines.append("  policy: no violations")
    if s.owners:
        lines.append(f"  stack owners: {' '.join(s.owners)}")
    return lines


def render(plan: Plan, out: IO[str], show_requests: bool = False) -> None:
    lines = [f"trainjobs plan: {plan.base} -> {plan.head}", ""]
    for s in plan.stacks:
        lines += _stack(s, show_requests) + [""]
    if plan.unaffected:
        lines += [f"unchanged stacks: {', '.join(plan.unaffected)}", ""]
    if not plan.stacks:
        lines += ["No stack changes.", ""]
    if plan.problems:
        lines.append("invalid specs and stack files (trainjobs validate shows them all):")
        lines += [f"  {p.where}: {p.message}" + (f" (allowed: {p.allowed})" if p.allowed else "") for p in plan.problems]
        lines.append("")
    lines.append(f"this change starts: {words.totals(plan.started)}")
    if plan.owners:
        lines.append(f"reviews from: {' '.join(plan.owners)}")
    lines.append(words.disclaimer())
    violations = len(plan.violations)
    verdict = "OK" if plan.ok else f"FAILS: {violations} policy violation(s), {len(plan.problems)} invalid spec problem(s)"
    lines.append(f"result: {verdict}")
    out.write("\n".join(printable(line) for line in lines) + "\n")
