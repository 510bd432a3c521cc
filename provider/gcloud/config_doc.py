"""The ``--config`` file of a gcloud command, with the positions of what it holds.

The file is read by the document layer (provider/document: the strict YAML reader, which marks
every value with its line and column). build.py puts the config's own mappings into the
TrainingJob document it makes (``trainingInput`` for AI Platform, the CustomJobSpec for Vertex
AI), so ``around`` can lend that document the config's positions: a problem in a value that came
from the config is reported at ``config.yaml:LINE:COLUMN``, as a problem in a spec is, and a
problem in a value that came from a flag (it has no position) is reported against the command.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from provider.core.problem import Problem
from provider.core.record import Record, replace
from provider.document.loaded import LoadedDocument
from provider.gcloud.command import GcloudError
from provider.gcloud.heredoc import Here


class Config(Record):
    """A read --config file: its name as shown, and the loaded document (data and positions)."""

    shown: str
    doc: LoadedDocument
    # the plain scalars read as gcloud reads them (YAML 1.1), each named: notes for the user
    readings: tuple[str, ...] = ()
    named: str = ""  # the file as the command names it, where that is not ``shown`` (a here-document's)
    cell: int | None = None  # a notebook's cell that holds it (a here-document of a %%bash cell): problems name it

    @property
    def data(self) -> dict[str, Any]:
        assert isinstance(self.doc.data, dict)
        return self.doc.data


class ConfigProblems(GcloudError):
    """The --config file cannot be read: its problems, each with the file, line and column.

    A GcloudError (gcloud refuses such a file too) whose problems can be reported as a spec's are.
    """

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("; ".join(f"{p.file}:{p.line}:{p.column}: {p.message}" for p in problems))
        self.problems = problems


def read(path: Path, here: Here | None = None) -> Config:
    """The --config file as gcloud reads it (YAML or JSON), through the strict reader; ``here``: the text a
    here-document of the script writes there (provider.gcloud.heredoc), read instead of the file."""
    from provider.document import read_mapping
    from provider.document.files import display_name, read_file

    shown = here.shown or here.target if here else display_name(path)
    raw, problem = (here.raw(), None) if here else read_file(path, shown)
    if problem is not None or raw is None:
        raise ConfigProblems([problem or Problem(file=shown, message="cannot be read", line=1, column=1)])
    doc, problems = read_mapping(raw, shown, "a job configuration mapping (gcloud --config)")
    readings: list[str] = []
    if doc is not None:
        problems, readings = as_gcloud_reads(doc, raw, shown)
    cell = here.cell if here else None
    if doc is None or any(p.is_error for p in problems):
        raise ConfigProblems([replace(p, cell=cell) if p.file == shown else p for p in problems])
    if cell is not None:  # said as the cell's other places are: "NB cell 3, line 9, column 5"
        readings = [re.sub(rf"^{re.escape(shown)}:([0-9]+):([0-9]+):", lambda m: f"{shown} cell {cell}, line {m[1]}, "
                           f"column {m[2]}:", r) for r in readings]
    return Config(shown, doc, tuple(readings), here.target if here else "", cell)


def as_gcloud_reads(doc: LoadedDocument, raw: bytes, shown: str) -> tuple[list[Problem], list[str]]:
    """A config file's document read as gcloud reads its --config (YAML 1.1: merge keys, plain scalars, dates):
    its problems left, and each reading that changed a value (notes). The one reading for ``--config FILE`` and
    for the same file given to ``trainjobs convert FILE``."""
    readings: list[str] = []
    _merge_keys(doc, raw, shown, readings)
    return _as_gcloud_reads(doc, shown, readings) + _dates(doc, shown, raw), readings


def _merge_keys(doc: LoadedDocument, raw: bytes, shown: str, readings: list[str]) -> None:
    """The YAML 1.1 merge key ``<<`` (``- <<: *chief`` then ``replicaCount: 3``), merged as gcloud's loader merges it:
    the mapping gets each key of the merged mapping(s) it does not write itself (ruamel's and PyYAML's rule, read
    here by PyYAML's SafeLoader), each merge named in ``readings``. The strict reader refuses ``<<`` (YAML 1.2
    readers see a literal key); for gcloud's --config that refusal is dropped, as the file is gcloud's."""
    merges = [p for p in doc.problems if p.rule == "yaml.merge"]
    if not merges or any(p.is_error and p.rule != "yaml.merge" for p in doc.problems):
        return  # no merge, or the file is refused for more (its bounds too): the strict reader's refusal stands
    import copy

    import yaml

    from provider.document.loaded import MAX_NODES

    try:
        full = yaml.safe_load(raw)
    except yaml.YAMLError:
        return
    if _nodes(full, MAX_NODES) > MAX_NODES:  # aliases merged as a tree: bounded as the strict reader bounds them
        return

    def walk(strict: object, merged: object) -> None:
        if isinstance(strict, dict) and isinstance(merged, dict):
            for key, value in merged.items():
                if key not in strict:
                    strict[key] = copy.deepcopy(value)
                else:
                    walk(strict[key], value)
        elif isinstance(strict, list) and isinstance(merged, list) and len(strict) == len(merged):
            for inner, other in zip(strict, merged):
                walk(inner, other)

    walk(doc.data, full)
    doc.problems = [p for p in doc.problems if p.rule != "yaml.merge"]
    readings.extend(f"{shown}:{p.line}:{p.column}: the merge key << is read as gcloud reads it (YAML 1.1): the mapping "
                    "gets each key of the one merged that it does not write itself" for p in merges)


def _item_at(doc: LoadedDocument, node: object, index: int) -> tuple[int, int] | None:
    """Where item ``index`` of the list ``node`` was written; None for a list a merge key copied in (no place)."""
    places = doc.item_positions.get(id(node)) or ()
    return places[index] if index < len(places) else None


def _nodes(value: object, limit: int) -> int:
    """How many values ``value`` holds, counted as a tree (an alias counted each time), stopping past ``limit``."""
    count, todo = 0, [value]
    while todo and count <= limit:
        node = todo.pop()
        count += 1
        todo.extend(node.values() if isinstance(node, dict) else node if isinstance(node, list) else ())
    return count


def _as_gcloud_reads(doc: LoadedDocument, shown: str, readings: list[str]) -> list[Problem]:
    """Every plain scalar given gcloud's --config value (YAML 1.1, yaml11.py), each changed one named.

    Two kinds: those the strict reader refuses as ambiguous between YAML 1.1 and 1.2
    (``learning_rate: 1e-5`` is the number gcloud sends), and the YAML-1.2-only forms it reads as
    numbers where gcloud reads strings (``0o17``, ``-.5``). The document's other problems stay
    (a non-finite ``.inf`` is still refused); the rest are returned.
    """
    from provider.gcloud import yaml11

    return reread(doc, shown, yaml11.read, "its --config (YAML 1.1)", readings)


class Dated(Record):
    """An unquoted date or datetime in a YAML file: where, its text, and whether it is a mapping's key."""

    line: int
    column: int
    text: str
    key: bool = False

    @property
    def kind(self) -> str:
        return "date" if len(self.text) == 10 else "datetime"


