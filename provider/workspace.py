"""The workspace of a spec: the repository it lives in and the stacks that hold it, resolved once.

Where a spec is checked from never changes its verdict. The workspace is found from where the
spec file really is (every symlink followed), not from the current directory: the nearest
directory at or above it that holds a ``Pulumi.yaml`` or a ``stacks/`` folder, or is a git work
tree (``.git``); there the stack files (``stacks/Pulumi.*.yaml``) say which specs each stack
holds, with their config, quotas and policy (provider.stack.membership).

``check`` is the one way every entry point checks spec files: ``trainjobs validate`` (a file, a
folder, the whole tree, from any folder, by any path), ``trainjobs run`` and ``run --dry-run``,
the pre-commit hook (which runs ``trainjobs validate``). It gives a ``Verdict``: every problem
in one order (file, line, column; files named relative to their workspace's root), the counts,
and the exit code. A spec in several stacks is checked in each (each stack's per-job quotas and
policy, each stack-wide quota); a spec in no stack of a workspace that has stacks gets one note
saying so. ``--stacks DIR`` (``stacks_dir``) names the stack folder instead, for every file.

Resolving a workspace reads only directory entries and the stack files: no backend, no Pulumi.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from provider.core.problem import Problem, Severity
from provider.core.record import Record, field
from provider.stack.membership import StackIndex, policy_problems
from provider.validation.rules import Context, Target

if TYPE_CHECKING:
    from provider.document.files import SpecFile
    from provider.stack.config import StackConfig
    from provider.validation.validator import SpecResult

PROJECT_MARKERS = ("Pulumi.yaml",)  # files: a Pulumi project
STACK_FOLDER = "stacks"  # a folder: the stack files
REPOSITORY_MARKER = ".git"  # a git work tree: the last place a workspace can be
MEMBERSHIP_RULE = "stack.membership"


def find_root(start: str | Path) -> Path | None:
    """The root of the workspace holding ``start`` (a file or a directory), from its real location:
    the nearest directory at or above it with ``Pulumi.yaml``, ``stacks/`` or ``.git``; None if none."""
    here = os.path.realpath(start)
    if not os.path.isdir(here):
        here = os.path.dirname(here)
    while True:
        if any(os.path.isfile(os.path.join(here, m)) for m in PROJECT_MARKERS) \
                or os.path.isdir(os.path.join(here, STACK_FOLDER)) \
                or os.path.lexists(os.path.join(here, REPOSITORY_MARKER)):
            return Path(here)
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


class Workspace(Record, frozen=False):
    """A repository root and its stacks (their config, quotas, policy and the specs each holds)."""

    root: Path | None  # None: the spec is in no repository (then it is in no stack)
    index: StackIndex

    @classmethod
    def load(cls, root: Path | None, stacks_dir: Path | None = None) -> Workspace:
        """The workspace at ``root`` (its ``stacks/``), or the one ``stacks_dir`` names (root: its parent)."""
        if stacks_dir is not None:  # named on the command line: files keep the names they are given
            return cls(Path(os.path.realpath(stacks_dir)).parent, StackIndex.load(stacks_dir))
        if root is None:
            return cls(None, StackIndex(root=Path(os.path.realpath(os.curdir))))
        return cls(root, StackIndex.load(root / STACK_FOLDER, shown=_Namer(root)))

    @classmethod
    def of(cls, path: str | Path) -> Workspace:
        """The workspace of the spec (or folder) at ``path``, found from where it really is."""
        return cls.load(find_root(path))

    @classmethod
    def here(cls, stacks_dir: Path = Path(STACK_FOLDER)) -> Workspace:
        """For a command about stacks, not a spec (``jobs --stack``, the console): the stacks of
        ``stacks_dir`` when it is a folder here, else those of the workspace holding the current directory."""
        return cls.load(None, stacks_dir) if stacks_dir.is_dir() else cls.of(Path.cwd())

    @property
    def stacks(self) -> list[StackConfig]:
        return self.index.stacks

    def stack(self, name: str) -> StackConfig | None:
        return self.index.stack(name)

    def stacks_of(self, spec: Path) -> list[StackConfig]:
        """The stacks holding the spec file at ``spec`` (any path to it: it is resolved)."""
        return self.index.stacks_of(Path(os.path.realpath(spec)), resolved=True)

    def shown(self, real: Path) -> str | None:
        """How messages name the file at ``real``: relative to the root when it is inside (None: as given)."""
        return self.index.namer(real) if self.index.namer is not None else None

    def where(self) -> str:
        return str(self.root) if self.root is not None else "no repository"

    def no_stack_note(self, real: Path, shown: str) -> Problem | None:
        """The one note for a spec no stack holds (none where the workspace has no stacks)."""
        if not self.stacks or self.stacks_of(real):
            return None
        names = ", ".join(s.name for s in self.stacks)
        return Problem(
            file=shown, severity=Severity.NOTE, rule=MEMBERSHIP_RULE,
            message=f"in no stack: no trainjobs:specs of the stacks here ({names}) matches this file, so no stack's "
                    "quotas or policy apply and no stack deploys it",
            allowed="a spec deployed by a stack: add its path to that stack's trainjobs:specs",
        )


class _Namer:
    """A file's name relative to ``root`` (None when it is outside)."""

    def __init__(self, root: Path) -> None:
        text = str(root)
        self.prefix = text if text.endswith(os.sep) else text + os.sep

    def __call__(self, real: Path) -> str | None:
        text = str(real)
        return text[len(self.prefix):] if text.startswith(self.prefix) else None


