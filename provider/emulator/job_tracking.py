"""A job's ties to TensorBoard and experiments, as Vertex AI makes them.

* ``prepare``: a valid CustomJob's ``jobSpec.tensorboard``, ``experiment`` and ``experimentRun`` (a
  tuning job's ``trialJobSpec``'s) name resources that exist (NOT_FOUND otherwise, before the job is
  created). A job run in an experiment
  without a run (``CustomJob.run(experiment=...)`` alone, or a training pipeline whose custom task
  names one) gets one, as Vertex AI makes one: before the job runs, the emulator creates the
  ExperimentRun (a ``system.ExperimentRun`` context, child of the experiment's, with the
  ``_params``, ``_metrics`` and ``_state`` the SDK reads) and fills ``jobSpec.experimentRun``, so
  the trainer gets ``AIP_EXPERIMENT_RUN_NAME``. Vertex AI does not document the name it gives; here
  the run's name is the job's ID (what the SDK's ``job.name`` is), so
  ``aiplatform.ExperimentRun(job.name, experiment=...)`` finds it; its context ID is
  ``{experiment}-{job ID}``, as the SDK names a run's context. A tuning job whose trialJobSpec
  names an experiment and no run gets one run per trial, ``{job ID}-{trial ID}``, all made when it
  is created (a trial's trainer logs as soon as it starts, and the trials start in the local
  backend's supervisor); each trial's replicas get theirs as ``AIP_EXPERIMENT_RUN_NAME``
  (provider.backends.local.cluster.trial_run; the emulator makes it from the same trial_run_id and
  run_context, so the two names can never differ).
* ``ended``: a run made for a job ends with it, once the job is in a final state, whoever reads
  what: the emulator follows the job (run_watch.py, which also uploads its TensorBoard logs then),
  and a read or list of the job ends it too: ``COMPLETE`` when it succeeded, ``FAILED`` or ``CANCELLED`` else,
  as ``end_run`` ends a run the SDK owns. A run the caller named is the caller's to end (the SDK's
  ``CustomJob.run`` ends it). A trial's run ends with the trial; once the tuning job has ended, the
  runs made for trials that never started are deleted.
* ``created``: a job run in an experiment run is listed in that run's ``_custom_jobs`` metadata
  (what ``ExperimentRun.get_logged_custom_jobs`` reads).
* ``upload_logs``: the TensorBoard event files a job wrote to ``AIP_TENSORBOARD_LOG_DIR``
  (``baseOutputDirectory/logs/``, in the emulated storage) become the scalars of the TensorBoard
  it names: an experiment named after the job's ID, one run per log subdirectory (``default``
  for the log directory itself, names made as the SDK's uploader makes them), one time series
  per tag. Vertex AI streams them while the job runs; the emulator reads what is new each time
  the job is read, and once more when it has ended. Reading event files needs the
  ``tensorboard`` extra (it is imported only here, when a job names a TensorBoard); without it
  the logs stay in storage for ``trainjobs tensorboard``. A pipeline's backing job can call it
  with its own ``tensorboard`` and output directory.
"""

from __future__ import annotations

import importlib.util
import json
import re
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from provider.backends.local.cluster import run_context, trial_run, trial_run_id
from provider.backends.local.store import new_job_id, now
from provider.core import job_kinds
from provider.core.names import snake as to_snake
from provider.emulator import metadata_schemas
from provider.emulator.errors import invalid, not_found
from provider.emulator.nested import ID_PATTERN, KINDS

if TYPE_CHECKING:
    from provider.emulator.nested_routes import Tracking

Json = dict[str, Any]
_RUN_NAME = re.compile(r"[^a-zA-Z0-9\n-]")  # the SDK uploader's reformat_run_name
_SCALAR = "SCALAR"
_RUN_SCHEMA = "system.ExperimentRun"
_BACKING_TENSORBOARD = "backing_tensorboard_resource"  # the SDK's metadata/constants.py names
_EXPERIMENT_TB_LABEL = {"vertex_tensorboard_experiment_source": "vertex_experiment"}
_RUNNING = "RUNNING"
# A job's final state -> its run's (aiplatform_v1.Execution.State names, what ExperimentRun.get_state reads).
_ENDS = {"JOB_STATE_SUCCEEDED": "COMPLETE", "JOB_STATE_FAILED": "FAILED", "JOB_STATE_CANCELLED": "CANCELLED"}
_UPLOADING = threading.Lock()
_TRIAL_ENDS = {"SUCCEEDED": "COMPLETE", "INFEASIBLE": "FAILED"}  # a trial's final state -> its run's


