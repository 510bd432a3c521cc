"""What ``trainjobs convert`` writes for a prebuilt training container Vertex AI no longer serves.

A converted spec is a new file meant to run: one that names a prebuilt container past its end of
availability (the containers page's date, catalog ``prebuilt_training_containers``) would not
start. So convert writes, in its place, the newest container of the same framework and
accelerator the catalog lists as still served (validation's ``successor``, the one choice of "the
container to use instead"), on the same Artifact Registry host, and says so in a note that names
what the input wrote and the day it stopped. Where the catalog lists no served container of that
framework and accelerator, the input's image stays and the validation warning says so: convert
never invents an image. The check of named images is validation's (rules/containers.py); this
module only chooses what convert writes.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from provider.core.problem import Problem
from provider.core.record import replace
from provider.spec.model import Container, PythonPackage, TrainingJob, WorkerPool
from provider.validation.rules.containers import named_images, prebuilt_name, successor

_HOST = re.compile(r"^((?:us|europe|asia)-docker\.pkg\.dev)/")


def _current(image: str, containers: dict[str, Any], today: dt.date, notes: list[str]) -> str:
    """``image``, or the served successor of the prebuilt container it names once that is retired."""
    name = prebuilt_name(image)
    rec = containers.get(name) if name else None
    if name is None or not isinstance(rec, dict):
        return image
    end = rec.get("end_of_availability")
    if not end or dt.date.fromisoformat(end) >= today:
        return image
    newer = successor(containers, name, today)
    if newer is None:
        return image  # nothing served to write instead: the validation warning names the image
    host = _HOST.match(image)
    current = f"{host.group(1) if host else 'us-docker.pkg.dev'}/vertex-ai/training/{newer}:latest"
    unverified = "" if containers[newer].get("verified", True) else (
        f" ({newer} is not on the stored containers page: {containers[newer].get('source', 'unverified')})")
    notes.append(f"the input's prebuilt container {name} reached its end of availability on {end} (Vertex AI no "
                 f"longer serves it): the spec runs {newer}, the newest {rec.get('framework')} "
                 f"{rec.get('accelerator')} container the catalog lists as served{unverified}; write your own image "
                 "in its place to choose another")
    return current


def current_images(job: TrainingJob, containers: dict[str, Any], today: dt.date,
                   notes: list[str]) -> TrainingJob:
    """``job`` with every retired prebuilt container it names replaced by its served successor (each said)."""
    app = job.application
    if isinstance(app, PythonPackage) and app.executor_image_uri:
        app = replace(app, executor_image_uri=_current(app.executor_image_uri, containers, today, notes))
    elif isinstance(app, Container) and app.image_uri:
        app = replace(app, image_uri=_current(app.image_uri, containers, today, notes))
    pools: list[WorkerPool] = []
    for pool in job.pools:
        if pool.override is not None and pool.override.image_uri:
            image = _current(pool.override.image_uri, containers, today, notes)
            pool = replace(pool, override=replace(pool.override, image_uri=image))
        pools.append(pool)
    return replace(job, application=app, pools=tuple(pools))


def still_named(job: TrainingJob, problems: list[Problem]) -> list[Problem]:
    """``problems`` less the end-of-availability findings of containers the written spec no longer names."""
    names = {prebuilt_name(image) for image, _ in named_images(job)}
    return [p for p in problems if p.rule != "container.end_of_availability"
            or any(f"the prebuilt container {n} reached" in p.message for n in names if n)]
