"""What a Python trainer run by the emulator gets beyond what Vertex AI gives it: the way to the emulator.

``emulated``: ``TRAINJOBS_API_ENDPOINT`` and the job's ``site/sitecustomize.py`` (trainer_site.py)
first on PYTHONPATH, so that google-cloud-aiplatform in the trainer talks to the emulator, and
``STORAGE_EMULATOR_HOST`` for google-cloud-storage; a value the job's own env sets is kept.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from provider.backends.local import store, trainer_site


def emulated(job_dir: Path, endpoint: str, env: dict[str, str]) -> dict[str, str]:
    """The variables to add to ``env`` (a replica's, its PYTHONPATH set) for a job the emulator runs."""
    site = job_dir / "site"
    if not (site / "sitecustomize.py").exists():
        store.private_dirs(site)
        shutil.copyfile(trainer_site.__file__, site / "sitecustomize.py")
    added = {trainer_site.ENDPOINT: endpoint,
             "PYTHONPATH": os.pathsep.join(p for p in (str(site), env.get("PYTHONPATH", "")) if p)}
    if "STORAGE_EMULATOR_HOST" not in env:
        added["STORAGE_EMULATOR_HOST"] = endpoint
    return added
