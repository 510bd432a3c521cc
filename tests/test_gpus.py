"""What Vertex AI offers (provider.catalog.offers) and ``trainjobs gpus``, its text table and JSON.

The expectations are read from the catalog's own files (accelerator_counts.json, regions.json,
pricing.json) rather than restated, so a catalog rebuild moves both sides together; the few fixed
facts (a2-highgpu-2g takes 2 A100s, K80 is retired) are what the issue names.
"""

from __future__ import annotations

import datetime as dt
import json

import pytest

from provider.catalog import CATALOG, load
from provider.catalog.offers import OfferQuery, machines_for, offers, resolve_accelerator
from provider.catalog.pricing import accelerator_price, machine_price
from provider.core.errors import UserError

from .conftest import no_traceback, run_cli

TODAY = dt.date(2026, 11, 25)


def test_every_row_of_the_vertex_count_table_is_an_offer() -> None:
    table = load("accelerator_counts")["vertex"]
    expected = {(m, a, c) for m, accs in table.items() for a, counts in accs.items() for c in counts
                if not CATALOG.accelerators[a].retired(TODAY)}
    got = {(o.machine_type, o.accelerator, o.count) for o in offers(today=TODAY) if o.count is not None}
    assert got == expected


def test_filters_narrow_and_regions_come_from_the_regions_table() -> None:
    found = offers(OfferQuery(accelerator="NVIDIA_TESLA_A100", count=2), today=TODAY)
    assert [o.machine_type for o in found] == ["a2-highgpu-2g"]
    offering = sorted(r for r, rec in load("regions")["regions"].items()
                      if "NVIDIA_TESLA_A100" in rec.get("vertex_training_accelerators", []) and rec["vertex_training"])
    assert [p.region for p in found[0].regions] == offering
    one = offers(OfferQuery(accelerator="NVIDIA_L4", region="europe-west4"), today=TODAY)
    assert one and all([p.region for p in o.regions] == ["europe-west4"] for o in one)
    assert offers(OfferQuery(accelerator="NVIDIA_L4", region="us-west3"), today=TODAY) == []
    assert {o.machine_type for o in offers(OfferQuery(machine_type="n1-standard-8"), today=TODAY)} == {"n1-standard-8"}


def test_price_is_machine_plus_count_accelerators_from_pricing_json() -> None:
    offer = offers(OfferQuery(accelerator="NVIDIA_TESLA_A100", count=2, region="us-central1"), today=TODAY)[0]
    prices = load("pricing")["regions"]["us-central1"]
    expected = prices["machine_types"]["a2-highgpu-2g"]["usd_per_hour"] + 2 * prices["accelerators"][
        "NVIDIA_TESLA_A100"]["usd_per_hour"]
    (price,) = offer.regions
    assert price.usd_per_hour == pytest.approx(expected) and price.unverified and price.missing == ()
    # The plan's estimate reads the same lookups (one home): no second copy of the arithmetic.
    pricing = CATALOG.pricing()
    assert machine_price(pricing, "us-central1", "a2-highgpu-2g").usd == pytest.approx(
        prices["machine_types"]["a2-highgpu-2g"]["usd_per_hour"])
    h200 = accelerator_price(pricing, "us-central1", "NVIDIA_H200_141GB")
    assert h200.reason == pricing.not_priced.accelerators["NVIDIA_H200_141GB"]
    assert h200.missing == f"NVIDIA_H200_141GB in us-central1 ({h200.reason})"


def test_a_missing_price_says_which_and_the_cheapest_region_is_a_priced_one() -> None:
    h200 = offers(OfferQuery(accelerator="NVIDIA_H200_141GB"), today=TODAY)[0]
    assert all(p.usd_per_hour is None and p.missing for p in h200.regions)
    t4 = offers(OfferQuery(accelerator="NVIDIA_TESLA_T4", machine_type="n1-standard-4", count=1), today=TODAY)[0]
    cheapest = t4.cheapest
    assert cheapest is not None and cheapest.usd_per_hour == min(
        p.usd_per_hour for p in t4.regions if p.usd_per_hour is not None)


def test_retired_accelerators_are_left_out_unless_asked_for() -> None:
    assert CATALOG.accelerators["NVIDIA_TESLA_P100"].retired(TODAY)  # end of support 2026-09-15
    assert not CATALOG.accelerators["NVIDIA_TESLA_P100"].retired(dt.date(2026, 9, 14))
    assert CATALOG.accelerators["NVIDIA_TESLA_K80"].retired(dt.date(2020, 1, 1))  # Vertex AI never offered it
    assert all(not o.retired for o in offers(today=TODAY))
    p100 = offers(OfferQuery(accelerator="NVIDIA_TESLA_P100", include_retired=True), today=TODAY)
    assert p100 and all(o.retired and o.end_of_support == "2026-09-15" for o in p100)