def _spec(job: Json) -> Json:
    spec = job.get("jobSpec")
    return spec if isinstance(spec, dict) else {}


def prepare(tracking: Tracking, job_name: str, body: Json) -> bool:
    """Called by the job service once the job is valid, before it runs (run_watch.RunWatch.prepare):
    whether the job is to be followed (a run was made for it, or it logs to a TensorBoard)."""
    kind = job_kinds.of_collection(job_name.split("/")[-2]) or job_kinds.CUSTOM_JOB
    raw = body.get(kind.spec_field)
    spec: Json = raw if isinstance(raw, dict) else {}
    for field, collection in (("tensorboard", "tensorboards"), ("experiment", "contexts"),
                              ("experimentRun", "contexts")):
        name = spec.get(field)
        if isinstance(name, str) and name and tracking.records.get(name) is None:
            snake = to_snake(field)
            raise not_found(f"The {KINDS[collection].message} {name} named in {kind.spec_field_snake}.{snake} does "
                            "not exist: create it first (the SDK's aiplatform.init(experiment=...) and start_run do).")
    experiment = spec.get("experiment")
    if not isinstance(experiment, str) or not experiment or spec.get("experimentRun"):
        return bool(spec.get("tensorboard"))
    if kind.tuning:  # a run per trial, made now: a trial's trainer logs to it as soon as it starts
        job_id, trials = job_name.rsplit("/", 1)[1], int(body.get("maxTrialCount") or 1)
        _run_context(experiment, trial_run_id(job_id, str(trials)), kind)  # the longest fits, or none is made
        for trial in range(1, trials + 1):
            _make_run(tracking, experiment, job_name, trial_run_id(job_id, str(trial)), kind)
    else:
        spec["experimentRun"] = _make_run(tracking, experiment, job_name, job_name.rsplit("/", 1)[1], kind)
    return True


def _run_context(experiment: str, run_id: str, kind: job_kinds.JobKind) -> tuple[str, str]:
    """(metadata store, context ID) of the run ``run_id`` of ``experiment``, as the SDK names a run's context."""
    store, _, context_id = run_context(experiment, run_id).rpartition("/contexts/")
    if not re.fullmatch(ID_PATTERN, context_id):
        raise invalid(f"The experiment run made for this job would be the context {context_id!r}, which is not a "
                      f"valid context ID ({ID_PATTERN}): name the run yourself ({kind.spec_field_snake}."
                      "experiment_run, the SDK's experiment_run=) or use a shorter experiment name.")
    return store, context_id


def _backing_experiment(tracking: Tracking, experiment: str) -> None:
    """The experiment's TensorboardExperiment in its backing TensorBoard, made if missing.

    ExperimentRun.create makes it (or finds it) when the experiment has a backing TensorBoard; a run
    made here has none yet, so the SDK assigns one lazily, and ExperimentRun.list does that for
    every such run at once, in threads: each GETs the TensorboardExperiment, finds none, creates it,
    and all but one fail with ALREADY_EXISTS. Made here, once, the lazy assignments only add runs."""
    context = tracking.records.get(experiment)
    tensorboard = ((context or {}).get("body", {}).get("metadata") or {}).get(_BACKING_TENSORBOARD)
    if not isinstance(tensorboard, str) or tracking.records.get(tensorboard) is None:
        return
    experiment_id = experiment.rpartition("/contexts/")[2]
    with tracking.records.lock:
        if tracking.records.get(f"{tensorboard}/experiments/{experiment_id}") is None:
            tracking.nested.insert(KINDS["experiments"], tensorboard, experiment_id,
                                   {"displayName": experiment_id, "labels": dict(_EXPERIMENT_TB_LABEL)})


