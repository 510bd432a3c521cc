"""What Vertex AI offers for training: each accelerator on each machine type that takes it, in
each region that offers it, with its list price per hour and its end of support.

The query behind ``trainjobs gpus`` (as ``sky show-gpus`` and ``gcloud compute
accelerator-types list`` are), kept below the CLI so the console and other callers can ask the
same question. Everything comes from the catalog: the Vertex AI table of valid accelerator counts
per machine type (``accelerator_counts.json``), the TPU topologies, the regions' training
accelerators (``regions.json``) and the prices (``pricing.json``, read through
``provider.catalog.pricing``, the lookups the plan's estimate uses too).
"""

from __future__ import annotations

import datetime as dt
import re

from provider.catalog import CATALOG, AcceleratorKind, AcceleratorType, Catalog
from provider.catalog.pricing import Pricing, accelerator_price, machine_price
from provider.core.errors import UserError
from provider.core.record import Record
from provider.core.suggest import close_matches, did_you_mean


class RegionPrice(Record):
    """An offer's list price per hour in one region: the machine plus its accelerators (USD)."""

    region: str
    usd_per_hour: float | None  # None: a price the catalog lacks (see ``missing``)
    unverified: bool = False  # a price used was not read from Vertex AI's page for this region
    missing: tuple[str, ...] = ()


class Offer(Record):
    """One way to get an accelerator for training: ``count`` of it on ``machine_type``."""

    accelerator: str  # the API's AcceleratorType name, e.g. NVIDIA_TESLA_A100
    display: str  # the name Google's pages use, e.g. "A100 40GB"
    kind: AcceleratorKind
    count: int | None  # accelerators on the machine; None for a TPU machine type (see topology)
    topology: str | None  # TPU slice topology (ct5lp-, ct6e-, tpu7x- machine types)
    machine_type: str
    vcpus: float | None
    memory_gb: float | None
    regions: tuple[RegionPrice, ...]  # where Vertex AI offers the accelerator for training
    end_of_support: str | None
    retired: bool  # no longer offered, or past its end of support: never suggested
    instead: tuple[str, ...] = ()

    @property
    def cheapest(self) -> RegionPrice | None:
        """The region with the lowest known price (ties: by name), else the first region."""
        priced = [r for r in self.regions if r.usd_per_hour is not None]
        if priced:
            return min(priced, key=lambda r: (r.usd_per_hour, r.region))
        return self.regions[0] if self.regions else None


class OfferQuery(Record):
    """The filters of ``trainjobs gpus``; None matches everything."""

    accelerator: str | None = None  # an AcceleratorType name (see ``resolve_accelerator``)
    machine_type: str | None = None
    region: str | None = None
    count: int | None = None
    include_retired: bool = False


