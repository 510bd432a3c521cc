"""The typed config of one stack, read from its stack file or from Pulumi's config."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from provider.core.backend_registry import capabilities
from provider.core.backend_types import BackendKind
from provider.core.problem import Problem
from provider.core.record import Record, field
from provider.document import read_mapping
from provider.document.files import read_file
from provider.document.loaded import LoadedDocument
from provider.spec.reader import parse_duration
from provider.stack import persistent
from provider.stack.owners import owners_problems
from provider.stack.persistent import PersistentResource
from provider.stack.settings import (
    DEFAULT_RETENTION,
    DEFAULT_WAIT_TIMEOUT_SECONDS,
    DEFAULT_WAIT_UNTIL,
    Retention,
    WaitUntil,
)
from provider.validation import schema_check

NS = "trainjobs:"


class Quotas(Record):
    """A stack's limits: GPUs per job and per stack, accelerators, regions, run time (None: no limit)."""

    max_gpus_per_job: int | None = None
    max_gpus_per_stack: int | None = None
    allowed_accelerators: tuple[str, ...] | None = None
    allowed_regions: tuple[str, ...] | None = None
    max_running_seconds: float | None = None


class Policy(Record):
    """A stack's policy: labels every job must carry, and who owns which specs folder."""

    required_labels: tuple[str, ...] = ()
    owners: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (specs/ folder, owners)


class WaitPolicy(Record):
    """How long `pulumi up` waits for a stack's jobs, and for what."""

    until: WaitUntil = DEFAULT_WAIT_UNTIL
    timeout_seconds: float = DEFAULT_WAIT_TIMEOUT_SECONDS


class StackConfig(Record):
    """One stack file (``stacks/Pulumi.<stack>.yaml``), read and checked."""

    name: str
    backend: BackendKind  # a registered kind (provider.core.backend_registry): local, vertex
    team: str
    region: str
    specs: tuple[str, ...]
    project: str | None = None
    environment: str = "dev"
    quotas: Quotas = Quotas()
    policy: Policy = Policy()
    labels: tuple[tuple[str, str], ...] = ()
    wait: WaitPolicy = WaitPolicy()
    retention: Retention = DEFAULT_RETENTION
    bucket_name: str | None = None
    buckets: tuple[tuple[str, str], ...] = ()
    deployer: str | None = None
    api_endpoint: str | None = None
    local_home: str | None = None
    replace: str = "deleteFirst"  # deleteFirst | createFirst: the order of a job's replacement
    custom_timeouts: tuple[tuple[str, float], ...] = ()  # (create | update | delete, seconds)
    manage_apis: bool = True  # enable the APIs and create the Vertex AI service agent
    adopt: tuple[tuple[str, str], ...] = ()  # (job name, existing job id or resource name)
    # trainjobs:persistentResources (None: the stack does not say; then jobs may name any)
    persistent_resources: tuple[PersistentResource, ...] | None = None
    source: str = ""
    at: dict[str, tuple[Any, ...]] = field(default_factory=dict, compare=False, repr=False)

    @property
    def bucket(self) -> str:
        """The team bucket: set in the config, or PROJECT-TEAM-ENV (TEAM-ENV-trainjobs locally)."""
        if self.bucket_name:
            return self.bucket_name
        if capabilities(self.backend).needs_project and self.project:
            return f"{self.project}-{self.team}-{self.environment}"[:63].rstrip("-")
        return f"{self.team}-{self.environment}-trainjobs"

    @property
    def project_id(self) -> str:
        return self.project or "local"

    @property
    def labels_dict(self) -> dict[str, str]:
        return dict(self.labels)

    @property
    def bucket_regions(self) -> dict[str, str]:
        return {**dict(self.buckets), self.bucket: self.region}


def stack_name(path: Path) -> str:
    """stacks/Pulumi.vision-dev.yaml -> vision-dev."""
    name = path.name
    for suffix in (".yaml", ".yml"):
        name = name.removesuffix(suffix)
    return name.removeprefix("Pulumi.")


