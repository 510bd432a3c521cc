"""``trainjobs gpus``: what Vertex AI offers for training, from the catalog (as ``sky show-gpus``).

The query is ``provider.catalog.offers``; this module only parses the filters and prints.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from provider.catalog.offers import Offer, OfferQuery, RegionPrice

NOTES = """Prices are Vertex AI custom training list prices per hour (USD, on demand, machine plus its
accelerators), from the catalog (provider/catalog/data/pricing.json); '*' marks a price not read
from Vertex AI's own page for that region (derived: the README's catalog section says how);
'-' means the catalog has no price. Retired accelerators are never suggested by the validator.
"""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "gpus", help="what Vertex AI offers for training: accelerators, counts, machine types, regions, prices",
        description="List the accelerators (GPUs and TPUs) Vertex AI offers for custom training, from trainjobs' "
        "catalog: the counts each machine type takes, the regions that offer them, list prices and end-of-support "
        "dates.", epilog=NOTES, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("accelerator", nargs="?", metavar="ACCELERATOR",
                   help="an accelerator, any case: A100, a100-80gb, L4, NVIDIA_TESLA_T4, 'TPU v5e'")
    p.add_argument("--machine-type", metavar="TYPE", help="only this machine type (a2-highgpu-1g, n1-standard-8 ...)")
    p.add_argument("--region", metavar="REGION", help="only this region, with its prices (us-central1 ...)")
    p.add_argument("--count", type=int, metavar="N", help="only offers of N accelerators per machine")
    p.add_argument("--all", action="store_true", help="also list retired accelerators (not offered, or past end of support)")
    p.add_argument("--format", choices=["text", "json"], default="text", help="a table (default) or JSON")
    p.set_defaults(_target="provider.cli.gpus:run")


def run(args: argparse.Namespace) -> int:
    from provider.catalog import CATALOG
    from provider.catalog.offers import OfferQuery, check_name, offers, resolve_accelerator

    acc = resolve_accelerator(args.accelerator) if args.accelerator else None
    if args.machine_type:
        check_name("machine type", args.machine_type, sorted(CATALOG.machine_types))
    if args.region:
        check_name("region", args.region, sorted(r.name for r in CATALOG.regions.values() if r.vertex_training))
    if args.count is not None and args.count < 1:
        from provider.core.errors import UserError

        raise UserError(f"--count {args.count}: a count is 1 or more", exit_code=2)
    query = OfferQuery(acc, args.machine_type, args.region, args.count, args.all)
    found = offers(query)
    if args.format == "json":
        print(json.dumps(_json(found, query), indent=2))
        return 0 if found else 1
    if not found:
        print(_nothing(query), file=sys.stderr)
        return 1
    detailed = any((query.accelerator, query.machine_type, query.region, query.count))
    print(_table(_detail_rows(found, query.region) if detailed else _summary_rows(found)))
    print(_legend())
    return 0


def _usd(price: RegionPrice | None) -> str:
    if price is None or price.usd_per_hour is None:
        return "-"
    return f"{price.usd_per_hour:,.2f}" + ("*" if price.unverified else "")


def _quantity(offer: Offer) -> str:
    return str(offer.count) if offer.count is not None else f"{offer.topology} slice"


def _support(offer: Offer) -> str:
    if offer.retired:
        return f"retired {offer.end_of_support}" if offer.end_of_support else "retired"
    return offer.end_of_support or "-"


def _summary_rows(found: list[Offer]) -> list[list[str]]:
    from provider.catalog.offers import natural

    rows = [["ACCELERATOR", "API NAME", "COUNTS", "MACHINE TYPES", "REGIONS", "FROM $/H", "END OF SUPPORT"]]
    by_acc: dict[str, list[Offer]] = {}
    for offer in found:
        by_acc.setdefault(offer.accelerator, []).append(offer)
    for name, group in by_acc.items():
        counts = sorted({o.count for o in group if o.count is not None})
        topologies = sorted({o.topology or "" for o in group}, key=natural)
        shown = ", ".join(map(str, counts)) or (
            f"{topologies[0]} to {topologies[-1]} ({len(topologies)} topologies)" if len(topologies) > 2
            else ", ".join(topologies))
        cheapest = [o.cheapest for o in group if o.cheapest and o.cheapest.usd_per_hour is not None]
        low = min(cheapest, key=lambda r: r.usd_per_hour or 0.0) if cheapest else None
        regions = {r.region for o in group for r in o.regions}
        rows.append([group[0].display, name, shown, str(len({o.machine_type for o in group})), str(len(regions)),
                     _usd(low) + (f" ({low.region})" if low else ""), _support(group[0])])
    return rows


def _detail_rows(found: list[Offer], region: str | None) -> list[list[str]]:
    rows = [["ACCELERATOR", "QTY", "MACHINE TYPE", "vCPUs", "MEMORY GB", "$/H", "REGION", "END OF SUPPORT"]]
    for offer in found:
        price = next((r for r in offer.regions if r.region == region), None) if region else offer.cheapest
        where = price.region if price else "none"
        if price and not region and len(offer.regions) > 1:
            where += f" (+{len(offer.regions) - 1} more)"
        rows.append([offer.display, _quantity(offer), offer.machine_type, _num(offer.vcpus), _num(offer.memory_gb),
                     _usd(price), where, _support(offer)])
    return rows


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:g}"


def _table(rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows)


def _legend() -> str:
    from provider.catalog import CATALOG

    pricing = CATALOG.pricing()
    return (f"\n$/H: Vertex AI custom training list price per hour in {pricing.currency}, on demand, machine plus "
            f"accelerators (prices as of {pricing.as_of}); * derived, not read from Vertex AI's page for that region; "
            "- no price in the catalog. Region: the cheapest that offers it, unless --region.")


def _nothing(query: OfferQuery) -> str:
    import datetime as dt

    from provider.catalog import CATALOG

    if query.accelerator and query.region:
        where = sorted(r.name for r in CATALOG.regions.values() if query.accelerator in r.vertex_accelerators)
        return (f"trainjobs: {query.accelerator} is not offered for training in {query.region}; regions that offer "
                f"it: {', '.join(where) or 'none'}")
    if query.accelerator and not query.include_retired:
        acc = CATALOG.accelerator(query.accelerator)
        if acc is not None and acc.retired(dt.date.today()):
            instead = f"; use {', '.join(acc.instead)} instead" if acc.instead else ""
            return f"trainjobs: {query.accelerator} is retired on Vertex AI (--all lists it){instead}"
    return "trainjobs: no offer matches these filters (run trainjobs gpus without them to see what there is)"


def _json(found: list[Offer], query: OfferQuery) -> dict[str, object]:
    from provider.catalog import CATALOG

    pricing = CATALOG.pricing()
    return {
        "query": {"accelerator": query.accelerator, "machineType": query.machine_type, "region": query.region,
                  "count": query.count, "includeRetired": query.include_retired},
        "currency": pricing.currency,
        "prices_as_of": pricing.as_of,
        "catalog_as_of": CATALOG.as_of(),
        "offers": [
            {
                "accelerator": o.accelerator, "display": o.display, "kind": o.kind, "count": o.count,
                "topology": o.topology, "machineType": o.machine_type, "vcpus": o.vcpus, "memoryGb": o.memory_gb,
                "endOfSupport": o.end_of_support, "retired": o.retired, "instead": list(o.instead),
                "regions": [{"region": r.region, "usdPerHour": r.usd_per_hour, "unverified": r.unverified,
                             "missing": list(r.missing)} for r in o.regions],
            }
            for o in found
        ],
    }
