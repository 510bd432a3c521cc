"""Vertex AI's prebuilt training containers: every one a spec names is checked against the dates of
the containers page (catalog runtimes.json, ``prebuilt_training_containers``), not only those
trainjobs chooses itself (job.py, ``package.default_image``).

The page gives each container two dates. After its end of patch and support Google no longer
patches it, though Vertex AI still serves it: a warning, with the day it stops. After its end of
availability Vertex AI no longer serves it, so a job that names it cannot start: the catalog's
``default_without_runtime`` rule already refuses trainjobs' own default then in a vertex stack,
and a named image is judged the same way, with one condition: an error needs a fix to name (a
newer container of the same framework and accelerator that the catalog still lists as served).
Where the catalog, as of its date, lists none, the finding stays a warning that says so, rather
than refusing every job of that framework on a page copy that may predate Google's next release.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from typing import Any

from provider.core.problem import Severity
from provider.spec.model import Container, DocPath, PythonPackage, TrainingJob, path_of
from provider.validation.rules.base import Context, Finding, Target, rule

SOURCE = "tools/catalog/curated/prebuilt_containers.json (Vertex AI prebuilt containers for custom training)"
# us-/europe-/asia-docker.pkg.dev/vertex-ai/training/NAME:TAG, and the older gcr.io/cloud-aiplatform/training/.
_PREBUILT = re.compile(
    r"^(?:(?:us|europe|asia)-docker\.pkg\.dev/vertex-ai|gcr\.io/cloud-aiplatform)/training/(?P<name>[^:@/]+)(?:[:@].*)?$")


def named_images(job: TrainingJob) -> list[tuple[str, DocPath]]:
    """Every image the spec names, with where: the container, the executor image, each pool's own."""
    app = job.application
    images = [(app.image_uri, path_of(app, "image_uri"))] if isinstance(app, Container) and app.image_uri else []
    if isinstance(app, PythonPackage) and app.executor_image_uri:
        images.append((app.executor_image_uri, path_of(app, "executor_image_uri")))
    images += [(p.override.image_uri, path_of(p, "image") if "image" in p.at else path_of(p))
               for p in job.pools if p.override and p.override.image_uri]
    return [(image, where) for image, where in images if image]


def prebuilt_name(image: str) -> str | None:
    """``tf-cpu.2-17.py310`` for a prebuilt training container's URI, None for any other image."""
    m = _PREBUILT.match(image)
    return m.group("name") if m else None


def _date(text: str | None) -> dt.date | None:
    return dt.date.fromisoformat(text) if text else None


def _version(rec: dict[str, Any]) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", str(rec.get("version", ""))))


def successor(containers: dict[str, Any], name: str, today: dt.date) -> str | None:
    """The newest container of the same framework and accelerator that Vertex AI still serves today."""
    rec = containers[name]
    served = [
        (_version(other), n) for n, other in containers.items()
        if other.get("framework") == rec.get("framework") and other.get("accelerator") == rec.get("accelerator")
        and (_date(other.get("end_of_availability")) or dt.date.max) >= today  # served through that day
    ]
    return max(served)[1] if served else None


def _check(name: str, where: DocPath, ctx: Context) -> Iterator[Finding]:
    containers: dict[str, Any] = ctx.catalog.runtimes()["prebuilt_training_containers"]
    rec = containers.get(name)
    if rec is None:
        return
    eos, eoa = _date(rec.get("end_of_support")), _date(rec.get("end_of_availability"))
    newer = successor(containers, name, ctx.today)
    unverified = "" if not newer or containers[newer].get("verified", True) else ", unverified: not on the stored page"
    instead = (f"{newer} (us-docker.pkg.dev/vertex-ai/training/{newer}:latest{unverified})" if newer else
               f"a {rec.get('framework')} container the containers page lists as available (the catalog, as of "
               f"{ctx.catalog.as_of()}, lists none still served), or your own image")
    if eoa is not None and eoa < ctx.today:
        yield Finding(
            f"the prebuilt container {name} reached its end of availability on {eoa}: Vertex AI no longer serves it, "
            "so a job that names it does not start",
            where, "container.end_of_availability", SOURCE, allowed=instead,
            # an error only with a fix the containers page itself lists (an unverified successor stays a hint)
            severity=Severity.ERROR if newer and not unverified and ctx.target is Target.VERTEX else Severity.WARNING)
    elif eos is not None and eos < ctx.today:
        yield Finding(
            f"the prebuilt container {name} is past its end of patch and support ({eos}): Vertex AI serves it "
            + (f"until {eoa}, unpatched" if eoa else "unpatched"),
            where, "container.end_of_support", SOURCE, allowed=instead, severity=Severity.WARNING)


@rule
def prebuilt_containers(job: TrainingJob, ctx: Context) -> Iterator[Finding]:
    seen: set[str] = set()
    for image, where in named_images(job):
        name = prebuilt_name(image)
        if name is None or name in seen:
            continue
        seen.add(name)
        yield from _check(name, where, ctx)