def _env_from_name(name: str, team: str) -> str:
    if name.startswith(team + "-") and len(name) > len(team) + 1:
        return name[len(team) + 1:]
    return name if name != team else "dev"


def _quotas(q: Mapping[str, Any]) -> Quotas:
    def listed(key: str) -> tuple[str, ...] | None:
        return tuple(q[key]) if key in q else None

    return Quotas(
        max_gpus_per_job=q.get("maxGpusPerJob"),
        max_gpus_per_stack=q.get("maxGpusPerStack"),
        allowed_accelerators=listed("allowedAccelerators"),
        allowed_regions=listed("allowedRegions"),
        max_running_seconds=parse_duration(q["maxRunningTime"]) if "maxRunningTime" in q else None,
    )


def _policy(p: Mapping[str, Any]) -> Policy:
    return Policy(
        required_labels=tuple(p.get("requiredLabels", ())),
        owners=tuple((k, tuple(v)) for k, v in (p.get("owners") or {}).items()),
    )


def _wait(w: Mapping[str, Any]) -> WaitPolicy:
    return WaitPolicy(until=WaitUntil(w.get("until", DEFAULT_WAIT_UNTIL)),
                      timeout_seconds=parse_duration(w.get("timeout", "")) or DEFAULT_WAIT_TIMEOUT_SECONDS)


def _pairs(value: Mapping[str, Any] | None) -> tuple[tuple[str, Any], ...]:
    return tuple((value or {}).items())


def from_mapping(name: str, config: Mapping[str, Any], source: str = "") -> StackConfig:
    """Build the config from ``trainjobs:*`` / ``gcp:*`` values (already schema-checked)."""

    def get(key: str, default: Any = None) -> Any:
        return config.get(key, default)

    team = get(NS + "team")
    return StackConfig(
        name=name,
        backend=BackendKind(get(NS + "backend")),
        team=team,
        region=get("gcp:region"),
        specs=tuple(get(NS + "specs") or ()),
        project=get("gcp:project"),
        environment=get(NS + "environment") or _env_from_name(name, team),
        quotas=_quotas(get(NS + "quotas") or {}),
        policy=_policy(get(NS + "policy") or {}),
        labels=_pairs(get(NS + "labels")),
        wait=_wait(get(NS + "wait") or {}),
        retention=Retention(get(NS + "retention") or DEFAULT_RETENTION),
        bucket_name=get(NS + "bucket"),
        buckets=_pairs(get(NS + "buckets")),
        deployer=get(NS + "deployer"),
        api_endpoint=get(NS + "apiEndpoint"),
        local_home=get(NS + "localHome"),
        replace=get(NS + "replace") or "deleteFirst",
        custom_timeouts=tuple((k, parse_duration(v) or 0.0) for k, v in _pairs(get(NS + "customTimeouts"))),
        manage_apis=get(NS + "manageApis", True) not in (False, "false"),
        adopt=_pairs(get(NS + "adopt")),
        persistent_resources=persistent.parse(get(NS + "persistentResources")),
        source=source,
        at={k: ("config", k) for k in config},
    )


class StackLoad(Record, frozen=False):
    """A stack file read: its config (None when it could not be read) and its problems."""

    config: StackConfig | None
    problems: list[Problem]
    document: LoadedDocument | None = None


def check_mapping(name: str, config: Mapping[str, Any], filename: str,
                  doc: LoadedDocument | None = None) -> StackLoad:
    """Schema-check ``{"config": {...}}`` and build the StackConfig if it is valid."""
    data = {"config": dict(config)} if doc is None else doc.data
    problems = schema_check.problems(data, filename, doc, "stack", _generated_schema)
    if any(p.is_error for p in problems):
        return StackLoad(None, problems, doc)
    found = persistent.problems(data["config"].get(NS + "persistentResources"), filename, doc)
    # The owners once more in Python (also where no schema ran: Pulumi config), with GitHub's length limits.
    found += owners_problems((data["config"].get(NS + "policy") or {}).get("owners"), filename, doc)
    found += _label_problems(data["config"].get(NS + "labels"), filename, doc)
    stack = from_mapping(name, data["config"], filename)
    if any(p.is_error for p in found):
        return StackLoad(None, problems + found, doc)
    return StackLoad(stack, problems + found + _not_emulated(stack, filename, doc), doc)