def test_names_resolve_in_any_case_and_a_typo_gets_a_suggestion() -> None:
    for text in ("A100", "a100", "NVIDIA_TESLA_A100", "A100 40GB", "a100-40gb"):
        assert resolve_accelerator(text) == "NVIDIA_TESLA_A100"
    assert resolve_accelerator("a100-80gb") == "NVIDIA_A100_80GB"
    assert resolve_accelerator("tpu v5e") == "TPU_V5_LITEPOD"
    with pytest.raises(UserError) as err:
        resolve_accelerator("H10", today=TODAY)
    assert "did you mean 'H100'" in err.value.message and err.value.exit_code == 2
    assert "K80" not in err.value.message and "P100" not in err.value.message  # retired: never offered


def test_machines_for_names_the_machine_that_takes_a_count() -> None:
    assert machines_for("NVIDIA_TESLA_A100", 2) == ["a2-highgpu-2g"]
    assert machines_for("NVIDIA_L4", 4) == ["g2-standard-48"]
    assert machines_for("NVIDIA_TESLA_A100", 3) == []


# -- the command ------------------------------------------------------------------------------------


def test_gpus_text_lists_every_offered_accelerator_with_its_price() -> None:
    proc = run_cli("gpus")
    no_traceback(proc)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].split()[:3] == ["ACCELERATOR", "API", "NAME"]
    rows = {line.split("  ")[0].strip(): line for line in lines[1:] if line and not line.startswith("$/H")}
    assert "A100 40GB" in rows and "L4" in rows and "K80" not in rows and "P100" not in rows
    l4 = [p for o in offers(OfferQuery(accelerator="NVIDIA_L4")) for p in o.regions if p.usd_per_hour is not None]
    cheapest = min(l4, key=lambda p: (p.usd_per_hour, p.region))
    assert f"{cheapest.usd_per_hour:,.2f}* ({cheapest.region})" in rows["L4"]  # a derived price, marked
    assert "$/H: Vertex AI custom training list price per hour" in proc.stdout


def test_gpus_filtered_text_shows_machine_types_counts_and_region_prices() -> None:
    proc = run_cli("gpus", "a100", "--count", "2", "--region", "us-central1")
    assert proc.returncode == 0, proc.stderr
    header, row = proc.stdout.splitlines()[:2]
    assert header.split() == ["ACCELERATOR", "QTY", "MACHINE", "TYPE", "vCPUs", "MEMORY", "GB", "$/H", "REGION",
                              "END", "OF", "SUPPORT"]
    expected = offers(OfferQuery(accelerator="NVIDIA_TESLA_A100", count=2, region="us-central1"))[0].regions[0]
    assert row.split()[:5] == ["A100", "40GB", "2", "a2-highgpu-2g", "24"]
    assert f"{expected.usd_per_hour:,.2f}*" in row and "us-central1" in row


def test_gpus_json_carries_every_region_and_price() -> None:
    proc = run_cli("gpus", "L4", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["query"]["accelerator"] == "NVIDIA_L4" and data["currency"] == "USD"
    by_machine = {(o["machineType"], o["count"]): o for o in data["offers"]}
    offer = by_machine[("g2-standard-4", 1)]
    regions = {r["region"]: r for r in offer["regions"]}
    assert regions["us-central1"]["usdPerHour"] == pytest.approx(
        machine_price(CATALOG.pricing(), "us-central1", "g2-standard-4").usd
        + (accelerator_price(CATALOG.pricing(), "us-central1", "NVIDIA_L4").usd or 0))
    assert regions["us-central1"]["unverified"] is True and offer["retired"] is False


def test_gpus_retired_and_unknown_names_are_explained() -> None:
    retired = run_cli("gpus", "k80")
    assert retired.returncode == 1 and "retired" in retired.stderr and "NVIDIA_TESLA_T4" in retired.stderr
    with_all = run_cli("gpus", "P100", "--all")
    assert with_all.returncode == 0 and "retired 2026-09-15" in with_all.stdout
    typo = run_cli("gpus", "--region", "us-centrl1")
    assert typo.returncode == 2 and "did you mean 'us-central1'" in typo.stderr
    no_traceback(typo)
    elsewhere = run_cli("gpus", "L4", "--region", "us-west3")
    assert elsewhere.returncode == 1 and "regions that offer it: " in elsewhere.stderr


def test_gpus_help_has_examples() -> None:
    proc = run_cli("gpus", "--help")
    assert proc.returncode == 0 and "examples:" in proc.stdout and "trainjobs gpus A100" in proc.stdout
