"""The words of a command line against a real bash: what trainjobs reads is what bash passes.

Each line is given to ``bash -c 'printf "%s\\0" WORDS'`` (a UTF-8 locale, a scratch folder as the
current directory, the same environment), and its words must be exactly those split_words reads.
What bash would expand from the machine (``~``, globs that match files, braces) is refused by
name; bash is asked too, to show that it would indeed have changed the word. A glob that matches
nothing is kept as written, as bash keeps it.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from provider.gcloud.words import ShellError, split_words

BASH = shutil.which("bash") or "bash"  # the oracle: installed wherever the suite runs (never skipped)

ENV = {"V": "v", "SPACED": "a  b", "TABBED": "a\tb\nc", "NBSP": "a\u00a0b", "EMPTY": "", "LEAD": "  x y  ",
       "STAR": "*.py", "TILDE": "~/x", "BRACE": "{a,b}", "LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin",
       "HOME": "/home/someone"}


def bash_words(words: str, cwd: Path) -> list[str]:
    out = subprocess.run([BASH, "-c", f'printf "%s\\0" {words}'], cwd=cwd, env=ENV, capture_output=True,
                         check=True, timeout=60).stdout
    return [w.decode("utf-8", "surrogateescape") for w in out.split(b"\0")[:-1]]


READ_AS_BASH = [
    r"$'a\tb' $'\x41\102\x4g' $'\u00e9\U0001F600' $'\cA\c?\cz' $'it\'s' $'\q\x\u\c'",
    r"$'a\x00b'c $'\0' $'\177' $'\400x' $'\1234' $'\e[31m' x$'y'z",
    r'$"hi $V" "$V"$"x" $"" "" '"''",
    r"$V $SPACED $TABBED $NBSP $EMPTY ''$EMPTY a$LEAD\b \"$LEAD\"",
    r"x~ '~' \~ \"~\"/x --a=~/x a:~/b \~root",
    r"{a} '{a,b}' \{a,b\} {a\,b} '{1..3}' {} a{b",
    r"a[b '*' \* \? '[ab]' a\[b] $'*'",
    r"'a b' \"c \\\" d\" e\ f g\\h '$V' \$V ${V}y \$",
    r"--region=us-central1 --labels=a=b,c=d -- --lr=0.1 x#y",
    r"--train-files=gs://b/data/train-*.csv nothing?.py [xyz]rainer.py *.none $STAR.none",  # no match: kept
]


@pytest.mark.parametrize("words", READ_AS_BASH)
def test_words_are_read_as_bash_reads_them(words: str, tmp_path: Path) -> None:
    (tmp_path / "trainer.py").write_text("")  # a file a glob could match: none is left unquoted here
    assert split_words("gcloud " + words, ENV, tmp_path)[1:] == bash_words(words, tmp_path)


EXPANDED_BY_BASH = [
    ("~/pkg", "~ becomes a home folder"),
    ("~", "~ becomes a home folder"),
    ("~root/x", "~ becomes a home folder"),
    ("A=~/x", "~ becomes a home folder"),
    ("A=b:~/c", "~ becomes a home folder"),
    ("*.py", "unquoted glob"),
    ("trainer.p?", "unquoted glob"),
    ("[t]rainer.py", "unquoted glob"),
    ("$STAR", "unquoted glob"),
    ("'tr'ainer.*", "matches files here ('trainer.py')"),
    ("{a,b}", "brace expansion"),
    ("x{,y}", "brace expansion"),
    ("{1..3}", "brace expansion"),
]


@pytest.mark.parametrize(("word", "says"), EXPANDED_BY_BASH)
def test_what_bash_would_expand_is_refused_by_name(word: str, says: str, tmp_path: Path) -> None:
    (tmp_path / "trainer.py").write_text("")
    literal = word.replace("$STAR", ENV["STAR"]).replace("'", "")
    assert bash_words(word, tmp_path) != [literal]  # bash would indeed change it
    with pytest.raises(ShellError) as exc:
        split_words(f"gcloud x {word}", ENV, tmp_path)
    message = str(exc.value)
    assert says in message and "column 10:" in message
    assert repr(literal) in message  # the word, named


@pytest.mark.parametrize("word", ["$TILDE", "$BRACE", "'~/x'", '"{a,b}"', '"*"'])
def test_a_variable_or_quoted_text_is_not_expanded_again(word: str, tmp_path: Path) -> None:
    """Tilde and braces are not expanded in a variable's value (bash expands them before variables)."""
    (tmp_path / "x.py").write_text("")
    assert split_words("gcloud " + word, ENV, tmp_path)[1:] == bash_words(word, tmp_path)


@pytest.mark.parametrize(("line", "says"), [
    ("gcloud x ( y )", "a subshell or group"),
    ("gcloud x a)b", "a subshell or group"),
    ("gcloud x $((1+2))", "command substitution or arithmetic"),
    ("gcloud x $[1+2]", "command substitution or arithmetic"),
    ("gcloud x $'open", "never closed"),
    ("gcloud x $'\\ud800'", "not a character"),
    ("gcloud x || y", "a second command (||)"),
    ("gcloud x [^a]b", "a bracket expression with ^"),
    ("gcloud x [[:alpha:]]", "a bracket expression with ^ or a [:class:]"),
])
def test_what_bash_would_refuse_or_run_is_refused(line: str, says: str) -> None:
    with pytest.raises(ShellError) as exc:
        split_words(line, ENV)
    assert says in str(exc.value)


@pytest.mark.parametrize(("line", "env", "says"), [
    ("gcloud x --region $'\\xff\\xfe'", {}, "word 4 ('\\\\xff\\\\xfe') is not valid UTF-8 (byte 0xff is not UTF-8)"),
    ("gcloud x -- --a=$'\\xc3'", {}, "is not valid UTF-8"),
    ("gcloud x --region $R", {"R": "\udcff"}, "is not valid UTF-8"),
    ("gcloud x --region \udcffus", {}, "column 19: the command line is not valid UTF-8"),
    ("gcloud x # comment \udcfe", {}, "the command line is not valid UTF-8"),
])
def test_invalid_utf8_anywhere_is_one_clear_message(line: str, env: dict[str, str], says: str) -> None:
    with pytest.raises(ShellError) as exc:
        split_words(line, env)
    assert says in str(exc.value)
    str(exc.value).encode("utf-8")  # the message itself prints on any UTF-8 terminal


def test_valid_utf8_written_as_bytes_is_text(tmp_path: Path) -> None:
    words = r"$'\xc3\xa9t\xc3\xa9'"
    assert split_words("gcloud " + words, ENV)[1:] == bash_words(words, tmp_path) == ["été"]
