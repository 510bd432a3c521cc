"""The one validation entry point: the CLI, the Pulumi provider and the backends all call it.

``validate_bytes`` checks one file, ``validate_data`` an already-parsed document (the Pulumi
provider's check()), ``validate_paths`` a set of files and directories with the cross-file
rules. Every layer collects problems instead of stopping at the first:

1. the file itself (size, encoding) and its YAML (syntax, duplicate keys, ambiguous scalars);
2. the JSON Schema generated from the catalog;
3. the format converter's own rules (AI Platform's scale tiers, Vertex's pool placeholders);
4. the model-level rules, each citing its source;
5. across files: unique job names within a stack.

Where a later layer explains the same spot better than the schema did, only the better one is kept.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from provider.core.problem import Problem, Severity, format_path
from provider.core.record import Record, field, replace
from provider.document import boundary, read_mapping
from provider.document.files import SPEC_SUFFIXES as SPEC_SUFFIXES  # gitops.side imports it from here
from provider.document.files import SpecFile, expand, read_file, real_path
from provider.document.files import display_name as display_name  # and read_file: imported from here by others
from provider.document.json_numbers import as_json
from provider.document.loaded import LoadedDocument, at_position
from provider.document.locate import locate, problems_as_written
from provider.spec.formats import google_readers
from provider.spec.model import Note, TrainingJob
from provider.spec.parse import to_model
from provider.spec.reader import ConversionError
from provider.validation import schema_check
from provider.validation.explaining import explains, holds, under
from provider.validation.names import NO_STACK, duplicate_names, name_problem
from provider.validation.rules import Context, run_rules


class SpecResult(Record, frozen=False):
    """The outcome for one spec file (or document). ``document`` (the loaded YAML with its positions)
    gives later messages their line numbers. ``validate_paths`` drops it once the file is checked
    (``release``: memory stays flat); asked for again (a cross-file problem, such as a stack's quota),
    it is read anew from ``path``. ``name`` is ``job.name`` whenever ``job`` was read; ``validate_paths`` may drop the job."""

    file: str
    problems: list[Problem] = field(default_factory=list)
    job: TrainingJob | None = None
    path: Path | None = None  # the file on disk, resolved
    name: str | None = None  # the job's name, kept when the job itself is dropped (see validate_paths)
    _document: LoadedDocument | None = field(default=None, repr=False, compare=False)
    _data: Any = field(default=None, repr=False, compare=False)  # the values as parsed
    _released: bool = field(default=False, repr=False, compare=False)

    @property
    def ok(self) -> bool:
        return not any(p.is_error for p in self.problems)

    @property
    def document(self) -> LoadedDocument | None:
        if self._document is None and self._released and self.path is not None:
            raw, problem = read_file(self.path, self.file)
            if raw is not None and problem is None:
                self._document = read_mapping(raw, self.file, "")[0]
        return self._document

    @property
    def data(self) -> Any:
        """The spec's values as parsed (read again from ``path`` after ``release``)."""
        if self._data is None and self._released:
            doc = self.document
            return doc.data if doc is not None else None
        return self._data

    def release(self) -> None:
        """Drop the loaded document and values (read again from ``path`` if they are asked for)."""
        self._document = None
        self._data = None
        self._released = self.path is not None


class Report(Record, frozen=False):
    """What a run over many spec files found: each file's result, and the problems across files."""

    results: list[SpecResult] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)  # cross-file problems (and, lean, those of results not kept)
    checked: int = 0  # spec files checked (results holds them all unless validate_paths ran lean)

    @property
    def all_problems(self) -> list[Problem]:
        return in_order([p for r in self.results for p in r.problems] + self.problems)

    @property
    def ok(self) -> bool:
        return not any(p.is_error for p in self.all_problems)

    @property
    def jobs(self) -> list[TrainingJob]:
        return [r.job for r in self.results if r.job is not None]


def in_order(problems: Iterable[Problem]) -> list[Problem]:
    """The one order every entry point reports problems in: by file, line and column (stable)."""
    return sorted(problems, key=lambda p: (p.file, p.cell or 0, p.line or 0, p.column or 0))


def _note_problems(notes: Iterable[Note], filename: str, doc: LoadedDocument | None) -> list[Problem]:
    out = []
    for note in notes:
        pos = locate(doc, note.path) if doc else None
        out.append(Problem(
            file=filename, **at_position(pos), path=format_path(note.path), message=note.message, allowed=note.allowed,
            rule=note.rule, source=note.source, severity=Severity.ERROR if note.error else Severity.WARNING,
        ))
    return out


def _prune(data: Any, paths: Iterable[tuple[Any, ...]]) -> Any:
    """A copy of ``data`` without the values at ``paths`` (what the earlier layers refused)."""
    import copy  # only for a document an earlier layer refused part of

    pruned = copy.deepcopy(data)
    for path in sorted(paths, key=len, reverse=True):
        node = pruned
        for part in path[:-1]:
            inner = node[part] if holds(node, part) else None
            if inner is None:
                break
            node = inner
        else:
            if path and holds(node, path[-1]):
                if isinstance(node, dict):
                    del node[path[-1]]
                else:
                    node[path[-1]] = None
    return pruned


