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

An evaluation belongs to one version of the model, as on Vertex AI: it is imported under a
version (``models/M@2``, an alias, or ``models/M`` for the default version) and named under it
(``models/M@2/evaluations/E``, the version's ID, never an alias). A version's list holds its own
evaluations only (``models/M``: the default version's); a get names the version, or none (then the
evaluation is found under whichever version holds it, as the SDK's
``Model.get_model_evaluation(evaluation_id)`` names it). Deleting a version or the model deletes
its evaluations (``held_by`` before the delete, ``forget`` after it). Evaluations an older emulator
stored under the model's bare name are moved to its default version when the model's evaluations
are next read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from provider.emulator import wire
from provider.emulator.errors import not_found
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

    def _version(self, name: str) -> str:
        """``models/M@ID`` for the version ``name`` names (its ID, an alias, or none: the default)."""
        version = self.models.get(name)
        parent, model_id, _ = split_name(name)
        self._adopt(f"{parent}/models/{model_id}")
        return f"{parent}/models/{model_id}@{version['versionId']}"

    def _adopt(self, model: str) -> None:
        """Evaluations stored under the model's bare name (before they were kept per version) move,
        with their slices, to its default version: what the bare name names."""
        legacy = list(self.records.walk(EVALUATIONS.collection, model))
        if not legacy:
            return
        target = f"{model}@{self.models.get(model)['versionId']}"
        with self.records.lock:
            for record in legacy:
                moved = f"{target}/evaluations/{record['id']}"
                for one in list(self.records.walk(SLICES.collection, record["name"])):
                    self.records.put({**one, "name": f"{moved}/slices/{one['id']}", "parent": moved})
                self.records.put({**record, "name": moved, "parent": target})
                self.records.drop(record["name"])

    def held_by(self, name: str) -> list[str]:
        """Where the evaluations of ``name`` lie: the version's, or every version's for a model's name."""
        parent, model_id, version = split_name(name)
        if version:
            return [self._version(name)]
        self._version(name)
        versions = self.models.record(parent, model_id)["body"]["versions"]
        return [f"{parent}/models/{model_id}@{v['versionId']}" for v in versions]

    def import_evaluation(self, model: str, raw: bytes) -> Json:
        request = wire.parse("ImportModelEvaluationRequest", raw)
        evaluation = request.get("modelEvaluation")
        if not isinstance(evaluation, dict):
            raise violation("model_evaluation", "Required field is not set.")
        record = self.nested.insert(EVALUATIONS, self._version(model), None, dict(evaluation))
        return self.nested.render(record)

    def _stored(self, name: str) -> str:
        """The stored name of the evaluation ``name`` names, with or without the model's version."""
        model, _, evaluation_id = name.rpartition("/evaluations/")
        for version in [self._version(model)] if split_name(model)[2] else self.held_by(model):
            if self.records.get(f"{version}/evaluations/{evaluation_id}") is not None:
                return f"{version}/evaluations/{evaluation_id}"
        raise not_found(f"The ModelEvaluation {name} does not exist.")

    def evaluation(self, name: str) -> Json:
        return self.nested.get(EVALUATIONS, self._stored(name))

    def list_evaluations(self, model: str, params: dict[str, str]) -> Json:
        return self.nested.list(EVALUATIONS, self._version(model), params)

    def import_slices(self, evaluation: str, raw: bytes) -> Json:
        request = wire.parse("BatchImportModelEvaluationSlicesRequest", raw)
        evaluation = self._stored(evaluation)
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
        evaluation, _, slice_id = name.rpartition("/slices/")
        return self.nested.get(SLICES, f"{self._stored(evaluation)}/slices/{slice_id}")

    def list_slices(self, evaluation: str, params: dict[str, str]) -> Json:
        return self.nested.list(SLICES, self._stored(evaluation), params)

    def forget(self, held: list[str]) -> None:
        """A deleted version's or model's evaluations and their slices go with it (``held``: held_by's)."""
        for version in held:
            self.records.drop(version)
