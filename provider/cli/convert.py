"""``trainjobs convert FILE``: the native spec for an AI Platform or Vertex AI config."""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

from provider.errors import UserError
from provider.validation.report import reporter

_BODY_KEYS = ("trainingInput", "workerPoolSpecs", "worker_pool_specs")


def _envelope(data: dict[str, Any], path: Path, args: argparse.Namespace) -> dict[str, Any]:
    """Wrap a bare config.yaml / CustomJobSpec in the TrainingJob envelope.

    The gcloud flags that a config.yaml relies on (--region, --module-name, --package-path,
    --job-dir) can be given to convert, and win over the config, as they do with gcloud.
    """
    if "apiVersion" in data or "kind" in data:
        return data
    if not any(k in data for k in _BODY_KEYS) and "jobSpec" not in data:
        raise UserError(
            f"{path}: not a spec and not a config: expected a TrainingJob envelope, a config.yaml with trainingInput, "
            "or a Vertex AI CustomJobSpec with workerPoolSpecs"
        )
    # Keep the original mapping (not a copy) so problems still point at its lines.
    spec = data["jobSpec"] if "jobSpec" in data else data
    job_name = args.name or data.get("jobId") or re.sub(r"[^A-Za-z0-9_]", "_", path.stem)
    if not job_name[:1].isalpha():
        job_name = "job_" + job_name
    flags = {"region": args.region, "moduleName": args.module_name, "packagePath": args.package_path,
             "jobDir": args.job_dir}
    for key, value in flags.items():
        if value is not None:
            spec[key] = value
    for key in ("displayName", "labels"):
        if key in data and "jobSpec" in data:
            spec[key] = data[key]
    return {"apiVersion": "trainjobs/v1", "kind": "TrainingJob", "metadata": {"name": job_name}, "spec": spec}


def run(args: argparse.Namespace) -> int:
    from provider.document import read_mapping
    from provider.spec.emit import to_native
    from provider.validation.validator import check_document, display_name, read_file

    path = Path(args.file)
    shown = display_name(path)
    raw, problem = read_file(path, shown)
    if problem is not None:
        raise UserError(f"{problem.where}: {problem.message}", exit_code=1)
    assert raw is not None
    doc, problems = read_mapping(raw, shown, "a spec or a config mapping")
    if doc is None or any(p.is_error for p in problems):
        reporter("text", sys.stderr).report(problems, 1, 1, sys.stderr)
        return 1
    data = _envelope(doc.data, path, args)
    doc.data = data  # positions of the original keys still resolve inside the envelope
    result = check_document(data, shown, _context(), doc)
    errors = [p for p in result.problems if p.is_error]
    if errors or result.job is None:
        reporter("text", sys.stderr).report(result.problems, 1, 1, sys.stderr)
        return 1
    job = result.job
    if args.output == "request":
        from provider.packaging import package_uris
        from provider.request import build_request

        uris = package_uris(job, path.parent) or None
        req = build_request(job, "PROJECT", package_uris=uris)
        print(json.dumps({"kind": req.kind, "parent": req.parent, "body": req.body}, indent=2))
        return 0
    native = to_native(job)
    if args.output == "json":
        print(json.dumps(native, indent=2))
        return 0
    import yaml

    header = [f"# Converted by trainjobs from {shown} ({job.source_format.value} format)."]
    if job.application.__class__.__name__ == "PythonPackage" and getattr(job.application, "source_path", None):
        header.append(f"# Paths are relative to {path.parent.as_posix() or '.'}/, like the original.")
    for note in job.notes:
        header.append(f"# note: {note.message}")
    for p in result.problems:
        header.append(f"# {p.severity.value}: {p.message}")
    print("\n".join(header))
    print(yaml.safe_dump(native, sort_keys=False, allow_unicode=True, width=100), end="")
    return 0


def _context():  # type: ignore[no-untyped-def]
    from provider.validation.rules import Context

    return Context()
