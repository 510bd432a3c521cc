"""The routes of training pipelines, the model registry, datasets and their operations
(pipelines.py, model_registry.py, datasets.py, operations.py), as Vertex AI's v1 REST reference
has them under ``projects.locations``; and serving (endpoints, batch prediction), which the
emulator does not do, answered 501 UNIMPLEMENTED by name. routes.py lists them beside the job
service's."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from provider.core.job_kinds import CUSTOM_JOB
from provider.emulator import dataset_transfer, job_tracking, model_routes, query, wire
from provider.emulator.errors import ApiError, invalid
from provider.emulator.storage import Answer

if TYPE_CHECKING:
    from provider.emulator.routes import Request
    from provider.emulator.server import Emulator

_LIST = query.LIST
SERVING = ("endpoints", "batchPredictionJobs", "deploymentResourcePools")
Handler = Callable[["Emulator", "Request", dict[str, str]], Answer]
Json = dict[str, Any]


def _params(request: Request, method: str, allowed: tuple[str, ...] = ()) -> None:
    query.check_params(request.params, allowed, method)


def _parent(m: dict[str, str]) -> str:
    return query.parent(m)


def _answer(request: Request, type_name: str, data: dict[str, object]) -> Answer:
    return Answer(data=wire.encode(type_name, data, request.enums_as_ints))


def _operation(data: dict[str, object]) -> Answer:
    return Answer(data=wire.encode_any(data))


# -- trainingPipelines ---------------------------------------------------------------------------
def _backing(app: Emulator, pipeline: Json) -> Json | None:
    """The pipeline's backing CustomJob as the job service gives it (None once it was deleted)."""
    parent, _, job_id = str((pipeline.get("trainingTaskMetadata") or {}).get("backingCustomJob") or "").partition(
        f"/{CUSTOM_JOB.collection}/")
    try:
        return app.jobs.get(CUSTOM_JOB.collection, parent, job_id) if job_id else None
    except ApiError:
        return None


def create_pipeline(app: Emulator, request: Request, m: dict[str, str]) -> Answer:
    _params(request, "trainingPipelines.create")
    pipeline = app.pipelines.create(_parent(m), request.body)
    job = _backing(app, pipeline)
    if job is not None:  # its experiment run lists it, as a CustomJob's does (job_tracking.py)
        job_tracking.created(app.tracking, job)
    return _answer(request, "TrainingPipeline", pipeline)


def list_pipelines(app: Emulator, request: Request, m: dict[str, str]) -> Answer:
    _params(request, "trainingPipelines.list", _LIST)
    return _answer(request, "ListTrainingPipelinesResponse", app.pipelines.page(_parent(m), request.params))


def _pipeline(m: dict[str, str]) -> str:
    return f"{_parent(m)}/trainingPipelines/{m['id']}"


def get_pipeline(app: Emulator, request: Request, m: dict[str, str]) -> Answer:
    _params(request, "trainingPipelines.get")
    pipeline = app.pipelines.get(_pipeline(m))
    job = _backing(app, pipeline)
    if job is not None:  # the TensorBoard logs its trainer wrote, uploaded as a CustomJob's are
        job_tracking.seen(app.tracking, app.storage_root, job)
    return _answer(request, "TrainingPipeline", pipeline)


def cancel_pipeline(app: Emulator, request: Request, m: dict[str, str]) -> Answer:
    _params(request, "trainingPipelines.cancel")
    return _operation(app.pipelines.cancel(_pipeline(m)))


def delete_pipeline(app: Emulator, request: Request, m: dict[str, str]) -> Answer:
    _params(request, "trainingPipelines.delete")
    return _operation(app.pipelines.delete(_pipeline(m)))


# -- models --------------------------------------------------------------------------------------
def _model(m: dict[str, str]) -> str:
    return f"{_parent(m)}/models/{m['id']}"


def upload_model(app: Emulator, request: Request, m: dict[str, str]) -> Answer:
    _params(request, "models.upload")
    return _operation(app.models.upload(_parent(m), request.body))


def list_models(app: Emulator, request: Request, m: dict[str, str]) -> Answer:
    _params(request, "models.list", (*_LIST, "orderBy"))
    if request.params.get("orderBy"):  # else newest first, as the other collections
        return _answer(request, "ListModelsResponse", model_routes.changes(app).ordered_page(_parent(m), request.params))
    return _answer(request, "ListModelsResponse", app.models.page(_parent(m), request.params))


def get_model(app: Emulator, request: Request, m: dict[str, str]) -> Answer:
    _params(request, "models.get")
    return _answer(request, "Model", app.models.get(_model(m)))


def list_versions(app: Emulator, request: Request, m: dict[str, str]) -> Answer:
    _params(request, "models.listVersions", (*_LIST, "orderBy"))
    if request.params.get("orderBy"):
        raise invalid("models.listVersions orderBy is not served by the emulator: it lists versions oldest first; "
                      "leave orderBy out.")
    return _answer(request, "ListModelVersionsResponse", app.models.list_versions(_model(m), request.params))


