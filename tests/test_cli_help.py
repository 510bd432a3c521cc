"""Every command's --help ends with examples, every option has a help text, and every example
parses with the command's own parser (so no example names an option that does not exist)."""

from __future__ import annotations

import argparse
import shlex

import pytest

from provider.cli import build_parser
from provider.cli.examples import EXAMPLES, commands
from tests.conftest import run_cli

PARSER = build_parser()
COMMANDS = commands(PARSER)


def test_every_command_has_examples_and_no_example_names_a_missing_command() -> None:
    assert sorted(COMMANDS) == sorted(EXAMPLES)


@pytest.mark.parametrize("path", sorted(COMMANDS))
def test_every_option_and_argument_has_help(path: str) -> None:
    missing = [a.option_strings or [a.dest] for a in COMMANDS[path]._actions
               if not a.help and not isinstance(a, argparse._SubParsersAction)]
    assert not missing, f"trainjobs {path}: no help for {missing}"


def _parses(line: str) -> None:
    words = shlex.split(line, comments=True)
    if words[:1] == ["eval"]:  # eval "$(trainjobs ...)"
        words = shlex.split(words[1][2:-1])
    if ">" in words:  # a redirection is the shell's
        words = words[:words.index(">")]
    assert words[0] == "trainjobs"
    build_parser(examples=False).parse_args(words[1:])


@pytest.mark.parametrize(("path", "line"), [(p, line) for p, lines in EXAMPLES.items() for line in lines])
def test_every_example_parses(path: str, line: str) -> None:
    _parses(line)


def test_help_shows_the_examples_as_written() -> None:
    result = run_cli("logs", "--help")
    assert result.returncode == 0
    assert "examples:\n  trainjobs logs local_simple" in result.stdout
    assert EXAMPLES["logs"][1] in result.stdout
