"""The model of a hyperparameter tuning job: Vertex AI's StudySpec, as every format reads it.

The native ``hyperparameters`` block, AI Platform's ``HyperparameterSpec`` and Vertex AI's
``studySpec`` (a HyperparameterTuningJob) all become these values; ``provider.spec.model``
re-exports them beside the rest of the job's model.
"""

from __future__ import annotations

import enum

from provider.core.record import Record, field
from provider.spec.where import Where, path_of


class ParamType(enum.Enum):
    DOUBLE = "DOUBLE"
    INTEGER = "INTEGER"
    CATEGORICAL = "CATEGORICAL"
    DISCRETE = "DISCRETE"


class HyperParam(Record):
    """One hyperparameter a tuning job searches: its type and range or values, its default, and the
    parameters searched only when it takes given values (Vertex AI's conditionalParameterSpecs)."""

    name: str
    type: ParamType
    min: float | None = None
    max: float | None = None
    values: tuple[str | float, ...] = ()
    scale: str | None = None
    default: str | float | None = None
    conditions: tuple[ParamCondition, ...] = ()
    at: Where = field(default_factory=dict, compare=False, repr=False)


class ParamCondition(Record):
    """A conditional parameter: ``param`` is searched only when its parent takes one of ``parent_values``."""

    parent_values: tuple[str | float, ...]
    param: HyperParam
    at: Where = field(default_factory=dict, compare=False, repr=False)


class Safety(Record):
    """MetricSpec.safetyConfig: the metric is a safety metric with this threshold."""

    threshold: float | None = None
    min_safe_trials_fraction: float | None = None


class Metric(Record):
    """One metric of a study: the id the trainer reports, its goal, and its safety bounds."""

    id: str
    goal: str
    safety: Safety | None = None
    at: Where = field(default_factory=dict, compare=False, repr=False)


class StoppingKind(enum.Enum):
    """Vertex AI's automated early stopping of trials: one of three specs (the REST field names)."""

    DECAY_CURVE = "decayCurveStoppingSpec"
    MEDIAN = "medianAutomatedStoppingSpec"
    CONVEX = "convexAutomatedStoppingSpec"


class TrialStopping(Record):
    """A study's automated stopping spec; the step and measurement counts are the convex spec's."""

    kind: StoppingKind
    use_elapsed_duration: bool | None = None  # None: not written; an explicit false is sent
    max_step_count: int | None = None
    min_step_count: int | None = None
    min_measurement_count: int | None = None
    learning_rate_parameter_name: str | None = None
    update_all_stopped_trials: bool | None = None
    at: Where = field(default_factory=dict, compare=False, repr=False)


class TimeConstraint(Record):
    """StudyTimeConstraint: a duration or an end time (RFC 3339)."""

    max_duration_seconds: float | None = None
    end_time: str | None = None


class StudyStopping(Record):
    """StudySpec.studyStoppingConfig: when the whole study stops."""

    should_stop_asap: bool | None = None
    minimum_runtime: TimeConstraint | None = None
    maximum_runtime: TimeConstraint | None = None
    min_num_trials: int | None = None
    max_num_trials: int | None = None
    max_num_trials_no_progress: int | None = None
    max_duration_no_progress_seconds: float | None = None
    at: Where = field(default_factory=dict, compare=False, repr=False)


class Hyperparameters(Record):
    """A hyperparameter tuning job: the metric and its goal, the parameters, and how many trials.

    ``goal`` and ``metric`` are the study's first metric (the one the local backend ranks
    trials by); ``other_metrics`` are the rest of Vertex AI's ``studySpec.metrics``.
    """

    goal: str  # MAXIMIZE | MINIMIZE
    metric: str
    params: tuple[HyperParam, ...]
    max_trials: int = 1
    max_parallel_trials: int = 1
    max_failed_trials: int | None = None  # None: not written (an explicit 0 is sent, as gcloud does)
    algorithm: str | None = None  # None: not written; an explicit ALGORITHM_UNSPECIFIED is sent as written
    safety: Safety | None = None
    other_metrics: tuple[Metric, ...] = ()
    measurement_selection: str | None = None  # LAST_MEASUREMENT | BEST_MEASUREMENT
    observation_noise: str | None = None  # LOW | HIGH
    trial_stopping: TrialStopping | None = None
    study_stopping: StudyStopping | None = None
    at: Where = field(default_factory=dict, compare=False, repr=False)

    @property
    def metrics(self) -> tuple[Metric, ...]:
        """Every metric of the study, the primary first."""
        first = Metric(self.metric, self.goal, self.safety,
                       at={"": path_of(self, "metric"), "id": path_of(self, "metric"), "safety": path_of(self, "safety")})
        return (first, *self.other_metrics)

    def all_params(self) -> tuple[HyperParam, ...]:
        """Every parameter, the conditional ones after their parent (depth first)."""
        out: list[HyperParam] = []

        def walk(params: tuple[HyperParam, ...]) -> None:
            for p in params:
                out.append(p)
                walk(tuple(c.param for c in p.conditions))

        walk(self.params)
        return tuple(out)
