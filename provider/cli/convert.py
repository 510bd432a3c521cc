"""``trainjobs convert FILE``: the native spec for an AI Platform or Vertex AI config."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from provider.cli.convert_request import unwrap
from provider.cli.convert_sources import Output
from provider.core.errors import UserError
from provider.core.exit_code import ExitCode
from provider.core.job_kinds import CUSTOM_JOB
from provider.spec.formats.vertex.keys import (
    CAMEL_MARKER,
    JOB_SPEC,
    SNAKE_MARKER,
    STUDY_MARKER,
    snake,
    spellings,
    written,
)
from provider.validation.report import reporter

if TYPE_CHECKING:
    from provider.core.problem import Problem
    from provider.document.loaded import LoadedDocument
    from provider.spec.model import TrainingJob
    from provider.validation.rules import Context
    from provider.validation.validator import SpecResult

# What marks a file convert reads without an envelope, each by either of its names (keys.py).
_BODY_KEYS = ("trainingInput", *spellings(CAMEL_MARKER), *spellings(STUDY_MARKER))  # studySpec: a tuning job
# Fields only an AI Platform TrainingInput has: a file holding them at its top level forgot trainingInput:.
_TRAINING_INPUT_KEYS = ("scaleTier", "masterType", "masterConfig", "workerType", "workerConfig", "packageUris",
                        "pythonModule", "runtimeVersion", "pythonVersion", "hyperparameters")

# The convert options a spec or config FILE takes of those that go only with some inputs (convert_sources).
_TAKES = ("name", "region", "module_name", "package_path", "job_dir")

# Fields `gcloud ... describe` prints that the service sets: read past, with a note (by either name: a
# CustomJob's to_dict() writes create_time). jobPosition: an AI Platform Job's place in the queue (output only).
OUTPUT_ONLY = ("name", "state", "createTime", "startTime", "endTime", "updateTime", "trainingOutput", "etag",
               "errorMessage", "error", "webAccessUris", "predictionOutput", "satisfiesPzs", "satisfiesPzi", "jobPosition")


def _strip_output_only(data: dict[str, Any], notes: list[str]) -> None:
    """A describe output: keep what the job asked for; take the region from a Vertex name."""
    job_spec = written(data, JOB_SPEC)
    if job_spec is None and "trainingInput" not in data:
        return
    name = data.get("name")
    if isinstance(name, str) and job_spec is not None:
        m = re.match(rf"^projects/[^/]+/locations/([^/]+)/{CUSTOM_JOB.collection}/", name)
        if m and isinstance(data[job_spec], dict) and "region" not in data[job_spec]:
            data[job_spec]["region"] = m.group(1)
    for field in OUTPUT_ONLY:
        for key in spellings(field):
            if key in data:
                del data[key]
                notes.append(f"{key} is set by the service (output only): ignored")


def _envelope(doc: LoadedDocument, path: Path, args: argparse.Namespace, notes: list[str]) -> dict[str, Any]:
    """Wrap a bare config.yaml / CustomJobSpec in the TrainingJob envelope.

    The gcloud flags that a config.yaml relies on (--region, --module-name, --package-path,
    --job-dir) can be given to convert, and win over the config, as they do with gcloud.
    """
    data: dict[str, Any] = doc.data
    if "apiVersion" in data or "kind" in data:
        return data
    job_spec = _job_spec(doc, path)
    if not any(k in data for k in _BODY_KEYS) and job_spec is None:
        bare = [k for k in _TRAINING_INPUT_KEYS if k in data]
        if written(data, "predictionInput") is not None:  # an Airflow MLEngineStartBatchPredictionJobOperator's Job
            raise UserError(f"{path}: an AI Platform batch prediction job (predictionInput), not a training job: "
                            "convert reads a Job's trainingInput (Vertex AI runs batch prediction as batchPredictionJobs)")
        if bare:
            raise UserError(
                f"{path}: not a spec and not a config: its top level holds {', '.join(bare)}, fields of an AI Platform "
                "TrainingInput, without the trainingInput: key a Job (gcloud's --config) nests them under (gcloud "
                "reads them as unknown fields of the Job and drops them): write them under trainingInput:"
            )
        raise UserError(
            f"{path}: not a spec and not a config: expected a TrainingJob envelope, a config.yaml with trainingInput, "
            "a Vertex AI CustomJob with jobSpec (job_spec), a CustomJobSpec with workerPoolSpecs (worker_pool_specs), "
            "a HyperparameterTuningJob with studySpec (study_spec), or a create request {parent, customJob} "
            "({parent, hyperparameterTuningJob})"
        )
    # Keep the original mapping (not a copy) so problems still point at its lines.
    spec = data[job_spec] if job_spec is not None else data
    _apply_flags(spec, args, path.parent)
    if job_spec is not None:
        _spec_fields_beside(doc, path, job_spec)
        _custom_job_fields(doc, job_spec, spec, notes)
    return {"apiVersion": "trainjobs/v1", "kind": "TrainingJob", "metadata": {"name": _job_name(data, path, args, notes)},
            "spec": spec}


def _at(doc: LoadedDocument, path: Path, key: str) -> str:
    """``path:line:column`` of ``key`` in the document's top level (``path`` where it has no position)."""
    pos = doc.key_positions.get(id(doc.data), {}).get(key)
    return f"{path}:{pos[0]}:{pos[1]}" if pos else str(path)


