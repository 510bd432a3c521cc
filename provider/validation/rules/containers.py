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

A legacy spec's ``runtimeVersion`` names no image, but runs one: the container the catalog maps it
to (provider/catalog/containers.py, the one home the request asks too). It is judged by the same
dates and the same condition as a named image (the request names it, and the emulator judges the
request as validation judges a named image: one verdict from every entry point), and named as the
user wrote it (the runtime, the Python), then the container it runs and its served successor.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from typing import Any

from provider.core.problem import Severity
from provider.spec.model import Container, DocPath, PythonPackage, TrainingJob, path_of
from provider.validation.rules.base import Context, Finding, Target, join, rule

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


def _served_order(containers: dict[str, Any]) -> dict[tuple[Any, Any], list[tuple[dt.date, str]]]:
    """Each (framework, accelerator)'s containers, newest first, with the last day each is served.

    Built once per containers table (the catalog's is loaded once and never changed) rather than
    per image of every spec: a stack of 1,000 specs asked for it 2,000 times. The table is held
    beside its index, so an ``is`` match can never be another table at a reused id."""
    held = _ORDERS.get(id(containers))
    if held is not None and held[0] is containers:
        return held[1]
    order: dict[tuple[Any, Any], list[tuple[tuple[int, ...], str, dt.date]]] = {}
    for n, rec in containers.items():
        order.setdefault((rec.get("framework"), rec.get("accelerator")), []).append(
            (_version(rec), n, _date(rec.get("end_of_availability")) or dt.date.max))
    index = {key: [(end, n) for _, n, end in sorted(recs, reverse=True)] for key, recs in order.items()}
    if len(_ORDERS) >= 8:  # tests build tables of their own; the provider's process has one
        _ORDERS.clear()
    _ORDERS[id(containers)] = (containers, index)
    return index


_ORDERS: dict[int, tuple[dict[str, Any], dict[tuple[Any, Any], list[tuple[dt.date, str]]]]] = {}


def successor(containers: dict[str, Any], name: str, today: dt.date) -> str | None:
    """The newest container of the same framework and accelerator that Vertex AI still serves today."""
    rec = containers[name]
    group = _served_order(containers)[(rec.get("framework"), rec.get("accelerator"))]
    return next((n for end, n in group if end >= today), None)  # served through that day


def _instead(containers: dict[str, Any], name: str, ctx: Context, newer: str | None) -> str:
    """The container to run instead of ``name``: its served successor ``newer``, or what to look for."""
    if newer:
        unverified = "" if containers[newer].get("verified", True) else ", unverified: not on the stored page"
        return f"{newer} (us-docker.pkg.dev/vertex-ai/training/{newer}:latest{unverified})"
    return (f"a {containers[name].get('framework')} container the containers page lists as available (the catalog, "
            f"as of {ctx.catalog.as_of()}, lists none still served), or your own image")


def judge(name: str, where: DocPath, ctx: Context, said: str = "", kind: str = "container",
          file: str | None = None, line: int | None = None) -> Iterator[Finding]:
    """The one verdict on a prebuilt container the user names: ``said`` leads with how (a Dockerfile's
    FROM), ``kind`` prefixes the rule, ``file`` and ``line`` place it in a file the spec names."""
    containers: dict[str, Any] = ctx.catalog.runtimes()["prebuilt_training_containers"]
    rec = containers.get(name)
    if rec is None:
        return
    eos, eoa = _date(rec.get("end_of_support")), _date(rec.get("end_of_availability"))
    newer = successor(containers, name, ctx.today)
    unverified = "" if not newer or containers[newer].get("verified", True) else ", unverified: not on the stored page"
    instead = _instead(containers, name, ctx, newer)
    if eoa is not None and eoa < ctx.today:
        yield Finding(
            f"{said}the prebuilt container {name} reached its end of availability on {eoa}: Vertex AI no longer "
            "serves it, so a job that names it does not start",
            where, f"{kind}.end_of_availability", SOURCE, allowed=instead, file=file, line=line,
            # an error only with a fix the containers page itself lists (an unverified successor stays a hint)
            severity=Severity.ERROR if newer and not unverified and ctx.target is Target.VERTEX else Severity.WARNING)
    elif eos is not None and eos < ctx.today:
        yield Finding(
            f"{said}the prebuilt container {name} is past its end of patch and support ({eos}): Vertex AI serves it "
            + (f"until {eoa}, unpatched" if eoa else "unpatched"),
            where, f"{kind}.end_of_support", SOURCE, allowed=instead, severity=Severity.WARNING, file=file, line=line)


def _package_builds(job: TrainingJob, app: PythonPackage, ctx: Context) -> dict[str | None, list[str]]:
    """The container each package pool runs by the runtime (None: none is mapped), with the pools' names."""
    runtime = app.runtime_version or ""
    builds: dict[str | None, list[str]] = {}
    for pool in job.pools:
        if pool.override is None or not pool.override.image_uri:  # a pool's own image runs instead
            name = ctx.catalog.implied_container(runtime, app.python_version, pool.gpus > 0)
            kind = "pools with GPUs" if pool.gpus else "pools without GPUs"
            if kind not in builds.setdefault(name, []):
                builds[name].append(kind)
    return builds


def _written(app: PythonPackage) -> str:
    python = f" with pythonVersion {app.python_version!r}" if app.python_version else ""
    return f"runtimeVersion {app.runtime_version!r}{python}"


_RUNTIME_SOURCE = SOURCE + "; runtime_to_container (runtime X.Y runs tf-cpu.X-Y / tf-gpu.X-Y, by name: unverified)"


