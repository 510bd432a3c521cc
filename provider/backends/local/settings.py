"""The local backend's settings: its home (the job store) and its storage, read from a stack or a resource's inputs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from provider.core.backend_types import BackendKind
from provider.core.record import Record

if TYPE_CHECKING:
    from provider.backends.base import Opened
    from provider.backends.polling import Backoff
    from provider.stack.config import StackConfig


class LocalSettings(Record):
    """``trainjobs:localHome`` (default: TRAINJOBS_HOME, else per user) and the storage of its gs:// paths
    (default: under its home)."""

    home: str | None = None
    storage: str | None = None

    @property
    def kind(self) -> BackendKind:
        return BackendKind("local")

    @classmethod
    def of_stack(cls, stack: StackConfig) -> LocalSettings:
        return cls(home=stack.local_home or None)

    @classmethod
    def of_props(cls, props: Mapping[str, Any]) -> LocalSettings:
        """A TrainingJob's inputs ``localHome`` and ``localStorage``, as the Pulumi program sets them."""
        return cls(home=props.get("localHome") or None, storage=props.get("localStorage") or None)

    def where(self) -> str:
        home = f" (its trainjobs:localHome {self.home})" if self.home else ""
        return f"this machine (the local backend{home})"

    def open(self, retry: Backoff | None = None, timeout: float | None = None) -> Opened:
        """The local backend and a stager into its storage (``retry`` and ``timeout`` tune remote clients only)."""
        from provider.backends.base import Opened
        from provider.backends.settings import open_local

        backend, stager = open_local(self.home, self.storage)
        return Opened(backend, stager)
