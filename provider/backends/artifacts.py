"""What a job wrote under its output directory, and downloading it, for every backend.

Vertex AI gives a job ``baseOutputDirectory`` and sets ``AIP_MODEL_DIR`` (``model/``),
``AIP_CHECKPOINT_DIR`` (``checkpoints/``) and ``AIP_TENSORBOARD_LOG_DIR`` (``logs/``) under it, per
trial for a tuning job (``<trial id>/model/`` ...). The local backend keeps the same layout in its
storage; on Vertex AI it is in Cloud Storage (or the emulator's storage, through the stack's
``trainjobs:apiEndpoint``). Listing reads objects only; nothing is written but the download.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path, PurePosixPath
from typing import Any

from provider.backends.base import Backend, FailedPrecondition, InvalidArgument, JobStatus
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


def _split(uri: str) -> tuple[str, str]:
    if not uri.startswith("gs://"):
        raise InvalidArgument(f"the output directory {uri!r} is not a gs:// URI")
    bucket, _, prefix = uri[len("gs://"):].partition("/")
    return bucket, prefix.rstrip("/") + "/" if prefix else ""


def output_dir(status: JobStatus) -> str:
    if not status.output_dir:
        raise FailedPrecondition(f"job {status.id} ({status.display_name}) has no output directory (its spec sets "
                                 "no jobDir or baseOutputDirectory), so it wrote no artifacts trainjobs can find")
    return status.output_dir


def _gcs(backend: Backend) -> Any:
    """A google-cloud-storage client for the Cloud Storage a Vertex AI backend's jobs write to."""
    from provider.backends.vertex.backend import VertexBackend
    from provider.packaging.gcs import gcs_client

    if not isinstance(backend, VertexBackend):
        raise FailedPrecondition(f"the {backend.name} backend keeps no outputs in Cloud Storage")
    return gcs_client(backend.project, backend.companion_endpoint(), backend.credentials)


def list_artifacts(status: JobStatus, backend: Backend) -> list[Artifact]:
    """Every object under the job's output directory, sorted by path."""
    from provider.backends.local.backend import LocalBackend

    base = output_dir(status)
    trial_ids = {t.id for t in status.trials}
    out: list[Artifact] = []
    if isinstance(backend, LocalBackend):  # the local backend: files in its storage
        root = backend.storage.path(base)
        if root.is_dir():
            for dirpath, _, files in os.walk(root):
                for name in sorted(files):
                    path = Path(dirpath) / name
                    if path.is_symlink() or not path.is_file():
                        continue
                    rel = path.relative_to(root).as_posix()
                    kind, trial = _classify(rel, trial_ids)
                    out.append(Artifact(base.rstrip("/") + "/" + rel, rel, path.stat().st_size, kind, trial, str(path)))
    else:
        bucket, prefix = _split(base)
        client = _gcs(backend)
        for blob in client.list_blobs(bucket, prefix=prefix):
            rel = blob.name[len(prefix):]
            if not rel or rel.endswith("/"):
                continue
            kind, trial = _classify(rel, trial_ids)
            out.append(Artifact(f"gs://{bucket}/{blob.name}", rel, int(blob.size or 0), kind, trial))
    return sorted(out, key=lambda a: a.relative)


def download(artifacts: list[Artifact], dest: Path, backend: Backend) -> list[Path]:
    """Copy the artifacts under ``dest``, keeping their paths below the output directory."""
    written: list[Path] = []
    client = None
    for art in artifacts:
        rel = PurePosixPath(art.relative)
        if rel.is_absolute() or ".." in rel.parts:
            raise InvalidArgument(f"{art.uri}: refusing to write outside {dest}")
        target = dest.joinpath(*rel.parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        if art.local_path:
            shutil.copyfile(art.local_path, target)
        else:
            if client is None:
                client = _gcs(backend)
            bucket, name = art.uri[len("gs://"):].split("/", 1)
            client.bucket(bucket).blob(name).download_to_filename(str(target))
        written.append(target)
    return written
