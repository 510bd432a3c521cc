"""Hyperparameter tuning on this machine: trial suggestions and metrics.

* GRID_SEARCH: every combination of INTEGER, CATEGORICAL and DISCRETE values, in order.
* RANDOM_SEARCH: uniform draws (log-uniform for UNIT_LOG_SCALE), seeded by the job id.
* ALGORITHM_UNSPECIFIED (Vertex AI's Bayesian optimisation): Optuna's TPE sampler when Optuna
  is installed (the ``tuning`` extra), otherwise random search, and the status says so.

Trials report like cloudml-hypertune: JSON lines in $CLOUD_ML_HP_METRIC_FILE; a trial's result
is the last value its chief reported for the study's metric.
"""

from __future__ import annotations

import itertools
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


class Grid:
    def __init__(self, params: list[Json]) -> None:
        names = [p["parameterId"] for p in params]
        self.points = iter(dict(zip(names, combo)) for combo in itertools.product(*(_values(p) for p in params)))

    def suggest(self) -> Params | None:
        return next(self.points, None)

    def observe(self, params: Params, value: float | None) -> None:
        pass


class RandomSearch:
    def __init__(self, params: list[Json], seed: int) -> None:
        self.params = params
        self.rng = random.Random(seed)

    def _draw(self, p: Json) -> Any:
        kind = _spec_kind(p)
        spec = p[kind]
        log = p.get("scaleType") in ("UNIT_LOG_SCALE", "UNIT_REVERSE_LOG_SCALE")
        if kind == "doubleValueSpec":
            lo, hi = float(spec["minValue"]), float(spec["maxValue"])
            if log and lo > 0:
                return math.exp(self.rng.uniform(math.log(lo), math.log(hi)))
            return self.rng.uniform(lo, hi)
        if kind == "integerValueSpec":
            return self.rng.randint(int(spec["minValue"]), int(spec["maxValue"]))
        return self.rng.choice(_values(p))

    def suggest(self) -> Params | None:
        return {p["parameterId"]: self._draw(p) for p in self.params}

    def observe(self, params: Params, value: float | None) -> None:
        pass


class Bayesian:
    """Optuna's TPE sampler, driven with ask/tell."""

    def __init__(self, params: list[Json], seed: int, maximize: bool) -> None:
        import optuna

        optuna.logging.set_verbosity(optuna.logging.WARNING)
        self.optuna = optuna
        self.params = params
        self.study = optuna.create_study(direction="maximize" if maximize else "minimize",
                                         sampler=optuna.samplers.TPESampler(seed=seed))
        self.pending: dict[tuple[tuple[str, Any], ...], Any] = {}

    def suggest(self) -> Params | None:
        trial = self.study.ask()
        out: Params = {}
        for p in self.params:
            kind, spec, name = _spec_kind(p), p[_spec_kind(p)], p["parameterId"]
            log = p.get("scaleType") in ("UNIT_LOG_SCALE", "UNIT_REVERSE_LOG_SCALE")
            if kind == "doubleValueSpec":
                out[name] = trial.suggest_float(name, float(spec["minValue"]), float(spec["maxValue"]), log=log)
            elif kind == "integerValueSpec":
                out[name] = trial.suggest_int(name, int(spec["minValue"]), int(spec["maxValue"]), log=log)
            else:
                out[name] = trial.suggest_categorical(name, _values(p))
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
