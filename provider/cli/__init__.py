"""The ``trainjobs`` command line.

The parser is declared here; each command lives in its own module, imported only when that
command runs, so ``trainjobs validate`` never loads the Vertex AI SDK or Pulumi.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn, TypeAlias, cast

from provider import __version__
from provider.core.errors import UserError
from provider.core.exit_code import ExitCode


def _command(parser: argparse.ArgumentParser, target: str) -> None:
    parser.set_defaults(_target=target)


Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


def _validate(sub: Subparsers) -> None:
    p = sub.add_parser("validate", help="check specs against the schema, the catalog and the rules")
    p.add_argument("paths", nargs="*", metavar="PATH", help="spec files or directories (default: specs/)")
    p.add_argument("--format", choices=["text", "json", "github", "markdown"], default="text",
                   help="output format (markdown: the text report fenced, for a pull-request comment)")
    p.add_argument("--color", choices=["auto", "always", "never"], default="auto", help="colour in text output")
    p.add_argument("--target", choices=["vertex", "local", "any"],
                   help="judge every spec for this backend (default: the backend of the stack that holds it)")
    p.add_argument("--stacks", metavar="DIR", help="the stack files that say which specs they hold (default: the "
                   "stacks/ of the repository that holds each spec, wherever it is checked from)")
    p.add_argument("--summary", action="store_true", help="also print a table of the valid jobs")
    _command(p, "provider.cli.validate:run")


def _schema(sub: Subparsers) -> None:
    p = sub.add_parser("schema", help="print the JSON Schema of specs (or of stack config)")
    p.add_argument("--stack", action="store_true", help="the schema of the stack config instead")
    _command(p, "provider.cli.validate:schema")


def _convert(sub: Subparsers) -> None:
    p = sub.add_parser("convert", help="print the native spec for an AI Platform or Vertex AI config")
    p.add_argument("file", metavar="FILE", nargs="?",
                   help="a spec, a config.yaml, a CustomJobSpec, the output of gcloud ... describe, or a "
                        "cloudbuild.yaml or GitHub Actions workflow (its gcloud training step), a shell script .sh, a "
                        "notebook .ipynb (its gcloud training cell, or the job its code launches with the Vertex AI SDK), a "
                        "Makefile (its target whose recipe runs a gcloud training command), or "
                        "Python .py that calls the Vertex AI SDK or runs a gcloud training command (subprocess)")
    p.add_argument("--gcloud", metavar="COMMAND",
                   help="one whole gcloud ai-platform jobs submit training / gcloud ai custom-jobs create / gcloud "
                        "ai hp-tuning-jobs create command line, read as bash reads it ($VAR from the environment); "
                        "never run")
    p.add_argument("--cell", metavar="N", type=int,
                   help="with a notebook FILE (.ipynb): the cell (counted from 1, markdown cells too) whose gcloud "
                        "training command or SDK job is converted, where several cells hold one")
    p.add_argument("--target", metavar="NAME",
                   help="with a Makefile FILE: the target whose recipe's gcloud training command is converted, where "
                        "several targets run one; with an Airflow DAG FILE: the task_id of the training task converted")
    p.add_argument("--var", metavar="NAME=VALUE", action="append",
                   help="with a Makefile FILE: make's command-line variable NAME=VALUE (over the Makefile's own, unless "
                        "override); with an Airflow DAG FILE: an Airflow Variable's value (Variable.get, "
                        "{{ var.value.NAME }}); repeat for several")
    p.add_argument("--write", metavar="FILE", help="write the result to FILE instead of stdout")
    p.add_argument("--staging-bucket", metavar="gs://BUCKET",
                   help="with --gcloud, a script, or a gcloud command a notebook or Python FILE runs: the bucket trainjobs uploads the package to (a "
                        "local-package-path, a --package-path), written into the spec as stagingBucket")
    p.add_argument("--stack", metavar="NAME",
                   help="with --gcloud, a script, or a gcloud command a notebook or Python FILE runs: check the spec as the stack NAME runs it (its "
                        "team bucket takes the package)")
    p.add_argument("--name", help="job name when FILE is a bare config.yaml without the envelope, or Python (a .py or "
                   "notebook's SDK job, an Airflow DAG's training task whose job name Airflow templates)")
    p.add_argument("--region", help="gcloud --region, for a bare config.yaml")
    p.add_argument("--module-name", help="gcloud --module-name, for a bare config.yaml")
    p.add_argument("--package-path", help="gcloud --package-path, for a bare config.yaml (relative to FILE)")
    p.add_argument("--job-dir", help="gcloud --job-dir, for a bare config.yaml")
    p.add_argument("--format", "--output", dest="output", choices=["yaml", "json", "request"], default="yaml",
                   help="yaml (native spec), json, or the Vertex AI request it makes (--output: the older spelling)")
    _command(p, "provider.cli.convert:run")


# Commands declared here, in full: run one of them and only it is declared (not the other
# commands, nor the later layers' modules imported), since the words after it parse the same.
_CORE: dict[str, Callable[[Subparsers], None]] = {"validate": _validate, "schema": _schema, "convert": _convert}
CORE_COMMANDS = frozenset(_CORE)


def _columns() -> int:
    """The terminal's width, found as ``shutil.get_terminal_size`` finds it (COLUMNS, then the
    terminal of stdout, else 80), without importing shutil: it brings bz2, lzma and zlib, about
    5 ms of a cold ``trainjobs validate``, for argparse's help formatter alone."""
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns if sys.__stdout__ else 0
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