def unquoted_dates(doc: LoadedDocument, raw: bytes, skip_keys_of: tuple[object, ...] = ()) -> list[Dated]:
    """Each unquoted date or datetime (``2020-01-01``, ``2020-01-01T10:00:00Z``), value or key, the strict
    reader keeps as text: gcloud's loader (ruamel, YAML 1.1 and 1.2 alike) reads a timestamp there, on
    which gcloud fails (a --config: JSON cannot carry it, as a value or as a key; a --flags-file: it
    crashes). Quoted, a block scalar or tagged, it is text to both. The keys of the mappings in
    ``skip_keys_of`` are not looked at (a flags file's flag names: gcloud names a non-flag itself)."""
    from provider.gcloud.yaml11 import TIMESTAMP

    lines = raw.decode("utf-8", "replace").splitlines()
    found: list[Dated] = []

    def plain(where: tuple[int, int] | None, text: object) -> bool:
        if not isinstance(text, str) or where is None or not TIMESTAMP.match(text) or not 0 < where[0] <= len(lines):
            return False
        return lines[where[0] - 1][where[1] - 1:where[1]] not in ("'", '"', "|", ">", "!", "?")

    def walk(node: object) -> None:
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        keyed = isinstance(node, dict) and not any(node is s for s in skip_keys_of)
        for key, value in list(items):
            where = (doc.value_positions.get(id(node), {}).get(key) if isinstance(node, dict)
                     else _item_at(doc, node, key))
            at = doc.key_positions.get(id(node), {}).get(key) if keyed else None
            if keyed and at is not None and plain(at, key):
                found.append(Dated(at[0], at[1], str(key), key=True))
            if plain(where, value):
                assert where is not None and isinstance(value, str)
                found.append(Dated(where[0], where[1], value))
            walk(value)

    walk(doc.data)
    return sorted(found, key=lambda d: (d.line, d.column))


