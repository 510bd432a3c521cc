"""A GitHub Actions workflow (.github/workflows/*.yml) given to ``trainjobs convert``: its one step whose ``run:``
script submits a training job, read as the command line it runs (then as ``convert --gcloud`` reads any line).

GitHub's documented behaviour (docs.github.com, "Workflow syntax for GitHub Actions", "Contexts", "Evaluate
expressions in workflows and actions", "Store information in variables"), as read here:

* a workflow is a mapping whose ``jobs:`` map a job id to a job with ``steps:``; a step's ``run:`` is a script
  that a Linux runner gives to bash (the default ``bash -e {0}``; ``shell: bash`` or ``sh`` as well). A step's
  ``shell:``, or a job's or the workflow's ``defaults: run: shell:``, naming any other shell is refused by name,
  as is a job that runs on a Windows runner with no shell named (its default is pwsh);
* ``${{ ... }}`` is an expression GitHub evaluates and pastes into the script BEFORE the shell runs: here
  ``env.NAME`` is the step's, job's or workflow's ``env:`` value (innermost wins) when that is a plain literal,
  else NAME from the environment of ``trainjobs convert``; ``vars.NAME`` is $NAME of that environment;
  ``github.sha`` and the other ``github.*`` the runner also exports (GITHUB_SHA, GITHUB_REF_NAME...) are that
  variable. Each value read is named in a note; one not set is refused by name. ``secrets.*`` is refused (a
  secret is never written into a spec), as is an expression naming a secret-looking variable, literal or
  not, and any other expression (functions, operators, other contexts);
* the ``env:`` values are the step's process environment (innermost wins), so a plain ``$NAME`` of the script
  takes a literal ``env:`` value (a note names it); a name no ``env:`` gives a literal is read from the
  environment of ``trainjobs convert``, as ``convert --gcloud`` reads it;
* a step's ``working-directory`` (or ``defaults: run: working-directory``) is refused by name (run convert from
  that folder), and exactly one step may submit a training job (provider.gcloud.cloud_build's test);
* what decides whether or how often the step runs (the job's and the step's ``if:``, the job's
  ``strategy.matrix``) is GitHub's, not the job's: each is named in a note.
"""

from __future__ import annotations

import os
import re
import shlex
from typing import Any

from provider.core.errors import UserError
from provider.core.secret_names import looks_secret
from provider.gcloud.cloud_build import TRAINING, the_one

_EXPRESSION = re.compile(r"\$\{\{(.*?)\}\}", re.S)
_CONTEXT = re.compile(r"(env|vars|secrets|github)\.([A-Za-z_][A-Za-z0-9_]*)")
_VARIABLE = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")
# the github context's values the runner also exports as GITHUB_<NAME> (GitHub's "default environment variables")
_GITHUB = ("action", "actor", "actor_id", "api_url", "base_ref", "event_name", "event_path", "graphql_url", "head_ref",
           "job", "ref", "ref_name", "ref_protected", "ref_type", "repository", "repository_id", "repository_owner",
           "repository_owner_id", "retention_days", "run_attempt", "run_id", "run_number", "server_url", "sha",
           "triggering_actor", "workflow", "workflow_ref", "workflow_sha", "workspace")


def is_workflow(data: Any) -> bool:
    """Whether ``data`` is a GitHub Actions workflow: ``jobs:`` mapping ids to jobs with a list of steps."""
    jobs = data.get("jobs") if isinstance(data, dict) else None
    return isinstance(jobs, dict) and any(isinstance(j, dict) and isinstance(j.get("steps"), list) for j in jobs.values())


def _run_default(*levels: Any) -> dict[str, Any]:
    """The innermost ``defaults: run:`` settings of a job and the workflow."""
    out: dict[str, Any] = {}
    for level in reversed(levels):  # the workflow's first, then the job's over it
        defaults = level.get("defaults") if isinstance(level, dict) else None
        run = defaults.get("run") if isinstance(defaults, dict) else None
        if isinstance(run, dict):
            out.update(run)
    return out


def command_line(data: dict[str, Any], shown: str) -> tuple[str, str, list[str]]:
    """The workflow's one step that submits a training job, named (``jobs.train.steps[2] (name 'Train')``), the
    command line it runs, and the notes on what was read; UserError when there is not one, or it cannot be read."""
    found = []
    for job_id, job in data["jobs"].items():
        steps = job.get("steps") if isinstance(job, dict) else None
        for i, step in enumerate(steps if isinstance(steps, list) else []):
            run = step.get("run") if isinstance(step, dict) else None
            if isinstance(run, str) and TRAINING.search(run):
                name = f" (name {step['name']!r})" if isinstance(step.get("name"), str) else ""
                found.append((f"jobs.{job_id}.steps[{i}]{name}", job, step, run))
    label, job, step, run = found[the_one([f[0] for f in found], shown, "GitHub Actions",
                                          "a step whose run: script runs {}")]
    where = f"{shown} {label}"
    _check_shell(step, job, data, where)
    envs = [(f"{label.split(' ')[0]}.env", step), (f"jobs.{label.split('.')[1]}.env", job), ("the workflow's env", data)]
    literals: dict[str, tuple[str, str]] = {}  # NAME -> (value, where it is set), innermost first
    for origin, level in envs:
        env = level.get("env")
        for name, value in (env.items() if isinstance(env, dict) else ()):
            if str(name) not in literals:
                literals[str(name)] = (_literal(value), origin)
    notes = _conditions(label, step, job)
    script = _EXPRESSION.sub(lambda m: _expression(m.group(0), m.group(1).strip(), literals, where, notes), run)
    exports = []
    for name in dict.fromkeys(_VARIABLE.findall(script)):
        value, origin = literals.get(name, ("", ""))
        if origin and not _EXPRESSION.search(value):
            exports.append(f"export {name}={shlex.quote(value)} && ")
            said = "its value" if looks_secret(name) else repr(value)  # a secret-looking name's value is never shown
            notes.append(f"${name} is {said}, set by {origin} (the step's environment in GitHub Actions)")
    return label, "".join(exports) + script, notes


