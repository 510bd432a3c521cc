"""Hyperparameter tuning (seed 002 and the HyperparameterSpec / StudySpec rules)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from itertools import pairwise

from provider.core.problem import Severity
from provider.spec.model import DocPath, HyperParam, Hyperparameters, ParamType, TrainingJob, path_of
from provider.validation.rules.base import JOB_RULES, Context, Finding, join, rule

SOURCE = JOB_RULES + " (ai_platform_hyperparameter_spec; vx.hpt.*)"


def grid_size(job: TrainingJob) -> int | None:
    """Number of points of a GRID_SEARCH, or None when a parameter is continuous."""
    hp = job.hyperparameters
    if hp is None:
        return None
    size = 1
    for p in hp.params:
        if p.type is ParamType.INTEGER and p.min is not None and p.max is not None:
            size *= int(p.max) - int(p.min) + 1
        elif p.type in (ParamType.CATEGORICAL, ParamType.DISCRETE):
            size *= len(p.values)
        else:
            return None
    return size


def _range(p: HyperParam) -> Iterator[Finding]:
    """DOUBLE and INTEGER: min <= max, whole bounds for INTEGER, a positive range for log scales."""
    if p.type not in (ParamType.DOUBLE, ParamType.INTEGER) or p.min is None or p.max is None:
        return
    if p.min > p.max:
        yield Finding(f"parameter {p.name!r}: min {p.min:g} is above max {p.max:g}", path_of(p, "min"),
                      "hpt.range", SOURCE, allowed="min <= max")
    if p.type is ParamType.INTEGER and not (float(p.min).is_integer() and float(p.max).is_integer()):
        yield Finding(f"INTEGER parameter {p.name!r} has a non-integer bound", path_of(p, "min"), "hpt.integer",
                      SOURCE, allowed="whole numbers for min and max")
    if p.scale in ("UNIT_LOG_SCALE", "UNIT_REVERSE_LOG_SCALE") and p.min <= 0:
        yield Finding(f"parameter {p.name!r} uses {p.scale} but its range includes {p.min:g}",
                      path_of(p, "scale"), "hpt.log_scale", SOURCE,
                      allowed="a strictly positive range for log scales")


def _discrete(p: HyperParam) -> Iterator[Finding]:
    if p.type is not ParamType.DISCRETE:
        return
    nums = [v for v in p.values if isinstance(v, float)]
    if any(b <= a for a, b in pairwise(nums)):
        yield Finding(f"DISCRETE parameter {p.name!r} values are not strictly increasing", path_of(p, "values"),
                      "hpt.discrete", SOURCE, allowed="strictly increasing numbers, at most 1000")


def _categorical(p: HyperParam) -> Iterator[Finding]:
    if p.type is ParamType.CATEGORICAL and p.scale not in (None, "", "SCALE_TYPE_UNSPECIFIED"):
        yield Finding(f"CATEGORICAL parameter {p.name!r} has a scale", path_of(p, "scale"), "hpt.scale", SOURCE,
                      allowed="no scale for CATEGORICAL parameters")


# The checks of one parameter, in the order their findings are reported.
_PARAM_CHECKS: tuple[Callable[[HyperParam], Iterator[Finding]], ...] = (_range, _discrete, _categorical)


def _whitespace(what: str, name: str, where: DocPath) -> Iterator[Finding]:
    if any(ch.isspace() for ch in name):
        yield Finding(f"{what} {name!r} contains whitespace", where, "hpt.id_whitespace",
                      JOB_RULES + " (vx.hpt.metric_param_ids: StudySpec metricId and parameterId must not contain "
                      "whitespace)", allowed=f"{what} without spaces, tabs or newlines, such as "
                      f"{'_'.join(name.split())!r}")


def _params(hp: Hyperparameters) -> Iterator[Finding]:
    yield from _whitespace("metric id", hp.metric, path_of(hp, "metric"))
    names: set[str] = set()
    for p in hp.params:
        yield from _whitespace("parameter id", p.name, path_of(p, "name"))
        if p.name in names:
            yield Finding(f"parameter {p.name!r} is defined twice", path_of(p, "name"), "hpt.param_unique", SOURCE,
                          allowed="unique parameter names")
        names.add(p.name)
    for p in hp.all_params():  # conditional parameters are held to the same rules (conditions: study.py)
        for check in _PARAM_CHECKS:
            yield from check(p)


def _grid(job: TrainingJob, hp: Hyperparameters) -> Iterator[Finding]:
    if hp.algorithm != "GRID_SEARCH":
        return
    bad = [p.name for p in hp.all_params() if p.type is ParamType.DOUBLE]
    if bad:
        yield Finding(f"GRID_SEARCH cannot search the DOUBLE parameter(s) {join(bad, 'and')}",
                      path_of(hp, "algorithm"), "hpt.grid", SOURCE,
                      allowed="INTEGER, CATEGORICAL or DISCRETE parameters with GRID_SEARCH")
    size = grid_size(job)
    if size is not None and hp.max_trials > size:
        yield Finding(f"maxTrials is {hp.max_trials} but the grid has only {size} points", path_of(hp, "max_trials"),
                      "hpt.grid_size", SOURCE, allowed=f"at most {size} trials", severity=Severity.WARNING)


def _counts(hp: Hyperparameters) -> Iterator[Finding]:
    if hp.max_failed_trials is not None and hp.max_failed_trials > hp.max_trials:
        # No Google document bounds it (0: the service decides); gcloud sends it, so a warning, as for
        # maxParallelTrials: the count is never reached, so failed trials never end the job early.
        yield Finding(f"maxFailedTrials {hp.max_failed_trials} is above maxTrials {hp.max_trials}: never reached "
                      f"(at most {hp.max_trials} trials run), so failed trials never end the job early",
                      path_of(hp, "max_failed_trials"), "hpt.counts", SOURCE, allowed=f"at most {hp.max_trials}",
                      severity=Severity.WARNING)
    if hp.max_parallel_trials > hp.max_trials:
        yield Finding(f"maxParallelTrials {hp.max_parallel_trials} is above maxTrials {hp.max_trials}",
                      path_of(hp, "max_parallel_trials"), "hpt.counts", SOURCE,
                      allowed=f"at most {hp.max_trials}", severity=Severity.WARNING)


def _recommendation(hp: Hyperparameters) -> Iterator[Finding]:
    recommended = 10 * len(hp.params)
    if hp.algorithm in (None, "ALGORITHM_UNSPECIFIED") and hp.max_trials < recommended:
        yield Finding(
            f"Bayesian optimisation with {len(hp.params)} parameter(s) and only {hp.max_trials} trials",
            path_of(hp, "max_trials"),
            "hpt.recommendation",
            JOB_RULES + " (vx.hpt.recommendation)",
            allowed=f"at least {recommended} trials (ten per parameter), or RANDOM_SEARCH / GRID_SEARCH",
            severity=Severity.WARNING,
        )


_BRACES = re.compile(r"\{\{([^{}]*)\}\}")
_TRIAL_ARGS = ("https://cloud.google.com/vertex-ai/docs/training/hyperparameter-tuning-overview (Vertex AI passes each "
               "trial's hyperparameter values to the trainer as command-line arguments)")


def _templates(job: TrainingJob, hp: Hyperparameters) -> Iterator[Finding]:
    """A ``{{trial.parameters.lr}}``-style placeholder naming a parameter: Vertex AI fills in nothing in a trial's
    args (it appends ``--lr=VALUE`` itself), so the trainer receives the braces as written."""
    names = {p.name for p in hp.all_params()}
    pools = [p.override for p in job.pools if p.override is not None and p.override.args]
    lists = [(job.user_args, path_of(job, "args")), (job.application.args, path_of(job.application, "args")),
             *((o.args or (), path_of(o, "args")) for o in pools)]
    for items, where in lists:
        for i, text in enumerate(items):
            for inner in _BRACES.findall(text):
                named = sorted(n for n in names if re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", inner))
                if named:
                    yield Finding(f"argument {text!r} is passed to every trial as written: Vertex AI fills in no "
                                  f"{{{{...}}}} placeholder, it appends --{named[0]}=VALUE to the trial's arguments "
                                  "itself", where + (i,) if where else where, "hpt.arg_template", _TRIAL_ARGS,
                                  allowed=f"no placeholder: read --{named[0]} (the value Vertex AI appends) in the "
                                          "trainer", severity=Severity.WARNING)


@rule
def hyperparameters(job: TrainingJob, ctx: Context) -> Iterator[Finding]:
    hp = job.hyperparameters
    if hp is None:
        return
    yield from _params(hp)
    yield from _grid(job, hp)
    yield from _counts(hp)
    yield from _recommendation(hp)
    yield from _templates(job, hp)