def _close(word: str, candidates: Sequence[str]) -> str:
    """``; did you mean 'X'?`` for the candidates close to a mistyped word, or nothing (on the
    error path alone: a command that parses never loads difflib)."""
    from provider.core.suggest import did_you_mean

    hint = did_you_mean(word, candidates)
    return f"; {hint}" if hint else ""


class _Parser(argparse.ArgumentParser):
    """argparse's parser, its help as wide as the terminal (``_columns``); commands' parsers too.

    A mistyped command, choice or option gets a "did you mean" (Python 3.11's argparse has none):
    ``trainjobs vaildate`` -> ``invalid choice: 'vaildate' (choose from ...); did you mean 'validate'?``
    """

    def _get_formatter(self) -> argparse.HelpFormatter:
        return self.formatter_class(prog=self.prog, width=_columns() - 2)  # type: ignore[call-arg]

    def _check_value(self, action: argparse.Action, value: object) -> None:
        choices = action.choices
        if choices is not None and value not in choices:
            names = [str(c) for c in choices]
            listed = ", ".join(map(repr, names))
            raise argparse.ArgumentError(
                action, f"invalid choice: {value!r} (choose from {listed}){_close(str(value), names)}")

    def parse_known_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                         namespace: argparse.Namespace | None = None) -> tuple[argparse.Namespace, list[str]]:
        parsed, extras = super().parse_known_args(args, namespace)
        if extras:  # the innermost parser that had words left over is the one to suggest from
            parsed.__dict__.setdefault("_unknown_parser", self)
        return parsed, extras

    def parse_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                   namespace: argparse.Namespace | None = None) -> argparse.Namespace:
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            owner = parsed.__dict__.pop("_unknown_parser", self)
            options = [o for a in owner._actions for o in a.option_strings]
            hint = _close(extras[0].split("=", 1)[0], options) if extras[0].startswith("-") else ""
            owner.error(f"unrecognized arguments: {' '.join(extras)}{hint}")
        parsed.__dict__.pop("_unknown_parser", None)
        return parsed


def build_parser(command: str | None = None, examples: bool = True) -> argparse.ArgumentParser:
    """The whole parser; given a core ``command``, the parser with that command only. With
    ``examples``, each command's help ends with its examples (provider.cli.examples)."""
    p = _Parser(
        prog="trainjobs",
        description="ML training jobs as code: validate specs, run them locally or on Vertex AI, plan and deploy "
        "them with Pulumi.",
    )
    p.add_argument("--version", action="version", version=f"trainjobs {__version__}")
    sub = cast("Subparsers", p.add_subparsers(dest="command", metavar="COMMAND"))  # of _Parser, as declared
    for name, declare in _CORE.items():
        if command in (None, name):
            declare(sub)
    for register in _extensions() if command is None else []:
        register(sub)
    if examples:
        from provider.cli.examples import attach

        attach(p)
    return p


def _extensions() -> list[Callable[[Subparsers], None]]:
    """Commands from later layers (local backend, emulator, Pulumi, GitOps) register themselves."""
    out = []
    for name in ("provider.cli.jobs", "provider.cli.emulator", "provider.cli.stacks", "provider.cli.gitops",
                 "provider.cli.completion", "provider.cli.outputs", "provider.cli.console", "provider.cli.gpus"):
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            continue
        out.append(module.register)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    completing = "_ARGCOMPLETE" in os.environ
    helping = "-h" in words or "--help" in words  # examples are read only where help is printed
    parser = build_parser(words[0] if words and words[0] in CORE_COMMANDS and not completing else None,
                          examples=helping)
    if completing:  # a shell asks for completions: answer and exit
        from provider.cli.completion import complete

        complete(parser)
    args = parser.parse_args(words)
    if not getattr(args, "_target", None):
        parser.print_help()
        return ExitCode.USAGE
    module_name, func = args._target.split(":")
    try:
        handler = getattr(importlib.import_module(module_name), func)
        return int(handler(args) or 0)
    except UserError as exc:  # a message may quote a path or value: escaped for the terminal
        from provider.document.excerpt import printable

        print(f"trainjobs: {printable(exc.message)}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("trainjobs: interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except BrokenPipeError:
        return 0
    except Exception as exc:
        if os.environ.get("TRAINJOBS_DEBUG"):
            raise
        from provider.document.excerpt import printable

        print(
            f"trainjobs: internal error: {type(exc).__name__}: {printable(str(exc))}\n"
            "This is a bug in trainjobs. Run again with TRAINJOBS_DEBUG=1 to see the traceback.",
            file=sys.stderr,
        )
        return ExitCode.INTERNAL


def entry() -> NoReturn:
    """The ``trainjobs`` program (and ``python -m provider``): ``main()``, then the exit.

    A core command only reads files and prints, so once its output is flushed there is nothing
    left to close: the process ends there, without the interpreter's teardown of every module
    (about 35 ms of a cold ``validate``; ``bench/RESULTS.md``, cold start). Every other command
    exits the usual way, with its ``atexit`` handlers and finalizers.
    """
    words = sys.argv[1:]
    code = main(words)
    if words and words[0] in CORE_COMMANDS:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except OSError:  # a closed pipe: the usual exit reports it as it always has
            sys.exit(code)
        os._exit(code)
    sys.exit(code)
