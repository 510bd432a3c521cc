"""The model registry's routes beyond upload, get, list and versions (training_routes.py):
``patch``, ``:export``, ``:copy`` (model_changes.py) and the evaluations and their slices
(model_evaluations.py). routes.py lists them beside the job service's."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from provider.emulator import query, wire
from provider.emulator.model_changes import ModelChanges
from provider.emulator.model_evaluations import ModelEvaluations
from provider.emulator.storage import Answer

if TYPE_CHECKING:
    from provider.emulator.routes import Request
    from provider.emulator.server import Emulator

Handler = Callable[["Emulator", "Request", dict[str, str]], Answer]


def changes(app: Emulator) -> ModelChanges:
    return ModelChanges(app.models, app.storage_root)


def evaluations(app: Emulator) -> ModelEvaluations:
    return ModelEvaluations(app.models, app.tracking.records, app.tracking.nested)


def _model(m: dict[str, str]) -> str:
    return f"{query.parent(m)}/models/{m['id']}"


def _evaluation(m: dict[str, str]) -> str:
    return f"{_model(m)}/evaluations/{m['evaluation']}"


def _answer(request: Request, type_name: str, data: dict[str, object]) -> Answer:
    return Answer(data=wire.encode(type_name, data, request.enums_as_ints))


def patch_model(app: Emulator, request: Request, m: dict[str, str]) -> Answer:
    query.check_params(request.params, ("updateMask",), "models.patch")
    return _answer(request, "Model", changes(app).patch(_model(m), request.body, request.params.get("updateMask", "")))


def export_model(app: Emulator, request: Request, m: dict[str, str]) -> Answer:
    query.check_params(request.params, (), "models.export")
    return Answer(data=wire.encode_any(changes(app).export(_model(m), request.body)))


def copy_model(app: Emulator, request: Request, m: dict[str, str]) -> Answer:
    query.check_params(request.params, (), "models.copy")
    return Answer(data=wire.encode_any(changes(app).copy(query.parent(m), request.body)))


def import_evaluation(app: Emulator, request: Request, m: dict[str, str]) -> Answer:
    query.check_params(request.params, (), "models.evaluations.import")
    return _answer(request, "ModelEvaluation", evaluations(app).import_evaluation(_model(m), request.body))


def list_evaluations(app: Emulator, request: Request, m: dict[str, str]) -> Answer:
    query.check_params(request.params, query.LIST, "models.evaluations.list")
    return _answer(request, "ListModelEvaluationsResponse",
                   evaluations(app).list_evaluations(_model(m), request.params))


def get_evaluation(app: Emulator, request: Request, m: dict[str, str]) -> Answer:
    query.check_params(request.params, (), "models.evaluations.get")
    return _answer(request, "ModelEvaluation", evaluations(app).evaluation(_evaluation(m)))


def import_slices(app: Emulator, request: Request, m: dict[str, str]) -> Answer:
    query.check_params(request.params, (), "models.evaluations.slices.batchImport")
    return _answer(request, "BatchImportModelEvaluationSlicesResponse",
                   evaluations(app).import_slices(_evaluation(m), request.body))


def list_slices(app: Emulator, request: Request, m: dict[str, str]) -> Answer:
    query.check_params(request.params, query.LIST, "models.evaluations.slices.list")
    return _answer(request, "ListModelEvaluationSlicesResponse",
                   evaluations(app).list_slices(_evaluation(m), request.params))


def get_slice(app: Emulator, request: Request, m: dict[str, str]) -> Answer:
    query.check_params(request.params, (), "models.evaluations.slices.get")
    return _answer(request, "ModelEvaluationSlice",
                   evaluations(app).slice(f"{_evaluation(m)}/slices/{m['slice']}"))


_ID = r"(?P<id>[^/:]+)"
_EVALUATION = rf"/models/{_ID}/evaluations/(?P<evaluation>[^/:]+)"
# (method, pattern after /v1/projects/{project}/locations/{location}, handler, also under /ui/), as
# training_routes.ROUTES
ROUTES: tuple[tuple[str, str, Handler, bool], ...] = (
    ("PATCH", f"/models/{_ID}", patch_model, False),
    ("POST", f"/models/{_ID}:export", export_model, False),
    ("POST", "/models:copy", copy_model, False),
    ("POST", f"/models/{_ID}/evaluations:import", import_evaluation, False),
    ("GET", f"/models/{_ID}/evaluations", list_evaluations, False),
    ("GET", _EVALUATION, get_evaluation, False),
    ("POST", f"{_EVALUATION}/slices:batchImport", import_slices, False),
    ("GET", f"{_EVALUATION}/slices", list_slices, False),
    ("GET", rf"{_EVALUATION}/slices/(?P<slice>[^/:]+)", get_slice, False),
)
