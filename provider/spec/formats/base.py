"""What an input format registers: how it is recognised, its schema fragment, its converter.

A ``Format`` is one row of the table in ``registry.py``. Its ``bodies`` say how a document's
``spec`` is recognised as this format: the key whose presence marks it (``trainingInput``,
``workerPoolSpecs`` ...) and the ``$defs`` entry of the schema that describes such a body. The
one format whose body has no marker (the native one) is read when no other format's marker is
present. ``count_table`` says which accelerator-count table the validation rules hold its
pools to. ``schema`` builds the format's ``$defs`` from the catalog, on demand; ``convert``
reads a document of the format into the model, raising ``ConversionError`` where its
structure is broken.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from functools import cached_property
from typing import Any

from provider.core.record import Record
from provider.spec.formats.schema_kit import Schema
from provider.spec.model import SourceFormat, TrainingJob
from provider.spec.reader import Node


class CountTable(enum.Enum):
    """Which catalog table of accelerator counts a format's pools are checked against."""

    SEED = "seed"
    """The counts the seeds or today's Vertex AI offering allow (``Catalog.seed_counts``)."""
    AI_PLATFORM = "ai_platform"
    """AI Platform Training's table, then Vertex AI's for machine types it does not list."""


class Body(Record):
    """One way a format's ``spec`` is written."""

    marker: str | None
    """The key of ``spec`` whose presence marks this body; None for the fallback format."""
    definition: str
    """The ``$defs`` entry of the document schema that describes this body."""


class Format(Record):
    """One input format: detection, schema fragment and conversion in one value."""

    source: SourceFormat
    """The model's name for the format (``TrainingJob.source_format``)."""
    title: str
    """How the schema's description of ``spec`` names it ("an AI Platform trainingInput")."""
    bodies: tuple[Body, ...]
    """The bodies it accepts, each with its marker and its ``$defs`` entry."""
    schema: Callable[[], dict[str, Schema]]
    """The format's ``$defs`` (each body's definition and the definitions they refer to)."""
    convert: Callable[[Node], TrainingJob]
    """Document (the whole envelope) -> model; ``ConversionError`` if its structure is broken."""
    count_table: CountTable = CountTable.SEED
    """The accelerator counts its pools are held to (``validation/rules/hardware.py``)."""

    @cached_property
    def markers(self) -> tuple[str, ...]:
        """The keys of ``spec`` that mark this format (none: it is the fallback)."""
        return tuple(b.marker for b in self.bodies if b.marker is not None)

    @cached_property
    def _marker_set(self) -> frozenset[str]:
        return frozenset(self.markers)

    @property
    def is_fallback(self) -> bool:
        return not self.markers

    def marks(self, spec: Mapping[str, Any]) -> bool:
        """Whether ``spec`` (a document's ``spec`` mapping) carries one of this format's markers."""
        return not self._marker_set.isdisjoint(spec)  # asked of every document read: no generator
