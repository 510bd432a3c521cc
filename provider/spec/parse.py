"""Build the model from a parsed document, whatever its format."""

from __future__ import annotations

from typing import Any

from provider.spec import legacy, native, vertex
from provider.spec.model import SourceFormat, TrainingJob
from provider.spec.reader import ConversionError, Node


def detect_format(data: Any) -> SourceFormat:
    spec = data.get("spec") if isinstance(data, dict) else None
    if isinstance(spec, dict):
        if "trainingInput" in spec:
            return SourceFormat.AI_PLATFORM
        if "workerPoolSpecs" in spec or "worker_pool_specs" in spec:
            return SourceFormat.VERTEX
    return SourceFormat.NATIVE


def to_model(data: Any) -> TrainingJob:
    """Convert a document into a TrainingJob; ConversionError if its structure is broken."""
    doc = Node(data, ())
    fmt = detect_format(data)
    try:
        if fmt is SourceFormat.AI_PLATFORM:
            return legacy.convert(doc)
        if fmt is SourceFormat.VERTEX:
            return vertex.convert(doc)
        return native.convert(doc)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        # Converters read defensively; anything else means a shape the schema already rejected.
        raise ConversionError(str(exc)) from exc
