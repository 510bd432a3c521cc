"""The command line read as bash reads it, and what is refused (nothing is ever run)."""

from __future__ import annotations

import pytest

from provider.gcloud.words import ShellError, split_words


def test_quotes_continuations_and_variables() -> None:
    line = "gcloud a \\\n  --b \"x $V\" '$V' ${V}y --c=\"q\\\"uote\" ''"
    assert split_words(line, {"V": "1 2"}) == ["gcloud", "a", "--b", "x 1 2", "$V", "1", "2y", '--c=q"uote', ""]


def test_an_unquoted_variable_holding_several_flags_splits_into_words() -> None:
    env = {"FLAGS": "--region us-east1  --scale-tier basic"}
    assert split_words("gcloud x $FLAGS --y", env) == ["gcloud", "x", "--region", "us-east1", "--scale-tier", "basic", "--y"]


def test_comments_and_leading_assignments() -> None:
    assert split_words("A=1 gcloud x # a comment", {}) == ["A=1", "gcloud", "x"]


@pytest.mark.parametrize(("line", "says"), [
    ("gcloud x $(id -u)", "column 10: '$(id -u)': $(...) is command substitution"),
    ("gcloud x job_`id -u`", "column 14: '`id -u`': backticks are command substitution"),
    ("gcloud x \"a `id`\"", "backticks are command substitution"),
    ("gcloud x $UNDEFINED_THING", "$UNDEFINED_THING is not defined"),
    ("gcloud x ${UNDEFINED_THING}", "$UNDEFINED_THING is not defined"),
    ("gcloud x ${V%.py}", "${V%...} is pattern removal (${NAME%...}, ${NAME%%...}), not read here"),
    ("gcloud x ${V[@]}", "arrays cannot come from the environment"),
    ("gcloud x 'open", "never closed"),
    ('gcloud x "open', "never closed"),
    ("gcloud x | grep y", "a pipe (|) into 'grep': it would run as well"),
    ("gcloud x; gsutil cp a gs://b/", "column 11: 'gsutil cp' after the training command would run as well"),
    ("gcloud x && python3 -m t", "column 13: 'python3 -m' after the training command would run as well"),
    ("A=1 || gcloud x", "a second command (||) is not part of one gcloud command; give"),
    ("A=1 & gcloud x", "a second command (&) is not part of one gcloud command; give"),
    ("gcloud x |& tee --output-error", "tee '--output-error' is not read"),
    ("gcloud x < in.txt", "an input redirection (<) gives the command a file as its standard input"),
    ("gcloud x <<< word", "a here-string (<<<)"),
    ("gcloud x >&-", "'>&-' closes the command's stdout"),
    ("gcloud x --config hyper.yaml\n  -- --download", "a newline without a backslash ends the command"),
])
def test_what_is_refused(line: str, says: str) -> None:
    with pytest.raises(ShellError) as exc:
        split_words(line, {"V": "v"})
    assert says in str(exc.value)
    assert "column " in str(exc.value)
