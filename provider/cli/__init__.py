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
from typing import NoReturn

from provider import __version__
from provider.core.errors import UserError


def _command(parser: argparse.ArgumentParser, target: str) -> None:
    parser.set_defaults(_target=target)


# Commands declared here, in full: run one of them and the later layers' commands are not
# registered (nor their modules imported), since the words after it parse the same either way.
CORE_COMMANDS = frozenset({"validate", "schema", "convert"})


def build_parser(extensions: bool = True) -> argparse.ArgumentParser:
    """The whole parser; ``extensions=False`` declares only the core commands."""
    p = argparse.ArgumentParser(
        prog="trainjobs",
        description="ML training jobs as code: validate specs, run them locally or on Vertex AI, plan and deploy "
        "them with Pulumi.",
    )
    p.add_argument("--version", action="version", version=f"trainjobs {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    v = sub.add_parser("validate", help="check specs against the schema, the catalog and the rules")
    v.add_argument("paths", nargs="*", metavar="PATH", help="spec files or directories (default: specs/)")
    v.add_argument("--format", choices=["text", "json", "github"], default="text", help="output format")
    v.add_argument("--color", choices=["auto", "always", "never"], default="auto", help="colour in text output")
    v.add_argument("--target", choices=["vertex", "local", "any"],
                   help="judge every spec for this backend (default: the backend of the stack that holds it)")
    v.add_argument("--stacks", default="stacks", metavar="DIR", help="stack files that say which specs they hold")
    v.add_argument("--summary", action="store_true", help="also print a table of the valid jobs")
    _command(v, "provider.cli.validate:run")

    s = sub.add_parser("schema", help="print the JSON Schema of specs (or of stack config)")
    s.add_argument("--stack", action="store_true", help="the schema of the stack config instead")
    _command(s, "provider.cli.validate:schema")

    c = sub.add_parser("convert", help="print the native spec for an AI Platform or Vertex AI config")
    c.add_argument("file", metavar="FILE", nargs="?",
                   help="a spec, a config.yaml, a CustomJobSpec, or the output of gcloud ... describe")
    c.add_argument("--gcloud", metavar="COMMAND",
                   help="one whole gcloud ai-platform jobs submit training / gcloud ai custom-jobs create command "
                        "line, read as bash reads it ($VAR from the environment); never run")
    c.add_argument("--write", metavar="FILE", help="write the result to FILE instead of stdout")
    c.add_argument("--name", help="job name when FILE is a bare config.yaml without the envelope")
    c.add_argument("--region", help="gcloud --region, for a bare config.yaml")
    c.add_argument("--module-name", help="gcloud --module-name, for a bare config.yaml")
    c.add_argument("--package-path", help="gcloud --package-path, for a bare config.yaml (relative to FILE)")
    c.add_argument("--job-dir", help="gcloud --job-dir, for a bare config.yaml")
    c.add_argument("--output", choices=["yaml", "json", "request"], default="yaml",
                   help="yaml (native spec), json, or the Vertex AI request it makes")
    _command(c, "provider.cli.convert:run")

    for register in _extensions() if extensions else []:
        register(sub)
    return p


def _extensions() -> list[Callable[[argparse._SubParsersAction[argparse.ArgumentParser]], None]]:
    """Commands from later layers (local backend, emulator, Pulumi, GitOps) register themselves."""
    out = []
    for name in ("provider.cli.jobs", "provider.cli.emulator", "provider.cli.stacks", "provider.cli.gitops",
                 "provider.cli.completion", "provider.cli.outputs", "provider.cli.console"):
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
    parser = build_parser(extensions=completing or not words or words[0] not in CORE_COMMANDS)
    if completing:  # a shell asks for completions: answer and exit
        from provider.cli.completion import complete

        complete(parser)
    args = parser.parse_args(words)
    if not getattr(args, "_target", None):
        parser.print_help()
        return 2
    module_name, func = args._target.split(":")
    try:
        handler = getattr(importlib.import_module(module_name), func)
        return int(handler(args) or 0)
    except UserError as exc:
        print(f"trainjobs: {exc.message}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("trainjobs: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:
        if os.environ.get("TRAINJOBS_DEBUG"):
            raise
        print(
            f"trainjobs: internal error: {type(exc).__name__}: {exc}\n"
            "This is a bug in trainjobs. Run again with TRAINJOBS_DEBUG=1 to see the traceback.",
            file=sys.stderr,
        )
        return 3


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
