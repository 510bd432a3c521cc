"""Backends: where jobs run. Each is imported only when used (the Vertex one loads the SDK).

    get_backend("local")                       # this machine (the embedded default)
    get_backend("vertex", project=..., location=..., api_endpoint=...)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from provider.backends.base import Backend


def get_backend(name: str, **config: Any) -> Backend:
    if name == "local":
        from provider.backends.local.backend import LocalBackend

        return LocalBackend(**config)
    if name == "vertex":
        from provider.backends.vertex import VertexBackend  # type: ignore[import-not-found,unused-ignore]

        backend: Backend = VertexBackend(**config)
        return backend
    raise ValueError(f"unknown backend {name!r}: local or vertex")
