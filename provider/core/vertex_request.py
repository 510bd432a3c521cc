"""The request type: one Vertex AI create request, as plain data (a core type, no heavy imports).

A ``VertexRequest`` is what ``JobServiceClient.create_custom_job`` or
``create_hyperparameter_tuning_job`` sends: the job's kind, its parent
(``projects/PROJECT/locations/REGION``) and its body in REST JSON (camelCase keys, int64 values as
strings). It imports neither the spec model nor the catalog, so the backend seam
(provider.backends.base) and everything that only carries requests stay cheap to import;
provider.submission.request builds requests from specs.
"""

from __future__ import annotations

from typing import Any

from provider.core import job_kinds
from provider.core.record import Record

Json = dict[str, Any]


class VertexRequest(Record):
    """One Vertex AI create request: the job's kind, its parent, and its body in REST JSON."""

    kind: str  # "CustomJob" | "HyperparameterTuningJob"
    parent: str  # projects/PROJECT/locations/REGION
    body: Json

    @property
    def collection(self) -> str:
        return job_kinds.collection(self.kind)
