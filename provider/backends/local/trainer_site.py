"""The ``sitecustomize`` of a Python trainer the local backend runs (copied to the job's ``site/``, first on
its PYTHONPATH, when it has something to do: under the emulator, or for gcs_hook.py).

On Vertex AI, google-cloud-aiplatform inside a trainer reaches Vertex AI with the job's project
(``CLOUD_ML_PROJECT_ID``), region (``CLOUD_ML_REGION``) and the machine's credentials, so a
trainer calls ``aiplatform.init()``, ``log_params``, ``start_run(resume=True)`` or ``autolog()``
with no endpoint. Under the emulator the local backend sets ``TRAINJOBS_API_ENDPOINT`` and puts
this file first on the trainer's PYTHONPATH: once the trainer imports ``google.cloud.aiplatform``,
its defaults become that project and region, the emulator's endpoint over REST, and anonymous
credentials (the emulator has no authentication), as ``aiplatform.init`` would set them. A
trainer's own ``init(api_endpoint=...)`` still wins. ``STORAGE_EMULATOR_HOST`` does the same for
google-cloud-storage. With ``TRAINJOBS_GCS_ROOT`` it installs the /gcs path hook (gcs_hook.py, copied
beside it as ``_trainjobs_gcs_hook``). Then the next ``sitecustomize`` on the path, if any, runs as it
would have.

Only the standard library is imported here, at the trainer's start; nothing from trainjobs.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any

ENDPOINT = "TRAINJOBS_API_ENDPOINT"
_SDK = "google.cloud.aiplatform"


_TRACKED = ("AIP_EXPERIMENT_NAME", "AIP_EXPERIMENT_RUN_NAME")


def _configure(sdk: Any) -> None:
    from google.auth.credentials import AnonymousCredentials

    anonymous = AnonymousCredentials()  # type: ignore[no-untyped-call]  # google-auth leaves it untyped
    # init() with a project reads the experiment tracker, which would look the AIP_EXPERIMENT_* run up
    # before the project and endpoint are set: they are hidden from it for that call only.
    hidden = {name: os.environ.pop(name) for name in _TRACKED if name in os.environ}
    try:
        sdk.init(project=os.environ.get("CLOUD_ML_PROJECT_ID") or None,
                 location=os.environ.get("CLOUD_ML_REGION") or None, api_endpoint=os.environ[ENDPOINT],
                 api_transport="rest", credentials=anonymous)
    finally:
        os.environ.update(hidden)


class _Loader(importlib.abc.Loader):
    def __init__(self, inner: importlib.abc.Loader) -> None:
        self.inner = inner

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self.inner.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self.inner.exec_module(module)
        _configure(module)


class _Finder(importlib.abc.MetaPathFinder):
    """Finds ``google.cloud.aiplatform`` as the other finders do, and configures it once it has loaded."""

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if fullname != _SDK:
            return None
        sys.meta_path.remove(self)  # once: the SDK is configured when it first loads
        spec = importlib.util.find_spec(fullname)
        if spec is not None and spec.loader is not None:
            spec.loader = _Loader(spec.loader)
        return spec


def _next_sitecustomize() -> None:
    """Run the sitecustomize this one hides (the trainer's environment may have its own)."""
    here = os.path.dirname(os.path.abspath(__file__))
    rest = [p for p in sys.path if os.path.abspath(p or ".") != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is not None and spec.loader is not None:
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)


HOOK = "_trainjobs_gcs_hook"  # gcs_hook.py's name in the job's site/


def install() -> None:
    if os.environ.get(ENDPOINT):
        sys.meta_path.insert(0, _Finder())
    root = os.environ.get("TRAINJOBS_GCS_ROOT")
    if root:
        importlib.import_module(HOOK).install(root)


if __name__ == "sitecustomize":
    install()
    _next_sitecustomize()
