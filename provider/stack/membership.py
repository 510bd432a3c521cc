"""Which stack holds which spec: the globs in each stack's ``trainjobs:specs``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from provider.core.problem import Problem
from provider.core.record import Record, field
from provider.document import read_mapping
from provider.document.files import display_name, read_file
from provider.stack.check import context_for, job_policy_problems, stack_quota_problems, validate_in
from provider.validation.names import NO_STACK
from provider.validation.rules import Context
from provider.validation.validator import SpecResult

if TYPE_CHECKING:
    from provider.stack.config import StackConfig


def stack_files(stacks_dir: Path) -> list[Path]:
    if not stacks_dir.is_dir():
        return []
    return sorted(p for p in stacks_dir.iterdir() if p.name.startswith("Pulumi.") and p.suffix in (".yaml", ".yml"))


def spec_files(stack: StackConfig, root: Path) -> list[Path]:
    """The spec files a stack holds, resolved against the project root."""
    import glob  # here, not at the top: a run over specs in no stack never needs it

    out: set[Path] = set()
    for pattern in stack.specs:
        for match in glob.glob(pattern, root_dir=root, recursive=True):
            path = (root / match).resolve()
            if path.is_file():
                out.add(path)
    return sorted(out)


def spec_name(path: Path) -> str | None:
    """metadata.name of a spec file, or None if it cannot be read."""
    raw, _ = read_file(path, str(path))
    if raw is None:
        return None
    doc, _ = read_mapping(raw, str(path), "")
    meta = doc.data.get("metadata") if doc else None
    name = meta.get("name") if isinstance(meta, dict) else None
    return name if isinstance(name, str) else None


class StackIndex(Record, frozen=False):
    """The stacks of a repository and the spec files each of them holds."""

    root: Path
    stacks: list[StackConfig] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    files_checked: int = 0
    members: dict[Path, list[StackConfig]] = field(default_factory=dict)
    # How messages name a file (the workspace's: relative to its root); None: relative to the current directory
    namer: Callable[[Path], str | None] | None = field(default=None, compare=False, repr=False)

    def shown(self, path: Path) -> str:
        """How messages name the file at ``path`` (its real path)."""
        return (self.namer(path) if self.namer else None) or display_name(path)

    @classmethod
    def load(cls, stacks_dir: Path, shown: Callable[[Path], str | None] | None = None) -> StackIndex:
        """The stack files of ``stacks_dir`` (named by ``shown``, else relative to the current directory)."""
        index = cls(root=stacks_dir.resolve().parent, namer=shown)
        for path in stack_files(stacks_dir):
            from provider.stack.config import load_stack  # only where there are stack files

            loaded = load_stack(path, index.shown(path.resolve()))
            index.files_checked += 1
            index.problems.extend(loaded.problems)
            if loaded.config is not None:
                index.stacks.append(loaded.config)
        for stack in index.stacks:
            for spec in spec_files(stack, index.root):
                index.members.setdefault(spec, []).append(stack)
        return index

    def stacks_of(self, spec: Path, resolved: bool = False) -> list[StackConfig]:
        """The stacks holding ``spec``; ``resolved``: the caller gives its real path (validate does)."""
        if not self.members:
            return []
        found = self.members.get(spec)
        if found is not None or resolved:
            return found or []
        return self.members.get(spec.resolve(), [])

    def context_for(self, spec: Path) -> Context:
        """The Context of ``spec``: that of the stacks holding it (provider.stack.check)."""
        return context_for(self.stacks_of(spec))

    def groups_for(self, spec: Path, resolved: bool = False) -> list[str]:
        """Name-uniqueness groups: each stack that holds the spec, or '*' for specs in none."""
        return [s.name for s in self.stacks_of(spec, resolved)] or [NO_STACK]

    def names_elsewhere(self, checked: set[Path]) -> list[tuple[str, str, str]]:
        """(stack, job name, file) of member specs outside ``checked`` (read for their name only)."""
        out: list[tuple[str, str, str]] = []
        for path, stacks in self.members.items():
            if path in checked:
                continue
            name = spec_name(path)
            if name:
                out.extend((s.name, name, self.shown(path)) for s in stacks)
        return out

    def stack(self, name: str) -> StackConfig | None:
        return next((s for s in self.stacks if s.name == name), None)


def _members(index: StackIndex, stack: StackConfig, by_path: dict[Path, SpecResult]) -> list[SpecResult]:
    """The results of every spec of ``stack`` that yields a job; a member outside this run is read
    quietly, for its model, and kept in ``by_path``."""
    members = []
    for path in spec_files(stack, index.root):
        result = by_path.get(path)
        if result is None:
            result = by_path[path] = validate_in(path, index.stacks_of(path), index.shown(path))
        if result.job is not None:
            members.append(result)
    return members


def policy_problems(index: StackIndex, results: list[SpecResult]) -> list[Problem]:
    """The quotas and policy of each stack that holds a checked spec.

    Per-job violations are reported for the checked specs; a stack-wide quota counts every
    spec of the stack, also those this run did not check.
    """
    by_path = {r.path: r for r in results if r.path is not None}
    checked = set(by_path)
    out: list[Problem] = []
    for stack in index.stacks:
        if not any(p in checked for p in spec_files(stack, index.root)):
            continue
        members = _members(index, stack, by_path)
        for result in members:
            if result.path in checked:
                out.extend(job_policy_problems(result, stack))
        out.extend(stack_quota_problems(stack, members))
    return out
