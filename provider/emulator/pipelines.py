"""Training pipelines: Vertex AI's ``projects.locations.trainingPipelines``, for the custom task.

What ``CustomTrainingJob``, ``CustomPythonPackageTrainingJob`` and ``CustomContainerTrainingJob``
``.run()`` create. A pipeline whose ``trainingTaskDefinition`` is the custom task
(``.../trainingjob/definition/custom_task_1.0.0.yaml``) runs as Vertex AI runs it:

* ``trainingTaskInputs`` is a CustomJobSpec (snake_case or camelCase keys, as the SDK sends them):
  parsed and validated exactly as a custom job's ``jobSpec`` is (validate.py, the job service: the
  same rules and 400s, field paths under ``training_task_inputs``), then run as a **backing
  CustomJob** (listed with the custom jobs) named in ``trainingTaskMetadata.backingCustomJob``.
  The pipeline's state (``PIPELINE_STATE_*``), times and error are the backing job's.
* ``inputDataConfig`` names a tabular dataset (datasets.py): its split is written to Cloud Storage
  before the job starts and the trainer gets ``AIP_DATA_FORMAT`` and ``AIP_*_DATA_URI``.
* On success, ``modelToUpload`` is registered (model_registry.py; ``modelId``, ``parentModel``
  and its version aliases apply) with ``artifactUri`` = ``baseOutputDirectory/model``, where the
  trainer wrote ``AIP_MODEL_DIR`` (unless the request set its own ``artifactUri``); the pipeline
  ends SUCCEEDED with ``modelToUpload.name`` and ``versionId``. A trainer that wrote nothing there
  fails the pipeline, saying so, as Vertex AI does.
* ``cancel`` cancels the backing job (FAILED_PRECONDITION once the pipeline has ended); ``delete``
  (only once it has ended) is an Operation and leaves the backing job, as Vertex AI does.

Any other task definition (AutoML tables, images, text, forecasting ...) is refused by name:
UNIMPLEMENTED. Once a pipeline has ended its outcome is kept in its record, so it stays whole
when its backing job is deleted, and a restarted emulator serves it.
"""

from __future__ import annotations

import copy
import json
import threading
from typing import TYPE_CHECKING, Any

from provider.backends.local.paths import Storage, StorageError
from provider.backends.local.store import new_job_id, now
from provider.backends.vertex.states import PIPELINE_STATE_NAMES
from provider.core.job_kinds import CUSTOM_JOB
from provider.core.rpc_code import RpcCode
from provider.emulator import listing, wire
from provider.emulator.datasets import DatasetService
from provider.emulator.errors import ApiError, FieldViolation, failed_precondition, invalid, not_found
from provider.emulator.model_registry import ModelRegistry, check_model
from provider.emulator.operations import EMPTY, Operations

if TYPE_CHECKING:
    from pathlib import Path

    from provider.emulator.service import JobService

Json = dict[str, Any]

KIND = "TrainingPipeline"
DEFINITIONS = "gs://google-cloud-aiplatform/schema/trainingjob/definition/"
CUSTOM_TASK = DEFINITIONS + "custom_task_1.0.0.yaml"
TERMINAL = ("PIPELINE_STATE_SUCCEEDED", "PIPELINE_STATE_FAILED", "PIPELINE_STATE_CANCELLED")
_STATES = tuple(n.removeprefix("PIPELINE_STATE_") for n in PIPELINE_STATE_NAMES)
AT = "training_pipeline.training_task_inputs"


def _key(pipeline_id: str) -> str:
    return f"{KIND}.{pipeline_id}"


def pipeline_state(job_state: str) -> str:
    """A backing job's JOB_STATE_X as the pipeline's PIPELINE_STATE_X (a job-only state reads as failed)."""
    rest = job_state.removeprefix("JOB_STATE_")
    return f"PIPELINE_STATE_{rest}" if rest in _STATES else "PIPELINE_STATE_FAILED"


def _rehome(exc: ApiError, old: str, new: str) -> ApiError:
    """The job service's error, its field paths under the pipeline's ``training_task_inputs``."""
    violations = tuple(FieldViolation(new + v.field[len(old):] if v.field.startswith(old) else v.field,
                                      v.description) for v in exc.violations)
    return ApiError(exc.status, exc.message.replace(f"Field: {old}", f"Field: {new}").replace(f"'{old}", f"'{new}"),
                    violations, http=exc.http)