def _job_spec(doc: LoadedDocument, path: Path) -> str | None:
    """The name a CustomJob gives its jobSpec; one job with two is refused (which one would run?)."""
    if all(key in doc.data for key in spellings(JOB_SPEC)):
        raise UserError(f"{_at(doc, path, snake(JOB_SPEC))}: jobSpec is written twice in this CustomJob: as jobSpec "
                        "and as job_spec, its proto name; the REST API reads both as the one field, so trainjobs "
                        "refuses to guess: keep jobSpec (the REST API's JSON name), remove job_spec")
    return written(doc.data, JOB_SPEC)


def _ai_platform_job(doc: LoadedDocument, path: Path) -> None:
    """An AI Platform Job written with proto names (``training_input``, ``job_id``: a ``projects.jobs.create``
    body by protobuf's other name, which ml.googleapis.com reads as it reads the JSON name): its markers get
    their JSON names, in place and keeping their lines; the fields inside are read by either name by the
    legacy format's own reading (provider/spec/formats/legacy/proto_names.py)."""
    data = doc.data
    if written(data, "trainingInput") is None:
        return
    for camel in ("trainingInput", "jobId"):
        if all(key in data for key in spellings(camel)):
            raise UserError(f"{_at(doc, path, snake(camel))}: {camel} is written twice in this Job: as {camel} and as {snake(camel)}, its proto "
                            f"name; the REST API reads both as the one field, so trainjobs refuses to guess: keep {camel} "
                            f"(the REST API's JSON name), remove {snake(camel)}")
        if snake(camel) in data:
            data[camel] = data.pop(snake(camel))
            for positions in (doc.key_positions, doc.value_positions):
                at = positions.get(id(data), {})
                if snake(camel) in at:
                    at[camel] = at.pop(snake(camel))


def _read_message(doc: LoadedDocument, path: Path, notes: list[str]) -> None:
    """A CustomJob or HyperparameterTuningJob body read as Google's reader of its spelling reads it, in place.

    Marked by its proto name (``job_spec``, ``study_spec``: ``CustomJob.to_dict()``, ``MessageToDict(...,
    preserving_proto_field_name=True)``), it is for the REST API or proto-plus, never gcloud's apitools:
    its defaults are unset and its enum numbers the proto's (rest_body.py). A camelCase body keeps its
    defaults as written, as gcloud sends them. A CustomJob's jobSpec is a REST body, not the SDK's worker
    pool dicts: written with proto names, it is given its marker's JSON name, so the spec reader walks it
    as a REST body (any mix of names: proto_names.py) and it reads as its camelCase twin.
    """
    data = doc.data
    job_spec = _job_spec(doc, path)
    marker = job_spec or written(data, STUDY_MARKER)
    if marker is None:
        return
    if marker not in (JOB_SPEC, STUDY_MARKER):
        from provider.spec.formats.vertex.rest_body import read_message

        read_message(data, "CustomJob" if job_spec is not None else "HyperparameterTuningJob", notes)
    body = data.get(job_spec) if job_spec is not None else None
    if isinstance(body, dict) and SNAKE_MARKER in body and CAMEL_MARKER not in body:
        body[CAMEL_MARKER] = body.pop(SNAKE_MARKER)
        for positions in (doc.key_positions, doc.value_positions):  # problems under it still find their line
            at = positions.get(id(body), {})
            if SNAKE_MARKER in at:
                at[CAMEL_MARKER] = at.pop(SNAKE_MARKER)


def _custom_job_fields(doc: LoadedDocument, job_spec: str, spec: dict[str, Any], notes: list[str]) -> None:
    """A CustomJob body's own fields beside its jobSpec: each goes into the spec, so none is dropped in silence.

    ``encryptionSpec: {kmsKeyName: KEY}`` is the spec's ``kmsKey`` (gcloud --kms-key); any other field
    stands in the spec as written, where the schema names what it does not know (``experimentConfig``...);
    one written by both its names is refused there, by name (proto_names.py), at its own line.
    """
    data = doc.data
    for key, value in data.items():
        if key == job_spec:
            continue
        kms = written(value, "kmsKeyName") if key in spellings("encryptionSpec") and isinstance(value, dict) else None
        if kms is not None and len(value) == 1 and "kmsKey" not in spec:
            spec["kmsKey"] = value[kms]
            notes.append(f"{key}.{kms} is the spec's kmsKey")
            continue
        if key in spec and spec[key] != value:
            notes.append(f"{key} is given beside {job_spec} and in it: the CustomJob's own {key} is kept")
        spec[key] = value
        for positions in (doc.key_positions, doc.value_positions):
            if key in positions.get(id(data), {}):
                positions.setdefault(id(spec), {})[key] = positions[id(data)][key]