def _make_run(tracking: Tracking, experiment: str, job: str, run_id: str, kind: job_kinds.JobKind) -> str:
    """The ExperimentRun ``run_id`` made for ``job``, as ExperimentRun.create makes one."""
    store, context_id = _run_context(experiment, run_id, kind)
    _backing_experiment(tracking, experiment)
    with tracking.records.lock:
        record = tracking.nested.insert(KINDS["contexts"], store, context_id, {
            "displayName": run_id, "schemaTitle": _RUN_SCHEMA, "schemaVersion": metadata_schemas.VERSION,
            "metadata": {"_params": {}, "_metrics": {}, "_state": _RUNNING}})
        tracking.records.put({**record, "made_for": job})  # ended() ends only the runs made for a job
    tracking.links.add_children(experiment, json.dumps({"childContexts": [record["name"]]}).encode())
    return str(record["name"])


def has_ended(job: Json) -> bool:
    """Whether the job (its REST JSON) is in a final state."""
    return str(job.get("state")) in _ENDS


def running_jobs(tracking: Tracking) -> set[str]:
    """The jobs that runs still RUNNING were made for (RunWatch follows them again after a restart)."""
    with tracking.records.lock:
        return {str(r["made_for"]) for r in tracking.records.everywhere("contexts")
                if r.get("made_for") and (r["body"].get("metadata") or {}).get("_state") == _RUNNING}


def ended(tracking: Tracking, job: Json) -> None:
    """The job was read: the run made for it ends with it, once; a tuning job's, with their trials."""
    if "trialJobSpec" in job:
        _trials_ended(tracking, job)
        return
    run, state = _spec(job).get("experimentRun"), _ENDS.get(str(job.get("state")))
    if run and state is not None:
        _end(tracking, run, job["name"], state)


def _end(tracking: Tracking, run: str, job: str, state: str) -> None:
    with tracking.records.lock:
        record = tracking.records.get(run)
        if record is None or record.get("made_for") != job:
            return
        metadata = dict(record["body"].get("metadata") or {})
        if metadata.get("_state") != _RUNNING:
            return
        tracking.records.put({**record, "body": {**record["body"], "metadata": {**metadata, "_state": state}},
                              "update_time": now(), "etag": new_job_id()})


def _trials_ended(tracking: Tracking, job: Json) -> None:
    """Each trial's run ends with the trial (or with the job, for a trial it stopped); once the job has
    ended, the runs made for trials that never started are deleted (an experiment lists no phantom runs)."""
    spec = job["trialJobSpec"]
    experiment = spec.get("experiment")
    if not experiment or spec.get("experimentRun"):
        return
    job_state = _ENDS.get(str(job.get("state")))
    states = {str(t.get("id")): str(t.get("state")) for t in job.get("trials") or []}
    job_id = job["name"].rsplit("/", 1)[1]
    for trial in range(1, int(job.get("maxTrialCount") or 1) + 1):
        run = trial_run(experiment, job_id, str(trial))
        state = _TRIAL_ENDS.get(states.get(str(trial), ""), job_state if str(trial) in states else None)
        if state is not None:
            _end(tracking, run, job["name"], state)
        elif job_state is not None and str(trial) not in states:
            with tracking.records.lock:  # RunWatch and a read may both get here
                record = tracking.records.get(run)
                if record is not None and record.get("made_for") == job["name"]:
                    tracking.links.remove_children(experiment, json.dumps({"childContexts": [run]}).encode())
                    tracking.records.drop(run)


def created(tracking: Tracking, job: Json) -> None:
    run = _spec(job).get("experimentRun")
    if not run:
        return
    with tracking.records.lock:
        record = tracking.records.get(run)
        if record is None:
            return
        metadata = dict(record["body"].get("metadata") or {})
        jobs = [*metadata.get("_custom_jobs", []), {"custom_job_resource_name": job["name"],
                                                    "custom_job_console_uri": ""}]
        tracking.records.put({**record, "body": {**record["body"], "metadata": {**metadata, "_custom_jobs": jobs}}})
    ended(tracking, job)  # a job the local backend could not run is FAILED from the start


def log_dir(storage_root: Path, output_uri: str) -> Path | None:
    """Where ``output_uri``/logs/ lies in the emulated storage; None when it is not a gs:// URI."""
    if not output_uri.startswith("gs://"):
        return None
    return storage_root / output_uri[len("gs://"):].rstrip("/") / "logs"


