"""Where a stack's jobs run, as settings, and the one function that builds (backend, stager) from them.

``BackendSettings`` is the part of a stack that says where its jobs run: the backend (local or
vertex), Vertex AI's project and region and the API endpoint (which may be the emulator), the
local backend's home and storage. It is read from a stack's config (``of_stack``: the CLI's
``--stack``, the console) or from a TrainingJob resource's inputs (``of_props``: the Pulumi
provider), and ``open_backend`` turns it into the backend and the stager that puts a job's
package where the backend reads it:

* local: the local backend (``localHome``, ``localStorage``) and a stager into its storage;
* vertex: the Vertex AI backend in the project and region, through ``apiEndpoint`` when set, and
  a Cloud Storage stager at the same endpoint, whose client is built on first use (so a caller
  that only reads jobs never imports google-cloud-storage).

Every backend and stager of the CLI, the console and the provider is built here; each backend
module is imported only when used (the Vertex one loads the SDK).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from provider.core.record import Record

if TYPE_CHECKING:
    from provider.backends.base import Backend
    from provider.backends.local.backend import LocalBackend
    from provider.backends.polling import Backoff
    from provider.packaging.stage import LocalStager, Stager
    from provider.stack.config import StackConfig


class BackendKind(enum.StrEnum):
    """``trainjobs:backend``: where a stack's jobs run."""

    LOCAL = "local"
    VERTEX = "vertex"


class BackendSettings(Record):
    """Where a stack's jobs run: the backend, and its project, region and endpoint, or local home and storage."""

    kind: BackendKind
    project: str = ""  # gcp:project (Vertex AI)
    region: str = ""  # the location of the jobs (Vertex AI)
    api_endpoint: str | None = None  # trainjobs:apiEndpoint: another endpoint (the emulator, a proxy)
    local_home: str | None = None  # trainjobs:localHome: the local backend's job store
    local_storage: str | None = None  # the local backend's gs:// storage (default: under its home)

    @classmethod
    def of_stack(cls, stack: StackConfig) -> BackendSettings:
        """A stack's settings (its file's ``trainjobs:`` and ``gcp:`` keys)."""
        return cls(kind=_kind(stack.backend), project=stack.project_id, region=stack.region,
                   api_endpoint=stack.api_endpoint or None, local_home=stack.local_home or None)

    @classmethod
    def of_props(cls, props: Mapping[str, Any]) -> BackendSettings:
        """A TrainingJob resource's inputs: ``backend``, ``project``, ``region`` (the job's own),
        ``apiEndpoint``, ``localHome`` and ``localStorage``, as the Pulumi program sets them."""
        kind = _kind(str(props.get("backend") or BackendKind.VERTEX.value))
        if kind is BackendKind.LOCAL:
            return cls(kind, local_home=props.get("localHome") or None, local_storage=props.get("localStorage") or None)
        return cls(kind, project=props["project"], region=props["region"], api_endpoint=props.get("apiEndpoint") or None)


class Opened(NamedTuple):
    """A backend and the stager that stages packages where it reads them."""

    backend: Backend
    stager: Stager


class LocalOpened(NamedTuple):
    backend: LocalBackend
    stager: LocalStager


def _kind(name: str) -> BackendKind:
    try:
        return BackendKind(name)
    except ValueError:
        raise ValueError(f"unknown backend {name!r}: local or vertex") from None


def open_local(home: str | Path | None = None, storage: str | Path | None = None) -> LocalOpened:
    """The local backend (this machine; ``home`` and ``storage`` default to TRAINJOBS_HOME) and its stager."""
    from provider.backends.local.backend import LocalBackend
    from provider.packaging.stage import LocalStager

    backend = LocalBackend(home=home, storage_root=storage)
    return LocalOpened(backend, LocalStager(backend.storage))


class GcsOnDemand:
    """The Stager protocol over Cloud Storage, with the client built on first use."""

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


def _local(settings: BackendSettings, retry: Backoff | None, timeout: float | None) -> Opened:
    backend, stager = open_local(settings.local_home, settings.local_storage)
    return Opened(backend, stager)


def _vertex(settings: BackendSettings, retry: Backoff | None, timeout: float | None) -> Opened:
    from provider.backends.vertex.backend import VertexBackend
    from provider.backends.vertex.retry import RETRY

    backend = VertexBackend(settings.project, settings.region, api_endpoint=settings.api_endpoint,
                            retry=retry or RETRY, timeout=60.0 if timeout is None else timeout)
    return Opened(backend, GcsOnDemand(settings.project, settings.api_endpoint))


_OPEN: dict[BackendKind, Callable[[BackendSettings, Backoff | None, float | None], Opened]] = {
    BackendKind.LOCAL: _local,
    BackendKind.VERTEX: _vertex,
}


def open_backend(settings: BackendSettings, retry: Backoff | None = None, timeout: float | None = None) -> Opened:
    """The backend and stager of ``settings``. ``retry`` and ``timeout`` (seconds per call) tune the
    Vertex AI client, for callers that must answer fast (the console)."""
    return _OPEN[settings.kind](settings, retry, timeout)