def _readable_model(
    data: Any, unreadable: set[tuple[Any, ...]], refused: set[tuple[Any, ...]]
) -> tuple[TrainingJob | None, frozenset[tuple[Any, ...]], tuple[Note, ...]]:
    """The model of ``data``; if its structure is broken, the model of what can still be read.

    Values of the wrong type or shape (``unreadable``) are left out and the conversion is tried
    again; if that still fails, every value the schema or the YAML reader refused is left out.
    So the format rules and the model rules still report every other problem of the file
    (issue 11: one problem must not hide the others), and a value that is merely wrong (an
    unknown machine type) still reaches the converter, which needs it to build the pools.
    Returns (model, the paths left out to read it, the converter's notes when every try fails).
    """
    try:
        return to_model(data), frozenset(), ()
    except ConversionError as exc:
        notes = exc.notes
    tries = [paths for paths in (unreadable, refused) if paths]
    for paths in dict.fromkeys(frozenset(p) for p in tries):
        try:
            return to_model(_prune(data, paths)), paths, ()
        except ConversionError as exc:
            notes = exc.notes or notes
    return None, frozenset(), tuple(notes)


class _SchemaFindings(Record):
    """What the schema layer found on a document, after the YAML and proto-form layers."""

    issues: list[schema_check.SchemaIssue]  # those no earlier layer explained
    problems: list[Problem]  # the same, with positions
    unreadable: set[tuple[Any, ...]]  # paths whose type or shape no converter can read
    refused: set[tuple[Any, ...]]  # every path something refused

    @property
    def conditional(self) -> set[str]:
        return {format_path(i.path) for i in self.issues if i.conditional}


def _schema_findings(data: Any, filename: str, doc: LoadedDocument | None, read_notes: list[Problem]) -> _SchemaFindings:
    found = list(schema_check.check(data, "spec"))
    if not found and not (doc and doc.flagged):  # the common case: nothing to place or to leave out
        return _SchemaFindings([], [], set(), set())
    flagged = {format_path(p) for p in doc.flagged} if doc else set()
    read_errors = [p.path for p in read_notes if p.is_error and p.path]

    def unexplained(path: str) -> bool:
        return path not in flagged and not any(under(path, e) for e in read_errors)

    issues = [i for i in found if unexplained(format_path(i.path))]
    schema_problems = [p for p in schema_check.placed(found, filename, doc, "spec") if unexplained(p.path)]
    flagged_paths = set(doc.flagged) if doc else set()
    return _SchemaFindings(
        issues, schema_problems,
        unreadable={tuple(i.path) for i in issues if i.structural} | flagged_paths,
        refused={tuple(i.path) for i in issues} | flagged_paths,
    )


def _unread(filename: str, doc: LoadedDocument | None, found: list[Problem]) -> list[Problem]:
    """The problems of a spec no converter could read; never an empty list without a reason."""
    if found or (doc and doc.flagged):
        return found
    return [Problem(file=filename, line=1, column=1, message="the spec could not be read",
                    allowed="a TrainingJob: apiVersion, kind, metadata and spec")]


def _rule_problems(job: TrainingJob, ctx: Context, filename: str, doc: LoadedDocument | None) -> list[Problem]:
    out = []
    for finding in run_rules(job, ctx):
        pos = locate(doc, finding.path, on_key=finding.on_key) if doc else None
        file, line, column, cell = finding.placed(filename, pos)
        out.append(Problem(
            file=file, line=line, column=column, cell=cell,
            path=format_path(finding.path), message=finding.message, allowed=finding.allowed, hint=finding.hint,
            rule=finding.rule, source=finding.source, severity=finding.severity,
        ))
    return out


def check_document(data: Any, filename: str, ctx: Context, doc: LoadedDocument | None = None) -> SpecResult:
    """Schema, converter and model rules on a parsed document.

    Every layer runs on what it can read, and each problem is reported once: where a later
    layer explains a spot better than the schema, only the better message is kept.
    """
    result = SpecResult(file=filename, _document=doc, _data=data)
    # A body is first read as Google's readers read it (a field by either name; Vertex: null, numeric enums ...).
    forms = google_readers.read(data)
    data = forms.data
    read_notes = _note_problems(forms.notes, filename, doc)
    schema = _schema_findings(data, filename, doc, read_notes)
    job, left_out, failed_notes = _readable_model(data, schema.unreadable, schema.refused)
    if job is None:
        found = schema.problems + read_notes + _note_problems(failed_notes, filename, doc)
        result.problems.extend(problems_as_written(_unread(filename, doc, found), result.data))
        return result
    if not left_out:
        result.job = job  # a job read from a pruned document is for reporting only
        result.name = job.name
    better = read_notes + _note_problems(job.notes, filename, doc) + _rule_problems(job, ctx, filename, doc)
    if left_out:  # what was left out to read the model was already reported there: no second word on it
        gone = [format_path(p) for p in left_out]
        better = [b for b in better if not any(b.path and under(b.path, g) for g in gone)]
    if schema.problems:
        explaining = [p for p in better if p.is_error and p.path]
        conditional = schema.conditional
        result.problems.extend(p for p in schema.problems
                               if not any(explains(b, p, data, conditional) for b in explaining))
    result.problems.extend(better)
    result.problems[:] = problems_as_written(result.problems, result.data)  # named as the user wrote each field
    return result


