"""Reading a StudySpec's stopping settings into the model: shared by the native ``hyperparameters``
block and Vertex AI's ``studySpec`` (provider/spec/formats/native/tuning.py, vertex_tuning/study.py),
which name the same fields alike but for the runtime constraints' keys; and the trial counts as a
gcloud config writes them (Vertex's maxTrialCount and AI Platform's maxTrials alike)."""

from __future__ import annotations

from collections.abc import Callable

from provider.spec.model import Note, StoppingKind, StudyStopping, TimeConstraint, TrialStopping
from provider.spec.reader import ConversionError, Node

KeyName = Callable[[str], str]  # a camelCase field name -> the key a body writes it as (snake_case in SDK dicts)


def number(value: object, what: str) -> float:
    """A double as Google's readers take it: a JSON number, or a number written as a string (protobuf's JSON
    mapping; gcloud's apitools reads a config's '0.01' as 0.01 too)."""
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            raise ConversionError(f"{what} is not a number") from None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConversionError(f"{what} is not a number")
    return float(value)


def bound(value: object, what: str, integer: bool) -> float:
    """A parameter's bound: a double (``number``), or for an INTEGER parameter an int64 kept exact (a JSON number
    or, as protobuf's JSON mapping writes int64, a string of digits: '1234567890123456789' is not rounded to a
    double's 1234567890123456768). A bound that is not whole stays a float, for the rule that names it."""
    if integer and isinstance(value, str) and value.strip().lstrip("+-").isdigit():
        return int(value.strip())
    if integer and isinstance(value, int) and not isinstance(value, bool):
        return value
    return number(value, what)


def _same(name: str) -> str:
    return name


def trial_stopping(node: Node, kind: StoppingKind, k: KeyName = _same) -> TrialStopping:
    """An automated stopping spec (decay curve, median, convex) of ``kind``."""
    return TrialStopping(
        kind=kind, use_elapsed_duration=node.given_flag(k("useElapsedDuration")),
        max_step_count=node.integer(k("maxStepCount")), min_step_count=node.integer(k("minStepCount")),
        min_measurement_count=node.integer(k("minMeasurementCount")),
        learning_rate_parameter_name=node.text(k("learningRateParameterName")),
        update_all_stopped_trials=node.given_flag(k("updateAllStoppedTrials")), at={"": node.path})


def time_constraint(node: Node | None, k: KeyName = _same) -> TimeConstraint | None:
    if node is None:
        return None
    return TimeConstraint(max_duration_seconds=node.duration(k("maxDuration")), end_time=node.text(k("endTime")))


def study_stopping(node: Node | None, minimum: str, maximum: str, k: KeyName = _same) -> StudyStopping | None:
    """A studyStoppingConfig; ``minimum`` and ``maximum`` are the keys of its runtime constraints."""
    if node is None:
        return None
    asap = node.raw(k("shouldStopAsap"))
    return StudyStopping(
        should_stop_asap=None if asap is None else node.flag(k("shouldStopAsap")),
        minimum_runtime=time_constraint(node.child(minimum), k),
        maximum_runtime=time_constraint(node.child(maximum), k),
        min_num_trials=node.integer(k("minNumTrials")), max_num_trials=node.integer(k("maxNumTrials")),
        max_num_trials_no_progress=node.integer(k("maxNumTrialsNoProgress")),
        max_duration_no_progress_seconds=node.duration(k("maxDurationNoProgress")), at={"": node.path})


def config_count(value: object) -> object:
    """A count as gcloud reads it from a config: apitools turns a string into ``int(value)`` when Python
    can ("0", "03", " 4") and leaves any other value as written
    (third_party/apitools/base/protorpclite/protojson.py ``ProtoJson.decode_field``)."""
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            return value
    return value


def trial_count(node: Node, key: str, notes: list[Note], why: str, source: str) -> int:
    """A trial count as gcloud reads a config (apitools' ``ProtoJson.decode_field``: a string is the number
    Python's int() reads in it, "3", "03", " 4"); a count of 0 ("0" alike) is not given, so the job runs 1
    (``why`` says whose rule that is), said in a warning; none is 1."""
    raw = node.data.get(key)
    if isinstance(raw, str):
        read = config_count(raw)
        if not isinstance(read, int):
            raise ConversionError(f"{key} is not an integer")
        value = read
    else:
        value = node.integer(key, 1) or 0
    if value == 0:
        notes.append(Note(f"{key} is {raw!r}: {why}, so the job runs 1", node.at(key), "vx.hpt.count", source,
                          allowed=f"{key}: a count of 1 or more"))
        return 1
    return value
