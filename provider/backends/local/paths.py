"""Where the local backend keeps things, and how gs:// maps onto this machine.

* Home (``$TRAINJOBS_HOME``, default ``$XDG_DATA_HOME/trainjobs`` or ``~/.local/share/trainjobs``):
  ``jobs/<id>/`` (record, state, logs), ``envs/`` (installed trainers), ``gpus/`` (device locks).
* Storage (``$TRAINJOBS_STORAGE``, default ``<home>/storage``): ``gs://BUCKET/PATH`` is the
  file ``<storage>/BUCKET/PATH``, so the job dirs, checkpoints and outputs a spec names land in
  the same place every run, and the same spec works here and on Vertex AI. An object no path can
  hold there (a segment over 255 bytes, ``d`` beside ``d/e``) is set aside (objects.py); ``path``
  finds it there.
* Cloud Storage FUSE: on Vertex AI a bucket is mounted at ``/gcs/BUCKET``. Here ``/gcs/BUCKET/PATH``
  in a trainer's arguments, its ``AIP_*`` variables and any environment value that starts with
  ``/gcs/`` is rewritten to the same file as ``gs://BUCKET/PATH`` (``localize``). A path the trainer's
  own code builds reaches the storage through the replica's own mount namespace (gcs_fuse.py).
"""

from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path

from provider.backends.local import objects
from provider.core.record import Record

_BUCKET = re.compile(r"^[a-z0-9][-_.a-z0-9]{1,220}[a-z0-9]$")


def default_home() -> Path:
    if os.environ.get("TRAINJOBS_HOME"):
        return Path(os.environ["TRAINJOBS_HOME"]).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "trainjobs"


def default_storage(home: Path) -> Path:
    if os.environ.get("TRAINJOBS_STORAGE"):
        return Path(os.environ["TRAINJOBS_STORAGE"]).expanduser()
    return home / "storage"


class StorageError(ValueError):
    pass


def _folder(path: Path) -> None:
    with contextlib.suppress(OSError):  # a file in the way, a full or read-only disk: the trainer says so itself
        path.mkdir(parents=True, exist_ok=True)


class Storage(Record):
    """gs:// URIs <-> paths under the storage root."""

    root: Path

    def path(self, uri: str) -> Path:
        if not uri.startswith("gs://"):
            raise StorageError(f"{uri!r} is not a gs:// URI")
        rest = uri[len("gs://"):]
        bucket, _, obj = rest.partition("/")
        if not _BUCKET.match(bucket):
            raise StorageError(f"{uri!r}: {bucket!r} is not a valid bucket name")
        aside = objects.set_aside(self.root, bucket, obj) if obj and not obj.endswith("/") else None
        if aside is not None:  # an object no path can hold in place (objects.py)
            return aside
        parts = [p for p in obj.split("/") if p]
        if any(p in (".", "..") for p in parts):
            raise StorageError(f"{uri!r}: '.' and '..' are not allowed in object names")
        return self.root.joinpath(bucket, *parts)

    def uri(self, path: Path) -> str | None:
        """The gs:// URI of a path under the root, or None."""
        try:
            rel = path.resolve().relative_to(self.root.resolve())
        except ValueError:
            return None
        return "gs://" + rel.as_posix()

    def localize(self, text: str, folders: bool = False) -> str:
        """Replace gs:// URIs and /gcs/ (FUSE) paths inside an argument (--job-dir=gs://b/x) with local paths.

        With ``folders`` (a trainer's arguments), the folder each names (a URI that ends in ``/``), or
        lies in, is made: a trainer that turns ``--model-dir=gs://b/run/`` into ``/gcs/b/run/`` itself,
        and makes that folder only on its ``gs://`` branch, is given the local path here and skips
        the branch. Of the ``AIP_*`` variables, only for ``AIP_MODEL_DIR`` (``.../model/``): a trainer
        that turns it into ``/gcs/...`` and makes the folder only on that branch (ML Ops'
        get_started_vertex_training_sklearn) writes there, and a training pipeline's model must be
        there anyway. Vertex AI makes no folder for the others, and a trainer that lists the output
        directory would see empty ones."""
        if "gs://" not in text and "/gcs/" not in text:
            return text
        def repl(m: re.Match[str]) -> str:
            uri = "gs://" + m.group(0)[len("/gcs/"):] if m.group(0).startswith("/gcs/") else m.group(0)
            try:
                path = self.path(uri)
            except StorageError:
                return m.group(0)
            if folders:
                _folder(path if uri.endswith("/") else path.parent)
            return str(path) + "/" if m.group(0).endswith("/") else str(path)
        return re.sub(r"gs://[^\s,;\"']+|(?<![^\s=,;:\"'])/gcs/[^\s,;\"']+", repl, text)