def validate_bytes(data: bytes, filename: str, ctx: Context | None = None) -> SpecResult:
    """Check one spec file's content."""
    doc, problems = read_mapping(data, filename, "a TrainingJob mapping with apiVersion, kind, metadata and spec")
    if doc is None:
        return SpecResult(file=filename, problems=problems)
    problems = as_json(data, doc.data, problems)  # a JSON spec's 1e-05 is JSON's number, as convert reads it
    result = check_document(doc.data, filename, ctx or Context(), doc)
    result.problems[:0] = problems
    return result


def validate_data(data: Any, filename: str = "<spec>", ctx: Context | None = None) -> SpecResult:
    """Check a document that is already parsed (the Pulumi provider's check())."""
    return check_document(data, filename, ctx or Context())


ContextFor = Callable[[Path], Context]


class _Contexts:
    """Each file's Context: its stack's (``context_for``) with the file's directory as ``spec_dir``;
    made once per stack context and directory in a run, not once per file."""

    def __init__(self, context_for: ContextFor | None) -> None:
        self.context_for = context_for
        self.default = Context()
        self.made: dict[tuple[Context, str], Context] = {}

    def __call__(self, spec: SpecFile) -> Context:
        base = self.context_for(spec.real) if self.context_for else self.default
        directory = os.path.dirname(spec.given)
        key = (base, directory)
        ctx = self.made.get(key)
        if ctx is None:
            ctx = self.made[key] = replace(base, spec_dir=Path(directory))
        return ctx


def _check_file(spec: SpecFile, contexts: _Contexts, keep_job: Callable[[Path], bool] | None,
                read: Callable[[SpecResult], None] | None = None) -> SpecResult:
    """One file's result; ``read`` sees it while its document is still loaded."""
    data, problem = read_file(spec.given, spec.shown)
    if problem is not None:
        return SpecResult(file=spec.shown, problems=[problem], path=spec.real)
    assert data is not None
    result = validate_bytes(data, spec.shown, contexts(spec))
    result.path = spec.real
    if read is not None:
        read(result)
    result.release()  # keep what the report needs, not the document: memory stays flat
    if keep_job is not None and not keep_job(spec.real):
        result.job = None  # its name stays, for the names that must be unique
    return result


def validate_paths(
    paths: Iterable[str],
    context_for: ContextFor | None = None,
    groups_for: Callable[[Path], list[str]] | None = None,
    names_elsewhere: Callable[[set[Path]], list[tuple[str, str, str]]] | None = None,
    keep_job: Callable[[Path], bool] | None = None,
    lean: bool = False,
    shown_for: Callable[[SpecFile], str] | None = None,
) -> Report:
    """Check every spec under ``paths``; names must be unique within each group (a stack).

    ``context_for`` and ``groups_for`` are given each file's resolved path. ``names_elsewhere``
    lists (group, name, file) of specs in the same groups that this run does not check, so a
    new spec cannot take the name of one it was not given. ``keep_job`` says of which files the
    result keeps its model (``SpecResult.job``; by default every file's); the others keep only
    its name, so a run over many specs holds little per spec.

    The names of specs in no stack are checked as each file is read. With ``lean``, the result
    of a spec in no stack whose job is not kept is not kept either: its problems go to
    ``Report.problems`` and ``Report.checked`` counts it, so a run holds per spec in no stack
    only the name it must compare (``trainjobs validate``). ``shown_for``: each file's name in messages.
    """
    found, missing = expand(paths)
    cwd = real_path(Path.cwd())
    real_dirs: dict[str, str] = {}
    contexts = _Contexts(context_for)
    report = Report(problems=missing)
    first_of: dict[str, str] = {}  # job name -> the file that first used it, among specs in no stack
    stacked: list[SpecResult] = []

    def unstacked_name(result: SpecResult) -> None:
        if result.name is None:
            return
        first = first_of.get(result.name)
        if first is None:
            first_of[result.name] = result.file
        else:
            report.problems.append(name_problem(result, result.name, NO_STACK, first))

    with boundary.memo():
        found.reverse()
        while found:  # each path is held only until its file is checked
            spec = SpecFile.of(found.pop(), cwd, real_dirs)
            if shown_for is not None and (shown := shown_for(spec)) != spec.shown:
                spec = SpecFile(spec.given, spec.real, shown)
            alone = not groups_for or groups_for(spec.real) == [NO_STACK]
            result = _check_file(spec, contexts, keep_job, unstacked_name if alone else None)
            report.checked += 1
            if not alone:
                stacked.append(result)
            if lean and alone and result.job is None:
                report.problems.extend(result.problems)
            else:
                report.results.append(result)
    reals = [r.path for r in stacked]  # _check_file sets every result's real path
    others = names_elsewhere({p for p in reals if p is not None}) if names_elsewhere else []
    report.problems.extend(duplicate_names(stacked, reals, groups_for, others))
    return report
