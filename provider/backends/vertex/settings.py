"""The Vertex AI backend's settings: project, region and API endpoint, read from a stack or a resource's inputs."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from provider.core.backend_types import BackendKind
from provider.core.record import Record

if TYPE_CHECKING:
    from provider.backends.base import Opened
    from provider.backends.polling import Backoff
    from provider.packaging.stage import Stager
    from provider.stack.config import StackConfig


class VertexSettings(Record):
    """``gcp:project``, the jobs' region, and ``trainjobs:apiEndpoint`` (another endpoint: the emulator, a proxy)."""

    project: str
    region: str
    api_endpoint: str | None = None

    @property
    def kind(self) -> BackendKind:
        return BackendKind("vertex")

    @classmethod
    def of_stack(cls, stack: StackConfig) -> VertexSettings:
        return cls(project=stack.project_id, region=stack.region, api_endpoint=stack.api_endpoint or None)

    @classmethod
    def of_props(cls, props: Mapping[str, Any]) -> VertexSettings:
        """A TrainingJob's inputs ``project``, ``region`` (the job's own) and ``apiEndpoint``."""
        return cls(project=props["project"], region=props["region"], api_endpoint=props.get("apiEndpoint") or None)

    def where(self) -> str:
        via = f", at {self.api_endpoint}" if self.api_endpoint else ""
        return f"Vertex AI, project {self.project}, region {self.region}{via}"

    def open(self, retry: Backoff | None = None, timeout: float | None = None) -> Opened:
        """The Vertex AI backend in the project and region, through the endpoint when set, and a Cloud
        Storage stager at the same endpoint whose client is built on first use. ``retry`` and ``timeout``
        (seconds per call) tune the client, for callers that must answer fast (the console)."""
        from provider.backends.base import Opened
        from provider.backends.vertex.backend import VertexBackend
        from provider.backends.vertex.retry import RETRY

        backend = VertexBackend(self.project, self.region, api_endpoint=self.api_endpoint,
                                retry=retry or RETRY, timeout=60.0 if timeout is None else timeout)
        return Opened(backend, GcsOnDemand(self.project, self.api_endpoint))


class GcsOnDemand:
    """The Stager protocol over Cloud Storage, with the client built on first use (a caller that only
    reads jobs never imports google-cloud-storage)."""

    def __init__(self, project: str, api_endpoint: str | None) -> None:
        self.project = project
        self.api_endpoint = api_endpoint
        self._stager: Stager | None = None

    def _open(self) -> Stager:
        if self._stager is None:
            from provider.packaging.gcs import GcsStager, gcs_client

            self._stager = GcsStager(gcs_client(self.project, self.api_endpoint))
        return self._stager

    def exists(self, uri: str) -> bool:
        return self._open().exists(uri)

    def put(self, uri: str, file: Path) -> None:
        self._open().put(uri, file)
