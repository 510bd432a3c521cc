"""Hyperparameter tuning on this machine: trial suggestions and metrics.

* GRID_SEARCH: every combination of INTEGER, CATEGORICAL and DISCRETE values, in order.
* RANDOM_SEARCH: uniform draws (log-uniform for UNIT_LOG_SCALE, mirrored log-uniform for
  UNIT_REVERSE_LOG_SCALE), seeded by the job id; the first trial takes the default values.
* ALGORITHM_UNSPECIFIED (Vertex AI's Bayesian optimisation): Optuna's TPE sampler when Optuna
  is installed (the ``tuning`` extra), otherwise random search, and the status says so; the
  default values are its first trial.

Conditional parameters (``conditionalParameterSpecs``) are searched only in trials where their
parent takes one of the values that activate them, as Vertex AI does; a trial passes only its
active parameters to the trainer.

Trials report like cloudml-hypertune: JSON lines in $CLOUD_ML_HP_METRIC_FILE; a trial's result
is the last value its chief reported for the study's metric.
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

Json = dict[str, Any]
Params = dict[str, Any]


def _spec_kind(p: Json) -> str:
    for key in ("doubleValueSpec", "integerValueSpec", "categoricalValueSpec", "discreteValueSpec"):
        if key in p:
            return key
    raise ValueError(f"parameter {p.get('parameterId')!r} has no value spec")


def _values(p: Json) -> list[Any]:
    kind = _spec_kind(p)
    spec = p[kind]
    if kind == "integerValueSpec":
        return list(range(int(spec["minValue"]), int(spec["maxValue"]) + 1))
    if kind == "categoricalValueSpec":
        return list(spec["values"])
    if kind == "discreteValueSpec":
        return [float(v) for v in spec["values"]]
    raise ValueError(f"GRID_SEARCH cannot enumerate the DOUBLE parameter {p['parameterId']!r}")


def _parent_values(condition: Json) -> list[Any]:
    """The parent's values that make a conditional parameter active, typed as the parent's values are."""
    if "parentIntValues" in condition:
        return [int(v) for v in condition["parentIntValues"]["values"]]
    if "parentDiscreteValues" in condition:
        return [float(v) for v in condition["parentDiscreteValues"]["values"]]
    return list(condition["parentCategoricalValues"]["values"])


def active_children(p: Json, value: Any) -> list[Json]:
    """The conditional parameters of ``p`` that are searched when ``p`` takes ``value``."""
    return [c["parameterSpec"] for c in p.get("conditionalParameterSpecs", []) if value in _parent_values(c)]


def _default(p: Json) -> Any:
    spec = p[_spec_kind(p)]
    if "defaultValue" not in spec:
        return None
    value = spec["defaultValue"]
    return int(value) if "integerValueSpec" in p else value if "categoricalValueSpec" in p else float(value)


def _reverse(p: Json) -> bool:
    return p.get("scaleType") == "UNIT_REVERSE_LOG_SCALE"


def _log(p: Json) -> bool:
    return p.get("scaleType") in ("UNIT_LOG_SCALE", "UNIT_REVERSE_LOG_SCALE")


def _bounds(p: Json) -> tuple[float, float]:
    spec = p[_spec_kind(p)]
    return float(spec["minValue"]), float(spec["maxValue"])


def _reflect(p: Json, value: float) -> float:
    """UNIT_REVERSE_LOG_SCALE: a log-scaled draw mirrored in the range, so values near the top are spread
    out more than those near the bottom (Vertex AI's reverse log scale)."""
    low, high = _bounds(p)
    return high + low - value


class Grid:
    """Every combination of the parameters' values, a conditional parameter only where its parent allows it."""

    def __init__(self, params: list[Json]) -> None:
        self.points = iter(self._combos(params))

    def _combos(self, params: list[Json]) -> list[Params]:
        if not params:
            return [{}]
        first, rest = params[0], self._combos(params[1:])
        out: list[Params] = []
        for value in _values(first):
            for child in self._combos(active_children(first, value)):
                out += [{first["parameterId"]: value, **child, **tail} for tail in rest]
        return out

    def suggest(self) -> Params | None:
        return next(self.points, None)

    def observe(self, params: Params, value: float | None) -> None:
        pass


class RandomSearch:
    """Uniform draws (log-uniform, or mirrored log-uniform, on log scales); the first trial takes the
    parameters' default values where they have one."""

    def __init__(self, params: list[Json], seed: int) -> None:
        self.params = params
        self.rng = random.Random(seed)
        self.first = True

    def _draw(self, p: Json) -> Any:
        kind = _spec_kind(p)
        default = _default(p) if self.first else None
        if default is not None:
            return default
        if kind == "doubleValueSpec":
            lo, hi = _bounds(p)
            if _log(p) and lo > 0:
                value = math.exp(self.rng.uniform(math.log(lo), math.log(hi)))
                return _reflect(p, value) if _reverse(p) else value
            return self.rng.uniform(lo, hi)
        if kind == "integerValueSpec":
            lo, hi = _bounds(p)
            if _log(p) and lo > 0:
                value = round(math.exp(self.rng.uniform(math.log(lo), math.log(hi))))
                return int(_reflect(p, value)) if _reverse(p) else value
            return self.rng.randint(int(lo), int(hi))
        return self.rng.choice(_values(p))

    def _walk(self, params: list[Json], out: Params) -> None:
        for p in params:
            value = out[p["parameterId"]] = self._draw(p)
            self._walk(active_children(p, value), out)

    def suggest(self) -> Params | None:
        out: Params = {}
        self._walk(self.params, out)
        self.first = False
        return out

    def observe(self, params: Params, value: float | None) -> None:
        pass


class Bayesian:
    """Optuna's TPE sampler, driven with ask/tell; conditional parameters are asked only when active."""

    def __init__(self, params: list[Json], seed: int, maximize: bool) -> None:
        import optuna

        optuna.logging.set_verbosity(optuna.logging.WARNING)
        self.optuna = optuna
        self.params = params
        self.study = optuna.create_study(direction="maximize" if maximize else "minimize",
                                         sampler=optuna.samplers.TPESampler(seed=seed))
        defaults = self._defaults(params)
        if defaults:
            self.study.enqueue_trial(defaults)  # Vertex AI's defaultValue: a good starting point, tried first
        self.pending: dict[tuple[tuple[str, Any], ...], Any] = {}

    def _defaults(self, params: list[Json]) -> Params:
        out: Params = {}
        for p in params:
            value = _default(p)
            if value is not None:
                out[p["parameterId"]] = _reflect(p, value) if _reverse(p) else value
                out.update(self._defaults(active_children(p, value)))
        return out

    def _ask(self, trial: Any, p: Json) -> Any:
        kind, name = _spec_kind(p), p["parameterId"]
        if kind in ("doubleValueSpec", "integerValueSpec"):
            lo, hi = _bounds(p)
            ask = trial.suggest_float if kind == "doubleValueSpec" else trial.suggest_int
            value = ask(name, lo if kind == "doubleValueSpec" else int(lo), hi if kind == "doubleValueSpec"
                        else int(hi), log=_log(p) and lo > 0)
            return type(value)(_reflect(p, value)) if _reverse(p) else value
        return trial.suggest_categorical(name, _values(p))

    def _walk(self, trial: Any, params: list[Json], out: Params) -> None:
        for p in params:
            value = out[p["parameterId"]] = self._ask(trial, p)
            self._walk(trial, active_children(p, value), out)

    def suggest(self) -> Params | None:
        trial = self.study.ask()
        out: Params = {}
        self._walk(trial, self.params, out)
        self.pending[tuple(sorted(out.items()))] = trial
        return out

    def observe(self, params: Params, value: float | None) -> None:
        trial = self.pending.pop(tuple(sorted(params.items())), None)
        if trial is None:
            return
        if value is None:
            self.study.tell(trial, state=self.optuna.trial.TrialState.FAIL)
        else:
            self.study.tell(trial, value)


def suggester(study: Json, seed: int) -> tuple[Any, str | None]:
    """The suggester for a StudySpec, and a note when it is not what was asked for."""
    params = study.get("parameters", [])
    algorithm = study.get("algorithm", "ALGORITHM_UNSPECIFIED")
    if algorithm == "GRID_SEARCH":
        return Grid(params), None
    if algorithm == "RANDOM_SEARCH":
        return RandomSearch(params, seed), None
    maximize = study.get("metrics", [{}])[0].get("goal", "MAXIMIZE") != "MINIMIZE"
    try:
        return Bayesian(params, seed, maximize), None
    except ImportError:
        return RandomSearch(params, seed), "Optuna is not installed: Bayesian optimisation ran as random search"


def trial_args(params: Params) -> list[str]:
    """Hyperparameters reach the trainer as command-line arguments, --name=value."""
    return [f"--{name}={value!r}" if isinstance(value, float) else f"--{name}={value}" for name, value in params.items()]


def read_metric(path: Path, tag: str) -> float | None:
    """The last value reported for ``tag`` in a cloudml-hypertune metrics file."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    for line in reversed(lines):
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and tag in entry:
            try:
                value = float(entry[tag])
            except (TypeError, ValueError):
                continue
            if math.isfinite(value):
                return value
    return None


def better(goal: str, a: float, b: float) -> bool:
    return a > b if goal != "MINIMIZE" else a < b
