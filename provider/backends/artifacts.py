"""What a job wrote under its output directory, and downloading it, for every backend.

Vertex AI gives a job ``baseOutputDirectory`` and sets ``AIP_MODEL_DIR`` (``model/``),
``AIP_CHECKPOINT_DIR`` (``checkpoints/``) and ``AIP_TENSORBOARD_LOG_DIR`` (``logs/``) under it, per
trial for a tuning job (``<trial id>/model/`` ...). Each backend lists and
copies the objects where it keeps them (the Backend protocol's ``outputs`` and ``download``: the
local backend's storage on this machine, Cloud Storage for Vertex AI, or the emulator's through
the stack's ``trainjobs:apiEndpoint``); this module reads that layout. Listing reads objects
only; nothing is written but the download.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from provider.backends.base import Backend, FailedPrecondition, InvalidArgument, JobStatus, StoredObject
from provider.core.record import Record

KINDS = ("model", "checkpoints", "logs")  # AIP_MODEL_DIR, AIP_CHECKPOINT_DIR, AIP_TENSORBOARD_LOG_DIR


class Artifact(Record):
    """A file a job wrote under its output directory: its URI, its path there, size, kind and trial."""

    uri: str  # gs://bucket/prefix/.../file
    relative: str  # the path below the output directory
    size: int
    kind: str  # model | checkpoints | logs | other
    trial: str = ""  # the trial id, for a tuning job's per-trial outputs
    local_path: str = ""  # where it lies on this machine (local backend)


def _classify(relative: str, trial_ids: set[str]) -> tuple[str, str]:
    parts = PurePosixPath(relative).parts
    trial = ""
    if len(parts) > 1 and parts[0] in trial_ids:
        trial, parts = parts[0], parts[1:]
    kind = parts[0] if parts and parts[0] in KINDS and len(parts) > 1 else "other"
    return kind, trial


def output_dir(status: JobStatus) -> str:
    if not status.output_dir:
        raise FailedPrecondition(f"job {status.id} ({status.display_name}) has no output directory (its spec sets "
                                 "no jobDir or baseOutputDirectory), so it wrote no artifacts trainjobs can find")
    return status.output_dir


def list_artifacts(status: JobStatus, backend: Backend) -> list[Artifact]:
    """Every object under the job's output directory (the backend's ``outputs``), sorted by path."""
    base = output_dir(status)
    trial_ids = {t.id for t in status.trials}
    out: list[Artifact] = []
    prefix = base.rstrip("/") + "/"
    for stored in backend.outputs(base):
        rel = stored.uri[len(prefix):] if stored.uri.startswith(prefix) else ""
        if not rel:
            continue
        kind, trial = _classify(rel, trial_ids)
        out.append(Artifact(stored.uri, rel, stored.size, kind, trial, stored.local_path))
    return sorted(out, key=lambda a: a.relative)


def download(artifacts: list[Artifact], dest: Path, backend: Backend) -> list[Path]:
    """Copy the artifacts under ``dest``, keeping their paths below the output directory."""
    written: list[Path] = []
    for art in artifacts:
        rel = PurePosixPath(art.relative)
        if rel.is_absolute() or ".." in rel.parts:
            raise InvalidArgument(f"{art.uri}: refusing to write outside {dest}")
        target = dest.joinpath(*rel.parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        backend.download(StoredObject(art.uri, art.size, art.local_path), target)
        written.append(target)
    return written