def _key(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def natural(text: str) -> tuple[object, ...]:
    """Sort key that puts g2-standard-4 before g2-standard-12 and 2x2 before 16x16."""
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", text))


def _names(acc: AcceleratorType) -> set[str]:
    """What a person may type for an accelerator: its enum, its display name, the enum's last words."""
    short = re.sub(r"^NVIDIA_(TESLA_)?", "", acc.name)
    return {_key(acc.name), _key(acc.display), _key(short)}


def resolve_accelerator(text: str, catalog: Catalog = CATALOG, today: dt.date | None = None) -> str:
    """The AcceleratorType a user means by ``text`` (``a100``, ``A100 40GB``, ``NVIDIA_TESLA_A100``),
    case and punctuation ignored; a name the catalog does not know is a UserError with a suggestion."""
    key = _key(text)
    spoken: dict[str, str] = {}  # every name's key -> the display name to suggest
    for acc in catalog.accelerators.values():
        if key in _names(acc):
            return acc.name
        spoken.update({k: acc.display for k in _names(acc)})
    close = dict.fromkeys(spoken[k] for k in close_matches(key, list(spoken)))
    hint = "did you mean " + " or ".join(repr(c) for c in close) + "? " if close else ""
    today = today or dt.date.today()
    current = sorted(a.display for a in catalog.accelerators.values() if not a.retired(today))
    raise UserError(f"unknown accelerator {text!r}: {hint}offered: " + ", ".join(current), exit_code=2)


def check_name(kind: str, value: str, known: list[str]) -> None:
    """A machine type or region the catalog does not know is a UserError with a suggestion."""
    if value in known:
        return
    hint = did_you_mean(value, known)
    raise UserError(f"unknown {kind} {value!r}" + (f": {hint}" if hint else "")
                    + f" ({len(known)} known; run without the filter to see them)", exit_code=2)


def _machines(catalog: Catalog) -> list[tuple[str, str, int | None, str | None]]:
    """(machine type, accelerator, count, topology) for everything Vertex AI's tables list."""
    out: list[tuple[str, str, int | None, str | None]] = []
    for machine, accs in sorted(catalog.counts_table("vertex").items()):
        for acc, counts in sorted(accs.items()):
            out += [(machine, acc, c, None) for c in counts]
    for machine, topologies in sorted(catalog.all_tpu_topologies().items()):
        implied = catalog.implied_accelerator(machine)
        if implied is not None:
            out += [(machine, implied, None, t) for t in topologies]
    return out


def _price(pricing: Pricing, region: str, machine: str, acc: str, count: int | None, implied: bool) -> RegionPrice:
    parts = [machine_price(pricing, region, machine)]
    if not implied and count:
        parts += [accelerator_price(pricing, region, acc)] * count
    missing = tuple(dict.fromkeys(p.missing for p in parts if p.missing))
    if missing:
        return RegionPrice(region, None, False, missing)
    return RegionPrice(region, sum(p.usd or 0.0 for p in parts), any(p.unverified for p in parts))


def offers(query: OfferQuery | None = None, today: dt.date | None = None, catalog: Catalog = CATALOG) -> list[Offer]:
    """Every offer that matches ``query`` (None: all current ones), by accelerator, then count, then machine type."""
    query = query or OfferQuery()
    today = today or dt.date.today()
    pricing = catalog.pricing()
    regions_of: dict[str, list[str]] = {}
    for region in sorted(catalog.regions.values(), key=lambda r: r.name):
        if region.vertex_training:
            for name in region.vertex_accelerators:
                regions_of.setdefault(name, []).append(region.name)
    out = []
    for machine, acc_name, count, topology in _machines(catalog):
        acc = catalog.accelerator(acc_name)
        if acc is None or (query.accelerator and acc_name != query.accelerator):
            continue
        if (query.machine_type and machine != query.machine_type) or (query.count and count != query.count):
            continue
        retired = acc.retired(today)
        if retired and not query.include_retired:
            continue
        regions = [r for r in regions_of.get(acc_name, []) if query.region in (None, r)]
        if query.region and not regions:
            continue
        shape = catalog.machine(machine)
        prices = tuple(_price(pricing, r, machine, acc_name, count, acc.implied_by_machine_type) for r in regions)
        out.append(Offer(
            accelerator=acc_name, display=acc.display, kind=acc.kind, count=count, topology=topology,
            machine_type=machine, vcpus=shape.vcpus if shape else None, memory_gb=shape.memory_gb if shape else None,
            regions=prices, end_of_support=acc.end_of_support, retired=retired, instead=acc.instead,
        ))
    out.sort(key=lambda o: (o.display, o.count or 0, natural(o.topology or ""), natural(o.machine_type)))
    return out


def machines_for(accelerator: str, count: int, catalog: Catalog = CATALOG) -> list[str]:
    """The machine types that take ``count`` x ``accelerator`` in Vertex AI's table (a2-highgpu-2g for 2 x A100)."""
    return sorted(m for m, accs in catalog.counts_table("vertex").items() if count in accs.get(accelerator, []))
