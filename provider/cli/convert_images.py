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

An AI Platform ``runtimeVersion`` names no image but runs one (catalog containers.py
``implied_container``: the CPU build for pools without GPUs, the GPU build for pools with them).
Where that container is retired and every pool's has a served successor, convert writes the
successors as the executor image (the chief's; a pool whose build differs gets its own ``image``)
instead of the runtime, and a note names the runtime and Python the input wrote, the container
they ran, the day it stopped and the Python the new image runs. Where any pool's has none, the
runtime stays and validation's warning names it (``runtime.end_of_availability``).
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from provider.core.problem import Problem, Severity
from provider.core.record import replace
from provider.spec.model import Container, PoolOverride, PythonPackage, Role, TrainingJob, WorkerPool
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


def _retired(name: str | None, containers: dict[str, Any], today: dt.date) -> str | None:
    """The end of availability of ``name`` where it has passed, else None."""
    rec = containers.get(name) if name else None
    end = rec.get("end_of_availability") if isinstance(rec, dict) else None
    return str(end) if end and dt.date.fromisoformat(str(end)) < today else None


def _runtime_successors(job: TrainingJob, app: PythonPackage, containers: dict[str, Any],
                        today: dt.date) -> dict[Role, tuple[str, str]] | None:
    """Each runtime pool's (retired container, served successor), or None: a pool's container is
    still served, none is mapped, or one has no served successor."""
    from provider.catalog import CATALOG

    out: dict[Role, tuple[str, str]] = {}
    for pool in job.pools:
        if pool.override is not None and pool.override.image_uri:
            continue  # the pool's own image runs, not the runtime's
        name = CATALOG.implied_container(app.runtime_version or "", app.python_version, pool.gpus > 0)
        newer = successor(containers, name, today) if name and _retired(name, containers, today) else None
        if name is None or newer is None:
            return None
        out[pool.role] = (name, newer)
    return out or None


def _runtime_images(job: TrainingJob, app: PythonPackage, containers: dict[str, Any], today: dt.date,
                    notes: list[str]) -> TrainingJob:
    """``job`` running the served successors of the retired containers its runtimeVersion runs, where
    every pool's has one; else ``job`` as it is (the runtime stays, validation warns by name)."""
    from provider.submission.request import image_host

    pairs = _runtime_successors(job, app, containers, today)
    if pairs is None:
        return job
    host = image_host(job.region)
    image = {role: f"{host}/vertex-ai/training/{newer}:latest" for role, (_, newer) in pairs.items()}
    chief = image.get(job.chief.role) or next(iter(image.values()))
    pools = tuple(replace(p, override=replace(p.override or PoolOverride(), image_uri=image[p.role]))
                  if image.get(p.role, chief) != chief else p for p in job.pools)
    uses = {old: (newer, "its executorImage" if image[role] == chief else "the image of the pools that ran it")
            for role, (old, newer) in pairs.items()}
    notes += _runtime_notes(app, uses, containers, today)
    app = replace(app, executor_image_uri=chief, runtime_version=None, python_version=None)
    return replace(job, application=app, pools=pools)


def _runtime_notes(app: PythonPackage, newer: dict[str, tuple[str, str]], containers: dict[str, Any],
                   today: dt.date) -> list[str]:
    """One note per retired container the runtime ran: what the input wrote, the day, what runs now."""
    python = app.python_version
    written = f"runtimeVersion {app.runtime_version!r}" + (f" with pythonVersion {python!r}" if python else "")
    out = []
    for old, (name, use) in sorted(newer.items()):
        rec, new = containers[old], containers[name]
        unverified = "" if new.get("verified", True) else (
            f"; {name} is not on the stored containers page: {new.get('source', 'unverified')}")
        out.append(f"the input's {written} runs the prebuilt container {old} on Vertex AI, which reached its end "
                   f"of availability on {_retired(old, containers, today)} (Vertex AI no longer serves it): the spec "
                   f"runs {name} instead, as {use} (Python {new.get('python')}, where {old} ran "
                   f"Python {rec.get('python')}), the newest {rec.get('framework')} {rec.get('accelerator')} "
                   f"container the catalog lists as served{unverified}; runtimeVersion and pythonVersion are not "
                   "written (Vertex AI runs the image); write your own image to choose another")
    return out


def current_images(job: TrainingJob, containers: dict[str, Any], today: dt.date,
                   notes: list[str]) -> TrainingJob:
    """``job`` with every retired prebuilt container it names or its runtime runs replaced by its served
    successor (each said)."""
    app = job.application
    if isinstance(app, PythonPackage) and not app.executor_image_uri and app.runtime_version:
        job = _runtime_images(job, app, containers, today, notes)
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
    app = job.application
    runtime = isinstance(app, PythonPackage) and bool(app.runtime_version)
    return [p for p in problems
            if (runtime or not p.rule.startswith("runtime.end_of_"))  # the runtime is no longer written
            and (p.rule != "container.end_of_availability"
                 or any(f"the prebuilt container {n} reached" in p.message for n in names if n))]


def request_needs_image(problems: list[Problem]) -> list[Problem]:
    """``problems`` for ``--output request``: where the runtime runs no Vertex AI prebuilt container
    (``runtime.container``: runtime 1.14, or Python 2.7), the request has no executorImageUri, a field
    Vertex AI requires, so the finding that says so refuses the request (a spec keeps it as a warning:
    it still runs on the local backend). Convert never invents an image."""
    return [p.at(severity=Severity.ERROR, message=f"{p.message}: the request would have no executorImageUri, "
                 "which Vertex AI requires") if p.rule == "runtime.container" else p for p in problems]
