"""A retired accelerator (K80; P100 past its end of support) is never offered as allowed: not by the
validator's messages, and not by the JSON Schema's messages an editor shows (its ``errorMessage``
and ``description`` of the accelerators that fit a machine type)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from provider.catalog import CATALOG
from provider.spec.schema import spec_schema
from provider.validation.validator import validate_bytes

AS_OF = dt.date.fromisoformat(CATALOG.as_of())
RETIRED = sorted(name for name, acc in CATALOG.accelerators.items() if acc.retired(AS_OF))


def _walk(node: Any) -> list[str]:
    out: list[str] = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("errorMessage", "description") and isinstance(value, str) and "fit" in value:
                out.append(value)
            out += _walk(value)
    elif isinstance(node, list):
        for value in node:
            out += _walk(value)
    return out


def test_the_catalog_has_retired_accelerators_to_keep_out() -> None:
    assert {"NVIDIA_TESLA_K80", "NVIDIA_TESLA_P100"} <= set(RETIRED)


def test_the_schemas_messages_offer_no_retired_accelerator() -> None:
    offering = [m for m in _walk(spec_schema()) if "these do:" in m or m.startswith("accelerators that fit")]
    assert len(offering) > 20  # every machine type's fitting list, in every format's pools
    named = [m for m in offering if any(r in m.split(":", 1)[-1].split("these do:")[-1] for r in RETIRED)]
    assert named == []


@pytest.mark.parametrize("machine", ["n1-standard-4", "n1-highmem-16", "n1-standard-96"])
def test_the_validators_allowed_list_offers_no_retired_accelerator(machine: str) -> None:
    text = ("apiVersion: trainjobs/v1\nkind: TrainingJob\nmetadata: {name: j}\nspec:\n  region: us-central1\n"
            f"  workerPools:\n    chief: {{machineType: {machine}, accelerator: {{type: NVIDIA_H100_80GB, count: 1}}}}\n"
            "  application: {container: {image: us-docker.pkg.dev/p/r/i:1}}\n")
    result = validate_bytes(text.encode(), "j.yaml")
    said = [f"{p.message} | {p.allowed}" for p in result.problems if p.is_error]
    assert said and not [s for s in said if any(r in s.split(" | ")[1] for r in RETIRED)], said
