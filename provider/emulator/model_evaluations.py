"""A model's evaluations: Vertex AI's ``projects.locations.models.evaluations`` and their
``slices``, as the v1 REST reference has them, kept as the nested resources are (resource_store.py,
so a restarted emulator serves them; deleting the model deletes them).

* ``import`` POST ``{model}/evaluations:import`` (ImportModelEvaluationRequest): the
  ModelEvaluation as given (``metricsSchemaUri``, ``metrics``, ``displayName`` ...), with a new
  numeric ID; the answer is the ModelEvaluation, not an operation, as Vertex AI's.
* ``get`` and ``list`` (filter, paging, readMask; oldest first), as the SDK's
  ``Model.list_model_evaluations`` and ``get_model_evaluation`` call them.
* slices: ``batchImport`` POST ``{evaluation}/slices:batchImport`` (the slices as given: ``slice``
  with its ``dimension`` and ``value``, ``metrics``), ``get`` and ``list``.

An evaluation belongs to the model: a versioned name (``models/M@2``) reads the model's (the
version must exist).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from provider.emulator import wire
from provider.emulator.model_registry import ModelRegistry, split_name
from provider.emulator.nested import Kind, NestedService, violation

if TYPE_CHECKING:
    from provider.emulator.resource_store import ResourceStore

Json = dict[str, Any]

EVALUATIONS = Kind("evaluations", "ModelEvaluation", "", "", False, False, "modelEvaluations",
                   "ListModelEvaluationsResponse")
SLICES = Kind("slices", "ModelEvaluationSlice", "", "", False, False, "modelEvaluationSlices",
              "ListModelEvaluationSlicesResponse")


class ModelEvaluations:
    def __init__(self, models: ModelRegistry, records: ResourceStore, nested: NestedService) -> None:
        self.models = models
        self.records = records
        self.nested = nested

    def _model(self, name: str) -> str:
        """The model's name without a version, once the model (and version) is known to exist."""
        self.models.get(name)
        parent, model_id, _ = split_name(name)
        return f"{parent}/models/{model_id}"

    def import_evaluation(self, model: str, raw: bytes) -> Json:
        request = wire.parse("ImportModelEvaluationRequest", raw)
        evaluation = request.get("modelEvaluation")
        if not isinstance(evaluation, dict):
            raise violation("model_evaluation", "Required field is not set.")
        record = self.nested.insert(EVALUATIONS, self._model(model), None, dict(evaluation))
        return self.nested.render(record)

    def evaluation(self, name: str) -> Json:
        model = name.rsplit("/evaluations/", 1)[0]
        self._model(model)
        return self.nested.get(EVALUATIONS, name)

    def list_evaluations(self, model: str, params: dict[str, str]) -> Json:
        return self.nested.list(EVALUATIONS, self._model(model), params)

    def import_slices(self, evaluation: str, raw: bytes) -> Json:
        request = wire.parse("BatchImportModelEvaluationSlicesRequest", raw)
        self.evaluation(evaluation)
        slices = request.get("modelEvaluationSlices") or []
        if not slices:
            raise violation("model_evaluation_slices", "Required field is not set.")
        names = []
        for i, one in enumerate(slices):
            if not (one.get("slice") or {}).get("dimension"):
                raise violation(f"model_evaluation_slices[{i}].slice.dimension", "Required field is not set.")
        for one in slices:
            names.append(self.nested.insert(SLICES, evaluation, None, dict(one))["name"])
        return {"importedModelEvaluationSlices": names}

    def slice(self, name: str) -> Json:
        self.evaluation(name.rsplit("/slices/", 1)[0])
        return self.nested.get(SLICES, name)

    def list_slices(self, evaluation: str, params: dict[str, str]) -> Json:
        self.evaluation(evaluation)
        return self.nested.list(SLICES, evaluation, params)

    def forget(self, model: str) -> None:
        """A deleted model's evaluations and their slices go with it."""
        parent, model_id, _ = split_name(model)
        self.records.drop(f"{parent}/models/{model_id}")
