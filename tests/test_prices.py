"""Every training offer has a price or a named reason it has none, and the plan and console say which.

The walk covers what the catalog allows (provider.catalog.offers: each machine type with each
accelerator and count Vertex AI's table lists, in each region that offers the accelerator for
training). A price the catalog lacks must carry the reason ``pricing.json``'s ``not_priced`` gives
for that accelerator or machine family: a new accelerator or machine family added without a price
or a reason fails here, by name.
"""

from __future__ import annotations

import datetime as dt
import html
import json
import os
import re
import urllib.request
from pathlib import Path

import pytest

from provider.catalog import CATALOG
from provider.catalog.offers import offers
from provider.catalog.pricing import accelerator_price, machine_price
from provider.gitops.capacity import capacity
from provider.gitops.cost import estimate
from provider.gitops.words import cost
from provider.spec.model import TrainingJob
from provider.validation.validator import validate_bytes
from tests.plan_repo import ENV, PlanRepo

TODAY = dt.date(2026, 11, 25)


def test_every_offer_in_every_region_has_a_price_or_the_catalogs_named_reason() -> None:
    pricing = CATALOG.pricing()
    reasons = set(pricing.not_priced.accelerators.values()) | set(pricing.not_priced.machine_families.values())
    unexplained: list[str] = []
    walked = 0
    for offer in offers(today=TODAY):
        for region in offer.regions:
            walked += 1
            parts = [machine_price(pricing, region.region, offer.machine_type)]
            if offer.count and not CATALOG.implied_accelerator(offer.machine_type):
                parts.append(accelerator_price(pricing, region.region, offer.accelerator))
            for part in parts:
                if part.usd is None and part.reason not in reasons:
                    unexplained.append(f"{offer.machine_type} + {offer.accelerator} in {region.region}: {part.missing}")
            if region.usd_per_hour is None:
                assert region.missing and all("(" in m for m in region.missing), region
    assert walked > 1000  # every region of every offer, not a sample
    assert unexplained == []


def test_the_gpus_teams_run_today_are_priced_in_us_central1() -> None:
    """The issue's own list (A100, V100, L4) and T4, and H100 on its A3 machine, each with a source."""
    pricing = CATALOG.pricing()
    for machine, acc in (("a2-highgpu-1g", "NVIDIA_TESLA_A100"), ("n1-standard-8", "NVIDIA_TESLA_V100"),
                         ("g2-standard-8", "NVIDIA_L4"), ("n1-standard-4", "NVIDIA_TESLA_T4"),
                         ("a3-highgpu-8g", "NVIDIA_H100_80GB")):
        m, a = machine_price(pricing, "us-central1", machine), accelerator_price(pricing, "us-central1", acc)
        assert m.usd and a.usd, (machine, acc)
    prices = pricing.regions["us-central1"]
    a3 = prices.machine_types["a3-highgpu-8g"]
    assert not a3.verified and "x 1.15" in a3.source and "skypilot-catalog" in a3.source


def _job(region: str, machine: str, acc: str, count: int) -> TrainingJob:
    text = (f"apiVersion: trainjobs/v1\nkind: TrainingJob\nmetadata: {{name: j}}\nspec:\n  region: {region}\n"
            f"  workerPools:\n    chief: {{machineType: {machine}, accelerator: {{type: {acc}, count: {count}}}}}\n"
            "  application: {container: {image: us-docker.pkg.dev/p/r/i:1}}\n")
    result = validate_bytes(text.encode(), "j.yaml")
    assert result.job is not None, result.problems
    return result.job


def test_the_plans_words_name_the_missing_price_and_why() -> None:
    job = _job("europe-west4", "a3-ultragpu-8g", "NVIDIA_H200_141GB", 8)
    est = estimate(job, capacity(job))
    reason = CATALOG.pricing().not_priced.accelerators["NVIDIA_H200_141GB"]
    assert est.usd is None
    assert f"NVIDIA_H200_141GB in europe-west4 ({reason})" in est.missing
    assert cost(est).startswith("no estimate: no price for ") and reason in cost(est)
    for region in ("us-central1", "europe-west4"):
        priced = _job(region, "a3-highgpu-8g", "NVIDIA_H100_80GB", 8)
        est = estimate(priced, capacity(priced))
        assert est.usd is not None and est.missing == (), region
        assert set(est.unverified) == {"a3-highgpu-8g", "NVIDIA_H100_80GB"}, region


# Offer-regions without a price, of 1,608: 272 before H100, H100 Mega and A100 40GB got their regions, 208 after.
# A ratchet: a catalog change that loses a price fails here by count; one that adds prices lowers it.
UNPRICED_AT_MOST = 208


def test_no_offer_region_loses_its_price() -> None:
    unpriced = [(o.machine_type, o.accelerator, r.region) for o in offers(today=TODAY) for r in o.regions
                if r.usd_per_hour is None]
    assert len(unpriced) <= UNPRICED_AT_MOST, len(unpriced)
    # every region Vertex AI offers these in, on every machine type that takes them
    assert not [u for u in unpriced if u[1] in ("NVIDIA_H100_80GB", "NVIDIA_TESLA_A100")]