def _scalars(path: Path) -> list[tuple[str, Json]]:
    """(tag, TimeSeriesDataPoint JSON) for every scalar in an event file."""
    from tensorboard.backend.event_processing.event_file_loader import EventFileLoader
    from tensorboard.util import tensor_util

    out = []
    for event in EventFileLoader(str(path)).Load():
        for value in event.summary.value:
            if value.metadata.plugin_data.plugin_name != "scalars":
                continue
            number = float(tensor_util.make_ndarray(value.tensor).item())
            seconds = event.wall_time
            stamp = f"{int(seconds)}.{int(seconds % 1 * 1e6):06d}"
            out.append((value.tag, {"step": str(event.step), "wallTime": _rfc3339(stamp),
                                    "scalar": {"value": number}}))
    return out


def _rfc3339(stamp: str) -> str:
    import datetime as dt

    seconds, micros = stamp.split(".")
    when = dt.datetime.fromtimestamp(int(seconds), dt.UTC).strftime("%Y-%m-%dT%H:%M:%S")
    return f"{when}.{micros}Z"


def upload_logs(tracking: Tracking, tensorboard: str, experiment_id: str, logs: Path) -> int:
    """Write the scalars of the event files under ``logs`` not yet written; how many points were new."""
    with _UPLOADING:  # RunWatch and a read of the job may upload at once: each point is written once
        return _upload(tracking, tensorboard, experiment_id, logs)


def _upload(tracking: Tracking, tensorboard: str, experiment_id: str, logs: Path) -> int:
    if tracking.records.get(tensorboard) is None or not logs.is_dir():
        return 0
    files = sorted(p for p in logs.rglob("*") if p.is_file() and ".tfevents." in p.name)
    if not files:
        return 0
    if importlib.util.find_spec("tensorboard") is None:  # the tensorboard extra reads event files
        return 0
    experiment = f"{tensorboard}/experiments/{experiment_id}"
    with tracking.records.lock:
        if tracking.records.get(experiment) is None:
            tracking.nested.insert(KINDS["experiments"], tensorboard, experiment_id, {"displayName": experiment_id})
        done: dict[str, int] = dict((tracking.records.get(experiment) or {}).get("uploaded") or {})
    new = 0
    for path in files:
        relative = path.relative_to(logs)
        points = _scalars(path)[done.get(str(relative), 0):]
        if not points:
            continue
        _write_points(tracking, experiment, str(relative.parent), points)
        done[str(relative)] = done.get(str(relative), 0) + len(points)
        new += len(points)
    with tracking.records.lock:
        record = tracking.records.get(experiment)
        if record is not None:
            tracking.records.put({**record, "uploaded": done})
    return new


def _write_points(tracking: Tracking, experiment: str, folder: str, points: list[tuple[str, Json]]) -> None:
    """Write ``points`` (tag, point) of the log folder ``folder`` to its run of ``experiment``."""
    nested = tracking.nested
    run_id = _RUN_NAME.sub("-", folder if folder != "." else "default").lower().strip("-") or "default"
    run = f"{experiment}/runs/{run_id}"
    if tracking.records.get(run) is None:
        nested.insert(KINDS["runs"], experiment, run_id, {"displayName": folder if folder != "." else "default"})
    series: dict[str, str] = {r["body"]["displayName"]: r["id"] for r in tracking.records.walk("timeSeries", run)}
    batch: dict[str, list[Json]] = {}
    for tag, point in points:
        if tag not in series:
            series[tag] = nested.insert(KINDS["timeSeries"], run, None,
                                        {"displayName": tag, "valueType": _SCALAR})["id"]
        batch.setdefault(series[tag], []).append(point)
    tracking.data.write_run(run, json.dumps({"timeSeriesData": [
        {"tensorboardTimeSeriesId": sid, "valueType": _SCALAR, "values": values}
        for sid, values in batch.items()]}).encode())


def seen(tracking: Tracking, storage_root: Path, job: Json) -> None:
    """A job was read: upload what it has written to its TensorBoard since; end its run if it has ended
    (after the upload: a client that sees the run ended finds its curves whole)."""
    spec = _spec(job)
    tensorboard = spec.get("tensorboard")
    output = (spec.get("baseOutputDirectory") or {}).get("outputUriPrefix") or ""
    logs = log_dir(storage_root, output)
    if tensorboard and logs is not None:
        upload_logs(tracking, tensorboard, job["name"].rsplit("/", 1)[1], logs)
    ended(tracking, job)
