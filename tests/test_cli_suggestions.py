"""A mistyped command, subcommand, option or choice gets a "did you mean" naming the close match,
exit 2 (a usage error), and no traceback; a word close to nothing gets none."""

from __future__ import annotations

import pytest

from tests.conftest import run_cli


@pytest.mark.parametrize(("argv", "wanted"), [
    (["vaildate"], "did you mean 'validate'?"),
    (["jobs", "lst"], "did you mean 'list'?"),
    (["validate", "--fromat", "json", "specs/local"], "did you mean '--format'?"),
    (["validate", "--format", "jsno", "specs/local"], "did you mean 'json'?"),
    (["jobs", "list", "--limt", "3"], "did you mean '--limit'?"),
    # --cell (a notebook's) is close enough too: difflib's ratio 0.62 passes the 0.6 cutoff; --gcloud comes first
    (["convert", "--gclod", "gcloud ai custom-jobs create"], "did you mean '--gcloud' or '--cell'?"),
])
def test_mistyped_word_gets_the_close_match(argv: list[str], wanted: str) -> None:
    result = run_cli(*argv)
    assert result.returncode == 2, result
    assert wanted in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


def test_a_word_close_to_nothing_gets_no_suggestion() -> None:
    result = run_cli("zzzzqqq")
    assert result.returncode == 2
    assert "invalid choice: 'zzzzqqq'" in result.stderr
    assert "did you mean" not in result.stderr


def test_unrecognized_positional_words_are_still_named() -> None:
    result = run_cli("jobs", "list", "extra-word")
    assert result.returncode == 2
    assert "unrecognized arguments: extra-word" in result.stderr
    assert "did you mean" not in result.stderr


def test_convert_takes_format_as_every_command_does_and_keeps_output() -> None:
    new = run_cli("convert", "specs/local/simple.yaml", "--format", "json")
    old = run_cli("convert", "specs/local/simple.yaml", "--output", "json")
    assert new.returncode == old.returncode == 0, (new, old)
    assert new.stdout == old.stdout
    assert new.stdout.lstrip().startswith("{")