def test_every_price_carries_its_source_and_a_derived_one_its_derivation() -> None:
    pricing = CATALOG.pricing()
    prices = [(region, name, price) for region, rec in pricing.regions.items()
              for name, price in {**rec.machine_types, **rec.accelerators}.items()]
    assert prices
    for region, name, price in prices:
        assert price.source.strip() and price.usd_per_hour > 0, (region, name)
        if price.source.startswith("derived"):
            assert not price.verified and " x 1." in price.source, (region, name)
    for rate in (r for rec in pricing.regions.values() for r in rec.machine_families.values()):
        assert rate.source.strip() and rate.usd_per_vcpu_hour > 0 and rate.usd_per_gb_hour > 0


def test_each_derived_price_is_the_compute_engine_figure_it_names_times_the_ratio_it_names() -> None:
    """The derivation written beside a derived price reproduces it: '... in REGION $N/h ... x R (see derivations.…)'."""
    checked = 0
    for region, rec in CATALOG.pricing().regions.items():
        for name, price in {**rec.machine_types, **rec.accelerators}.items():
            if not price.source.startswith("derived"):
                continue
            figure = re.search(r" in " + re.escape(region) + r" \$([0-9.]+)/h", price.source)
            ratio = re.search(r"x (1\.\d\d) \(see derivations\.(\w+)", price.source)
            assert figure and ratio, (region, name, price.source)
            assert price.usd_per_hour == pytest.approx(float(figure[1]) * float(ratio[1]), rel=1e-5), (region, name)
            checked += 1
    assert checked > 200


def test_h100_outside_us_central1_is_compute_engines_price_at_the_ratio_vertex_shows_for_h100() -> None:
    """Vertex AI's H100 figure equals Compute Engine's in us-central1 and us-east4 (ratio 1.00, not N1's 1.15);
    the other regions' H100 and H100 Mega prices apply that ratio, unverified, each naming what it read."""
    pricing = CATALOG.pricing()
    vertex = pricing.regions["us-central1"].accelerators["NVIDIA_H100_80GB"]
    east4 = pricing.regions["us-east4"].accelerators["NVIDIA_H100_80GB"]
    assert abs(vertex.usd_per_hour / east4.usd_per_hour - 1) < 1e-5
    derived = [(r, a, rec.accelerators[a]) for r, rec in pricing.regions.items()
               for a in ("NVIDIA_H100_80GB", "NVIDIA_H100_MEGA_80GB") if a in rec.accelerators
               and (r, a) != ("us-central1", "NVIDIA_H100_80GB")]
    assert len(derived) > 20
    for region, acc, price in derived:
        assert not price.verified and "x 1.00" in price.source and region in price.source, (region, acc)
        assert "skypilot-catalog" in price.source or "Cyclenerd" in price.source, (region, acc)
    assert "vertex_over_compute_engine_h100" in json.loads(
        (Path(__file__).resolve().parents[1] / "provider/catalog/data/pricing.json").read_text(encoding="utf-8"))["derivations"]


@pytest.mark.slow
def test_the_console_plan_page_names_the_missing_price_and_why(tmp_path: Path) -> None:
    from tests.console.conftest import start_console, stop_console

    repo = PlanRepo(tmp_path / "repo")
    spec = "specs/vision/resnet.yaml"
    repo.edit(spec, "    chief:\n      machineType: n1-standard-4\n      accelerator: {type: NVIDIA_TESLA_T4, count: 1}",
              "    chief:\n      machineType: a3-ultragpu-8g\n      accelerator: {type: NVIDIA_H200_141GB, count: 8}")
    out = repo.run("plan", "--base", "main", "--format", "json")
    plan = json.loads(out.stdout)
    job = next(j for s in plan["stacks"] if s["name"] == "vision-dev" for j in s["jobs"] if j["name"] == "vision_resnet")
    reason = CATALOG.pricing().not_priced.accelerators["NVIDIA_H200_141GB"]
    assert job["cost"]["estimated_max_usd"] is None
    assert any(reason in m for m in job["cost"]["missing_prices"])
    (repo.root / "plan.json").write_text(out.stdout, encoding="utf-8")
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, **ENV, "TRAINJOBS_HOME": str(tmp_path / "home"), "PYTHONPATH": str(root), "NO_COLOR": "1"}
    proc, url = start_console(repo.root, env, "--plan", "plan.json")
    try:
        with urllib.request.urlopen(url + "plan", timeout=60) as answer:
            page = answer.read().decode("utf-8")
    finally:
        stop_console(proc)
    shown = html.unescape(page)
    assert "no estimate: no price for " in shown
    assert f"NVIDIA_H200_141GB in us-central1 ({reason})" in shown
