"""A stack's backend, as typed settings, and the one function that builds (backend, stager) from them.

Each backend type declares its settings class in the registry (provider.core.backend_registry:
``BackendType.settings``, a 'module:attr' reference into its own package): the local backend's
home and storage, Vertex AI's project, region and endpoint. ``settings_of_stack`` reads them
from a stack's config (the CLI's ``--stack``, the console), ``settings_of_props`` from a
TrainingJob resource's inputs (the Pulumi provider), and ``open_backend`` turns them into the
backend and the stager that puts a job's package where that backend reads it (``open_local``:
this machine's, the embedded default). Every backend and stager of the CLI, the console and the
provider is built here; the one other is the emulator's own local backend, on its state dir, which
its job service drives. A backend's package is imported only when its settings are read (the Vertex
one loads the SDK only when opened).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from provider.backends.base import Opened as Opened  # the seam's; callers import it from here too
from provider.core.backend_registry import backend_type, kind_of
from provider.core.backend_types import BackendKind

if TYPE_CHECKING:
    from provider.backends.local.backend import LocalBackend
    from provider.backends.polling import Backoff
    from provider.packaging.stage import LocalStager
    from provider.stack.config import StackConfig


class LocalOpened(NamedTuple):
    backend: LocalBackend
    stager: LocalStager


class BackendSettings(Protocol):
    """A backend type's own settings (its registered ``settings`` class): read from a stack file or a
    resource's inputs, and opened into its backend and stager."""

    @property
    def kind(self) -> BackendKind: ...

    def open(self, retry: Backoff | None = None, timeout: float | None = None) -> Opened: ...

    def where(self) -> str:
        """Where its jobs run, in words: "this machine (the local backend)", "Vertex AI, project P, ..."."""
        ...


class _SettingsClass(Protocol):
    def of_stack(self, stack: StackConfig) -> BackendSettings: ...

    def of_props(self, props: Mapping[str, Any]) -> BackendSettings: ...


def _settings_class(kind: str) -> _SettingsClass:
    loaded: _SettingsClass = backend_type(kind).settings.load()  # type: ignore[assignment]  # a registered class
    return loaded


def settings_of_stack(stack: StackConfig) -> BackendSettings:
    """A stack's backend settings (its file's ``trainjobs:`` and ``gcp:`` keys); UnknownBackend for a kind
    no backend type declares."""
    return _settings_class(stack.backend).of_stack(stack)


def settings_of_props(props: Mapping[str, Any]) -> BackendSettings:
    """A TrainingJob resource's backend settings: its ``backend`` input picks the type, which reads the rest."""
    return _settings_class(kind_of(props)).of_props(props)


def open_backend(settings: BackendSettings, retry: Backoff | None = None, timeout: float | None = None) -> Opened:
    """The backend and stager of ``settings``. ``retry`` and ``timeout`` (seconds per call) tune a remote
    backend's client, for callers that must answer fast (the console)."""
    return settings.open(retry, timeout)


def open_local(home: str | Path | None = None, storage: str | Path | None = None) -> LocalOpened:
    """The local backend (this machine; ``home`` and ``storage`` default to TRAINJOBS_HOME) and its stager:
    this machine's own jobs, which every command reads without a stack."""
    from provider.backends.local.backend import LocalBackend
    from provider.packaging.stage import LocalStager

    backend = LocalBackend(home=home, storage_root=storage)
    return LocalOpened(backend, LocalStager(backend.storage))
