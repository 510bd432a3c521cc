"""The typed config of one stack, read from its stack file or from Pulumi's config."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from provider.document import read_mapping
from provider.document.yaml_loader import LoadedDocument
from provider.spec.reader import parse_duration
from provider.validation import schema_check
from provider.validation.problem import Problem
from provider.validation.validator import read_file

NS = "trainjobs:"


@dataclass(frozen=True)
class Quotas:
    max_gpus_per_job: int | None = None
    max_gpus_per_stack: int | None = None
    allowed_accelerators: tuple[str, ...] | None = None
    allowed_regions: tuple[str, ...] | None = None
    max_running_seconds: float | None = None


@dataclass(frozen=True)
class Policy:
    required_labels: tuple[str, ...] = ()
    owners: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (specs/ folder, owners)


@dataclass(frozen=True)
class WaitPolicy:
    until: str = "running"  # none | running | completion
    timeout_seconds: float = 1800.0


@dataclass(frozen=True)
class StackConfig:
    name: str
    backend: str  # local | vertex
    team: str
    region: str
    specs: tuple[str, ...]
    project: str | None = None
    environment: str = "dev"
    quotas: Quotas = Quotas()
    policy: Policy = Policy()
    labels: tuple[tuple[str, str], ...] = ()
    wait: WaitPolicy = WaitPolicy()
    retention: str = "keep"
    bucket_name: str | None = None
    buckets: tuple[tuple[str, str], ...] = ()
    deployer: str | None = None
    api_endpoint: str | None = None
    local_home: str | None = None
    replace: str = "deleteFirst"  # deleteFirst | createFirst: the order of a job's replacement
    custom_timeouts: tuple[tuple[str, float], ...] = ()  # (create | update | delete, seconds)
    manage_apis: bool = True  # enable the APIs and create the Vertex AI service agent
    adopt: tuple[tuple[str, str], ...] = ()  # (job name, existing job id or resource name)
    source: str = ""
    at: dict[str, tuple[Any, ...]] = field(default_factory=dict, compare=False, repr=False)

    @property
    def bucket(self) -> str:
        """The team bucket: set in the config, or PROJECT-TEAM-ENV (TEAM-ENV-trainjobs locally)."""
        if self.bucket_name:
            return self.bucket_name
        if self.backend == "vertex" and self.project:
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


def from_mapping(name: str, config: Mapping[str, Any], source: str = "") -> StackConfig:
    """Build the config from ``trainjobs:*`` / ``gcp:*`` values (already schema-checked)."""

    def get(key: str, default: Any = None) -> Any:
        return config.get(key, default)

    q = get(NS + "quotas") or {}
    p = get(NS + "policy") or {}
    w = get(NS + "wait") or {}
    team = get(NS + "team")
    return StackConfig(
        name=name,
        backend=get(NS + "backend"),
        team=team,
        region=get("gcp:region"),
        specs=tuple(get(NS + "specs") or ()),
        project=get("gcp:project"),
        environment=get(NS + "environment") or _env_from_name(name, team),
        quotas=Quotas(
            max_gpus_per_job=q.get("maxGpusPerJob"),
            max_gpus_per_stack=q.get("maxGpusPerStack"),
            allowed_accelerators=tuple(q["allowedAccelerators"]) if "allowedAccelerators" in q else None,
            allowed_regions=tuple(q["allowedRegions"]) if "allowedRegions" in q else None,
            max_running_seconds=parse_duration(q["maxRunningTime"]) if "maxRunningTime" in q else None,
        ),
        policy=Policy(
            required_labels=tuple(p.get("requiredLabels", ())),
            owners=tuple((k, tuple(v)) for k, v in (p.get("owners") or {}).items()),
        ),
        labels=tuple((get(NS + "labels") or {}).items()),
        wait=WaitPolicy(until=w.get("until", "running"),
                        timeout_seconds=parse_duration(w.get("timeout", "")) or WaitPolicy.timeout_seconds),
        retention=get(NS + "retention") or "keep",
        bucket_name=get(NS + "bucket"),
        buckets=tuple((get(NS + "buckets") or {}).items()),
        deployer=get(NS + "deployer"),
        api_endpoint=get(NS + "apiEndpoint"),
        local_home=get(NS + "localHome"),
        replace=get(NS + "replace") or "deleteFirst",
        custom_timeouts=tuple((k, parse_duration(v) or 0.0) for k, v in (get(NS + "customTimeouts") or {}).items()),
        manage_apis=get(NS + "manageApis", True) not in (False, "false"),
        adopt=tuple((get(NS + "adopt") or {}).items()),
        source=source,
        at={k: ("config", k) for k in config},
    )


@dataclass
class StackLoad:
    config: StackConfig | None
    problems: list[Problem]
    document: LoadedDocument | None = None


def check_mapping(name: str, config: Mapping[str, Any], filename: str,
                  doc: LoadedDocument | None = None) -> StackLoad:
    """Schema-check ``{"config": {...}}`` and build the StackConfig if it is valid."""
    data = {"config": dict(config)} if doc is None else doc.data
    problems = schema_check.problems(data, filename, doc, "stack")
    if any(p.is_error for p in problems):
        return StackLoad(None, problems, doc)
    return StackLoad(from_mapping(name, data["config"], filename), problems, doc)


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
