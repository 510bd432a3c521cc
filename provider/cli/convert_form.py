"""Which form ``trainjobs convert`` writes a spec in: the native one, or AI Platform's where only it holds the job.

A native spec's ``machineType`` takes the machine types Vertex AI offers for training. AI Platform's scale
tiers and legacy machine names may map to others (STANDARD_1 and ``complex_model_s`` run n1-highcpu-8), which
a ``spec.trainingInput`` spec holds, with a warning where Vertex AI does not offer them (an error for a Vertex
stack). Written natively, such a job would be a spec that ``trainjobs validate`` refuses though its input was
valid; so it is written as the user wrote it, in AI Platform's form, and the same check gives the same answer.
"""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

from provider.catalog import CATALOG
from provider.core.record import replace
from provider.spec.model import Container, PythonPackage, SourceFormat, TrainingJob, WorkerPool

if TYPE_CHECKING:
    from provider.core.problem import Problem
    from provider.validation.validator import SpecResult


def _not_native(pool: WorkerPool) -> bool:
    """A pool whose machine came from a scale tier or a legacy name and is one no native pool takes."""
    if not (pool.scale_tier or pool.legacy_machine_type):
        return False
    machine = CATALOG.machine(pool.machine_type)
    return machine is not None and not machine.vertex_training


def _named(pool: WorkerPool) -> str:
    if pool.legacy_machine_type and pool.legacy_machine_type != pool.machine_type:
        return f"legacy machine type {pool.legacy_machine_type}"
    return f"scale tier {pool.scale_tier}"


def legacy_machines(job: TrainingJob) -> list[str]:
    """Each pool written with an AI Platform legacy machine name: the spec names only what it became."""
    out = []
    for pool in job.pools:
        if pool.legacy_machine_type and pool.legacy_machine_type != pool.machine_type:
            gpus = f" with {pool.accelerator.count} x {pool.accelerator.type}" if pool.accelerator else ""
            out.append(f"the {pool.role.value} pool's legacy machine type {pool.legacy_machine_type} is written as "
                       f"machineType {pool.machine_type}{gpus}, the machine AI Platform gave that name")
    return out


def _images(job: TrainingJob) -> list[str | None]:
    app = job.application
    image = app.image_uri if isinstance(app, Container) else app.executor_image_uri
    return [image, *(p.override.image_uri if p.override else None for p in job.pools)]


def _follow(spec: dict[str, Any], read: TrainingJob, job: TrainingJob) -> None:
    """What convert changed in the job it read (a retired image written as its successor: convert_images.py; local
    paths made relative to where the spec is written), made in the AI Platform form as written."""
    newer = {old: new for old, new in zip(_images(read), _images(job), strict=True) if old and new and old != new}

    def walk(value: Any) -> None:
        items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
        for key, item in list(items):
            if key == "imageUri" and isinstance(item, str) and item in newer:
                value[key] = newer[item]
            walk(item)

    walk(spec)
    app = job.application
    if isinstance(app, PythonPackage) and isinstance(spec.get("packagePath"), str) and app.source_path is not None:
        spec["packagePath"] = app.source_path
    if isinstance(app, PythonPackage) and isinstance(spec.get("packages"), list):  # gcloud --packages: local ones
        local = iter(app.extra_packages)
        spec["packages"] = [p if not isinstance(p, str) or p.startswith("gs://") else next(local, p)
                            for p in spec["packages"]]


def written_form(job: TrainingJob, native: dict[str, Any], data: Any, notes: list[str],
                 read: TrainingJob | None = None) -> dict[str, Any]:
    """``native``, or the AI Platform spec as read where a pool's machine has no native form (a note says why), with
    what convert changed in the job it ``read``."""
    if job.source_format is not SourceFormat.AI_PLATFORM or not isinstance(data, dict):
        return native
    pools = [p for p in job.pools if _not_native(p)]
    spec = data.get("spec")
    if not pools or not isinstance(spec, dict) or "trainingInput" not in spec:
        return native
    causes = list(dict.fromkeys(f"{_named(p)} runs {p.machine_type}" for p in pools))
    notes[:] = [n for n in notes if "is written as machineType" not in n]  # it is not: the spec keeps the name
    notes.append(
        "the spec keeps AI Platform's form (spec.trainingInput), as written: " + "; ".join(causes)
        + ", a machine type a native spec's machineType does not take (Vertex AI does not offer it for training); "
        "for a native spec, use scaleTier CUSTOM with a machine type Vertex AI offers"
    )
    plain = json.loads(json.dumps({"metadata": data.get("metadata"), "spec": spec}))  # without the reader's types
    _follow(plain["spec"], read or job, job)
    return {"apiVersion": native["apiVersion"], "kind": native["kind"], **plain}