def _dates(doc: LoadedDocument, shown: str, raw: bytes) -> list[Problem]:
    """The config's unquoted dates, refused where they stand: gcloud reads each as a date, which it cannot
    put in the request (custom-jobs: ``Cannot parse YAML: [Object of type date is not JSON serializable]``,
    as a key ``[keys must be str, int, float, bool or None, not datetime.date]``; ai-platform and
    hp-tuning-jobs crash on it with the same words)."""
    out = []
    for d in unquoted_dates(doc, raw):
        why = (f"keys must be str, int, float, bool or None, not datetime.{d.kind}" if d.key
               else f"Object of type {d.kind} is not JSON serializable")
        out.append(Problem(
            file=shown, line=d.line, column=d.column, rule="gcloud.config-date",
            message=f"unquoted {d.text}{' as a key' if d.key else ''} is a {d.kind} to gcloud (its --config is "
                    f"YAML 1.1, where this is a timestamp), and gcloud fails on it ({why}); quote it ('{d.text}') "
                    "for the string",
            allowed="text: quote it for the string"))
    return out


class UnreadableAt(ValueError):
    """A plain scalar gcloud itself cannot read; the message is its file, line and column."""


def reread(doc: LoadedDocument, shown: str, read: Callable[[str], object], how: str,
           readings: list[str]) -> list[Problem]:
    """``doc``'s plain scalars given the value ``read`` makes of their text, as gcloud reads the file.

    A scalar the strict reader refused as ambiguous (YAML 1.1 or 1.2) or read as other than a string
    is read again from its text; each one whose value that changes, and each refused one, is named in
    ``readings`` (``FILE:LINE:COLUMN: unquoted TEXT is read as gcloud reads HOW: VALUE``) and its
    refusal dropped. UnreadableAt where ``read`` raises ValueError (gcloud fails on that text too).
    """
    ambiguous = {(p.line, p.column) for p in doc.problems if p.rule == "yaml.ambiguous-scalar"}

    def walk(node: object, path: tuple[Any, ...]) -> None:
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, value in list(items):
            where = (doc.value_positions.get(id(node), {}).get(key) if isinstance(node, dict)
                     else _item_at(doc, node, key))
            at = f"{shown}:{where[0]}:{where[1]}" if where else shown
            raw = doc.raw_plain.get((id(node), key))  # the text of a plain scalar the strict reader read as no string
            flagged = (*path, key) in doc.flagged and where in ambiguous
            text = raw if raw is not None else value if flagged and isinstance(value, str) else None
            if text is not None:
                try:
                    gcloud = read(text)
                except ValueError:
                    raise UnreadableAt(at) from None
                if flagged or type(gcloud) is not type(value) or gcloud != value:
                    node[key] = gcloud  # type: ignore[index]
                    doc.flagged.discard((*path, key))
                    resolved.add(where)
                    readings.append(f"{at}: unquoted {text} is read as gcloud reads {how}: {gcloud!r}")
            walk(value, (*path, key))

    resolved: set[Any] = set()
    walk(doc.data, ())
    doc.problems = [p for p in doc.problems if (p.line, p.column) not in resolved]
    return list(doc.problems)