def _numbers_as_strings(inputs: Json) -> Json:
    """The custom task's inputs with numbers among a worker pool's ``args`` as the strings a trainer
    gets: ``trainingTaskInputs`` is a protobuf Value, and the SDK's ``CustomTrainingJob.run(args=...)``
    takes ``List[Union[str, float, int]]`` (its own samples pass numbers). 3 and 3.0 both give "3"."""
    def text(arg: object) -> object:
        if isinstance(arg, bool) or not isinstance(arg, (int, float)):
            return arg
        return str(int(arg)) if float(arg).is_integer() else repr(float(arg))

    inputs = copy.deepcopy(inputs)  # the pipeline keeps its inputs as given
    pools = inputs.get("workerPoolSpecs", inputs.get("worker_pool_specs"))
    for pool in pools if isinstance(pools, list) else ():
        for key in ("pythonPackageSpec", "python_package_spec", "containerSpec", "container_spec"):
            spec = pool.get(key) if isinstance(pool, dict) else None
            if isinstance(spec, dict) and isinstance(spec.get("args"), list):
                spec["args"] = [text(arg) for arg in spec["args"]]
    return inputs


def _violation(field: str, description: str) -> ApiError:
    v = FieldViolation(field, description)
    return invalid(f"List of found errors:\t1.Field: {field}; Message: {description}\t", (v,))


