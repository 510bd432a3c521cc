"""The envelope every spec shares, whatever the format of its body.

``apiVersion: trainjobs/v1``, ``kind: TrainingJob`` and ``metadata`` (name, team, description,
displayName, labels) wrap the body in ``spec``. The format converters read ``metadata`` here;
the schema generator (``provider/spec/schema.py``) and ``submission/emit.py`` take ``API_VERSION`` from here.
"""

from __future__ import annotations

from provider.core.record import Record
from provider.spec.model import DocPath
from provider.spec.reader import ConversionError, Node

API_VERSION = "trainjobs/v1"
KIND = "TrainingJob"

Labels = tuple[tuple[str, str], ...]


class Metadata(Record):
    """``metadata`` as read, with where its name and labels were written."""

    name: str
    team: str | None
    description: str | None
    display_name: str | None
    labels: Labels
    at_name: DocPath
    at_labels: DocPath


def metadata_fields(doc: Node) -> Metadata:
    """The document's ``metadata``; ConversionError when it or its name is missing."""
    meta = doc.child("metadata")
    if meta is None:
        raise ConversionError("metadata is missing")
    return Metadata(
        name=meta.req_str("name"),
        team=meta.text("team"),
        description=meta.text("description"),
        display_name=meta.text("displayName"),
        labels=meta.str_map("labels"),
        at_name=meta.at("name"),
        at_labels=meta.at("labels"),
    )


def merge_labels(*groups: Labels) -> Labels:
    """Label groups merged in order: a later group's value wins for the same key."""
    merged: dict[str, str] = {}
    for group in groups:
        merged.update(group)
    return tuple(merged.items())


def body(doc: Node) -> Node:
    """The document's ``spec`` mapping; ConversionError when it is missing."""
    spec = doc.child("spec")
    if spec is None:
        raise ConversionError("spec is missing")
    return spec
