"""The one table of input formats, and how a document's format is chosen.

``FORMATS`` lists every format in the order its markers are tried: the first format whose
marker is in the document's ``spec`` reads it; the fallback format (no marker: native) reads
every other document. The same order builds the schema's ``if``/``else`` chain over ``spec``
(``provider/spec/schema.py``) and the order of their ``$defs``. Adding a format is one package
under ``provider/spec/formats/`` and one entry here.
"""

from __future__ import annotations

from typing import Any

from provider.spec.formats import legacy, native, vertex, vertex_tuning
from provider.spec.formats.base import Body, Format
from provider.spec.model import SourceFormat

FORMATS: tuple[Format, ...] = (native.FORMAT, legacy.FORMAT, vertex.FORMAT, vertex_tuning.FORMAT)

_FALLBACK = next(f for f in FORMATS if f.is_fallback)

MARKERS: tuple[str, ...] = tuple(m for f in FORMATS for m in f.markers)
"""Every key of ``spec`` that marks a format other than the fallback, in the order they are tried."""

BODIES: tuple[Body, ...] = tuple(b for f in FORMATS for b in f.bodies)
"""Every body of every format: their ``definition`` entries are the branches of the schema's ``spec``."""


def detect(data: Any) -> Format:
    """The format of a parsed document (any value: a broken document reads as the fallback)."""
    spec = data.get("spec") if isinstance(data, dict) else None
    if isinstance(spec, dict):
        for fmt in FORMATS:
            if fmt.marks(spec):
                return fmt
    return _FALLBACK


def body_of(data: Any) -> Body | None:
    """The body whose ``$defs`` entry the schema's ``spec`` applies to ``data``; None unless ``spec`` is a mapping.

    The schema tries the markers in the order of ``MARKERS`` (an ``if`` on each, ``required``)
    and applies the fallback body when none is present: for a mapping this picks the same body
    as ``detect``. For any other ``spec`` (a list, a string) ``required`` holds vacuously, so
    no single branch can be named.
    """
    spec = data.get("spec") if isinstance(data, dict) else None
    if not isinstance(spec, dict):
        return None
    fmt = detect(data)
    return next((b for b in fmt.bodies if b.marker is None or b.marker in spec), None)


def format_of(source: SourceFormat) -> Format:
    """The registered format a model was read from (``TrainingJob.source_format``)."""
    return next(f for f in FORMATS if f.source is source)
