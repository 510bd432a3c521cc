"""Reading ``trainjobs convert FILE``: the file's bytes, and which reader converts a file that is not a mapping.

A spec, config.yaml, describe output, REST body, cloudbuild.yaml or GitHub Actions workflow is a YAML or
JSON mapping, read by provider.cli.convert. A file of another kind (a notebook, a shell script, Python
that calls the Vertex AI SDK, a Makefile) is read by its own module, registered in ``_BY_SUFFIX`` (a Makefile: by its
name, ``_BY_NAME``) by dotted name and
imported only when such a file is converted. Each module has ``run(raw, shown, path, args) -> int`` and
``TAKES``, the convert options it reads of those that go only with some inputs (``--cell``, ``--target``, ``--var``,
``--staging-bucket``, ``--stack``); any other of them given is refused, never dropped.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from provider.core.errors import UserError
from provider.core.exit_code import ExitCode

Reader = Callable[[bytes, str, Path, argparse.Namespace], int]

# A file's suffix (lower case) -> the module that converts such a file.
_BY_SUFFIX: dict[str, str] = {
    ".ipynb": "provider.cli.convert_notebook",
    ".sh": "provider.cli.convert_script",
    ".bash": "provider.cli.convert_script",
    ".py": "provider.cli.convert_python",  # Python that calls the Vertex AI SDK (provider/pysdk)
}
# A file's name (lower case), for the kinds known by their name: make's Makefile, makefile, GNUmakefile (and *.mk).
_BY_NAME = ("makefile", "gnumakefile")
# Files that hold gcloud commands in a form convert does not read, by suffix: named as such, never read as YAML (a
# batch file's "@echo off" or a README's "```bash" is no YAML syntax error, and no mapping).
_NOT_READ: dict[str, str] = {
    ".bat": "a Windows batch file (cmd.exe: %VAR%, ^ continuations)",
    ".cmd": "a Windows batch file (cmd.exe: %VAR%, ^ continuations)",
    ".ps1": "a PowerShell script ($env:VAR, ` continuations)",
    ".md": "a Markdown document (its commands are examples in code blocks)",
    ".markdown": "a Markdown document (its commands are examples in code blocks)",
    ".rst": "a reStructuredText document (its commands are examples)",
    ".tf": "a Terraform file (a local-exec provisioner's command is Terraform's template, ${var.x})",
}
_WRITE_INSTEAD = ("the gcloud command written for bash in a .sh file (convert train.sh), or given alone: "
                  "convert --gcloud \"gcloud ai custom-jobs create ...\"")


def not_read(path: Path, raw: bytes) -> UserError | None:
    """The refusal of a file of a kind convert does not read (``_NOT_READ``), at its first gcloud command's line
    when it holds one; None for any other file."""
    kind = _NOT_READ.get(path.suffix.lower())
    if kind is None:
        return None
    from provider.document.files import display_name

    text = raw.decode("utf-8", errors="replace")
    found = next(((n, line.find("gcloud ")) for n, line in enumerate(text.splitlines(), 1)
                  if "gcloud " in line and not line.lstrip().startswith(("#", "rem ", "REM ", "::"))), None)
    where = display_name(path) + (f":{found[0]}:{found[1] + 1}" if found else "")
    what = "its gcloud command is" if found else "it is"
    return UserError(f"{where}: {kind}: {what} not read (trainjobs reads gcloud commands as bash reads them, and a "
                     f"spec, a config or a REST body as YAML or JSON); allowed: {_WRITE_INSTEAD}", exit_code=1)


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


def reader(path: Path, raw: bytes, args: argparse.Namespace) -> Reader | None:
    """The reader of a file that is not a mapping, by its suffix (``raw``: its bytes, for a reader that also
    knows its kind by its first line); None: read it as a mapping. An option the reader does not take (its
    module's ``TAKES`` names those it does) is refused."""
    if (refused := not_read(path, raw)) is not None:
        raise refused
    module = _BY_SUFFIX.get(path.suffix.lower())
    if module is None and (path.name.lower() in _BY_NAME or path.suffix.lower() == ".mk"):
        module = "provider.cli.convert_makefile"  # a Makefile: its target that submits the job
    if module is None and raw.startswith(b"#!"):  # a script named without its suffix: by its #! line
        from provider.cli.convert_script import is_script

        module = "provider.cli.convert_script" if is_script(raw) else None
    if module is None:
        return None
    loaded = importlib.import_module(module)
    refuse_options(args, getattr(loaded, "TAKES", ()))
    run: Reader = loaded.run

    def bounded(raw: bytes, shown: str, path: Path, args: argparse.Namespace) -> int:
        from provider.document.python_modules import beside

        try:
            with beside(path.parent):  # Python code read here imports its own modules from the file's folder
                return run(raw, shown, path, args)
        except RecursionError:  # Python's parser, or the evaluator over what it built (a hostile file)
            raise UserError(f"{shown}: its code nests too deeply to be read (an expression or a value hundreds of levels "
                            "deep, past Python's own limit); allowed: code as people write it, a few dozen levels deep", exit_code=1) from None

    return bounded


# The options that go only with some kinds of input, and what each goes with.
_CONFIG = "a bare config.yaml (a gcloud command, a script, a notebook or Python gives its own)"
_ONLY_WITH = {"cell": "a notebook FILE (.ipynb): it picks the cell whose gcloud command or SDK job is converted",
              "target": "a Makefile FILE (the target whose recipe's gcloud command is converted) or an Airflow DAG "
                        "FILE (the task_id of the training task converted)",
              "var": "a Makefile FILE (make's command-line NAME=VALUE) or an Airflow DAG FILE (an Airflow Variable's "
                     "value, for Variable.get and {{ var.value.NAME }})",
              "staging_bucket": "--gcloud COMMAND, a script, a gcloud command a notebook or Python FILE runs, a "
                                "Cloud Build or GitHub Actions step, or an SDK job in Python or a notebook whose "
                                "staging_bucket is known only when it runs; a spec or config names its own bucket "
                                "(stagingBucket, jobDir, baseOutputDirectory)",
              "stack": "--gcloud COMMAND, a script, a gcloud command a notebook or Python FILE runs, or a Cloud Build "
                       "or GitHub Actions step",
              "name": "a config FILE, or an SDK job in a Python FILE or a notebook (a gcloud command names its job: "
                      "the job id or --display-name)",
              "region": _CONFIG, "module_name": _CONFIG, "package_path": _CONFIG, "job_dir": _CONFIG}


def refuse_options(args: argparse.Namespace, takes: tuple[str, ...]) -> None:
    """UserError for an option given that the reader of this FILE does not take (``takes``: those it does)."""
    for option, goes in _ONLY_WITH.items():
        if option not in takes and getattr(args, option, None) is not None:
            raise UserError(f"--{option.replace('_', '-')} goes with {goes}", exit_code=ExitCode.USAGE)


class Output:
    """stdout, or the --write FILE (written whole, only once the conversion succeeded)."""

    def __init__(self, target: str | None) -> None:
        self.target = Path(target) if target else None

    def write(self, text: str) -> int:
        if self.target is None:
            sys.stdout.write(text)
            return 0
        try:
            self.target.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise UserError(f"--write {self.target}: {exc.strerror or exc}") from exc
        print(f"wrote {self.target}", file=sys.stderr)
        return 0


def decoded(raw: bytes, shown: str, kind: str) -> str | None:
    """A text file's text (``kind``: "a shell script", "a Makefile"), or None once why it is not text is reported."""
    from provider.core.record import replace
    from provider.document.text import decode
    from provider.validation.report import reporter

    text, problems = decode(raw, shown)
    if text is None:
        problems = [replace(p, message=p.message.replace("not YAML text", f"not {kind}")) for p in problems]
        reporter("text", sys.stderr).report(problems, 1, 1, sys.stderr)
    return text


@contextmanager
def environment(overlay: Mapping[str, str | None]) -> Iterator[None]:
    """This process's environment with ``overlay`` (None: unset) while the gcloud reader reads a command whose
    shell has it (what a notebook's code or a Makefile exports before the line), restored after."""
    def put(values: Mapping[str, str | None]) -> None:
        for name, value in values.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value

    saved = {name: os.environ.get(name) for name in overlay}
    try:
        put(overlay)
        yield
    finally:
        put(saved)