def _spec_fields_beside(doc: LoadedDocument, path: Path, job_spec: str) -> None:
    """A CustomJobSpec field (serviceAccount, network, scheduling...) written beside a CustomJob's jobSpec is refused
    at its line: the CustomJob message has no such field, so the REST API refuses the body ("Unknown name"), and
    reading it as the jobSpec's would run a job the body does not describe."""
    from provider.spec.formats.vertex.proto_names import messages

    own = {k for field in messages()["CustomJob"] for k in spellings(field)}
    inner = {k: field for field in messages()["CustomJobSpec"] for k in spellings(field)}
    for key in doc.data:
        if key not in own and key in inner:
            raise UserError(
                f"{_at(doc, path, key)}: {key} is a field of the CustomJobSpec, written beside {job_spec}: a CustomJob "
                f"has no {key} (the REST API refuses the body: Unknown name \"{key}\"), and gcloud's --config takes "
                f"the jobSpec alone; write it under {job_spec} (as {job_spec}.{inner[key]}); allowed beside {job_spec}: "
                "displayName, labels, encryptionSpec")


def _job_name(data: dict[str, Any], path: Path, args: argparse.Namespace, notes: list[str]) -> str:
    """--name, else the job id (AI Platform) or the display name (Vertex AI), else the file's name."""
    vertex = written(data, JOB_SPEC) or written(data, STUDY_MARKER)
    display_key = written(data, "displayName")
    display = data.get(display_key) if vertex and display_key else None
    if not args.name and not data.get("jobId") and isinstance(display, str) and display:
        from provider.gcloud.build import job_name as valid_name

        return valid_name(display, notes)  # Vertex AI: the name comes from the display name
    job_name = args.name or data.get("jobId") or re.sub(r"[^A-Za-z0-9_]", "_", path.stem)
    return job_name if job_name[:1].isalpha() else "job_" + job_name


def _apply_flags(spec: dict[str, Any], args: argparse.Namespace, folder: Path) -> None:
    """The gcloud flags convert takes for a bare config; each wins over the config, as with gcloud (--package-path
    from where convert runs, as gcloud reads it, made relative to the config's ``folder``)."""
    package = os.path.relpath(Path.cwd() / args.package_path, folder) if args.package_path is not None else None
    flags = {"region": args.region, "moduleName": args.module_name, "packagePath": package, "jobDir": args.job_dir}
    for key, value in flags.items():
        if value is not None:
            spec[key] = value


def run(args: argparse.Namespace) -> int:
    if getattr(args, "gcloud", None) is not None:
        if args.file is not None:
            raise UserError("give either FILE or --gcloud COMMAND, not both", exit_code=ExitCode.USAGE)
        from provider.cli.convert_gcloud import COMMAND_TAKES, run_gcloud
        from provider.cli.convert_sources import refuse_options

        refuse_options(args, COMMAND_TAKES)
        return run_gcloud(args)
    if args.file is None:
        raise UserError("nothing to convert: give FILE (a spec, a config.yaml, a describe output) "
                        "or --gcloud \"gcloud ai-platform jobs submit training ...\"", exit_code=ExitCode.USAGE)
    from provider.cli.convert_pools import pools_document
    from provider.cli.convert_sources import read_input, reader, refuse_options
    from provider.document import read_mapping
    from provider.document.json_numbers import as_json

    path, shown, raw = read_input(args.file)
    if (read := reader(path, raw, args)) is not None:  # a notebook, a script, Python: not a mapping
        return read(raw, shown, path, args)
    notes: list[str] = []
    doc, problems = read_mapping(raw, shown, "a spec or a config mapping")
    if doc is None and (pools := pools_document(raw, shown, notes)) is not None:  # worker_pool_specs=[...] alone
        doc, problems = pools, list(pools.problems)
    if doc is not None and _a_config(doc.data):  # gcloud's --config file: read as gcloud reads it, like --config
        from provider.gcloud.config_doc import as_gcloud_reads

        problems, readings = as_gcloud_reads(doc, raw, shown)
        notes += readings
    if doc is not None:
        problems = as_json(raw, doc.data, problems)
    if doc is None or any(p.is_error for p in problems):
        reporter("text", sys.stderr).report(problems, 1, 1, sys.stderr)
        return 1
    from provider.cli.convert_gcloud import run_cloud_build

    if (code := run_cloud_build(doc.data, shown, args)) is not None:  # a cloudbuild.yaml's or workflow's training step
        return code
    refuse_options(args, _TAKES)
    return convert_mapping(doc, shown, path, args, notes)