def unset_nulls(config: Config, notes: list[str]) -> None:
    """Drop the config's ``KEY: null`` entries, each named in a note: gcloud reads a null as a field not set.

    (apitools' DictToMessage / PyValueToMessage skip a None value, so the field is not sent.)
    """
    def walk(node: object, where: str) -> None:
        if isinstance(node, dict):
            for key in [k for k, v in node.items() if v is None]:
                del node[key]
                notes.append(f"{config.shown}: {where}{key}: null is read as not set, as gcloud reads it (nothing is sent)")
            for key, value in node.items():
                walk(value, f"{where}{key}.")
        elif isinstance(node, list):
            for i, item in enumerate(node):
                walk(item, f"{where[:-1]}[{i}].")

    walk(config.data, "")


def around(config: Config, document: dict[str, Any]) -> LoadedDocument:
    """``document`` (which embeds the config's mappings) with the config's positions and flags."""
    doc = config.doc
    return LoadedDocument(data=document, problems=list(doc.problems), starts=doc.starts,
                          key_positions=doc.key_positions, value_positions=doc.value_positions,
                          item_positions=doc.item_positions, raw_plain=doc.raw_plain,
                          flagged={_embedded(document, config.data, p) for p in doc.flagged})


def _embedded(document: dict[str, Any], data: dict[str, Any], path: tuple[Any, ...]) -> tuple[Any, ...]:
    """A path of the config file as a path of the document that embeds it."""
    spec = document.get("spec")
    if spec is data or (isinstance(spec, dict) and path and path[0] in data and spec.get(path[0]) is data[path[0]]):
        return ("spec", *path)
    return ("<config>", *path)  # a part of the config the document does not hold: never matches


def attribute(problems: list[Problem], config: Config, command: str, via: str | None = None,
              document: dict[str, Any] | None = None) -> list[Problem]:
    """Problems with a position are the config file's (``via``: where the command that read it names it); the others
    are the command's (flags), and so is one at a value a flag wrote into a mapping of the config (``document``: what
    embeds it), which the position only fell back to."""
    def flags(p: Problem) -> bool:
        return p.line is None or (document is not None and bool(p.path) and _by_flag(config.doc, document, p.path))

    return [replace(p, file=command, line=None, column=None) if flags(p) else replace(p, file=config.shown, via=via,
                                                                                            cell=config.cell)
            for p in problems]


def _legacy_flag(document: dict[str, Any], parts: tuple[Any, ...]) -> bool:
    """Whether ``parts`` is under the trainingInput field a cluster flag beside it sets (``--master-accelerator``:
    masterConfig.acceleratorConfig), as gcloud lays the flags over the config (provider.spec.formats.legacy.flags)."""
    from provider.spec.formats.legacy.flags import ACCELERATOR_FLAGS, FIELD_FLAGS

    spec = document.get("spec")
    if not isinstance(spec, dict) or parts[:2] != ("spec", "trainingInput"):
        return False
    sets = [FIELD_FLAGS[k] for k in FIELD_FLAGS if k in spec]
    sets += [(ACCELERATOR_FLAGS[k], "acceleratorConfig") for k in ACCELERATOR_FLAGS if k in spec]
    return any(parts[2: 2 + len(field)] == field for field in sets)


def _by_flag(doc: LoadedDocument, document: dict[str, Any], path: str) -> bool:
    """Whether the value at ``path`` of ``document`` is under a key that a mapping of the config does not write (a
    flag's, as gcloud merges flags into the config): a missing key is a problem of the mapping itself."""
    from provider.core.names import snake
    from provider.core.problem import parse_path

    parts = parse_path(path)
    if _legacy_flag(document, parts):
        return True
    node: Any = document
    for part in parts:
        if isinstance(node, dict) and isinstance(part, str) and part in node:
            written = doc.key_positions.get(id(node))
            if written is not None and part not in written and snake(part) not in written:
                return True
            node = node[part]
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
        else:
            return False
    return False
