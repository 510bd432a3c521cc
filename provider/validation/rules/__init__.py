"""Model-level rules: what the JSON Schema cannot express. Each finding cites its source."""

from provider.validation.rules import (  # noqa: F401  (registers the rules)
    accelerators,
    containers,
    dockerfile,
    hardware,
    inputs,
    job,
    local_gaps,
    package_extras,
    paths,
    storage,
    study,
    tuning,
    vertex_fields,
)
from provider.validation.rules.base import RULES, Context, Finding, Target, run_rules

__all__ = ["RULES", "Context", "Finding", "Target", "run_rules"]