def _a_config(data: Any) -> bool:
    """A job's configuration as gcloud's --config holds it (not a spec, a workflow or a Cloud Build file)."""
    return isinstance(data, dict) and "apiVersion" not in data and "kind" not in data and \
        any(k in data for k in (*_BODY_KEYS, "jobSpec", "job_spec", "trialJobSpec", "trial_job_spec"))


def convert_mapping(doc: LoadedDocument, shown: str, path: Path, args: argparse.Namespace, notes: list[str]) -> int:
    """A mapping convert reads (a spec, a config, a job body, a create request, as a file or as a Python
    client call gives it: provider/pysdk/gapic.py), checked and emitted; the exit code."""
    from provider.validation.validator import check_document

    if "apiVersion" not in doc.data and "kind" not in unwrap(doc, path, notes).data:  # a create request: its job
        _ai_platform_job(doc, path)
        _strip_output_only(doc.data, notes)  # first: an output-only enum (state: 4) needs no name
        _read_message(doc, path, notes)
    data = _envelope(doc, path, args, notes)
    doc.data = data  # positions of the original keys still resolve inside the envelope
    result = check_document(data, shown, _context(), doc)
    base = Path(args.write).resolve().parent if getattr(args, "write", None) else path.parent
    if result.job is not None:  # --write elsewhere: the spec's local paths, relative to where it is written
        from provider.cli.convert_form import relocated
        result.job = relocated(result.job, path.parent, base)
    return emit(result, shown, base, args, notes)


def emit(result: SpecResult, shown: str, base: Path, args: argparse.Namespace, notes: list[str]) -> int:
    """Print (or --write) the converted spec, its request, or the problems; the exit code."""
    job, problems, native = converted(result, notes, request=args.output == "request")
    if native is None or job is None:
        for note in notes:
            print(f"{shown}: note: {note}", file=sys.stderr)
        reporter("text", sys.stderr).report(problems, 1, 1, sys.stderr)
        return 1
    out = Output(getattr(args, "write", None))
    from provider.cli.convert_form import dump_json, model_notes, spec_text
    if args.output in ("request", "json"):  # JSON holds no comments: notes and warnings go to stderr
        _say(shown, notes + model_notes(job, problems, result), problems)
    if args.output == "request":
        from provider.packaging import package_uris
        from provider.submission.request import build_request
        uris = package_uris(job, base) or None
        req = build_request(job, "PROJECT", package_uris=uris)
        return out.write(json.dumps({"kind": req.kind, "parent": req.parent, "body": req.body}, indent=2) + "\n")
    if args.output == "json":
        return out.write(dump_json(native))
    return out.write(spec_text(result, job, problems, native, shown, base, notes))


def converted(result: SpecResult, notes: list[str], request: bool = False
              ) -> tuple[TrainingJob | None, list[Problem], dict[str, Any] | None]:
    """The job convert builds (a retired image as its successor), its problems, and the spec it writes (None: none)."""
    from provider.cli.convert_form import legacy_machines, written_form
    from provider.cli.convert_images import current_images, request_needs_image, still_named
    from provider.submission.emit import to_native

    job, problems = result.job, result.problems
    if job is not None:  # a retired prebuilt container is written as its served successor (convert_images.py)
        job = current_images(job, _containers(), _today(), notes)
        notes += legacy_machines(job)
        notes[:] = list(dict.fromkeys(notes))  # one image named by the job and a pool: said once
        problems = still_named(job, problems)
    if request:
        problems = request_needs_image(problems)
    if job is None or any(p.is_error for p in problems):
        return job, problems, None  # {} for --output request: the request is built from the job
    return job, problems, ({} if request else written_form(job, to_native(job), result.data, notes, result.job))


def _say(shown: str, notes: list[str], problems: list[Problem]) -> None:
    """The notes and the warnings of a conversion that succeeded, on stderr (its stdout is the JSON)."""
    for note in notes:
        print(f"{shown}: note: {note}", file=sys.stderr)
    if problems:
        reporter("text", sys.stderr).report(problems, 1, 0, sys.stderr)  # warnings only: the file converted


def _runtimes() -> dict[str, Any]:
    from provider.catalog import CATALOG

    return CATALOG.runtimes()


def _containers() -> dict[str, Any]:
    containers: dict[str, Any] = _runtimes()["prebuilt_training_containers"]
    return containers


def _today() -> dt.date:
    return dt.date.today()


def _context() -> Context:
    from provider.validation.rules import Context

    return Context()