def _label_problems(labels: Any, filename: str, doc: LoadedDocument | None) -> list[Problem]:
    """``trainjobs:labels`` against the catalog's rule (provider.core.labels), as a spec's labels are
    checked: the schema's pattern lets any non-ASCII character through, the rule only lowercase
    letters and digits of any script."""
    from provider.core.labels import ALLOWED, valid_key, valid_value
    from provider.document.locate import locate

    out = []
    for key, value in labels.items() if isinstance(labels, dict) else ():
        if valid_key(str(key)) and valid_value(str(value)):
            continue
        pos = locate(doc, ("config", NS + "labels", key), on_key=True) if doc is not None else None
        out.append(Problem(file=filename, line=pos[0] if pos else None, column=pos[1] if pos else None,
                           path=f"config.{NS}labels.{key}", rule="labels.unicode", allowed=ALLOWED,
                           message=f"label {key}={value} uses characters that are not lowercase letters or digits"))
    return out


def _not_emulated(config: StackConfig, filename: str, doc: LoadedDocument | None) -> list[Problem]:
    """A local stack's PersistentResources: a warning that the local backend does not emulate them."""
    if capabilities(config.backend).persistent_resources or not config.persistent_resources:
        return []
    from provider.core.problem import Severity
    from provider.document.locate import locate

    key = ("config", NS + "persistentResources")
    pos = locate(doc, key, on_key=True) if doc is not None else None
    ids = ", ".join(r.id for r in config.persistent_resources)
    return [Problem(
        file=filename, line=pos[0] if pos else None, column=pos[1] if pos else None, path=f"config.{key[1]}",
        message=f"PersistentResources ({ids}) are not emulated locally: a local stack creates none, and jobs that "
                "name one in persistentResourceId run on this machine as usual",
        allowed="trainjobs:persistentResources in a vertex stack", rule="stack.persistentResources",
        severity=Severity.WARNING,
    )]


def load_stack(path: Path, shown: str | None = None) -> StackLoad:
    """Read and check a stack file."""
    shown = shown or str(path)
    raw, problem = read_file(path, shown)
    if problem is not None:
        return StackLoad(None, [problem])
    assert raw is not None
    return parse_stack(raw, stack_name(path), shown)


def parse_stack(raw: bytes, name: str, shown: str) -> StackLoad:
    """Check a stack file's content (from disk, or from a git commit for ``trainjobs plan``)."""
    doc, problems = read_mapping(raw, shown, "a Pulumi stack file: config: with trainjobs:* and gcp:* keys")
    if doc is None:
        return StackLoad(None, problems)
    loaded = check_mapping(name, doc.data.get("config") or {}, shown, doc)
    loaded.problems[:0] = problems
    if any(p.is_error for p in problems):
        loaded.config = None
    return loaded


def from_pulumi_env(name: str, raw: Mapping[str, str]) -> dict[str, Any]:
    """Pulumi passes config as {"ns:key": "string"}; structured values arrive as JSON text."""
    out: dict[str, Any] = {}
    for key, value in raw.items():
        if isinstance(value, str) and value[:1] in "[{":
            try:
                out[key] = json.loads(value)
                continue
            except ValueError:
                pass
        out[key] = value
    return out


def _generated_schema() -> dict[str, Any]:
    """The stack schema generated (where no committed schemas/stack.schema.json is at hand)."""
    from provider.stack.schema import stack_schema

    return stack_schema()
