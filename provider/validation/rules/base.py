"""What every model-level rule receives and returns."""

from __future__ import annotations

import datetime as dt
import enum
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from provider.catalog import CATALOG, Catalog
from provider.core.problem import Severity
from provider.core.record import Record, field
from provider.document.loaded import at_position
from provider.spec.model import DocPath, TrainingJob

SEED_000 = "seed 000 (AI Platform Training overview)"
SEED_001 = "seed 001 (GPUs)"
SEED_003 = "seed 003 (submitting a job)"
SEED_004 = "seed 004 (Vertex AI multi-worker lab)"
JOB_RULES = "tools/catalog/reference/job_rules.json"
REGIONS = "tools/catalog/reference/regions.json"
MACHINE_SPEC = "tools/catalog/reference/vertex_machine_spec.json"


class Target(enum.Enum):
    """Where the job is meant to run, which decides how strict "not offered" findings are."""

    VERTEX = "vertex"
    LOCAL = "local"
    ANY = "any"  # a spec outside every stack: seeds-valid is enough, offering gaps are warnings


class Context(Record):
    """What the rules know beyond the spec: the target backend, the date, the stack's buckets."""

    target: Target = Target.ANY
    today: dt.date = field(default_factory=dt.date.today)
    # Buckets whose region is known (the stack's team bucket, declared buckets).
    bucket_regions: tuple[tuple[str, str], ...] = ()
    # A staging location the stack provides (the team bucket), so package paths need no jobDir.
    staging_bucket: str | None = None
    # The directory of the spec file, for paths written relative to it (package path, build context).
    spec_dir: Path | None = None
    # The PersistentResource IDs the stack declares (None: the stack does not say, nothing is checked).
    persistent_resources: tuple[str, ...] | None = None
    catalog: Catalog = CATALOG

    @property
    def offering_severity(self) -> Severity:
        """How to report something valid under the seeds that Vertex AI does not offer."""
        return Severity.ERROR if self.target is Target.VERTEX else Severity.WARNING


class Finding(Record):
    """One problem a rule found, at a path of the model (the validator gives it a line)."""

    message: str
    path: DocPath
    rule: str
    source: str | None = None
    allowed: str | None = None
    hint: str | None = None
    severity: Severity = Severity.ERROR
    on_key: bool = False
    # A finding in another file the spec names (its Dockerfile): that file, relative to the spec's
    # directory, and its 1-based line; the spec's ``path`` still says which key named the file.
    file: str | None = None
    line: int | None = None

    def placed(self, filename: str, pos: tuple[int, int] | None) -> tuple[str, int | None, int | None, int | None]:
        """The file, line, column and notebook cell to report: the spec's ``pos`` of ``path``, or the line of the file
        it names, shown relative to the spec as shown (``specs/../docker/Dockerfile`` is ``docker/Dockerfile``)."""
        if self.file is None:
            at = at_position(pos)
            return filename, at["line"], at["column"], at["cell"]
        return os.path.normpath(os.path.join(os.path.dirname(filename), self.file)), self.line, \
            1 if self.line else None, None


Rule = Callable[[TrainingJob, Context], Iterable[Finding]]

RULES: list[Rule] = []


def rule(fn: Rule) -> Rule:
    """Register a model-level rule; ``run_rules`` calls every registered rule."""
    RULES.append(fn)
    return fn


def run_rules(job: TrainingJob, ctx: Context) -> Iterator[Finding]:
    for fn in RULES:
        yield from fn(job, ctx)


def join(items: Iterable[object], word: str = "or") -> str:
    words = [str(i) for i in items]
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + f" {word} " + words[-1]