def _conditions(label: str, step: dict[str, Any], job: dict[str, Any]) -> list[str]:
    """Notes on what decides whether, or how often, GitHub runs the step: the job's and the step's ``if:`` and the
    job's ``strategy.matrix`` (read by GitHub, not by the job the step submits)."""
    job_label = label.split(".steps[")[0]
    notes = [f"{where} runs only if {level['if']!r} (its if:), which GitHub evaluates: the spec is the job the step "
             "submits when it runs" for where, level in ((job_label, job), (label, step)) if "if" in level]
    strategy = job.get("strategy")
    if isinstance(strategy, dict) and "matrix" in strategy:
        notes.append(f"{job_label} runs once for each combination of its strategy.matrix, and each run submits this "
                     "job again: the spec is one of them (a ${{ matrix.* }} value in the command is refused)")
    return notes


def _literal(value: Any) -> str:
    """An ``env:`` value as GitHub hands it to the process: a string as written, true/false and numbers as text."""
    if isinstance(value, bool):
        return str(value).lower()
    return "${{ ... }}" if isinstance(value, (dict, list)) or value is None else str(value)


def _check_shell(step: dict[str, Any], job: dict[str, Any], data: dict[str, Any], where: str) -> None:
    """Refuse a step that runs its script in another shell than bash or sh, or in another folder."""
    defaults = _run_default(job, data)
    shell = step.get("shell", defaults.get("shell"))
    if shell is not None and str(shell).split(" ")[0] not in ("bash", "sh"):
        raise UserError(f"{where}: runs its script with shell {shell!r}; allowed: bash or sh (trainjobs reads the "
                        "command as bash reads it); convert the command line with --gcloud instead", exit_code=1)
    runs_on = job.get("runs-on")
    labels = [runs_on] if isinstance(runs_on, str) else runs_on if isinstance(runs_on, list) else []
    if shell is None and any(isinstance(x, str) and x.startswith("windows") for x in labels):
        raise UserError(f"{where}: runs on {runs_on!r}, whose default shell is pwsh, not bash; allowed: shell: bash, "
                        "or a Linux runner", exit_code=1)
    folder = step.get("working-directory", defaults.get("working-directory"))
    if folder is not None:
        raise UserError(f"{where}: runs in working-directory {folder!r}: run trainjobs convert from that folder, with "
                        "the step's command as --gcloud", exit_code=1)


def _expression(text: str, inner: str, literals: dict[str, tuple[str, str]], where: str, notes: list[str]) -> str:
    """The value GitHub pastes for the expression ``text``; UserError for one that is not read here."""
    m = _CONTEXT.fullmatch(inner)
    kind, name = (m.group(1), m.group(2)) if m else ("", "")
    if kind == "secrets":
        raise UserError(f"{where}: {text} is a GitHub Actions secret, never written into a spec; allowed: give the "
                        "trainer the secret through the stack's trainjobs:secretEnv setting, and write the rest of the "
                        "command without it", exit_code=1)
    variable = {"env": name, "vars": name}.get(kind) or (f"GITHUB_{name.upper()}" if kind == "github" and name in
                                                           _GITHUB else "")
    if variable and looks_secret(variable):  # pasted into the script, it would be written into the spec
        raise UserError(f"{where}: {text} would write ${variable}, whose name looks secret, into the spec; allowed: "
                        "the stack's trainjobs:secretEnv setting", exit_code=1)
    if kind == "env" and name in literals and not _EXPRESSION.search(literals[name][0]):
        value, origin = literals[name]
        notes.append(f"{text} is {value!r}, from {origin}")
        return value
    if not variable:
        raise UserError(f"{where}: {text} is a GitHub Actions expression not read here; allowed: ${{{{ env.NAME }}}}, "
                        "${{ vars.NAME }} and ${{ github.sha }} (and the other github.* values the runner exports as "
                        "GITHUB_*), read from the environment; write the value instead", exit_code=1)
    read = os.environ.get(variable)
    if read is None:
        raise UserError(f"{where}: {text} is set by GitHub when the workflow runs, and ${variable} is not set here; "
                        f"allowed: export {variable}=... before trainjobs convert", exit_code=1)
    notes.append(f"{text} is {read!r}, read from the environment (${variable}); check it is no secret before "
                 "committing the spec")
    return read