@rule
def runtime_container(job: TrainingJob, ctx: Context) -> Iterator[Finding]:
    """The container a legacy spec's runtimeVersion runs on Vertex AI (catalog containers.py) is judged by
    the containers page's dates, as a named one is: what the user wrote is named, then what it runs."""
    app = job.application
    if not isinstance(app, PythonPackage) or app.executor_image_uri or not app.runtime_version:
        return
    runtimes = ctx.catalog.runtimes()
    for name, pools in sorted(_package_builds(job, app, ctx).items(), key=lambda kv: kv[0] or ""):
        if name is None:
            yield from _no_container(app, runtimes, ctx)
        else:
            yield from _runtime_dates(app, name, pools, ctx)


def _no_container(app: PythonPackage, runtimes: dict[str, Any], ctx: Context) -> Iterator[Finding]:
    """A mapped runtime with a Python its container does not run (2.7 with 1.15), offered by AI Platform."""
    runtime, python = app.runtime_version or "", app.python_version
    mapped = runtimes["runtime_to_container"]["map"].get(runtime)
    if mapped and python and offered_python(runtime, python, runtimes):
        yield Finding(
            f"{_written(app)} has no Vertex AI prebuilt training container: {mapped.get('cpu')}, the "
            f"container of runtime {runtime}, runs Python {mapped.get('python')}",
            path_of(app, "python_version"), "runtime.container", _RUNTIME_SOURCE,
            allowed=f"pythonVersion {mapped.get('python')!r}, or an executorImage that runs your Python",
            severity=ctx.offering_severity)


def _runtime_dates(app: PythonPackage, name: str, pools: list[str], ctx: Context) -> Iterator[Finding]:
    containers: dict[str, Any] = ctx.catalog.runtimes()["prebuilt_training_containers"]
    rec = containers.get(name) or {}
    eos, eoa = _date(rec.get("end_of_support")), _date(rec.get("end_of_availability"))
    runs = f"{_written(app)} runs the prebuilt container {name} on Vertex AI ({join(pools, 'and')})"
    newer = successor(containers, name, ctx.today)
    instead = "executorImage: " + _instead(containers, name, ctx, newer)
    where = path_of(app, "runtime_version")
    if eoa is not None and eoa < ctx.today:
        served = (f"its served successor is {newer}" if newer else
                  f"the catalog, as of {ctx.catalog.as_of()}, lists no {rec.get('framework')} {rec.get('accelerator')} "
                  "container still served")
        # judged as the request's executorImageUri is judged once sent (the emulator checks the request
        # with judge): an error in a vertex stack only with a served successor the page itself lists
        verified = bool(newer) and bool(containers[newer or ""].get("verified", True))
        yield Finding(f"{runs}, which reached its end of availability on {eoa}: Vertex AI no longer serves it, "
                      f"so the job does not start ({served})", where, "runtime.end_of_availability", _RUNTIME_SOURCE,
                      allowed=instead, severity=Severity.ERROR if verified and ctx.target is Target.VERTEX
                      else Severity.WARNING)
    elif eos is not None and eos < ctx.today:
        yield Finding(f"{runs}, past its end of patch and support ({eos}): Vertex AI serves it "
                      + (f"until {eoa}, unpatched" if eoa else "unpatched"), where, "runtime.end_of_support",
                      _RUNTIME_SOURCE, allowed=instead, severity=Severity.WARNING)


def offered_python(runtime: str, python: str, runtimes: dict[str, Any]) -> bool:
    """Whether AI Platform offered ``python`` with ``runtime`` (the catalog's ``python_versions`` spans)."""
    span = runtimes["python_versions"].get(python)
    if span is None:
        return False
    lo, hi = span.get("min_runtime"), span.get("max_runtime")
    return not (lo and _runtime_key(runtime) < _runtime_key(lo)) and not (hi and _runtime_key(runtime) > _runtime_key(hi))


def _runtime_key(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(x) for x in text.split("."))
    except ValueError:
        return (0,)


@rule
def prebuilt_containers(job: TrainingJob, ctx: Context) -> Iterator[Finding]:
    seen: set[str] = set()
    for image, where in named_images(job):
        name = prebuilt_name(image)
        if name is None or name in seen:
            continue
        seen.add(name)
        yield from judge(name, where, ctx)



@rule
def builtin_algorithm_images(job: TrainingJob, ctx: Context) -> Iterator[Finding]:
    """An AI Platform built-in algorithm image (gcr.io/cloud-ml-algos/...): AI Platform ran its algorithm;
    whether Vertex AI runs the image is what the catalog records, with its source (unverified when no
    Google page says either way), so the warning says which, and what to do."""
    facts: dict[str, Any] = ctx.catalog.runtimes().get("builtin_algorithms") or {}
    prefix = facts.get("prefix")
    if not prefix:
        return
    for image, where in named_images(job):
        if not image.startswith(prefix):
            continue
        name = re.split(r"[:@]", image[len(prefix):], maxsplit=1)[0]
        known = "" if name in facts.get("images", []) else " (an image of that registry the catalog does not list)"
        how = "what the catalog records" if facts.get("verified") else "unverified (no Google page says either way)"
        sources = facts.get("sources") or [""]
        yield Finding(
            f"{image} is an AI Platform Training built-in algorithm image{known}; whether Vertex AI runs it is {how}: "
            f"{facts.get('fact', '')} What to do: {facts.get('todo', '')} (source: {sources[0]})",
            where, "container.builtin_algorithm",
            "tools/catalog/curated/prebuilt_containers.json builtin_algorithms: " + "; ".join(facts.get("sources", [])),
            allowed=str(facts.get("todo", "")), severity=Severity.WARNING)
