"""The prices in the catalog: Vertex AI custom training list prices, for cost estimates.

Read from ``provider/catalog/data/pricing.json`` (``tools/catalog/curated/pricing.json``) on
first use, once per process; only the cost estimates of ``trainjobs plan`` (provider.gitops.cost) and
``trainjobs gpus`` (provider.catalog.offers) ask for it, both through the lookups at the end.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from provider.catalog import load
from provider.core.record import Record


class Price(Record):
    """A list price per hour (USD), with where it comes from."""

    usd_per_hour: float
    verified: bool
    source: str


class FamilyRate(Record):
    """A machine family's price per vCPU-hour and per GB-hour (USD)."""

    usd_per_vcpu_hour: float
    usd_per_gb_hour: float
    verified: bool
    source: str


class RegionPrices(Record):
    """One region's list prices: per machine type, per machine family, and per accelerator."""

    machine_types: dict[str, Price]
    machine_families: dict[str, FamilyRate]
    accelerators: dict[str, Price]


class NotPriced(Record):
    """Why an accelerator or a machine family has no price where the catalog lacks one (``not_priced``)."""

    accelerators: dict[str, str]
    machine_families: dict[str, str]


class Pricing(Record):
    """Vertex AI custom training list prices, for cost estimates (tools/catalog/curated/pricing.json)."""

    as_of: str
    currency: str
    description: str
    regions: dict[str, RegionPrices]
    sources: tuple[str, ...]
    not_priced: NotPriced = NotPriced({}, {})


def _price(rec: dict[str, Any]) -> Price:
    return Price(float(rec["usd_per_hour"]), bool(rec["verified"]), rec["source"])


@cache
def pricing() -> Pricing:
    data = load("pricing")
    regions = {
        name: RegionPrices(
            machine_types={m: _price(r) for m, r in rec.get("machine_types", {}).items()},
            machine_families={
                f: FamilyRate(float(r["usd_per_vcpu_hour"]), float(r["usd_per_gb_hour"]), bool(r["verified"]), r["source"])
                for f, r in rec.get("machine_families", {}).items()
            },
            accelerators={a: _price(r) for a, r in rec.get("accelerators", {}).items()},
        )
        for name, rec in data["regions"].items()
    }
    why = data.get("not_priced") or {}
    return Pricing(data["as_of"], data["currency"], data["description"], regions, tuple(data["sources"]),
                   NotPriced(dict(why.get("accelerators", {})), dict(why.get("machine_families", {}))))


class Priced(Record):
    """A machine type's or accelerator's price per hour in a region, or which price is missing and why.

    ``missing`` names the price and carries the catalog's reason in parentheses (``not_priced``), so
    the plan, the console and ``trainjobs gpus`` say why; ``reason`` is that reason alone (None: the
    catalog names none, which tests/test_prices.py refuses for anything Vertex AI offers).
    """

    usd: float | None
    unverified: bool
    missing: str | None
    reason: str | None = None


def _missing(what: str, reason: str | None) -> Priced:
    return Priced(None, False, f"{what} ({reason})" if reason else what, reason)


def machine_price(pricing: Pricing, region: str, machine_type: str) -> Priced:
    """The machine's own price in ``region``, else its family's vCPU and GB rates times its shape."""
    from provider.catalog import CATALOG

    prices = pricing.regions.get(region)
    machine = CATALOG.machine(machine_type)
    family = machine.family if machine else machine_type.split("-")[0]
    missing = _missing(f"machine type {machine_type} in {region}", pricing.not_priced.machine_families.get(family))
    if prices is None:
        return missing
    explicit = prices.machine_types.get(machine_type)
    if explicit is not None:
        return Priced(explicit.usd_per_hour, not explicit.verified, None)
    rate = prices.machine_families.get(machine.family) if machine else None
    if machine is None or rate is None or machine.vcpus is None or machine.memory_gb is None:
        return missing
    usd = machine.vcpus * rate.usd_per_vcpu_hour + machine.memory_gb * rate.usd_per_gb_hour
    return Priced(usd, not rate.verified or "memory_gb" in machine.unverified, None)


def accelerator_price(pricing: Pricing, region: str, accelerator: str) -> Priced:
    """One accelerator's price per hour in ``region``."""
    prices = pricing.regions.get(region)
    price = prices.accelerators.get(accelerator) if prices else None
    if price is None:
        return _missing(f"{accelerator} in {region}", pricing.not_priced.accelerators.get(accelerator))
    return Priced(price.usd_per_hour, not price.verified, None)
