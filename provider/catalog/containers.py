"""The prebuilt training container an AI Platform ``runtimeVersion`` runs on Vertex AI: its one home.

AI Platform Training ran a Python package on a runtime version (TensorFlow X.Y, with scikit-learn
and XGBoost beside it; a training job names no framework) and a Python version. Vertex AI runs a
package on the prebuilt container its ``executorImageUri`` names, so trainjobs maps the runtime to
one: the catalog's ``runtime_to_container`` (runtimes.json, built by tools/catalog/build.py) maps
TensorFlow runtime X.Y to ``tf-cpu.X-Y`` / ``tf-gpu.X-Y``, the Python 3.7 builds, by name
congruence (no Google table maps them: the map is marked unverified). The request
(submission/request.py), validation (validation/rules/containers.py) and ``convert`` ask here,
so what is checked is what is sent.

A runtime with a Python no container of the map runs has no container: Python 2.7 (which runtimes
up to 1.15 offered, and which a 1.x runtime without ``pythonVersion`` meant before 2020-01-13) or
3.5 (runtimes 1.4 to 1.14), since every mapped container runs Python 3.7.
"""

from __future__ import annotations

from typing import Any

from provider.catalog import load


def _version(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(x) for x in text.split("."))
    except ValueError:
        return (0,)


def implied_python(runtime: str, python: str | None) -> str | None:
    """The Python a runtime runs: the one written, else AI Platform's old default of 2.7 for runtimes up
    to the 2.7 ceiling (``python_versions``), else None (the runtime's only Python, whichever it is)."""
    if python is not None:
        return python
    ceiling = load("runtimes")["python_versions"].get("2.7", {}).get("max_runtime")
    return "2.7" if ceiling and _version(runtime) <= _version(ceiling) else None


def implied_container(runtime: str, python: str | None, gpu: bool) -> str | None:
    """The prebuilt container (``tf-gpu.2-11``) a package on ``runtime`` runs, GPU build for a pool with
    GPUs; None where the catalog maps none: an unmapped runtime, or a Python no mapped container runs."""
    mapped: dict[str, Any] | None = load("runtimes")["runtime_to_container"]["map"].get(runtime)
    if mapped is None:
        return None
    wanted = implied_python(runtime, python)
    if wanted is not None and mapped.get("python") and wanted != mapped["python"]:
        return None
    name = mapped.get("gpu") if gpu and "gpu" in mapped else mapped.get("cpu")
    return str(name) if name else None
