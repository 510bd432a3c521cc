"""The plan as Markdown, for a pull-request comment: a summary table per stack, then each
touched job in a ``<details>`` block, the policy violations, who must review, and what the
cost estimates rest on.

Everything that comes from the repository (names, paths, values, messages, owners) is written
through provider.document.markdown, so it renders as the text it is (docs/gitops.md, "What a
pull request cannot make the comment do"). Owners are shown as code: the comment names them
without notifying them (CODEOWNERS asks them for a review).
"""

from __future__ import annotations

import json
from typing import IO

from provider.document import markdown as md
from provider.gitops import words
from provider.gitops.plan import JobPlan, Plan, StackPlan
from provider.submission.diffing import Action, FieldChange

MARKER = "<!-- trainjobs-plan -->"  # lets the workflow find and update its own comment


def _value(v: object) -> str:
    return md.code(words.value(v), cell=True)


def _row(c: FieldChange, note: str = "") -> str:
    return f"| {md.text(c.label)}{note} | {_value(c.old)} | {_value(c.new)} |"


def _changes(changes: tuple[FieldChange, ...]) -> list[str]:
    return ["| Field | Before | After |", "|---|---|---|"] + [_row(c) for c in changes]


def _owners(owners: tuple[str, ...]) -> str:
    return " ".join(md.code(o) for o in owners)


def _summary_row(s: StackPlan) -> str:
    started = s.started
    if not started.jobs:
        cost = "-"
    elif not started.billed_jobs:
        cost = "not billed"
    elif started.usd is None:
        cost = f"n/a ({started.cost.unpriced_text()})"
    else:
        cost = words.usd(started.usd)
        cost += f" + {started.cost.unpriced_text()}" if started.unpriced else ""
        cost += " (unverified prices)" if started.unverified else ""
    new = sum(f.new for f in s.findings)
    policy = "ok" if not s.findings else f"**{len(s.findings)} violation{'s' if len(s.findings) != 1 else ''}** ({new} new)"
    counts = " | ".join(str(s.count(a)) for a in words.ORDER)
    return (f"| {md.code(s.name, cell=True)} | {counts} | {started.gpus_at_once} | {words.number(started.max_gpu_hours)} | {cost} "
            f"| {policy} |")


def _job(j: JobPlan, show_requests: bool) -> list[str]:
    where = f"<code>{md.html(j.file)}</code>" + (f", moved from <code>{md.html(j.moved_from)}</code>"
                                                 if j.moved_from else "")
    lines = [f"<details><summary><b>{words.VERBS[j.action]}</b> <code>{md.html(j.name)}</code> ({where})</summary>",
             ""]
    if j.action is Action.DELETE:
        lines += ["Its spec left the stack: the job is deleted (cancelled first if it is running).", ""]
    if j.action is Action.CANCEL:
        lines += ["`desiredState: CANCELLED`: the running job is cancelled.", ""]
    if j.replace_order:
        lines += [f"Order: {words.replace_order(j.replace_order)}.", ""]
    if j.action is not Action.DELETE:
        lines += [f"- Hardware: {md.text(words.job_hardware(j))}", f"- Capacity: {md.text(words.resources(j))}"]
        if j.starts:
            lines.append(f"- Cost: {md.text(words.cost(j.cost))}")
        if j.owners:
            lines.append(f"- Owners: {_owners(j.owners)}")
        lines.append("")
    if j.action is not Action.CREATE and (j.changes or j.no_op_changes):
        lines += _changes(j.changes)
        if j.no_op_changes:
            lines += [_row(c, " (no-op)") for c in j.no_op_changes]
        lines.append("")
    if show_requests and j.starts:
        request = {"kind": j.live.request.kind, "parent": j.live.request.parent, "body": j.live.request.body}
        lines += ["Vertex AI request:", "", md.fence(json.dumps(request, indent=2), "json"), ""]
    lines += ["</details>", ""]
    return lines


def _stack(s: StackPlan, show_requests: bool) -> list[str]:
    status = {"added": " (new stack)", "removed": " (stack file removed)",
              "unreadable": " (stack file unreadable: nothing planned)"}.get(s.status, "")
    lines = [f"### {md.code(s.name)}{status}", "",
             f"Stack file {md.code(s.file)}, backend {md.text(s.backend or 'unknown')}.", ""]
    if s.settings_changes:
        lines += ["Stack settings changed:", ""] + _changes(s.settings_changes) + [""]
    touched = [j for a in words.ORDER for j in s.jobs if j.action is a and j.touched]
    for j in touched:
        lines += _job(j, show_requests)
    quiet = s.count(Action.UNCHANGED) - sum(1 for j in touched if j.action is Action.UNCHANGED)
    if quiet:
        lines += [f"{quiet} other job{'s' if quiet != 1 else ''} unchanged.", ""]
    quota = f" (quota: {s.gpu_quota})" if s.gpu_quota is not None else ""
    lines += [f"Starts {md.text(words.totals(s.started))}. After the change the stack's jobs hold "
              f"{s.gpus_held} GPUs at once{quota}.", ""]
    if s.findings:
        lines += ["**Policy violations:**", ""]
        lines += [f"- {'**new**' if f.new else 'already at base'}: {md.text(f.violation.text())}" for f in s.findings]
        lines.append("")
    return lines


def render(plan: Plan, out: IO[str], show_requests: bool = False) -> None:
    verdict = "passes" if plan.ok else "**fails**"
    lines = [MARKER, "## trainjobs plan", "",
             f"{md.code(plan.base)} -> {md.text(plan.head)}: the plan {verdict}.", ""]
    if plan.stacks:
        header = " | ".join(words.VERBS[a].capitalize() for a in words.ORDER)
        lines += [f"| Stack | {header} | GPUs started | Max GPU-hours | Est. max cost | Policy |",
                  "|---|" + "---:|" * (len(words.ORDER) + 3) + "---|"]
        lines += [_summary_row(s) for s in plan.stacks]
        lines.append("")
    else:
        lines += ["No stack changes.", ""]
    if plan.unaffected:
        lines += ["Unchanged stacks: " + ", ".join(md.code(n) for n in plan.unaffected) + ".", ""]
    lines += [f"**This change starts** {md.text(words.totals(plan.started))}.", ""]
    if plan.owners:
        lines += ["**Reviews needed from:** " + _owners(plan.owners), ""]
    if plan.problems:
        lines += ["**Invalid specs and stack files** (`trainjobs validate` shows them all):", ""]
        lines += [f"- {md.code(p.where)}: {md.text(p.message)}" + (f" (allowed: {md.text(p.allowed)})" if p.allowed else "")
                  for p in plan.problems]
        lines.append("")
    for s in plan.stacks:
        lines += _stack(s, show_requests)
    lines += [f"<sub>{words.disclaimer()}</sub>", ""]  # the catalog's words, not the repository's
    out.write("\n".join(lines))
