"""How a trainer's own ``/gcs/BUCKET/PATH`` paths reach the local storage (Cloud Storage FUSE on Vertex AI).

On Vertex AI every bucket is mounted at ``/gcs/BUCKET``, so a trainer may build such paths itself
(``open('/gcs/b/x')``, ``torch.save(m, '/gcs/b/model.pt')``, ``pathlib.Path('/gcs/b')``). Here,
decided once per job (``view``) and said in its log and its record (state ``gcs``):

* ``link``: ``/gcs`` already is the storage root (a link made by the user); nothing to do;
* ``namespace``: each replica runs in its own mount namespace where ``/gcs`` is the storage root
  (gcs_namespace.py; unprivileged, through a user namespace, where the kernel allows them): every
  program and library sees the same files as ``gs://`` and the emulator's storage API;
* ``python``: no namespace can be made here (the kernel or its policy forbids user namespaces, as
  Ubuntu's AppArmor does by default; or ``TRAINJOBS_GCS_FUSE=python``): a Python trainer's ``open``,
  ``os`` and ``pathlib`` map /gcs to the storage (gcs_hook.py, through its sitecustomize); programs
  that are not Python, and libraries that open files in C, do not see it, and each replica's log
  starts with a line that says so and how to fix it;
* ``none`` (``TRAINJOBS_GCS_FUSE=off``): neither; the log says so the same way.

In every mode ``/gcs/`` paths in the job's args and env are rewritten to the storage
(paths.Storage.localize), and a container gets the storage at /gcs from its engine.
"""

from __future__ import annotations

import enum
import os
import subprocess
import sys
from pathlib import Path

from provider.backends.local import gcs_namespace, store
from provider.core.record import Record

SWITCH = "TRAINJOBS_GCS_FUSE"  # "python": the Python hook without trying a namespace; "off": nothing
FIX = ("use the paths Vertex AI gives the trainer instead (AIP_MODEL_DIR, AIP_CHECKPOINT_DIR, "
       "AIP_TENSORBOARD_LOG_DIR, or a /gcs/ or gs:// path passed in the job's args or env: those are rewritten "
       "to the storage), or link /gcs to the storage root")


class GcsMode(enum.Enum):
    LINK = "link"
    NAMESPACE = "namespace"
    PYTHON = "python"
    NONE = "none"


class GcsView(Record):
    """What ``/gcs`` is for this job's replicas, and why."""

    mode: GcsMode
    root: Path
    reason: str = ""  # for PYTHON and NONE: why no namespace is made

    @property
    def complete(self) -> bool:
        """Whether every program of the replica sees the storage at /gcs."""
        return self.mode in (GcsMode.LINK, GcsMode.NAMESPACE)

    @property
    def hook_root(self) -> Path | None:
        """The storage root for the Python hook (gcs_hook.py), in PYTHON mode."""
        return self.root if self.mode is GcsMode.PYTHON else None

    def describe(self) -> str:
        if self.mode is GcsMode.LINK:
            return f"/gcs/ is the storage root {self.root} (a link on this machine)"
        if self.mode is GcsMode.NAMESPACE:
            return f"/gcs/ is the storage root {self.root} in each replica's own mount namespace"
        if self.mode is GcsMode.PYTHON:
            return (f"/gcs/ is the storage root {self.root} for the trainer's Python code only (open, os, pathlib; "
                    f"no mount namespace here: {self.reason}): programs that are not Python, and libraries that "
                    f"open files in C, do not see it: {FIX}")
        return f"/gcs/ paths built by the trainer's code do not reach storage here ({self.reason}): {FIX}"

    def wrap(self, argv: list[str], scratch: Path) -> list[str]:
        """The command that runs ``argv`` with this view of /gcs (``scratch``: an empty directory of the replica's)."""
        if self.mode is not GcsMode.NAMESPACE:
            return argv
        store.private_dirs(scratch)
        return [sys.executable, "-I", "-S", gcs_namespace.__file__, str(self.root), str(scratch), "--", *argv]


def view(root: Path, scratch: Path) -> GcsView:
    """Decide how /gcs reaches ``root`` for a job: a link, else a namespace that the probe shows working."""
    root = root.resolve()
    if os.path.realpath("/gcs") == str(root):
        return GcsView(GcsMode.LINK, root)
    switch = os.environ.get(SWITCH, "").lower()
    if switch in ("off", "python"):
        return GcsView(GcsMode.NONE if switch == "off" else GcsMode.PYTHON, root, f"{SWITCH}={switch}")
    root.mkdir(parents=True, exist_ok=True)
    probe = GcsView(GcsMode.NAMESPACE, root)
    check = "import os, sys; sys.exit(0 if os.path.samefile('/gcs', sys.argv[1]) else 3)"
    try:
        done = subprocess.run(probe.wrap([sys.executable, "-I", "-S", "-c", check, str(root)], scratch),
                              stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return GcsView(GcsMode.PYTHON, root, f"the mount namespace probe failed: {exc}")
    if done.returncode != 0:
        said = done.stderr.strip().splitlines()[-1:] or [f"exit {done.returncode}"]
        return GcsView(GcsMode.PYTHON, root, said[0].removeprefix("trainjobs: "))
    return probe
