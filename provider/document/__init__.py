"""Reading YAML documents safely, with positions for every value."""

from __future__ import annotations

from provider.core.problem import Problem
from provider.document import native
from provider.document.loaded import LoadedDocument
from provider.document.text import decode


def load_text(text: str, filename: str) -> LoadedDocument:
    """Read one YAML document from text, collecting problems instead of raising.

    The common document (nothing to report, no anchor, alias or tag) is read in C where
    provider.document.native is built; every other one, and every one without it, by the
    Python reader (yaml_loader), imported only then: a run that never needs it never loads PyYAML.
    """
    found = native.read(text)
    if found is not None:
        return found
    from provider.document.yaml_loader import read_events

    return read_events(text, filename)


def read_mapping(data: bytes, filename: str, expected: str) -> tuple[LoadedDocument | None, list[Problem]]:
    """File bytes -> a loaded document whose top level is a mapping, or the problems why not.

    ``expected`` says what the mapping should be, for the message ("a TrainingJob mapping ...").
    The document's own non-fatal problems (duplicate keys, ambiguous scalars) are returned too.
    """
    text, problems = decode(data, filename)
    if text is None:
        return None, problems
    doc = load_text(text, filename)
    if doc.data is None:
        return None, doc.problems
    if not isinstance(doc.data, dict):
        kind = "a list" if isinstance(doc.data, list) else "a single value"
        return None, doc.problems + [
            Problem(file=filename, line=1, column=1, message=f"the top level of the file is {kind}, not a mapping",
                    allowed=expected, rule="yaml.top_level")
        ]
    return doc, list(doc.problems)
