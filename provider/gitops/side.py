"""One side of a plan, loaded: its stacks, the specs each one holds, and each job's request.

The stacks are read like provider.stack.config reads them, membership is the stacks' globs
matched against the side's files, each spec is checked in its stacks (provider.stack.check),
and each job's Vertex AI request is built the way the provider builds it (the stack's labels,
project and bucket; staged package URIs from the side's own sources).
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from provider.core.problem import Problem
from provider.core.record import Record
from provider.core.vertex_request import VertexRequest
from provider.document.loaded import LoadedDocument
from provider.gitops.globs import matching
from provider.gitops.sources import built_image, local_folders, staged_packages
from provider.gitops.tree import CommitTree, Tree
from provider.spec.local_paths import local_paths
from provider.spec.model import TrainingJob
from provider.stack.check import SpecBytes, validate_in
from provider.stack.config import StackConfig, parse_stack, stack_name
from provider.stack.membership import StackIndex
from provider.submission.request import build_request
from provider.validation.validator import SPEC_SUFFIXES, SpecResult

STACKS_DIR = "stacks"
SPECS_DIR = "specs"


def is_stack_file(path: str) -> bool:
    name = posixpath.basename(path)
    return posixpath.dirname(path) == STACKS_DIR and name.startswith("Pulumi.") and name.endswith(SPEC_SUFFIXES)


def is_spec_file(path: str) -> bool:
    return path.startswith(SPECS_DIR + "/") and path.endswith(SPEC_SUFFIXES)


class StackSide(Record):
    """A stack as one side has it."""

    name: str
    file: str
    content: bytes
    config: StackConfig | None  # None: the stack file is invalid on this side
    problems: tuple[Problem, ...]
    settings: dict[str, Any]  # the file's config: mapping, for a field-level diff
    specs: tuple[str, ...]  # the spec files its trainjobs:specs globs match
    readable: bool = True  # False: a symlink out of the repository, not a regular file... (problems say)


class SideJob(Record):
    """A job of a stack on one side: its spec file, its model and its request."""

    stack: str
    name: str
    file: str
    job: TrainingJob
    request: VertexRequest

    @property
    def cancelled(self) -> bool:
        return self.job.desired_state == "CANCELLED"


def _settings(doc: LoadedDocument | None) -> dict[str, Any]:
    data = doc.data if doc is not None and isinstance(doc.data, dict) else {}
    config = data.get("config")
    return dict(config) if isinstance(config, dict) else {}


class Side:
    """A tree's stacks and jobs. ``check_paths`` says whether spec problems are reported with
    the paths on disk (the working tree) or only the jobs matter (a base commit)."""

    def __init__(self, tree: Tree, check_paths: bool, reuse: Side | None = None) -> None:
        self.tree = tree
        self.check_paths = check_paths
        self._resolved: dict[str, Path] = {}
        self._reuse = reuse
        paths = tree.paths()
        stack_paths = [p for p in paths if is_stack_file(p)]
        raw_stacks = tree.read(stack_paths)
        self.stacks: dict[str, StackSide] = {}
        for path in stack_paths:
            name = stack_name(Path(path))
            raw = raw_stacks.get(path)
            if raw is None:  # a link out of the repository, not a file...: invalid, never "removed"
                problem = tree.unreadable.get(path)
                self.stacks[name] = StackSide(name, path, b"", None, (problem,) if problem else (), {}, (),
                                              readable=False)
                continue
            loaded = parse_stack(raw, name, path)
            specs = matching(loaded.config.specs, paths) if loaded.config else []
            self.stacks[name] = StackSide(name, path, raw, loaded.config, tuple(loaded.problems),
                                          _settings(loaded.document), tuple(specs))
        # Links in stacks/ and specs/ that lead to a folder, nowhere or out of the repository (a
        # stack or spec file that is such a link is reported where it is read).
        self.link_problems = tuple(p for path, p in sorted(tree.link_problems((STACKS_DIR, SPECS_DIR)).items())
                                   if not is_stack_file(path) and not is_spec_file(path))
        members = {p for s in self.stacks.values() for p in s.specs}
        self.spec_paths = sorted(members | {p for p in paths if is_spec_file(p)})
        self.index = StackIndex(root=tree.root)
        self.index.stacks = [s.config for s in self.stacks.values() if s.config is not None]
        for stack in self.stacks.values():
            for spec in stack.specs:
                if stack.config is not None:
                    self.index.members.setdefault(self._abs(spec), []).append(stack.config)
        if reuse is not None and isinstance(tree, CommitTree):
            tree.reuse(reuse.files.values())
        self.files: dict[str, bytes] = tree.read(self.spec_paths)
        self._results: dict[str, SpecResult] = {}
        self._by_content: dict[bytes, SpecResult] = {}
        self._jobs: dict[str, dict[str, SideJob]] = {}

    def _abs(self, path: str) -> Path:
        resolved = self._resolved.get(path)
        if resolved is None:
            resolved = self._resolved[path] = (self.tree.root / path).resolve()
        return resolved

    def result(self, path: str) -> SpecResult | None:
        """The spec file checked (None if this side has no such file)."""
        if path in self._results:
            return self._results[path]
        data = self.files.get(path)
        if data is None:
            problem = self.tree.unreadable.get(path)
            if problem is None:
                return None
            self._results[path] = SpecResult(file=path, problems=[problem])  # listed as invalid, nothing quoted
            return self._results[path]
        known = None
        if self._reuse is not None:  # the same content on the other side: the same job
            same_file = self._reuse.files.get(path) == data
            known = self._reuse.result(path) if same_file else self._reuse._by_content.get(data)
        if known is not None:
            result = known
        else:
            spec_dir = self.tree.root / posixpath.dirname(path) if self.check_paths else None
            result = validate_in(SpecBytes(data, path, spec_dir), self.index.stacks_of(self._abs(path)))
            result.path = self._abs(path)
            result.release()  # the loaded document is most of a spec's memory; a message that needs it reads it again
        self._results[path] = result
        self._by_content.setdefault(data, result)
        return result

    def local_folders(self, stacks: Iterable[str]) -> set[tuple[str, tuple[str, ...]]]:
        """The local sources (folder, files beside it) the requests of these stacks' jobs digest."""
        out: set[tuple[str, tuple[str, ...]]] = set()
        for stack in stacks:
            side = self.stacks.get(stack)
            for path in side.specs if side is not None and side.config is not None else ():
                result = self.result(path)
                if result is not None and result.job is not None:
                    out.update(local_folders(result.job, path))
        return out

    def jobs(self, stack: str) -> dict[str, SideJob]:
        """The stack's jobs by name (a duplicated name keeps its first file; validation reports it)."""
        if stack in self._jobs:
            return self._jobs[stack]
        side = self.stacks.get(stack)
        out: dict[str, SideJob] = {}
        if side is not None and side.config is not None:
            config = side.config
            for path in side.specs:
                result = self.result(path)
                if result is None or result.job is None or result.job.name in out:
                    continue
                job = result.job
                same = self._same_job(stack, path, job)
                if same is not None:
                    out[job.name] = same
                    continue
                request = build_request(job, config.project_id, labels=config.labels_dict,
                                        package_uris=staged_packages(job, path, self.tree, config),
                                        image_uri=built_image(job, path, self.tree))
                out[job.name] = SideJob(stack, job.name, path, job, request)
        self._jobs[stack] = out
        return out

    def _same_job(self, stack: str, path: str, job: TrainingJob) -> SideJob | None:
        """The other side's job when it must be this one: the same spec file in the same stack file, and
        no local sources (a package path, extra package files, a build context) whose files may differ
        between the sides. The base side of a plan then builds, and holds, a request only for what changed."""
        other = self._reuse
        if other is None or stack not in other._jobs or local_paths(job):
            return None
        mine, theirs = self.stacks.get(stack), other.stacks.get(stack)
        if mine is None or theirs is None or mine.content != theirs.content or self.files.get(path) != other.files.get(path):
            return None
        found = other._jobs[stack].get(job.name)
        return found if found is not None and found.file == path and found.job is job else None

