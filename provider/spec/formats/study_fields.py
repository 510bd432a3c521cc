"""Reading a StudySpec's stopping settings into the model: shared by the native ``hyperparameters``
block and Vertex AI's ``studySpec`` (provider/spec/formats/native/tuning.py, vertex_tuning/study.py),
which name the same fields alike but for the runtime constraints' keys."""

from __future__ import annotations

from provider.spec.model import StoppingKind, StudyStopping, TimeConstraint, TrialStopping
from provider.spec.reader import Node


def trial_stopping(node: Node, kind: StoppingKind) -> TrialStopping:
    """An automated stopping spec (decay curve, median, convex) of ``kind``."""
    return TrialStopping(
        kind=kind, use_elapsed_duration=node.flag("useElapsedDuration"),
        max_step_count=node.integer("maxStepCount"), min_step_count=node.integer("minStepCount"),
        min_measurement_count=node.integer("minMeasurementCount"),
        learning_rate_parameter_name=node.text("learningRateParameterName"),
        update_all_stopped_trials=node.flag("updateAllStoppedTrials"), at={"": node.path})


def time_constraint(node: Node | None) -> TimeConstraint | None:
    if node is None:
        return None
    return TimeConstraint(max_duration_seconds=node.duration("maxDuration"), end_time=node.text("endTime"))


def study_stopping(node: Node | None, minimum: str, maximum: str) -> StudyStopping | None:
    """A studyStoppingConfig; ``minimum`` and ``maximum`` are the keys of its runtime constraints."""
    if node is None:
        return None
    asap = node.raw("shouldStopAsap")
    return StudyStopping(
        should_stop_asap=None if asap is None else node.flag("shouldStopAsap"),
        minimum_runtime=time_constraint(node.child(minimum)), maximum_runtime=time_constraint(node.child(maximum)),
        min_num_trials=node.integer("minNumTrials"), max_num_trials=node.integer("maxNumTrials"),
        max_num_trials_no_progress=node.integer("maxNumTrialsNoProgress"),
        max_duration_no_progress_seconds=node.duration("maxDurationNoProgress"), at={"": node.path})
