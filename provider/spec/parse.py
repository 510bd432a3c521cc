"""Build the model from a parsed document, whatever its format.

The format is the one the table of ``provider/spec/formats/registry.py`` detects; its own
converter reads the document.
"""

from __future__ import annotations

from typing import Any

from provider.spec.formats.registry import detect
from provider.spec.model import SourceFormat, TrainingJob
from provider.spec.reader import ConversionError, Node


def detect_format(data: Any) -> SourceFormat:
    """The format of a parsed document (the fallback, native, for anything unrecognised)."""
    return detect(data).source


def to_model(data: Any) -> TrainingJob:
    """Convert a document into a TrainingJob; ConversionError if its structure is broken."""
    doc = Node(data, ())
    fmt = detect(data)
    try:
        return fmt.convert(doc)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        # Converters read defensively; anything else means a shape the schema already rejected.
        raise ConversionError(str(exc)) from exc
