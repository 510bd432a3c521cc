"""``trainjobs convert Makefile``: the target whose recipe submits a training job, converted as its gcloud command.

A file named ``Makefile``, ``makefile`` or ``GNUmakefile``, or ending in ``.mk`` (provider.cli.convert_sources picks
this reader), is read as GNU make reads it (provider.gcloud.makefile: variables, conditionals, includes, rules);
the target is ``--target NAME``, else the one whose recipe runs a training command (provider.gcloud.make_recipe);
``--var NAME=VALUE`` is make's command-line ``NAME=VALUE`` (above the file's value, unless ``override``). The recipe,
expanded as ``make -n TARGET`` prints it, is a shell script, read as ``convert train.sh`` reads one
(provider.cli.convert_script), and messages name the Makefile's line and column. ``$(shell date +FORMAT)`` is the
time of the conversion and ``$(shell gcloud config get-value PROPERTY)`` what provider.gcloud.substitution reads;
nothing is run.
"""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path

from provider.core.errors import UserError
from provider.core.exit_code import ExitCode

NAMES = ("makefile", "gnumakefile")
SUFFIXES = (".mk",)
# The convert options this reader takes of those that go only with some inputs (convert_sources.refuse_options).
TAKES: tuple[str, ...] = ("staging_bucket", "stack", "target", "var")
_VAR = re.compile(r"([^\s:#=$]+)=(.*)", re.DOTALL)
_STDERR = re.compile(r"[ \t]+2>[ \t]*/dev/null[ \t]*$")


def is_makefile(path: Path) -> bool:
    return path.name.lower() in NAMES or path.suffix.lower() in SUFFIXES


def _shell(command: str, written: str, env: Mapping[str, str], notes: list[str]) -> str:
    """What ``$(shell COMMAND)`` gives, where provider.gcloud.substitution knows it; ValueError otherwise."""
    from provider.gcloud import substitution
    from provider.gcloud.words import ShellError, split_words

    try:
        words = split_words(_STDERR.sub("", command), env)
    except ShellError as exc:
        raise ValueError(f"{written}: {exc.message}") from None
    if words[:1] in (["date"], ["pwd"]) or words[:2] == ["gcloud", "config"]:  # pwd: make's folder (PWD, CURDIR)
        try:
            printed, _ = substitution.value(words, written, {}, env, notes)
        except substitution.Refused as exc:
            raise ValueError(str(exc)) from None
        return printed.replace("\n", " ")
    raise ValueError(f"{written} runs a command when make reads it: trainjobs never runs commands; of $(shell ...) only "
                     "$(shell date [-u] +FORMAT) (the time of the conversion), $(shell gcloud config get-value "
                     "PROPERTY) of project, compute/region and ai/region, and $(shell pwd) (the folder make runs in) are "
                     "read; write the value, or give it with --var NAME=VALUE")


def _reader(folder: Path) -> Callable[[Path, str], str]:
    """The reader of the files the Makefile in ``folder`` includes: read as a spec is (size, UTF-8, a symlink only
    inside the repository), and only inside the repository; ValueError."""
    from provider.document.boundary import inside, repository_root
    from provider.document.files import read_file
    from provider.document.text import decode

    root = repository_root(Path(os.path.abspath(folder)))

    def read(path: Path, name: str) -> str:
        if not inside(Path(os.path.realpath(path.parent)) / path.name, root):  # a symlink: read_file checks it
            raise ValueError(f"include {name}: the file is outside the repository ({root}); it was not read")
        raw, problem = read_file(path, name)
        if raw is None:
            raise ValueError(f"include {name}: {problem.message if problem else 'not read'}")
        text, problems = decode(raw, name)
        if text is None:
            raise ValueError(f"include {name}: {problems[0].message if problems else 'not text'}")
        return text

    return read


def _variables(given: list[str] | None) -> dict[str, str]:
    out = {}
    for item in given or []:
        m = _VAR.fullmatch(item)
        if m is None:
            raise UserError(f"--var {item}: give NAME=VALUE, as make's command line takes it", exit_code=ExitCode.USAGE)
        out[m.group(1)] = m.group(2)
    return out


def run(raw: bytes, shown: str, path: Path, args: argparse.Namespace) -> int:
    from provider.cli.convert_gcloud import run_gcloud
    from provider.cli.convert_sources import decoded, environment
    from provider.gcloud import secrets
    from provider.gcloud.make_expand import Refused
    from provider.gcloud.make_recipe import recipe
    from provider.gcloud.makefile import Makefile
    from provider.gcloud.words import ALLOWED, ShellError, read_line

    text = decoded(raw, shown, "a Makefile")
    if text is None:
        return 1
    cwd = Path.cwd()
    try:
        mk = Makefile(os.environ, _variables(getattr(args, "var", None)), cwd, _shell, _reader(path.parent))
        mk.load(text, shown, path.parent)
        found = recipe(mk, shown, getattr(args, "target", None))
    except Refused as exc:
        raise UserError(secrets.shown(str(exc)), exit_code=1) from None
    except RecursionError:
        raise UserError(f"{shown}: it nests too deeply to be read; allowed: a Makefile as people write it",
                        exit_code=1) from None
    with environment(found.env):
        try:  # what the shell reader refuses, at the Makefile's line and column
            read_line(found.script, os.environ, cwd)
        except ShellError as exc:
            line = exc.line or 1
            lines = found.script.split("\n")
            offset = sum(len(k) + 1 for k in lines[: line - 1]) + exc.column - 1
            raise UserError(secrets.shown(f"{found.pos(offset)}: {exc.message}; allowed: {ALLOWED}"),
                            exit_code=1) from None
        args.gcloud, args.gcloud_script = found.script, shown
        args.gcloud_origin = f"{shown} target {found.target}"
        args.gcloud_at = found.pos  # a character of the recipe as the shell reads it: the Makefile's file:line:column
        args.gcloud_notes = found.notes
        return run_gcloud(args)
