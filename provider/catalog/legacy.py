"""The AI Platform Training part of the catalog: legacy machine types and scale tiers.

Read from ``provider/catalog/data/legacy.json`` (``tools/catalog/build.py``) on first use, once
per process; only a spec in the AI Platform format (and the schema generator) asks for it, so
checking any other spec neither loads the file nor creates these types.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from provider.catalog import load
from provider.core.record import Record


class LegacyMachineType(Record):
    """An AI Platform Training legacy machine type (``standard_gpu`` ...) and what it maps to."""

    name: str
    machine_type: str | None
    accelerator: tuple[str, int] | None
    tpu: tuple[str, int] | None
    unverified: bool


class TierPool(Record):
    """One pool of a scale tier: its role, machine type, count and accelerator."""

    role: str
    machine_type: str
    count: int
    accelerator: tuple[str, int] | None
    tpu: tuple[str, int] | None


class ScaleTier(Record):
    """An AI Platform Training scale tier (BASIC, STANDARD_1 ...) and the pools it stands for."""

    name: str
    pools: tuple[TierPool, ...]
    custom: bool
    unverified: bool


def _pair(rec: dict[str, Any] | None) -> tuple[str, int] | None:
    return (rec["type"], int(rec["count"])) if rec else None


@cache
def legacy_machines() -> dict[str, LegacyMachineType]:
    out = {}
    for name, rec in load("legacy")["machine_types"].items():
        out[name] = LegacyMachineType(
            name=name,
            machine_type=rec.get("machine_type"),
            accelerator=_pair(rec.get("accelerator")),
            tpu=_pair(rec.get("tpu")),
            unverified=bool(rec.get("unverified")),
        )
    return out


@cache
def scale_tiers() -> dict[str, ScaleTier]:
    out = {}
    for name, rec in load("legacy")["scale_tiers"].items():
        pools = tuple(
            TierPool(
                role=role,
                machine_type=p["machine_type"],
                count=p["count"],
                accelerator=_pair(p.get("accelerator")),
                tpu=_pair(p.get("tpu")),
            )
            for role, p in rec.get("pools", {}).items()
        )
        out[name] = ScaleTier(name=name, pools=pools, custom=bool(rec.get("custom")), unverified=bool(rec.get("unverified")))
    return out
