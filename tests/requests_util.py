"""Build the Vertex AI request of every example spec, for the golden-file tests."""

from __future__ import annotations

import json
from pathlib import Path

from provider.packaging import package_uris, resolve_source, source_digest
from provider.stack.membership import StackIndex
from provider.submission.request import build_request
from provider.validation.validator import validate_bytes

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = Path(__file__).parent / "golden" / "requests"
DEFAULT_PROJECT = "example-project"
IMAGE = "IMAGE-BUILT-FROM-SOURCE"  # pushed and pinned by the Pulumi program; "${IMAGE}" in goldens


def example_specs() -> list[Path]:
    return sorted((ROOT / "specs").rglob("*.yaml"))


def canonical(kind: str, body: dict) -> dict:
    """What the real client sends: parsed into the aiplatform_v1 message and written back as JSON."""
    from google.cloud import aiplatform_v1

    message = getattr(aiplatform_v1, kind).from_json(json.dumps(body))
    return json.loads(getattr(aiplatform_v1, kind).to_json(
        message, use_integers_for_enums=False, always_print_fields_with_no_presence=False))


def request_for(path: Path) -> tuple[str, dict, str | None]:
    """(kind, canonical body, digest of the staged package or None)."""
    index = StackIndex.load(ROOT / "stacks")
    stacks = index.stacks_of(path)
    stack = stacks[0] if stacks else None
    result = validate_bytes(path.read_bytes(), str(path))
    assert result.job is not None, result.problems
    job = result.job
    bucket = f"gs://{stack.bucket}" if stack else None
    uris = package_uris(job, path.parent, bucket) or None
    built = getattr(job.application, "build", None) is not None
    req = build_request(job, stack.project_id if stack else DEFAULT_PROJECT,
                        labels=stack.labels_dict if stack else None, package_uris=uris,
                        image_uri=IMAGE if built else None)
    source = resolve_source(job, path.parent)
    digest = source_digest(source) if source is not None and source.is_dir() else None
    return req.kind, canonical(req.kind, req.body), digest


def golden_text(kind: str, body: dict, digest: str | None) -> str:
    text = json.dumps({"kind": kind, "body": body}, indent=1, sort_keys=True) + "\n"
    text = text.replace(IMAGE, "${IMAGE}")
    return text.replace(digest[:32], "${DIGEST}") if digest else text


def update() -> None:
    GOLDEN.mkdir(parents=True, exist_ok=True)
    for path in example_specs():
        kind, body, digest = request_for(path)
        name = f"{path.parent.name}__{path.stem}.json"
        (GOLDEN / name).write_text(golden_text(kind, body, digest), encoding="utf-8")


if __name__ == "__main__":
    update()