def merge_aliases(app: Emulator, request: Request, m: dict[str, str]) -> Answer:
    _params(request, "models.mergeVersionAliases")
    return _answer(request, "Model", app.models.merge_aliases(_model(m), request.body))


def delete_model(app: Emulator, request: Request, m: dict[str, str]) -> Answer:
    _params(request, "models.delete")
    evaluations = model_routes.evaluations(app)
    held = evaluations.held_by(_model(m))
    operation = app.models.delete(_model(m))
    evaluations.forget(held)
    return _operation(operation)


def delete_version(app: Emulator, request: Request, m: dict[str, str]) -> Answer:
    _params(request, "models.deleteVersion")
    evaluations = model_routes.evaluations(app)
    held = evaluations.held_by(_model(m))
    operation = app.models.delete_version(_model(m))
    evaluations.forget(held)
    return _operation(operation)


# -- datasets ------------------------------------------------------------------------------------
def _dataset(m: dict[str, str]) -> str:
    return f"{_parent(m)}/datasets/{m['id']}"


def create_dataset(app: Emulator, request: Request, m: dict[str, str]) -> Answer:
    _params(request, "datasets.create")
    return _operation(app.datasets.create(_parent(m), request.body))


def list_datasets(app: Emulator, request: Request, m: dict[str, str]) -> Answer:
    _params(request, "datasets.list", _LIST)
    return _answer(request, "ListDatasetsResponse", app.datasets.page(_parent(m), request.params))


def get_dataset(app: Emulator, request: Request, m: dict[str, str]) -> Answer:
    _params(request, "datasets.get")
    return _answer(request, "Dataset", app.datasets.get(_dataset(m)))


def delete_dataset(app: Emulator, request: Request, m: dict[str, str]) -> Answer:
    _params(request, "datasets.delete")
    return _operation(app.datasets.delete(_dataset(m)))


def import_data(app: Emulator, request: Request, m: dict[str, str]) -> Answer:
    _params(request, "datasets.import")
    return _operation(dataset_transfer.import_data(app.datasets, _dataset(m), request.body))


def export_data(app: Emulator, request: Request, m: dict[str, str]) -> Answer:
    _params(request, "datasets.export")
    return _operation(dataset_transfer.export_data(app.datasets, _dataset(m), request.body))


# -- operations, serving -------------------------------------------------------------------------
def get_operation(app: Emulator, request: Request, m: dict[str, str]) -> Answer:
    _params(request, "operations.get")
    return _operation(app.operations.get(f"{_parent(m)}/{m['owner']}/{m['id']}/operations/{m['op']}"))


def not_served(app: Emulator, request: Request, m: dict[str, str]) -> Answer:
    raise ApiError("UNIMPLEMENTED", f"Vertex AI serving ({m['serving']}) is not emulated: the trainjobs emulator "
                                    "trains and registers models (customJobs, trainingPipelines, models) but does "
                                    "not deploy them to endpoints, predict or run batch prediction jobs. Deploy "
                                    "against Vertex AI itself.")


_ID = r"(?P<id>[^/:]+)"
# (method, pattern after /v1/projects/{project}/locations/{location}, handler, also under /ui/: the SDK's
# operations client asks /ui/ first, its first HTTP binding)
ROUTES: tuple[tuple[str, str, Handler, bool], ...] = (
    ("POST", "/trainingPipelines", create_pipeline, False),
    ("GET", "/trainingPipelines", list_pipelines, False),
    ("GET", f"/trainingPipelines/{_ID}", get_pipeline, False),
    ("DELETE", f"/trainingPipelines/{_ID}", delete_pipeline, False),
    ("POST", f"/trainingPipelines/{_ID}:cancel", cancel_pipeline, False),
    ("POST", "/models:upload", upload_model, False),
    ("GET", "/models", list_models, False),
    ("GET", f"/models/{_ID}", get_model, False),
    ("DELETE", f"/models/{_ID}", delete_model, False),
    ("GET", f"/models/{_ID}:listVersions", list_versions, False),
    ("POST", f"/models/{_ID}:mergeVersionAliases", merge_aliases, False),
    ("DELETE", f"/models/{_ID}:deleteVersion", delete_version, False),
    ("POST", "/datasets", create_dataset, False),
    ("GET", "/datasets", list_datasets, False),
    ("GET", f"/datasets/{_ID}", get_dataset, False),
    ("DELETE", f"/datasets/{_ID}", delete_dataset, False),
    ("POST", f"/datasets/{_ID}:import", import_data, False),
    ("POST", f"/datasets/{_ID}:export", export_data, False),
    ("GET", rf"/(?P<owner>models|datasets|trainingPipelines)/{_ID}/operations/(?P<op>[^/:]+)", get_operation, True),
    *((method, rf"/(?P<serving>{'|'.join(SERVING)})(?:[/:].*)?", not_served, False)
      for method in ("GET", "POST", "DELETE", "PATCH")),
)
