"""A strict, bounded YAML reader that remembers where every value came from.

It reads libyaml's event stream (C speed, no recursion) and builds plain Python values itself,
so it can refuse what a training spec never needs and would only hide mistakes (a document with
none of that is read faster by the same rules in C: provider.document.native):

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

from collections.abc import Callable
from typing import Any

import yaml

from provider.core.problem import Problem, format_path
from provider.document.excerpt import clip, quoted
from provider.document.loaded import MAX_DEPTH, MAX_NODES, LoadedDocument, Position
from provider.document.scalars import KEY_WORDS, NULLS, NUMERIC_START, SPECIAL_WORDS, TAG, plain, tagged


class _Open:
    """A mapping or sequence being read: its container and what the reader knows of it so far."""

    __slots__ = ("anchor", "container", "is_map", "key", "key_positions", "parent", "positions", "size", "slot",
                 "start")

    def __init__(self, container: Any, is_map: bool, parent: _Open | None, anchor: str | None, start: Position,
                 positions: Any) -> None:
        self.container = container
        self.is_map = is_map
        # The document's table of where each value of this container starts (by key, or by index).
        self.positions = positions
        self.key_positions: dict[str, Position] = {}  # mappings: where each key is (the document's table)
        self.parent = parent
        self.slot = parent.next_slot() if parent is not None else None  # its key or index in the parent
        self.key: Any = _NO_KEY  # the key whose value comes next (mappings)
        self.size = 1  # values inside it, aliases expanded
        self.anchor = anchor
        self.start = start

    @property
    def path(self) -> tuple[Any, ...]:
        """Where this container is in the document (built only for a problem's message)."""
        return self.parent.path + (self.slot,) if self.parent is not None else ()

    def next_slot(self) -> Any:
        """The key or index of the value read next."""
        return self.key if self.is_map else len(self.container)

    def child_path(self) -> tuple[Any, ...]:
        return self.path + (self.next_slot(),)


def _held(top: _Open | None) -> tuple[Any, bool, Any]:
    """What the event loop keeps in locals of the container being read: it, is_map, its positions."""
    return (top.container, top.is_map, top.positions) if top is not None else (None, False, None)


class _Stop(Exception):
    """Reading ends here: ``finish`` says whether the values read so far are the document."""

    def __init__(self, finish: bool) -> None:
        self.finish = finish


class _Reader:
    """Builds plain values from libyaml's events (``events``), with where each value was written."""

    def __init__(self, filename: str) -> None:
        self.filename = filename
        self.doc = LoadedDocument(data=None)
        self.anchors: dict[str, tuple[Any, int]] = {}
        self.stack: list[_Open] = []
        self.documents = 0
        self.root: Any = None
        self.have_root = False

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

    def fatal(self, pos: Position, message: str, allowed: str, rule: str) -> _Stop:
        """Report a problem after which nothing of the file is read."""
        self.problem(pos, message, allowed, rule=rule)
        self.doc.data = None
        return _Stop(finish=False)

    # -- the event loop -------------------------------------------------------------------
    def read(self, text: str) -> LoadedDocument:
        loader = yaml.CSafeLoader(text)
        try:
            self.events(loader.get_event)
        except _Stop as stop:
            if not stop.finish:
                return self.doc
        finally:
            loader.dispose()
        if self.documents == 0 or not self.have_root:
            self.problem((1, 1), "the file is empty", "a TrainingJob mapping with apiVersion, kind, metadata and spec",
                         rule="yaml.empty")
            self.doc.data = None
            return self.doc
        self.doc.data = self.root
        return self.doc

    def events(self, get_event: Callable[[], Any]) -> None:
        """Read every event; each finished value is placed at the end of the loop, in one spot.

        This loop is where a run over many specs spends most of its time, so the common events
        (scalars, the end of a container) are handled here with the reader's state in locals;
        keys that need a word, tagged or non-string scalars, aliases and new containers go to
        the methods below.
        """
        stack = self.stack
        raw_plain = self.doc.raw_plain
        nodes = 0  # values placed, aliases expanded (bounded by MAX_NODES)
        # The container being read (stack[-1]) and, for speed, what never changes while it is read.
        top: _Open | None = None
        container: Any = None
        is_map = False
        positions: Any = None
        while (ev := get_event()) is not None:
            cls = ev.__class__
            raw = None
            if cls is _SCALAR:  # most events
                mark = ev.start_mark
                pos = (mark.line + 1, mark.column + 1)
                value = ev.value
                if is_map and top is not None and top.key is _NO_KEY:  # a key
                    if value in top.key_positions or value in KEY_WORDS:
                        self.key(ev, pos, top)  # a duplicate, null or the merge key (unless quoted)
                    else:
                        top.key = value
                        top.key_positions[value] = pos
                    continue
                if len(stack) >= MAX_DEPTH:
                    self.check_depth(pos)
                # a plain word YAML reads as nothing but this string (n1-standard-4, trainer.task)
                word = value and ev.implicit[0] and value[0] not in NUMERIC_START and value not in SPECIAL_WORDS
                if ev.tag is not None or not (ev.style or word):  # tagged, or not a quoted string or a word
                    value, raw = self.scalar(ev, pos, top)
                if ev.anchor:
                    self.anchors[ev.anchor] = (value, 1)
                size = 1
            elif cls is _MAPPING_END or cls is _SEQUENCE_END:
                done = stack.pop()
                if done.anchor:
                    self.anchors[done.anchor] = (done.container, done.size)
                value, size, pos = done.container, done.size, done.start
                top = stack[-1] if stack else None
                container, is_map, positions = _held(top)
            elif cls is _MAPPING_START or cls is _SEQUENCE_START:
                top = self.open(ev)
                container, is_map, positions = _held(top)
                continue
            elif cls is _ALIAS:
                value, size, pos = self.alias(ev)
            else:
                self.other(ev)  # a document's start; stream start and end, document end need nothing
                continue
            if top is None:
                self.root, self.have_root = value, True
                continue
            nodes += size
            top.size += size
            if nodes > MAX_NODES:
                raise self.too_large(pos)
            if is_map:
                key = top.key
                top.key = _NO_KEY
                if key is _DUPLICATE:
                    continue  # its value was read for positions and bounds, and is dropped
                if raw is not None:
                    raw_plain[(id(container), key)] = raw
                positions[key] = pos
                container[key] = value
            else:
                if raw is not None:
                    raw_plain[(id(container), len(container))] = raw
                positions.append(pos)
                container.append(value)

    def other(self, ev: Any) -> None:
        """The stream's and the documents' events: one document per file."""
        if ev.__class__ is not _DOCUMENT_START:
            return
        self.documents += 1
        if self.documents > 1:
            mark: Any = ev.start_mark  # libyaml marks every event
            self.problem(
                (mark.line + 1, mark.column + 1),
                "this file holds more than one YAML document",
                "exactly one TrainingJob per file (remove the '---' separator or split the file)",
                rule="yaml.multi-document",
            )
            raise _Stop(finish=True)

    def alias(self, ev: Any) -> tuple[Any, int, Position]:
        """The anchored value an alias stands for: (value, its size, where the alias is)."""
        mark = ev.start_mark
        pos = (mark.line + 1, mark.column + 1)
        self.no_key_expected(pos)
        self.check_depth(pos)
        target = self.anchors.get(ev.anchor)
        if target is None:
            raise self.fatal(pos, f"unknown alias *{clip(ev.anchor)}", "aliases to anchors defined earlier", "yaml.alias")
        return target[0], target[1], pos

    def open(self, ev: Any) -> _Open:
        """Start reading a mapping or sequence; it is placed when its end event comes."""
        mark = ev.start_mark
        pos = (mark.line + 1, mark.column + 1)
        stack = self.stack
        if stack and (len(stack) >= MAX_DEPTH or (stack[-1].is_map and stack[-1].key is _NO_KEY)):
            self.no_key_expected(pos)
            self.check_depth(pos)
        if ev.tag not in _CONTAINER_TAGS:
            raise self.fatal(pos, f"tag {clip(ev.tag)} is not allowed", "plain YAML mappings and sequences", "yaml.tag")
        is_map = ev.__class__ is _MAPPING_START
        container: Any = {} if is_map else []
        doc = self.doc
        ident = id(container)
        doc.starts[ident] = pos
        positions: Any
        if is_map:
            positions = doc.value_positions[ident] = {}
        else:
            positions = doc.item_positions[ident] = []
        opened = _Open(container, is_map, stack[-1] if stack else None, ev.anchor, pos, positions)
        if is_map:
            doc.key_positions[ident] = opened.key_positions
        stack.append(opened)
        return opened

    # -- keys, values and bounds ------------------------------------------------------------
    def no_key_expected(self, pos: Position) -> None:
        """A mapping waiting for a key gets a collection or an alias: keys are plain strings."""
        if self.stack and self.stack[-1].is_map and self.stack[-1].key is _NO_KEY:
            raise self.fatal(pos, "mapping keys must be plain strings", "string keys", "yaml.key")

    def check_depth(self, pos: Position) -> None:
        if len(self.stack) >= MAX_DEPTH:
            raise self.fatal(pos, f"nesting is deeper than {MAX_DEPTH} levels", f"at most {MAX_DEPTH} levels", "yaml.depth")

    def key(self, ev: Any, pos: Position, parent: _Open) -> None:
        """A key that is refused (null) or reported (the merge key, a duplicate)."""
        key = ev.value
        plain = ev.style in (None, "")
        if plain and key in NULLS:
            raise self.fatal(pos, "empty or null mapping key", "string keys", "yaml.key")
        if key == "<<" and plain:
            self.problem(
                pos,
                "the merge key << is a YAML 1.1 construct: YAML 1.2 readers see a literal key '<<', "
                "so tools disagree on what this mapping holds",
                "the keys written out in each mapping (an anchor and alias may still stand for a whole value)",
                rule="yaml.merge",
                path=parent.path,
            )
            parent.key = _DUPLICATE  # its value is read (for positions and bounds) and dropped
            return
        if key in parent.key_positions:
            first = parent.key_positions[key]
            self.problem(
                pos,
                f"duplicate key {quoted(key)} (first defined at line {first[0]})",
                "each key once per mapping",
                rule="yaml.duplicate-key",
                path=parent.path + (key,),
            )
            self.doc.flagged.add(parent.path + (key,))
            parent.key = _DUPLICATE
            return
        parent.key = key
        parent.key_positions[key] = pos

    def scalar(self, ev: Any, pos: Position, parent: _Open | None) -> tuple[Any, str | None]:
        """Return (value, raw text if it was a plain non-string)."""
        tag = ev.tag
        raw: str | None = None
        if tag not in (None, "!"):
            value, refusal = tagged(tag, ev.value)
        elif ev.style not in (None, "") or (ev.implicit and not ev.implicit[0]):
            return ev.value, None
        else:
            value, raw, refusal = plain(ev.value)
        if refusal is not None:
            path = parent.child_path() if parent is not None else ()
            self.problem(pos, refusal.message, refusal.allowed, rule=refusal.rule, path=path)
            self.doc.flagged.add(path)
        return value, raw

    def too_large(self, pos: Position) -> _Stop:
        self.problem(
            pos,
            f"the document expands to more than {MAX_NODES} values (aliases included)",
            "documents of a realistic size; aliases must not multiply ('billion laughs')",
            rule="yaml.size",
        )
        self.doc.data = None
        return _Stop(finish=False)


class _Marker:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


_NO_KEY = _Marker("<no key>")
_DUPLICATE = _Marker("<duplicate>")
_SCALAR, _ALIAS, _DOCUMENT_START = yaml.ScalarEvent, yaml.AliasEvent, yaml.DocumentStartEvent
_MAPPING_START, _MAPPING_END = yaml.MappingStartEvent, yaml.MappingEndEvent
_SEQUENCE_START, _SEQUENCE_END = yaml.SequenceStartEvent, yaml.SequenceEndEvent
_CONTAINER_TAGS = (None, "!", TAG + "map", TAG + "seq", TAG + "omap")


def read_events(text: str, filename: str) -> LoadedDocument:
    """Read one YAML document in Python, collecting problems instead of raising.

    ``provider.document.load_text`` reads the common document in C where that is built, and
    every other one here.
    """
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
