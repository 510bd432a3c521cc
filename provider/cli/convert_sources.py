"""Reading ``trainjobs convert FILE``: the file's bytes, and which reader converts a file that is not a mapping.

A spec, config.yaml, describe output, REST body, cloudbuild.yaml or GitHub Actions workflow is a YAML or
JSON mapping, read by provider.cli.convert. A file of another kind (a notebook, a shell script, Python
that calls the Vertex AI SDK) is read by its own module, registered in ``_BY_SUFFIX`` by dotted name and
imported only when such a file is converted. Each module has ``run(raw, shown, path, args) -> int``.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable
from pathlib import Path

from provider.core.errors import UserError
from provider.core.exit_code import ExitCode

Reader = Callable[[bytes, str, Path, argparse.Namespace], int]

# A file's suffix (lower case) -> the module that converts such a file.
_BY_SUFFIX: dict[str, str] = {}


def read_input(file: str) -> tuple[Path, str, bytes]:
    """FILE's path, its display name and its bytes, read as a spec is read (size, encoding, device and
    symlink checks of provider.document.files), or UserError."""
    from provider.document.files import display_name, read_file

    path = Path(file)
    shown = display_name(path)
    if not path.exists() and not path.is_symlink():
        raise UserError(f"{file}: no such file or directory", exit_code=ExitCode.NOT_FOUND)
    raw, problem = read_file(path, shown)
    if problem is not None:
        raise UserError(f"{problem.where}: {problem.message}", exit_code=1)
    assert raw is not None
    return path, shown, raw


def reader(path: Path, raw: bytes) -> Reader | None:
    """The reader of a file that is not a mapping, by its suffix (``raw``: its bytes, for a reader that also
    knows its kind by its first line); None: read it as a mapping."""
    module = _BY_SUFFIX.get(path.suffix.lower())
    if module is None:
        return None
    run: Reader = importlib.import_module(module).run
    return run

_BY_SUFFIX[".py"] = "provider.cli.convert_python"  # Python that calls the Vertex AI SDK (provider/pysdk)