class Verdict(Record, frozen=False):
    """What checking spec files in their workspaces found, as every entry point reports it."""

    problems: list[Problem] = field(default_factory=list)  # in the one order: file, line, column
    specs: int = 0  # spec files checked
    stack_files: int = 0  # stack files checked (those of every workspace the specs are in)
    results: list[SpecResult] = field(default_factory=list)  # the results kept (specs a stack holds, or all)
    workspaces: list[Workspace] = field(default_factory=list)

    @property
    def failed_files(self) -> set[str]:
        return {p.file for p in self.problems if p.is_error}

    @property
    def failed_stack_files(self) -> set[str]:
        return {f for f in self.failed_files if is_stack_file(f)}

    @property
    def ok(self) -> bool:
        return not self.failed_files

    @property
    def exit_code(self) -> int:
        from provider.core.exit_code import ExitCode

        return ExitCode.SUCCESS if self.ok else ExitCode.INVALID


def is_stack_file(name: str) -> bool:
    base = os.path.basename(name)
    return base.startswith("Pulumi.") and base.count(".") == 2 and base.endswith((".yaml", ".yml"))


class Workspaces:
    """The workspaces of the files one check reads, each resolved once (per directory, then per root)."""

    def __init__(self, stacks_dir: Path | None = None) -> None:
        self.fixed = Workspace.load(None, stacks_dir) if stacks_dir is not None else None
        self.by_root: dict[Path | None, Workspace] = {}
        self.by_dir: dict[str, Workspace] = {}  # each directory's, looked up once

    def of(self, path: str | Path, real: bool = False) -> Workspace:
        """The workspace of the file or folder at ``path``; ``real``: a file's real path (no lookup)."""
        if self.fixed is not None:
            return self.fixed
        if real:
            directory = os.path.dirname(path)
        else:
            text = os.path.realpath(path)
            directory = text if os.path.isdir(text) else os.path.dirname(text)
        found = self.by_dir.get(directory)
        if found is None:
            root = find_root(directory)
            found = self.by_root.get(root)
            if found is None:
                found = self.by_root[root] = Workspace.load(root)
            self.by_dir[directory] = found
        return found

    def all(self) -> list[Workspace]:
        return [self.fixed] if self.fixed is not None else list(self.by_root.values())


def check(paths: Sequence[str], stacks_dir: Path | None = None, target: Target | None = None,
          keep_all: bool = False, found: Workspaces | None = None, extra: Sequence[Problem] = ()) -> Verdict:
    """Every spec file under ``paths``, each checked in its workspace; see the module docstring.

    ``target`` overrides the stacks' (``validate --target``); ``keep_all`` keeps every result's
    model (``validate --summary``), else only those a stack's quota counts; ``extra``: problems of
    files checked apart (a stack file named outside its workspace), put in the same order.
    """
    from provider.stack.check import context_for
    from provider.validation.validator import validate_paths

    spaces = found or Workspaces(stacks_dir)
    for given in paths:  # a folder with no spec in it still has its stack files checked
        spaces.of(given)
    paths = _once(paths)

    def context(real: Path) -> Context:
        return context_for(spaces.of(real, True).index.stacks_of(real, resolved=True), target=target)

    def groups(real: Path) -> list[str]:
        return spaces.of(real, True).index.groups_for(real, resolved=True)

    def elsewhere(checked: set[Path]) -> list[tuple[str, str, str]]:
        return [n for ws in spaces.all() for n in ws.index.names_elsewhere(checked)]

    def keep(real: Path) -> bool:
        return keep_all or bool(spaces.of(real, True).index.stacks_of(real, resolved=True))

    notes: dict[Path, Problem] = {}

    def shown(spec: SpecFile) -> str:
        ws = spaces.of(spec.real, True)
        name = ws.shown(spec.real) or spec.shown
        note = ws.no_stack_note(spec.real, name)
        if note is not None:
            notes.setdefault(spec.real, note)  # once, however many paths name the file
        return name

    report = validate_paths(paths, context, groups, elsewhere, keep, lean=True, shown_for=shown)
    verdict = Verdict(specs=report.checked, results=report.results, workspaces=spaces.all())
    report.problems.extend(notes.values())
    for ws in verdict.workspaces:
        verdict.stack_files += ws.index.files_checked
        report.problems.extend(ws.index.problems)
        mine = [r for r in report.results if r.path is not None and spaces.of(r.path, True) is ws]
        report.problems.extend(policy_problems(ws.index, mine))
    report.problems.extend(extra)
    verdict.problems = report.all_problems
    return verdict


def _once(paths: Sequence[str]) -> list[str]:
    """Each spec file once, however many of ``paths`` name it (a file and its folder, a link and its target)."""
    if len(paths) < 2:
        return list(paths)
    from provider.document.files import expand

    files, missing = expand(paths)
    seen: set[str] = set()
    out = []
    for name in files:
        real = os.path.realpath(name)
        if real not in seen:
            seen.add(real)
            out.append(name)
    return out + [p.file for p in missing]


def check_one(spec: str | Path, stacks_dir: Path | None = None) -> Verdict:
    """One spec file, as ``trainjobs validate SPEC`` checks it (``run`` and ``run --dry-run``), its model kept."""
    return check([os.fspath(spec)], stacks_dir, keep_all=True)


def members(stacks: Iterable[StackConfig], ws: Workspace) -> list[str]:
    """The spec files the stacks hold, as paths to check."""
    from provider.stack.membership import spec_files

    return sorted({str(f) for s in stacks for f in spec_files(s, ws.index.root)})