def dump(native: dict[str, Any]) -> str:
    """The spec as YAML that the strict reader reads back as written: a string YAML 1.1 reads otherwise (y, n,
    1e-4: PyYAML writes them plain, trainjobs refuses them plain as ambiguous) is quoted."""
    import yaml

    from provider.document.scalars import plain

    class Dumper(yaml.SafeDumper):
        pass

    def text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
        read = plain(value) if value else None
        style = "'" if read is not None and (read[0] != value or read[2] is not None) else None
        if "\x85" in value:  # NEL: a line break to YAML, written raw by PyYAML: escaped, so it stays a character
            style = '"'
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

    Dumper.add_representer(str, text)
    return yaml.dump(native, Dumper=Dumper, sort_keys=False, allow_unicode=True, width=100)


def relocated(job: TrainingJob, old: Path, new: Path) -> TrainingJob:
    """``job`` with its local paths (package, extra packages, build context), written relative to ``old``, made
    relative to ``new``: where the spec is written, so validate, run and packaging read the same files."""
    if os.path.realpath(old) == os.path.realpath(new):
        return job

    def move(path: str) -> str:
        return Path(os.path.relpath(old / path, new)).as_posix()

    app = job.application
    if isinstance(app, PythonPackage) and (app.source_path is not None or app.extra_packages):
        source = move(app.source_path) if app.source_path is not None else None
        return replace(job, application=replace(app, source_path=source,
                                                extra_packages=tuple(move(p) for p in app.extra_packages)))
    if isinstance(app, Container) and app.build is not None:
        return replace(job, application=replace(app, build=replace(app.build, context=move(app.build.context))))
    return job


def dump_json(native: dict[str, Any]) -> str:
    """The spec as JSON that ``trainjobs validate`` reads back as written: a float whose shortest form has an exponent
    and no point (1e-05, which YAML 1.1 reads as a string, so the spec reader refuses it) gets one (1.0e-05)."""
    floats: list[str] = []
    token = uuid.uuid4().hex  # no string of the spec holds it

    def mark(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: mark(v) for k, v in value.items()}
        if isinstance(value, list):
            return [mark(v) for v in value]
        if isinstance(value, float) and "e" in repr(value) and "." not in repr(value):
            mantissa, exponent = repr(value).split("e")
            floats.append(f"{mantissa}.0e{exponent}")
            return f"{token}{len(floats) - 1}{token}"
        return value

    text = json.dumps(mark(native), indent=2)
    for i, number in enumerate(floats):
        text = text.replace(f'"{token}{i}{token}"', number)
    return text + "\n"


def model_notes(job: TrainingJob, problems: list[Problem], result: SpecResult) -> list[str]:
    """The model's notes, each naming its fields as written (as its problem does), less those that became a
    problem (each is shown once, as the problem)."""
    from provider.document.locate import as_written

    reported = {p.message for p in problems}
    said = [as_written(result.data, n.path, n.message, None)[1] for n in job.notes]
    return [text for text in said if text not in reported]


def spec_text(result: SpecResult, job: TrainingJob, problems: list[Problem], native: dict[str, Any], shown: str,
              base: Path, notes: list[str]) -> str:
    """The YAML convert writes: a header (its source, notes and warnings as comments), then the spec."""
    header = [f"# Converted by trainjobs from {shown} ({job.source_format.value} format)."]
    if job.application.__class__.__name__ == "PythonPackage" and getattr(job.application, "source_path", None):
        header.append(f"# Paths are relative to {base.as_posix() or '.'}/, like the original.")
    for text in notes + model_notes(job, problems, result):
        header.append(f"# note: {text}")
    for p in problems:
        header.append(f"# {p.severity.value}: {p.message}")
    return "\n".join(header) + "\n" + dump(native)
