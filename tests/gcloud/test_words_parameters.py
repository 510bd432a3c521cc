"""``${NAME:-word}`` and its kin, and assignments before ``&&``, read as a real bash reads them.

Each line is given to bash with the same environment (test_words_bash.bash_words: a UTF-8
locale, a scratch folder as the current directory); the words split_words reads must be exactly
the words bash passes. X, Y, Z and UNDEFINED are not set; EMPTY is set and empty. What bash would
stop at, or run, or expand from the machine, is refused by name, at its column. The end-to-end
cases are the public inputs of corpus5_failures.md (sections 3 and 6), through ``trainjobs
convert --gcloud``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from provider.gcloud.command import GcloudError, parse
from provider.gcloud.words import ShellError, read_line, split_words

from ..conftest import run_cli
from .test_real_inputs import _repo
from .test_words_bash import BASH, ENV, bash_words

READ_AS_BASH = [
    # unset, empty and set: with and without the colon
    r'''${X:-a b} ${X-d} ${EMPTY-d} ${EMPTY:-d} ${V:-d} ${V-d} "${EMPTY-d}" "${X:-a  b}"''',
    r'''${X+y} ${V+y} ${EMPTY+y} ${EMPTY:+y} ${V:+y} ${X:+y} a${X:+y}b "${X+y}"''',
    # quotes in the word, unquoted and in double quotes
    r'''"${X:-'a b'}" ${X:-'a b'} ${X:-"a b"c d} d${X:-e f}g "${X:-a "b c" d}"''',
    r'''${X:-"}"} ${X:-'}'} "${X:-'}'}" "${X:-"a}"}" "${X:-'$V'}" "${X:-\'}"''',
    r'''${X:-{a}b} "${X:-{a}b}" ${X:-{a,b}} ${X:-a:~} x${X:-:~} "${X:-~}" ${X:-"~"} ${X:-\~}''',
    r'''${X:-$'\t'}x "${X:-$'\t'}" ${X:-$'a b'} ${X:-$"a  b"}''',
    r'''"${X:-$"a"}" "${X:-a'b}'}" ${X:-a'b}'} ${X:-\'} "${X:-\"}" ${X:-a"b}"c} "${X:-${V:-"a}"}}"''',
    r'''${X:-'a\'} ${X:-$'a\'b'} ${X:+a b}x ${V:+a  b}x ${V-x}${X-y} ${X-"$SPACED"} ${X-$SPACED}x''',
    r'''"${X-"$SPACED"}" "${X-'$SPACED'}" ${X:-=~/a} "${X:-#}" ${X:-\#} ${X:-$LEAD}end ${X:-\\\}}''',
    r'''${X:-\"} "${X:-\'}" ${X:-"\}"} "${X:-"\}"}" "${X:-${Y:-"\}"}}" "${X:-$"\}"}" "${X:-"a"}" "\}"''',
    r'''${X:-"$'a'"} ${X:-"${Y:-$'b'}"} "${X:-"$'c'"}" ${X:-"${Y:-'q'}"} "${X:-${Y:-'q'}}" ${X:-${Y:-'q'}}''',
    # variables and nested expansions in the word
    r'''"${X:-"${Y:-"z  z"}"}" ${X:-a${Y:-b c}d} ${X:-$V"$V"'$V'} ${V+"$SPACED"} "${V+$SPACED}" ${V:+'$SPACED'}''',
    r'''${X:-$SPACED} "${X:-$SPACED}" ${X:-"$SPACED"} ${V:+$SPACED} ${X:-$V$V} ${X:-${EMPTY:-${V}w}}''',
    r'''${X:-$LEAD} "${V:+$LEAD}" ${X:-$TABBED} "a${V:+"b c"}d" ${X:-${Y-${V}}}''',
    # an empty word, escapes, operators and # inside the braces
    r'''${X:-} "${X:-}" ${X:-""} a${X:-}b ${EMPTY:+''} ${X:-''}''',
    r'''"${X:-\a}" "${X:-\\}" ${X:-\\} "${X:-\$V}" "${X:-\`}" "${X:-\}}" ${X:-\}} ${X:-a\ b}''',
    "${X=}#a $EMPTY#b ''#c a\\\n#d ${EMPTY-}#'x' x \\\n#e",  # a # begins a comment only where a token begins
    '${X:-a;b} ${X:-a|b} ${X:-a&&b} ${X:-(a)} ${X:-<a>} ${X:-#a} a${X:-#} "${X:-a\\\nb}" ${X:-a\\\nb}',
    # the word is not expanded when bash does not use it: an undefined variable or a ? there is fine
    r'''${V:-$UNDEFINED} ${V-${Y:?x}} ${X:+$UNDEFINED} ${V:-~} "${V:-"$UNDEFINED"}" ${X+${UNDEFINED:?}}''',
    # ... nor a command substitution bash does not run there (TAG=${TAG:-$(git rev-parse HEAD)}: find_string id
    # 22946584282), also one that holds a ) or a quote
    r'''${V:-$(git rev-parse HEAD)} "${V:-$(id -u)}" a${V-$(date +%s)}b ${X+$(hostname)} ${V:-$(echo ")")}''',
    # a substring of numbers written out (JOB_NAME=${JOB_NAME:0:18}: find_string id 18146583863)
    r'''${SPACED:0:2}x "${SPACED:1}" ${LEAD: -3} "${LEAD: -30}" ${SPACED:1:-1}y ${V:9} ${LEAD:1:-1} "${EMPTY:0:2}" ${V:0}''',
    # assignment: the rest of the line reads the value
    r'''${X:=q} $X "${Y:=a  b}" $Y "$Y" ${EMPTY:=e} $EMPTY ${Z=} ${V:=no} x${Z:=z}''',
    # a ? of a variable that is set, and a glob that matches nothing (kept)
    r'''${V:?unset} ${EMPTY?x} "${EMPTY?}" ${X:-*.none} ${X:-$STAR.none} ${V:+[xyz]rainer.py}''',
]


@pytest.mark.parametrize("words", READ_AS_BASH)
def test_parameter_expansions_are_read_as_bash_reads_them(words: str, tmp_path: Path) -> None:
    (tmp_path / "trainer.py").write_text("")  # a file a glob could match: none is left unquoted here
    assert split_words("gcloud " + words, ENV, tmp_path)[1:] == bash_words(words, tmp_path)


@pytest.mark.parametrize(("words", "plain"), [
    (r'''"${X:-$'a\'b'}"''', "a'b"), (r'''"${X:-$'a\x22'}"''', 'a"'), (r'''"${X:-$'a\x5c'}"''', "a\\"),
    (r'''"${X:-$'\x24V'}"''', "$V"), (r'''"${V:-$'a\x22'}"''', "v"), (r'''"${V:+$'\x7d'{a,b}"''', "}{a,b"),
])
def test_an_ansi_c_string_bash_reads_again_in_a_quoted_word_is_refused(words: str, plain: str, tmp_path: Path) -> None:
    """bash 5 reads what a $'...' stands for again inside "${X:-...}": a quote opens, a $ expands."""
    done = subprocess.run([BASH, "-c", f'printf "%s\\0" {words}'], cwd=tmp_path, env=ENV, capture_output=True,
                          timeout=60)
    assert done.returncode != 0 or done.stdout != plain.encode() + b"\0"  # not what a plain reading gives
    with pytest.raises(ShellError) as exc:
        split_words(f"gcloud {words}", ENV, tmp_path)
    assert "column 14: a $'...' that stands for \", ', \\, `, $ or } inside a double-quoted ${...} word is read " \
           "again" in str(exc.value)


def _bash_stderr(words: str, cwd: Path) -> str:
    done = subprocess.run([BASH, "-c", f'printf "%s\\0" {words}'], cwd=cwd, env=ENV, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode != 0 and not done.stdout
    return done.stderr


@pytest.mark.parametrize(("words", "bash_says", "state"), [
    ("${X:?}", "X: parameter null or not set", "$X is not set"),
    ("${X?}", "X: parameter not set", "$X is not set"),
    ("${EMPTY:?}", "EMPTY: parameter null or not set", "$EMPTY is empty"),
    ('"${X:?set X first, as in $V}"', "X: set X first, as in v", "$X is not set"),
    ("${X:?'a  b'}", "X: a  b", "$X is not set"),
])
def test_a_question_mark_of_a_missing_variable_is_bashs_own_message(words: str, bash_says: str, state: str,
                                                                   tmp_path: Path) -> None:
    assert bash_says in _bash_stderr(words, tmp_path)
    with pytest.raises(ShellError) as exc:
        split_words(f"gcloud x {words}", ENV, tmp_path)
    message = str(exc.value)
    assert message.startswith(f"column {10 + words.index('$')}: bash would stop here with '{bash_says}' ({state}")
    assert "export " in message


@pytest.mark.parametrize(("word", "says"), [
    ("${V#v}", "${V#...} is pattern removal (${NAME#...}, ${NAME##...}), not read here; write the value out, or "
               "give it as a variable of the environment"),
    ("${V%%v}", "${V%...} is pattern removal"),
    ("${V/v/w}", "${V/...} is pattern substitution"),
    ("${V^^}", "${V^...} is case modification"),
    ("${V,,}", "${V,...} is case modification"),
    ("${V:0:-2}", "bash would stop here with '-2: substring expression < 0'"),
    ("${V:a}", "${V:...} is a substring"),
    ("${V@Q}", "${V@...} is a transformation"),
    ("${V[@]}", "arrays cannot come from the environment"),
    ("${#V}", "${#...} is a length"),
    ("${!V}", "${!...} is an indirect expansion"),
    ("${1}", "${1...} is a special shell parameter"),  # ${1:-x} is read: tests/gcloud/test_positional_defaults.py
    ("${1:=x}", "${1=...} cannot assign a positional parameter"),
    ("${@}", "${@...} is a special shell parameter"),
    ("${}", "not followed by a variable's name (bash: bad substitution)"),
    # a GitHub Actions run: block pasted as written (find_string id 18336674485, --region=${{ env.REGION }})
    ("--region=${{ env.REGION }}", "${{ env.REGION }} is a GitHub Actions expression, replaced by GitHub before bash"),
    ("${{ github.sha", "${{ ... }} is a GitHub Actions expression"),
    ("${V", "this ${V is never closed"),
    ("${X:-a", "this ${ is never closed"),
    ("${X:-$(id)}", "$(...) is command substitution"),
    ("${X:-`id`}", "backticks are command substitution"),
    ('"${X:-`id`}"', "backticks are command substitution"),
    ("${X:-$UNDEFINED}", "$UNDEFINED is not defined in the environment"),
    ("${X:-~/pkg}", "~ at the start of this ${...} word would be expanded by bash"),
    ("a${X:-~}", "~ at the start of this ${...} word would be expanded by bash"),
    ("${X:=~}", "~ at the start of this ${...} word would be expanded by bash"),
    ("${X:-*.py}", "unquoted glob (*, ? or [...]) that matches files here ('trainer.py')"),
    ("${V:+trainer.p?}", "unquoted glob"),
])
def test_what_is_not_read_is_refused_by_name_at_its_column(word: str, says: str, tmp_path: Path) -> None:
    (tmp_path / "trainer.py").write_text("")
    with pytest.raises(ShellError) as exc:
        split_words(f"gcloud x {word}", ENV, tmp_path)
    message = str(exc.value)
    assert says in message
    assert message.startswith("column 1") and int(message.split(":")[0].split()[1]) >= 10


def test_a_secret_variable_stands_as_its_marker_and_its_default_as_written() -> None:
    env = {"API_TOKEN": "s3cret", "EMPTY_TOKEN": ""}
    line = read_line("gcloud x ${API_TOKEN:-none} ${MY_TOKEN:-fallback} ${EMPTY_TOKEN:-d} ${API_TOKEN:+on}", env)
    assert line.words == ["gcloud", "x", "\0API_TOKEN\0", "fallback", "d", "on"]
    assert "s3cret" not in repr(line) and line.secret == ["API_TOKEN"] and line.plain == {}


def test_the_variables_read_are_named_once_with_their_values() -> None:
    line = read_line("gcloud x ${V:-d} ${X:-$EMPTY} ${X:+$SPACED}", ENV)
    assert line.plain == {"V": "v", "EMPTY": ""}  # X is not set; $SPACED is in a word bash does not expand


def _bash_after(prefix: str, words: str, cwd: Path) -> list[str]:
    out = subprocess.run([BASH, "-c", f'{prefix} printf "%s\\0" {words}'], cwd=cwd, env=ENV, capture_output=True,
                         check=True, timeout=60).stdout
    return [w.decode("utf-8", "surrogateescape") for w in out.split(b"\0")[:-1]]


ASSIGNED_FIRST = [
    ("A=1 B=$A C=\"${V} x\" &&", "$A $B \"$C\" $C"),
    ("JOB_NAME=train_run REGION=europe-west1 JOB_DIR=gs://pellet_labels/${JOB_NAME}/pellet_labels_model &&",
     "$JOB_NAME --region $REGION --job-dir $JOB_DIR"),
    ("V=shadow &&", "$V \"${V:-x}\""),  # the shell variable, not the environment's
    ("A=1;", "$A"),
    ("A=1 ;", "$A"),
    ("A=1\n", "$A"),
    ("A=1\n\n# a comment\nB=2 &&\\\n", "$A$B"),
    ("A=1 && B=$A &&", "$A $B"),
    ("A=1 &&\n", "$A"),
    ("A=1 B=${X:=$A} C=${Y:-$B} D=${B:+$A$B} &&", "$A $B $X $C $D"),
    ("A=$SPACED B=\"$LEAD\" &&", "$A \"$A\" \"$B\""),  # an assignment is never split
    ("A=*.py B={a,b} &&", "\"$A\" \"$B\""),  # nor globbed nor brace-expanded
    ("A=${X:-d} B=${A:+set} &&", "$A $B ${X-unset}"),
    ("A= &&", "\"$A\" ${A:-empty} ${A-unset}"),
    # a script's lines pasted whole (find_string ids 66419925979, 37609886865: REGION="${REGION:-us-central1}")
    ('REGION="${REGION:-us-central1}"\nPROJECT_ID=${PROJECT_ID:-my-project} # the default project\n',
     "--region=$REGION --project=${PROJECT_ID}"),
]


@pytest.mark.parametrize(("prefix", "words"), ASSIGNED_FIRST)
def test_assignments_alone_before_the_command_set_its_variables_as_bash_does(prefix: str, words: str,
                                                                           tmp_path: Path) -> None:
    (tmp_path / "trainer.py").write_text("")
    assert split_words(f"{prefix} gcloud {words}", ENV, tmp_path)[1:] == _bash_after(prefix, words, tmp_path)


def test_a_prefix_assignment_is_the_commands_environment_not_its_words(tmp_path: Path) -> None:
    """``A=1 gcloud $A``: bash expands ``$A`` before it assigns; a later assignment sees an earlier one."""
    assert split_words("V=1 W=$V gcloud $V", ENV, tmp_path) == ["V=1", "W=1", "gcloud", "v"]
    assert _bash_after("V=1 W=$V", '"$V" && printf "%s\\0" "$V"', tmp_path) == ["v", "v"]
    # nor is a prefix assignment's value split or globbed: it is one word, as bash assigns it
    (tmp_path / "x.py").write_text("")
    assert split_words("A=$SPACED B=*.py gcloud x", ENV, tmp_path) == ["A=a  b", "B=*.py", "gcloud", "x"]
    shown = subprocess.run([BASH, "-c", 'A=$SPACED B=*.py printenv A B'], cwd=tmp_path, env=ENV, capture_output=True,
                           text=True, check=True, timeout=60).stdout
    assert shown == "a  b\n*.py\n"


@pytest.mark.parametrize(("line", "says"), [
    ("A=1 || gcloud x", "column 5: a second command (||) is not part of one gcloud command; give the gcloud"),
    ("A=1 & gcloud x", "column 5: a second command (&) is not part of one gcloud command; give the gcloud"),
    ("A=1 | gcloud x", "column 5: a pipe (|) after 'A=1': bash runs each side of a pipe in a subshell"),
    ("cd src && gcloud x", "column 8: a second command (&&) is not part of one gcloud command (only NAME=value "
                           "assignments, export NAME=value, set options and gcloud config set PROPERTY VALUE may "
                           "come before it: bash runs them before the gcloud command)"),
    ("A=1 cp a b && gcloud x", "column 12: a second command (&&)"),
    ("&& gcloud x", "column 1: a second command (&&)"),
    ("gcloud x; A=1", "column 11: 'A=1' after the training command would run as well"),
    ("A=1 && gcloud x && gsutil ls", "column 20: 'gsutil ls' after the training command would run as well"),
    ("A=$(date) && gcloud x", "column 3: '$(date)': date without +FORMAT prints the time in its locale's own format"),
    ("A=~/x && gcloud x", "~ becomes a home folder"),
    ("A=1 &&", "not a gcloud command"),
])
def test_what_else_comes_before_or_after_is_refused_naming_the_operator_as_written(line: str, says: str) -> None:
    with pytest.raises((ShellError, GcloudError)) as exc:
        parse(split_words(line, ENV))
    assert says in str(exc.value)


# corpus5_failures.md section 3: a public submit script (find_string id 49019897313), trimmed.
ETPGT = ("gcloud ai custom-jobs create --region=us-central1 --display-name=d "
         "--worker-pool-spec=machine-type=n1-standard-4,container-image-uri=gcr.io/p/i "
         '--service-account="${GCP_SERVICE_ACCOUNT:-etpgt-sa@p.iam.gserviceaccount.com}"')


@pytest.mark.parametrize(("env", "account"), [
    ({"GCP_SERVICE_ACCOUNT": "a@b.iam.gserviceaccount.com"}, "a@b.iam.gserviceaccount.com"),
    ({"GCP_SERVICE_ACCOUNT": ""}, "etpgt-sa@p.iam.gserviceaccount.com"),
    ({}, "etpgt-sa@p.iam.gserviceaccount.com"),
])
def test_convert_reads_a_default_in_the_gcloud_line(env: dict[str, str], account: str, tmp_path: Path) -> None:
    base = {k: v for k, v in os.environ.items() if k != "GCP_SERVICE_ACCOUNT"}  # unset, whatever runs the suite
    done = subprocess.run([sys.executable, "-m", "provider", "convert", "--gcloud", ETPGT], cwd=_repo(tmp_path),
                          env={**base, **env, "NO_COLOR": "1"}, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"  serviceAccount: {account}\n" in done.stdout


# corpus5_failures.md section 6: a public README (find_string id 33803566558), as written.
PELLET = ("JOB_NAME=train_run REGION=europe-west1 JOB_DIR=gs://pellet_labels/${JOB_NAME}/pellet_labels_model && "
          "gcloud ai-platform jobs submit training $JOB_NAME --package-path trainer/ --module-name trainer.task "
          "--region $REGION --scale-tier BASIC_GPU --python-version 3.5 --runtime-version 1.13 --job-dir $JOB_DIR "
          "--stream-logs -- --train-files gs://pellet_labels/amman_atb_data.zip gs://pellet_labels/i2a_atb_data.zip "
          "--weights 3 1")


def test_convert_reads_assignments_before_and_and_as_bash_does(tmp_path: Path) -> None:
    done = run_cli("convert", "--gcloud", PELLET, cwd=_repo(tmp_path), env={"REGION": "us-central1"})
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "  name: train_run\n" in out and "  region: europe-west1\n" in out  # the line's REGION, not the outer one
    assert "  jobDir: gs://pellet_labels/train_run/pellet_labels_model\n" in out
    assert "  - --train-files\n  - gs://pellet_labels/amman_atb_data.zip\n  - gs://pellet_labels/i2a_atb_data.zip\n" \
           "  - --weights\n  - '3'\n  - '1'\n" in out
    assert "read from the environment" not in out + done.stderr  # nothing came from the environment


def test_convert_names_the_operator_the_user_wrote(tmp_path: Path) -> None:
    done = run_cli("convert", "--gcloud", "cd trainer && " + PELLET.split(" && ")[1], cwd=_repo(tmp_path))
    assert done.returncode == 1
    assert "column 12: a second command (&&) is not part of one gcloud command" in done.stderr
    assert "Traceback" not in done.stderr


def test_convert_says_what_is_allowed_after_a_refused_expansion(tmp_path: Path) -> None:
    done = run_cli("convert", "--gcloud", "gcloud ai custom-jobs create --region=${REGION%-*}", cwd=_repo(tmp_path),
                   env={"REGION": "us-central1"})
    assert done.returncode == 1
    assert done.stderr == (
        "trainjobs: <gcloud command>: column 39: ${REGION%...} is pattern removal (${NAME%...}, ${NAME%%...}), not "
        "read here; write the value out, or give it as a variable of the environment; allowed: quotes, \\-newline, "
        "$'...', $VAR, ${VAR} and ${VAR:-word} (also -, :+, +, :=, =, :?, ?) from the environment, $(date +FORMAT), "
        "$(gcloud config get-value PROPERTY), NAME=value assignments, export/declare NAME=value, set -euo pipefail and "
        "gcloud config set PROPERTY VALUE alone before &&, ; or a newline (bash runs them before the gcloud command), "
        "cat > FILE <<EOF (a here-document) before it for the file its --config names, "
        "and echo, printf, :, true, sleep N or date before or after it (they change nothing in the job)\n")
