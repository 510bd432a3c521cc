"""A strict, bounded YAML reader that remembers where every value came from.

It reads libyaml's event stream (C speed, no recursion) and builds plain Python values itself,
so it can refuse what a training spec never needs and would only hide mistakes:

* one document per file, and a mapping at the top;
* duplicate keys are an error, never last-wins;
* plain scalars follow YAML 1.2 (``no`` is a string, ``1e3`` a number), and the plain
  scalars that YAML 1.1 reads differently (``no``, ``on``, ``1e3``, ``08``, ``1:30``) are an
  error, because another tool reading the same file would see another value; so is the
  YAML 1.1 merge key ``<<``, which YAML 1.2 readers take as a literal key;
* no message quotes more than a short, escaped excerpt of the input (provider.document.excerpt);
* depth, size and alias expansion are bounded (no "billion laughs"), and only the standard
  ``!!str/int/float/bool/null/map/seq`` tags are accepted.

Problems are collected, not raised: a file with a duplicate key still yields its values, so
the validator can report everything at once.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from provider.document.excerpt import clip, quoted
from provider.validation.problem import Problem, Severity, format_path

MAX_BYTES = 1024 * 1024
MAX_DEPTH = 64
MAX_NODES = 50_000
MAX_INT_DIGITS = 18

Position = tuple[int, int]  # 1-based line, 1-based column


@dataclass
class LoadedDocument:
    """The values of one YAML document and where each of them was written."""

    data: Any
    problems: list[Problem] = field(default_factory=list)
    # id(container) -> start of the container; for mappings also key -> position of the key
    # and key -> position of the value; for sequences the position of each item.
    starts: dict[int, Position] = field(default_factory=dict)
    key_positions: dict[int, dict[str, Position]] = field(default_factory=dict)
    value_positions: dict[int, dict[str, Position]] = field(default_factory=dict)
    item_positions: dict[int, list[Position]] = field(default_factory=dict)
    # (id(container), key-or-index) of plain scalars that were read as non-strings -> raw text.
    raw_plain: dict[tuple[int, Any], str] = field(default_factory=dict)
    # Paths that already have a YAML-level problem (later layers don't repeat them).
    flagged: set[tuple[Any, ...]] = field(default_factory=set)

    @property
    def ok(self) -> bool:
        return not any(p.severity is Severity.ERROR for p in self.problems)


_TAG = "tag:yaml.org,2002:"
_NULLS = {"", "~", "null", "Null", "NULL"}
_TRUE = {"true", "True", "TRUE"}
_FALSE = {"false", "False", "FALSE"}
_INT = re.compile(r"[-+]?[0-9]+\Z")
_OCT = re.compile(r"0o[0-7]+\Z")
_HEX = re.compile(r"0x[0-9a-fA-F]+\Z")
_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?\Z")
_INF = re.compile(r"[-+]?\.(inf|Inf|INF)\Z")
_NAN = re.compile(r"\.(nan|NaN|NAN)\Z")
# Plain scalars that YAML 1.1 (PyYAML, many CI tools) reads differently from YAML 1.2.
_YAML11_BOOL = re.compile(r"(y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF)\Z")
_YAML11_WORDS = frozenset(["y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF"])
_NUMERIC_START = frozenset("0123456789+-.")
_SEXAGESIMAL = re.compile(r"[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?\Z")
_LEADING_ZERO = re.compile(r"[-+]?0[0-9_]+\Z")
_EXP_NO_DOT = re.compile(r"[-+]?[0-9]+[eE][-+]?[0-9]+\Z")
_UNDERSCORE_NUM = re.compile(r"[-+]?[0-9][0-9_]*_[0-9_]*(\.[0-9_]*)?\Z")
_BINARY = re.compile(r"[-+]?0b[01_]+\Z")


def _trap(text: str) -> str | None:
    """Explain why an unquoted scalar means different things to different YAML readers."""
    if _YAML11_BOOL.match(text):  # one of a few short words: quoted as it is
        b = "true" if text.lower() in ("y", "yes", "on") else "false"
        return (
            f"unquoted {text} is ambiguous: YAML 1.1 reads it as the boolean {b}, YAML 1.2 as the "
            f"string {text!r}. Write {b} for a boolean, or quote it ('{text}') for a string"
        )
    raw, text = text, clip(text)  # the rest match unbounded digit runs
    if _SEXAGESIMAL.match(raw):
        return (
            f"unquoted {text} is ambiguous: YAML 1.1 reads it as a base-60 number, YAML 1.2 as a "
            f"string. Quote it ('{text}') for a string, or write durations as seconds like '5400s'"
        )
    if _LEADING_ZERO.match(raw):
        return (
            f"unquoted {text} is ambiguous: YAML 1.1 reads a leading zero as octal, YAML 1.2 as "
            f"decimal. Write it without the leading zero, or quote it ('{text}') for a string"
        )
    if _EXP_NO_DOT.match(raw):
        return (
            f"unquoted {text} is ambiguous: YAML 1.1 reads it as a string, YAML 1.2 as the number "
            f"{float(raw):g}. Write the number in full ({clip(_plain_number(raw))}), or quote it for a string"
        )
    if _UNDERSCORE_NUM.match(raw) or _BINARY.match(raw):
        return (
            f"unquoted {text} is ambiguous: YAML 1.1 reads it as a number, YAML 1.2 as a string. "
            f"Write plain digits, or quote it ('{text}') for a string"
        )
    return None


def _plain_number(text: str) -> str:
    value = float(text)
    return str(int(value)) if value.is_integer() and abs(value) < 1e18 else repr(value)


class _Reader:
    def __init__(self, filename: str) -> None:
        self.filename = filename
        self.doc = LoadedDocument(data=None)
        self.nodes = 0
        self.anchors: dict[str, tuple[Any, int]] = {}
        self.sizes: dict[int, int] = {}

    # -- problems -------------------------------------------------------------------------
    def problem(self, pos: Position, message: str, allowed: str | None = None, rule: str = "yaml",
                path: tuple[Any, ...] = ()) -> None:
        self.doc.problems.append(
            Problem(
                file=self.filename,
                line=pos[0],
                column=pos[1],
                path=clip(format_path(path), 80),  # a key is input text too
                message=message,
                allowed=allowed,
                rule=rule,
            )
        )

    # -- scalars --------------------------------------------------------------------------
    def scalar(self, ev: Any, pos: Position, parent: list[Any] | None) -> tuple[Any, str | None]:
        """Return (value, raw text if it was a plain non-string)."""
        text: str = ev.value
        tag = ev.tag
        if tag not in (None, "!"):
            return self.tagged(tag, text, pos, self.child_path(parent)), None
        if ev.style not in (None, "") or (ev.implicit and not ev.implicit[0]):
            return text, None
        if text in _NULLS:
            return None, text
        if text in _TRUE:
            return True, text
        if text in _FALSE:
            return False, text
        if text[0] not in _NUMERIC_START and text not in _YAML11_WORDS:
            return text, None  # the common case: an identifier such as n1-standard-4
        path = self.child_path(parent)
        trap = _trap(text)
        if trap is not None:
            self.problem(pos, trap, rule="yaml.ambiguous-scalar", path=path)
            self.doc.flagged.add(path)
            if _EXP_NO_DOT.match(text):
                return float(text), text
            return text, None
        if _INT.match(text) or _OCT.match(text) or _HEX.match(text):
            digits = text.lstrip("+-")
            if len(digits) > MAX_INT_DIGITS:
                self.problem(pos, f"number {clip(text)} is too large", "integers of at most 18 digits", path=path)
                self.doc.flagged.add(path)
                return text, None
            base = 16 if _HEX.match(text) else 8 if _OCT.match(text) else 10
            return int(text[2:] if base != 10 else text, base), text
        if _FLOAT.match(text):
            return float(text), text
        if _INF.match(text) or _NAN.match(text):
            self.problem(pos, f"{text} is not a finite number", "finite numbers", path=path)
            self.doc.flagged.add(path)
            return text, None
        return text, None

    def tagged(self, tag: str, text: str, pos: Position, path: tuple[Any, ...]) -> Any:
        if tag == _TAG + "str":
            return text
        if tag == _TAG + "null" and text in _NULLS:
            return None
        if tag == _TAG + "bool" and (text in _TRUE or text in _FALSE):
            return text in _TRUE
        if tag == _TAG + "int" and (_INT.match(text) or _HEX.match(text) or _OCT.match(text)):
            base = 16 if _HEX.match(text) else 8 if _OCT.match(text) else 10
            return int(text[2:] if base != 10 else text, base)
        if tag == _TAG + "float" and _FLOAT.match(text):
            value = float(text)
            if math.isfinite(value):
                return value
        self.problem(
            pos,
            f"tag {clip(tag.replace(_TAG, '!!'))} is not allowed on {quoted(text)}",
            "plain YAML values; the tags !!str, !!int, !!float, !!bool and !!null with matching values",
            rule="yaml.tag",
            path=path,
        )
        self.doc.flagged.add(path)
        return text

    # -- the event loop -------------------------------------------------------------------
    def read(self, text: str) -> LoadedDocument:
        doc = self.doc
        documents = 0
        # Stack entries: [container, kind, path, pending_key, key_pos, (unused), keys, size, anchor, start]
        stack: list[list[Any]] = []
        root: Any = None
        have_root = False
        ev: Any
        for ev in yaml.parse(text, Loader=yaml.CSafeLoader):
            cls = ev.__class__
            mark = ev.start_mark
            pos = (mark.line + 1, mark.column + 1)
            if cls is _DocStart:
                documents += 1
                if documents > 1:
                    self.problem(
                        pos,
                        "this file holds more than one YAML document",
                        "exactly one TrainingJob per file (remove the '---' separator or split the file)",
                        rule="yaml.multi-document",
                    )
                    break
                continue
            if cls in _IGNORED:
                continue
            if cls is _MapEnd or cls is _SeqEnd:
                entry = stack.pop()
                done, kind = entry[0], entry[1]
                size = entry[7]
                self.sizes[id(done)] = size
                anchor = entry[8]
                if anchor:
                    self.anchors[anchor] = (done, size)
                value, value_size = done, size
                if not stack:
                    root, have_root = value, True
                    continue
                if not self.attach(stack[-1], value, value_size, None, entry[9]):
                    return doc
                continue

            parent = stack[-1] if stack else None
            # A scalar in key position of a mapping is a key.
            if parent is not None and parent[1] == "map" and parent[3] is _NO_KEY:
                if cls is not _Scalar:
                    self.problem(pos, "mapping keys must be plain strings", "string keys", rule="yaml.key")
                    return self.abort(doc)
                key = ev.value
                if ev.style in (None, "") and key in _NULLS:
                    self.problem(pos, "empty or null mapping key", "string keys", rule="yaml.key")
                    return self.abort(doc)
                if key == "<<" and ev.style in (None, ""):
                    self.problem(
                        pos,
                        "the merge key << is a YAML 1.1 construct: YAML 1.2 readers see a literal key '<<', "
                        "so tools disagree on what this mapping holds",
                        "the keys written out in each mapping (an anchor and alias may still stand for a whole value)",
                        rule="yaml.merge",
                        path=tuple(parent[2]),
                    )
                    parent[3] = _DUPLICATE  # its value is read (for positions and bounds) and dropped
                    parent[4] = pos
                    continue
                if key in parent[6]:
                    first = doc.key_positions[id(parent[0])][key]
                    self.problem(
                        pos,
                        f"duplicate key {quoted(key)} (first defined at line {first[0]})",
                        "each key once per mapping",
                        rule="yaml.duplicate-key",
                        path=tuple(parent[2]) + (key,),
                    )
                    doc.flagged.add(tuple(parent[2]) + (key,))
                    parent[3] = _DUPLICATE
                    parent[4] = pos
                    continue
                parent[3] = key
                parent[4] = pos
                parent[6].add(key)
                doc.key_positions[id(parent[0])][key] = pos
                continue

            if len(stack) >= MAX_DEPTH:
                self.problem(pos, f"nesting is deeper than {MAX_DEPTH} levels", f"at most {MAX_DEPTH} levels", rule="yaml.depth")
                return self.abort(doc)
            if cls is _Scalar:
                value, raw = self.scalar(ev, pos, parent)
                size = 1
                if ev.anchor:
                    self.anchors[ev.anchor] = (value, 1)
            elif cls is _Alias:
                target = self.anchors.get(ev.anchor)
                if target is None:
                    self.problem(pos, f"unknown alias *{clip(ev.anchor)}", "aliases to anchors defined earlier", rule="yaml.alias")
                    return self.abort(doc)
                value, size = target
                raw = None
            elif cls is _MapStart or cls is _SeqStart:
                if ev.tag not in (None, "!", _TAG + "map", _TAG + "seq", _TAG + "omap"):
                    self.problem(pos, f"tag {clip(ev.tag)} is not allowed", "plain YAML mappings and sequences", rule="yaml.tag")
                    return self.abort(doc)
                kind = "map" if cls is _MapStart else "seq"
                container: Any = {} if kind == "map" else []
                doc.starts[id(container)] = pos
                if kind == "map":
                    doc.key_positions[id(container)] = {}
                    doc.value_positions[id(container)] = {}
                else:
                    doc.item_positions[id(container)] = []
                stack.append([container, kind, self.child_path(parent), _NO_KEY, None, [], set(), 1, ev.anchor, pos])
                continue
            else:  # pragma: no cover - libyaml emits no other events
                continue
            if parent is None:
                root, have_root = value, True
                continue
            if not self.attach(parent, value, size, raw, pos):
                return doc
        if documents == 0 or not have_root:
            self.problem((1, 1), "the file is empty", "a TrainingJob mapping with apiVersion, kind, metadata and spec", rule="yaml.empty")
            doc.data = None
            return doc
        doc.data = root
        return doc

    def abort(self, doc: LoadedDocument) -> LoadedDocument:
        doc.data = None
        return doc

    @staticmethod
    def child_path(parent: list[Any] | None) -> tuple[Any, ...]:
        if parent is None:
            return ()
        if parent[1] == "map":
            return tuple(parent[2]) + (parent[3],)
        return tuple(parent[2]) + (len(parent[0]),)

    def attach(self, parent: list[Any], value: Any, size: int, raw: str | None, pos: Position) -> bool:
        self.nodes += size
        parent[7] += size
        if self.nodes > MAX_NODES:
            self.problem(
                pos,
                f"the document expands to more than {MAX_NODES} values (aliases included)",
                "documents of a realistic size; aliases must not multiply ('billion laughs')",
                rule="yaml.size",
            )
            self.doc.data = None
            return False
        container = parent[0]
        if parent[1] == "seq":
            if raw is not None:
                self.doc.raw_plain[(id(container), len(container))] = raw
            self.doc.item_positions[id(container)].append(pos)
            container.append(value)
            return True
        key = parent[3]
        parent[3] = _NO_KEY
        if key is _DUPLICATE:
            return True
        if raw is not None:
            self.doc.raw_plain[(id(container), key)] = raw
        self.doc.value_positions[id(container)][key] = pos
        container[key] = value
        return True


_Scalar, _Alias = yaml.ScalarEvent, yaml.AliasEvent
_MapStart, _MapEnd = yaml.MappingStartEvent, yaml.MappingEndEvent
_SeqStart, _SeqEnd = yaml.SequenceStartEvent, yaml.SequenceEndEvent
_DocStart = yaml.DocumentStartEvent
_IGNORED = (yaml.StreamStartEvent, yaml.StreamEndEvent, yaml.DocumentEndEvent)


class _Marker:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


_NO_KEY = _Marker("<no key>")
_DUPLICATE = _Marker("<duplicate>")


def load_text(text: str, filename: str) -> LoadedDocument:
    """Read one YAML document from text, collecting problems instead of raising."""
    reader = _Reader(filename)
    try:
        return reader.read(text)
    except yaml.MarkedYAMLError as exc:
        mark: Any = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
        reader.doc.data = None
        reader.problem((line, col), _syntax_message(exc, text, line, col), rule="yaml.syntax")
        return reader.doc
    except yaml.YAMLError as exc:  # pragma: no cover - libyaml always marks its errors
        reader.doc.data = None
        reader.problem((1, 1), f"YAML syntax error: {clip(str(exc), 80)}", rule="yaml.syntax")
        return reader.doc


def _syntax_message(exc: yaml.MarkedYAMLError, text: str, line: int, col: int) -> str:
    lines = text.splitlines()
    here = lines[line - 1] if 0 < line <= len(lines) else ""
    if "\t" in here[: max(col, 1)] or (col - 1 < len(here) and here[col - 1 : col] == "\t"):
        return "a tab character is used for indentation; YAML allows only spaces there"
    problem = clip(exc.problem or "invalid YAML", 80)
    context = f" ({clip(exc.context, 80)})" if exc.context else ""
    return f"YAML syntax error: {problem}{context}"


def decode(data: bytes, filename: str) -> tuple[str | None, list[Problem]]:
    """Turn file bytes into text, refusing binary, non-UTF-8 and oversized input."""

    def fail(message: str, allowed: str, line: int = 1, col: int = 1, rule: str = "file") -> tuple[None, list[Problem]]:
        return None, [Problem(file=filename, line=line, column=col, path="", message=message, allowed=allowed, rule=rule)]

    if len(data) > MAX_BYTES:
        return fail(
            f"the file is {len(data):,} bytes, larger than the {MAX_BYTES:,}-byte limit",
            "spec files up to 1 MiB",
            rule="file.size",
        )
    if b"\x00" in data:
        return fail("this is a binary file, not YAML text", "UTF-8 text", rule="file.binary")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        before = data[: exc.start]
        line = before.count(b"\n") + 1
        col = exc.start - (before.rfind(b"\n") + 1) + 1
        return fail(f"the file is not valid UTF-8 (byte 0x{data[exc.start]:02x})", "UTF-8 text", line, col, "file.encoding")
    if "\ufffe" in text or "\ufeff" in text[1:]:
        return fail("the file contains a stray byte-order mark", "UTF-8 text", rule="file.encoding")
    return text, []
