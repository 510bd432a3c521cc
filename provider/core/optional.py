"""The optional parts of trainjobs (pyproject.toml's extras): is one installed, and if not, how to install it.

A command that needs a part calls ``require(PART)`` before it does anything: without the part it
ends with one message that names what is missing and the exact command that installs it, never
with an ImportError half-way (the emulator answering every job with a 500, a ``--stack`` command
ending in "internal error"). The check asks ``importlib.util.find_spec`` whether each module can
be found; nothing heavy is imported.

The install command fits how this trainjobs was installed: a checkout's own ``.venv`` (made by
``scripts/setup.sh``, the README's install) gets ``bash scripts/setup.sh EXTRA``; another
environment running a checkout gets ``pip install -e 'CHECKOUT[EXTRA]'`` with its own Python; an
installed package gets ``pip install 'trainjobs[EXTRA]'`` with its own Python.
"""

from __future__ import annotations

import enum
import importlib.util
import shlex
import sys
from pathlib import Path

from provider.core.errors import UserError
from provider.core.record import Record


class Extra(Record):
    """An extra of pyproject.toml: its name, what it brings (for messages), and modules that show it is there."""

    name: str
    what: str
    modules: tuple[str, ...]


class Part(enum.Enum):
    """The extras a command may need (pyproject.toml [project.optional-dependencies])."""

    VERTEX = Extra("vertex", "the Google Cloud SDK (Vertex AI, Cloud Storage, Cloud Logging)",
                   ("google.cloud.aiplatform_v1", "google.cloud.logging", "google.protobuf", "google_crc32c"))
    CONSOLE = Extra("console", "the web console's framework and server (Starlette, uvicorn, Jinja2)",
                    ("starlette", "uvicorn", "jinja2", "multipart"))
    TENSORBOARD = Extra("tensorboard", "TensorBoard", ("tensorboard",))


def _found(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a parent package missing (google), or a broken one
        return False


def part_of(module: str | None) -> Part | None:
    """The optional part a module belongs to (``google.cloud.storage`` -> VERTEX), or None."""
    top = (module or "").split(".")[0]
    return next((p for p in Part if any(m.split(".")[0] == top for m in p.value.modules)), None) if top else None


def missing(part: Part) -> list[str]:
    """The modules of ``part`` that cannot be found (empty when it is installed)."""
    return [m for m in part.value.modules if not _found(m)]


def this_checkout() -> Path | None:
    """The source tree this trainjobs runs from, when it is a checkout (it has pyproject.toml)."""
    here = Path(__file__).resolve().parents[2]
    return here if (here / "pyproject.toml").is_file() else None


def install_command(part: Part, checkout: Path | None, prefix: Path, cwd: Path) -> str:
    """The command that installs ``part`` into the environment at ``prefix`` (see the module docstring)."""
    extra = part.value.name
    prefix = prefix.resolve()
    if checkout is not None and (checkout / "scripts" / "setup.sh").is_file() and prefix == (checkout / ".venv").resolve():
        script = "scripts/setup.sh" if cwd.resolve() == checkout.resolve() else str(checkout / "scripts" / "setup.sh")
        return f"bash {shlex.quote(script)} {extra}"
    python = shlex.quote(str(prefix / "bin" / "python") if (prefix / "bin" / "python").exists() else sys.executable)
    if checkout is not None:
        return f"{python} -m pip install -e {shlex.quote(f'{checkout}[{extra}]')}"
    return f"{python} -m pip install 'trainjobs[{extra}]'"


def require(part: Part, needed_by: str) -> None:
    """Nothing when ``part`` is installed; else UserError (exit 2) naming what is missing and the install command."""
    absent = missing(part)
    if absent:
        raise UserError(f"{needed_by} needs {part.value.what}, the '{part.value.name}' extra, and it is not installed "
                        f"({', '.join(absent)} not found); install it with: "
                        f"{install_command(part, this_checkout(), Path(sys.prefix), Path.cwd())}", exit_code=2)
