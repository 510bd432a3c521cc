"""What a Python trainer gets through its ``sitecustomize`` (trainer_site.py), beyond what Vertex AI sets.

``site_env``: under the emulator, ``TRAINJOBS_API_ENDPOINT`` (google-cloud-aiplatform in the trainer
talks to the emulator) and ``STORAGE_EMULATOR_HOST`` (google-cloud-storage); where /gcs reaches
storage through the Python hook only (gcs_fuse.GcsMode.PYTHON), ``TRAINJOBS_GCS_ROOT``. Either puts
the job's ``site/`` first on PYTHONPATH; a value the job's own env sets is kept.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from provider.backends.local import gcs_hook, store, trainer_site


def _site(job_dir: Path) -> Path:
    site = job_dir / "site"
    if not (site / "sitecustomize.py").exists():
        store.private_dirs(site)
        shutil.copyfile(gcs_hook.__file__, site / f"{trainer_site.HOOK}.py")
        shutil.copyfile(trainer_site.__file__, site / "sitecustomize.py")  # last: its presence says both are there
    return site


def site_env(job_dir: Path, env: dict[str, str], endpoint: str | None, gcs_root: Path | None) -> dict[str, str]:
    """The variables to add to ``env`` (a Python replica's, its PYTHONPATH set); none when nothing is to do."""
    if not endpoint and gcs_root is None:
        return {}
    added = {"PYTHONPATH": os.pathsep.join(p for p in (str(_site(job_dir)), env.get("PYTHONPATH", "")) if p)}
    if endpoint:
        added[trainer_site.ENDPOINT] = endpoint
        if "STORAGE_EMULATOR_HOST" not in env:
            added["STORAGE_EMULATOR_HOST"] = endpoint
    if gcs_root is not None:
        added[gcs_hook.ROOT_VAR] = str(gcs_root)
    return added