class PipelineService:
    def __init__(self, jobs: JobService, models: ModelRegistry, datasets: DatasetService,
                 operations: Operations) -> None:
        self.jobs = jobs
        self.store = jobs.store
        self.models = models
        self.datasets = datasets
        self.operations = operations
        self.storage = Storage(root=datasets.storage.root)
        self._lock = threading.Lock()

    # -- create ---------------------------------------------------------------------------------
    def _job_spec(self, body: Json) -> Json:
        definition = body.get("trainingTaskDefinition", "")
        if not definition:
            raise _violation("training_pipeline.training_task_definition", "Required field is not set.")
        if definition != CUSTOM_TASK:
            task = definition.removeprefix(DEFINITIONS)
            raise ApiError("UNIMPLEMENTED", f"The training task {task!r} ({definition}) is not emulated: the trainjobs "
                                            f"emulator runs custom-task training pipelines ({CUSTOM_TASK}), not AutoML.")
        inputs = body.get("trainingTaskInputs")
        if not isinstance(inputs, dict):
            raise _violation(AT, "Required field is not set: the custom task's CustomJobSpec (worker_pool_specs, "
                                 "base_output_directory ...).")
        try:
            return wire.parse("CustomJobSpec", json.dumps(_numbers_as_strings(inputs)).encode())
        except ApiError as exc:
            raise _rehome(exc, "custom_job_spec", AT) from None

    def create(self, parent: str, raw: bytes) -> Json:
        body = wire.parse(KIND, raw)
        body.pop("trainingTaskMetadata", None)  # output only
        if not body.get("displayName"):
            raise _violation("training_pipeline.display_name", "Required field is not set.")
        spec = self._job_spec(body)
        body["trainingTaskInputs"] = json.loads(json.dumps(spec))  # camelCase, as Vertex AI shows it
        base = (spec.get("baseOutputDirectory") or {}).get("outputUriPrefix", "")
        model = body.get("modelToUpload")
        if model is not None:
            check_model(model, "training_pipeline.model_to_upload")
            if not base and not model.get("artifactUri"):
                raise _violation(f"{AT}.base_output_directory", "Required field is not set: the model to upload is "
                                                                 "what the trainer writes under it (AIP_MODEL_DIR).")
            if body.get("parentModel"):
                self.models.get(body["parentModel"])
        env = self.datasets.export(parent, body["inputDataConfig"], base) if "inputDataConfig" in body else None
        job_body = {"displayName": body["displayName"], "jobSpec": spec}
        for key in ("labels", "encryptionSpec"):
            if key in body:
                job_body[key] = body[key]
        try:
            job = self.jobs.create(CUSTOM_JOB.collection, parent, json.dumps(job_body).encode(), env)
        except ApiError as exc:
            raise _rehome(exc, "job_spec", AT) from None
        pipeline_id = new_job_id()
        while self.store.job(_key(pipeline_id)) is not None:
            pipeline_id = new_job_id()
        record = {"id": _key(pipeline_id), "kind": KIND, "parent": parent, "create_time": now(), "body": body,
                  "backing": job["name"]}
        self.store.put_job(record)
        return self.render(record)

    # -- reading --------------------------------------------------------------------------------
    def record(self, name: str) -> Json:
        parent, _, pipeline_id = name.partition("/trainingPipelines/")
        record = self.store.job(_key(pipeline_id))
        if record is None or record["kind"] != KIND or record["parent"] != parent:
            raise not_found(f"The TrainingPipeline {name} does not exist.")
        return record

    def _outcome(self, record: Json) -> Json:
        """The pipeline's state, times and error: its own once it has ended, else its backing job's."""
        if record.get("final"):
            final: Json = record["final"]
            return final
        _, _, job_id = record["backing"].partition(f"/{CUSTOM_JOB.collection}/")
        try:
            job = self.jobs.get(CUSTOM_JOB.collection, record["parent"], job_id)
        except ApiError:  # the backing job was deleted before the pipeline was last read
            return {"state": "PIPELINE_STATE_FAILED", "updateTime": record["create_time"],
                    "error": {"code": RpcCode.NOT_FOUND.number, "message": f"The backing CustomJob "
                              f"{record['backing']} was deleted before the pipeline ended."}}
        outcome: Json = {k: job[k] for k in ("startTime", "endTime", "updateTime", "error") if k in job}
        outcome["state"] = pipeline_state(job["state"])
        if outcome["state"] in TERMINAL:
            with self._lock:
                fresh = self.store.job(record["id"])
                if fresh is not None and fresh.get("final"):
                    final = fresh["final"]
                    return final
                if outcome["state"] == "PIPELINE_STATE_SUCCEEDED":
                    outcome = self._upload(record, outcome)
                record["final"] = outcome
                if fresh is not None:
                    self.store.put_job(record)
        return outcome

    def _upload(self, record: Json, outcome: Json) -> Json:
        """Register the model the trainer wrote; the pipeline FAILED instead when there is none."""
        body = record["body"]
        model = body.get("modelToUpload")
        if model is None:
            return outcome
        model = dict(model)
        if not model.get("artifactUri"):
            spec = self._job_spec(body)
            model["artifactUri"] = spec["baseOutputDirectory"]["outputUriPrefix"].rstrip("/") + "/model"
        uri = model["artifactUri"]
        try:
            folder = self.storage.path(uri.rstrip("/") + "/")
        except StorageError:
            folder = None
        if folder is not None and not (folder.is_dir() and any(p.is_file() for p in folder.rglob("*"))):
            return {**outcome, "state": "PIPELINE_STATE_FAILED",
                    "error": {"code": RpcCode.FAILED_PRECONDITION.number,
                              "message": f"The training succeeded, but there are no files under {uri} to upload as "
                                         "the model: the trainer must write its model to AIP_MODEL_DIR."}}
        pipeline = f"{record['parent']}/trainingPipelines/{record['id'].split('.', 1)[1]}"
        try:
            name, version = self.models.register(record["parent"], model, body.get("modelId", ""),
                                                 body.get("parentModel", ""), {"trainingPipeline": pipeline})
        except ApiError as exc:
            return {**outcome, "state": "PIPELINE_STATE_FAILED",
                    "error": {"code": RpcCode.named(exc.status, RpcCode.INTERNAL).number,
                              "message": f"The model could not be uploaded: {exc.message}"}}
        record["model"] = {"name": name, "versionId": version}
        return outcome

    def render(self, record: Json) -> Json:
        out: Json = dict(record["body"])
        out["name"] = f"{record['parent']}/trainingPipelines/{record['id'].split('.', 1)[1]}"
        out["createTime"] = record["create_time"]
        out["trainingTaskMetadata"] = {"backingCustomJob": record["backing"]}
        out.update(self._outcome(record))
        if record.get("model") and "modelToUpload" in out:
            out["modelToUpload"] = {**out["modelToUpload"], **record["model"]}
        return out

    def get(self, name: str) -> Json:
        return self.render(self.record(name))

    def page(self, parent: str, params: dict[str, str]) -> Json:
        return listing.page(lambda after: self.store.walk(KIND, parent, after), self.render, "trainingPipelines",
                            parent, params)

    # -- cancel, delete -------------------------------------------------------------------------
    def cancel(self, name: str) -> Json:
        record = self.record(name)
        state = self._outcome(record)["state"]
        if state in TERMINAL:
            raise failed_precondition(f"The TrainingPipeline {name} cannot be cancelled: it is already {state}.")
        parent, _, job_id = record["backing"].partition(f"/{CUSTOM_JOB.collection}/")
        try:
            self.jobs.cancel(CUSTOM_JOB.collection, parent, job_id)
        except ApiError as exc:
            if exc.status != "FAILED_PRECONDITION":  # it ended meanwhile
                raise
        return {}

    def delete(self, name: str) -> Json:
        record = self.record(name)
        state = self._outcome(record)["state"]
        if state not in TERMINAL:
            raise failed_precondition(f"The TrainingPipeline {name} is {state}: only a pipeline that has ended can be "
                                      "deleted. Cancel it first, and wait until it is PIPELINE_STATE_CANCELLED.")
        self.store.drop_job(record["id"])
        return self.operations.finished(record["parent"], "DeleteOperationMetadata", EMPTY)


def training_services(jobs: JobService, storage_root: Path) -> tuple[Operations, ModelRegistry, DatasetService,
                                                                     PipelineService]:
    """The emulator's operations, model registry, datasets and training pipelines, on the job service's store."""
    operations = Operations(jobs.store)
    models = ModelRegistry(jobs.store, operations)
    datasets = DatasetService(jobs.store, operations, storage_root)
    return operations, models, datasets, PipelineService(jobs, models, datasets, operations)
