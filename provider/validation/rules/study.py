"""A study's conditional parameters and metrics: the StudySpec rules the schema cannot hold.

From Vertex AI's REST reference (StudySpec): a conditional parameter hangs under an INTEGER,
DISCRETE or CATEGORICAL parent, on values the parent can take; two conditional parameters
of one parent with the same id need disjoint parent values; metric ids are unique. The
per-parameter rules (ranges, scales, grid search) are tuning.py's, for conditional
parameters too.
"""

from __future__ import annotations

from collections.abc import Iterator

from provider.spec.model import HyperParam, ParamType, TrainingJob, path_of
from provider.validation.rules.base import Context, Finding, rule

SOURCE = ("https://cloud.google.com/vertex-ai/docs/reference/rest/v1/StudySpec "
          "(ParameterSpec.conditionalParameterSpecs, metrics)")


def _feasible(parent: HyperParam, value: str | float) -> bool:
    if parent.type is ParamType.INTEGER:
        return float(value).is_integer() and (parent.min or 0) <= float(value) <= (parent.max or 0)
    if parent.type is ParamType.DISCRETE:
        return float(value) in [float(v) for v in parent.values]
    return value in parent.values


def _conditions(parent: HyperParam) -> Iterator[Finding]:
    if parent.conditions and parent.type is ParamType.DOUBLE:
        yield Finding(f"DOUBLE parameter {parent.name!r} has conditional parameters", path_of(parent, "conditions"),
                      "hpt.conditional", SOURCE,
                      allowed="conditional parameters under INTEGER, DISCRETE or CATEGORICAL parameters")
        return
    taken: dict[str, set[str | float]] = {}
    for c in parent.conditions:
        for value in c.parent_values:
            if not _feasible(parent, value):
                yield Finding(f"conditional parameter {c.param.name!r} is searched when {parent.name!r} is {value!r}, "
                              f"a value {parent.name!r} cannot take", path_of(c, "parent_values"), "hpt.conditional",
                              SOURCE, allowed=f"values of {parent.name!r}: " + _domain(parent))
        overlap = taken.setdefault(c.param.name, set()) & set(c.parent_values)
        if overlap:
            yield Finding(f"conditional parameter {c.param.name!r} appears twice under {parent.name!r} for "
                          f"{sorted(map(str, overlap))}", path_of(c, "parent_values"), "hpt.conditional", SOURCE,
                          allowed="the same conditional parameter under disjoint parent values")
        taken[c.param.name] |= set(c.parent_values)


def _domain(p: HyperParam) -> str:
    if p.type is ParamType.INTEGER:
        return f"whole numbers from {p.min:g} to {p.max:g}" if p.min is not None and p.max is not None else "its range"
    return ", ".join(repr(v) for v in p.values)


def _default(p: HyperParam) -> Iterator[Finding]:
    """A default value is one the parameter can take (Vertex AI tries it as a starting point)."""
    if p.default is None:
        return
    if p.type is ParamType.DOUBLE:
        inside = p.min is not None and p.max is not None and p.min <= float(p.default) <= p.max
    else:
        inside = _feasible(p, p.default)
    if not inside:
        domain = f"from {p.min:g} to {p.max:g}" if p.type is ParamType.DOUBLE and p.min is not None \
            and p.max is not None else _domain(p)
        yield Finding(f"parameter {p.name!r} has the default value {p.default!r}, which it cannot take",
                      path_of(p, "default"), "hpt.default", SOURCE, allowed=f"a value of {p.name!r}: {domain}")


def _stopping(job: TrainingJob) -> Iterator[Finding]:
    hp = job.hyperparameters
    s = hp.trial_stopping if hp is not None else None
    if hp is None or s is None:
        return
    if s.min_step_count is not None and s.max_step_count is not None and s.min_step_count > s.max_step_count:
        yield Finding(f"minStepCount {s.min_step_count} is above maxStepCount {s.max_step_count}", path_of(s),
                      "hpt.stopping", SOURCE + " (ConvexAutomatedStoppingSpec)", allowed="minStepCount <= maxStepCount")
    names = {p.name for p in hp.all_params()}
    if s.learning_rate_parameter_name and s.learning_rate_parameter_name not in names:
        yield Finding(f"learningRateParameterName {s.learning_rate_parameter_name!r} is not a parameter of the study",
                      path_of(s), "hpt.stopping", SOURCE + " (ConvexAutomatedStoppingSpec)",
                      allowed="one of " + ", ".join(repr(n) for n in sorted(names)) + ", or leave it unset")


@rule
def study_spec(job: TrainingJob, ctx: Context) -> Iterator[Finding]:
    hp = job.hyperparameters
    if hp is None:
        return
    for p in hp.all_params():
        yield from _conditions(p)
        yield from _default(p)
    yield from _stopping(job)
    ids: set[str] = set()
    for m in hp.metrics:
        if m.id in ids:
            yield Finding(f"metric {m.id!r} is listed twice", path_of(m, "id"), "hpt.metric_unique", SOURCE,
                          allowed="each metric once")
        ids.add(m.id)
