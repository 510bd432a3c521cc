"""A shell script around its gcloud training command (provider.gcloud.script, provider.gcloud.substitution), and
``trainjobs convert train.sh`` (provider.cli.convert_script).

What bash does is asked of a real bash: each script runs with ``gcloud`` as a function that writes the words of
the training command (and runs the real, installed gcloud for ``gcloud config``, with its own configuration
folder), and ``date`` as a function that asks the real ``date`` for one frozen time (``date -d @T``); the words
split_words reads, with the conversion's clock frozen at that time, must be exactly those. The scripts of
tests/gcloud/scripts/ are public scripts, adapted as each says.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from provider.core import clock
from provider.gcloud.command import parse
from provider.gcloud.words import ShellError, read_line, split_words

from ..conftest import run_cli
from .test_words_bash import BASH

SCRIPTS = Path(__file__).parent / "scripts"
GCLOUD = shutil.which("gcloud") or "gcloud"  # installed wherever the suite runs, as the oracle needs it
FROZEN = 1700000000.0  # 2023-11-14 22:13:20 UTC
TRAIN = "gcloud ai-platform jobs submit training"
IMAGE = "--region us-central1 --master-image-uri gcr.io/p/i:1 --scale-tier BASIC"


@pytest.fixture
def frozen(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(clock, "now", lambda: FROZEN)


def _env(tmp_path: Path, **more: str) -> dict[str, str]:
    config = tmp_path / "gcloud-config"
    config.mkdir(exist_ok=True)
    return {"PATH": os.environ.get("PATH", ""), "LC_ALL": "C.UTF-8", "TZ": "UTC", "CLOUDSDK_CONFIG": str(config),
            "CLOUDSDK_CORE_DISABLE_PROMPTS": "1", "V": "v", **more}


def _bash_words(script: str, env: dict[str, str], tmp_path: Path) -> list[str]:
    """The words a real bash passes to the training command of ``script``."""
    out = tmp_path / "words"
    stubs = (f'gcloud() {{ if [ "$1" = config ]; then command {GCLOUD} "$@"; '
             f'elif [ "$3" = submit ] || [ "$3" = create ]; then printf "%s\\0" gcloud "$@" > {out}; fi; }}\n'
             f'date() {{ command date -d @{int(FROZEN)} "$@"; }}\nsleep() {{ :; }}\n')
    done = subprocess.run([BASH, "-c", stubs + script], cwd=tmp_path, env=env, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return [w.decode() for w in out.read_bytes().split(b"\0")[:-1]]


QUIET_AROUND = [
    f'#!/bin/bash\nset -e\necho "Submitting job"\nprintf "%s\\n" "$V"\n:\ntrue\nsleep 10\ndate\n{TRAIN} j_$V {IMAGE}\n'
    "gcloud ai-platform jobs stream-logs j_$V\n",
    f'JOB=j1\n{TRAIN} $JOB {IMAGE} && gcloud ai-platform jobs describe $JOB; echo "done"\n',
    'gcloud ai custom-jobs create --region=us-central1 --display-name=d --worker-pool-spec='
    'machine-type=n1-standard-4,replica-count=1,container-image-uri=gcr.io/p/i:1\n'
    'gcloud ai custom-jobs stream-logs projects/p/locations/us-central1/customJobs/1\n',
    ': ${SUFFIX:=x}\n' + f"{TRAIN} job_$SUFFIX {IMAGE}\n",  # : runs its word's expansion: SUFFIX is set
    f"{TRAIN} j {IMAGE}\necho submitted\nexit 0\n",
]


@pytest.mark.parametrize("script", QUIET_AROUND)
def test_commands_that_print_or_read_around_the_training_command_are_noted(script: str, tmp_path: Path) -> None:
    env = _env(tmp_path)
    line = read_line(script, env, tmp_path)
    assert line.words == _bash_words(script, env, tmp_path)
    assert any("ignored" in note for note in line.notes)


# Output redirections and | tee: where a command prints, nothing of the job (provider.gcloud.redirection). The forms
# are public scripts' idioms (find_string ids 62316938618: '2>&1 | tee "$log"', 62497755548: 'echo "..." >&2'), and
# bash's grammar: a redirection anywhere among a simple command's words, digits right before it its descriptor.
REDIRECTED = [  # (script, what a note says)
    (f'echo "Submitting" >&2\n{TRAIN} j_$V {IMAGE}\n', "echo's stdout goes to stderr (>&2)"),
    (f">&2 echo start\n{TRAIN} j {IMAGE}\n", "echo's stdout goes to stderr (>&2)"),
    (f"echo x > notes.txt\n{TRAIN} j {IMAGE}\n", "echo's stdout is written to notes.txt (> notes.txt)"),
    (f"{TRAIN} j {IMAGE} > out.txt\n", "training's stdout is written to out.txt (> out.txt)"),
    (f"{TRAIN} j {IMAGE} 2>&1\n", "training's stderr goes to stdout (2>&1)"),
    (f"{TRAIN} j {IMAGE} 2>&1 | tee train.log\n", "| tee: the output before it is also written to train.log"),
    (f"{TRAIN} j {IMAGE} |& tee -a train.log\necho done\n", "|& tee: the output before it is also written to train.log"),
    (f"{TRAIN} j {IMAGE} >/dev/null\n", "stdout is written to /dev/null"),
    (f"{TRAIN} j >out.txt {IMAGE} 2>err.txt --async\n", "training's stderr is written to err.txt (2> err.txt)"),
    (f"{TRAIN} j {IMAGE} &> all.log && echo ok >> all.log\n", "stdout and stderr is written to all.log (&> all.log)"),
    (f'{TRAIN} j_$V {IMAGE} > "out $V.txt" 2>&1\n', "is written to out v.txt"),
    (f"{TRAIN} j {IMAGE} --labels=k=x2>f\n", "stdout is written to f (> f)"),  # x2>: the word ends in x2, > is stdout's
]


@pytest.mark.parametrize(("script", "says"), REDIRECTED)
def test_output_redirections_are_read_and_noted(script: str, says: str, tmp_path: Path) -> None:
    env = _env(tmp_path)
    line = read_line(script, env, tmp_path)
    assert line.words == _bash_words(script, env, tmp_path)
    assert any(says in note for note in line.notes), line.notes


REDIRECTION_REFUSED = [
    (f"{TRAIN} j {IMAGE} < answers.txt", "column 115: an input redirection (<) gives the command a file as its standard "
                                         "input: gcloud may read its standard input"),
    (f"{TRAIN} j {IMAGE} <<EOF\ny\nEOF", "a here-document (<<)"),
    (f"{TRAIN} j {IMAGE} <<< y", "a here-string (<<<)"),
    (f"cat answers.txt | {TRAIN} j {IMAGE}", "column 17: a pipe (|) into gcloud: gcloud would read what 'cat' prints"),
    (f"echo y | {TRAIN} j {IMAGE}", "a pipe (|) into gcloud"),
    (f"{TRAIN} j {IMAGE} | grep -v WARNING", "a pipe (|) into 'grep': it would run as well"),
    (f"{TRAIN} j {IMAGE} >&-", "'>&-' closes the command's stdout"),
    (f"{TRAIN} j {IMAGE} 3>x", "'3> x' redirects file descriptor 3"),
    (f"{TRAIN} j {IMAGE} >&3", "file descriptor 3 is not open in a script"),
    (f"{TRAIN} j {IMAGE} >", "> without a file after it"),
    (f"JOB=j | tee x\n{TRAIN} $JOB {IMAGE}", "a pipe (|) after 'JOB=j': bash runs each side of a pipe in a subshell"),
    # a public script logs docker in first (find_string id 15263705304): the pipe's cause is the command after it
    (f"gcloud auth print-access-token | docker login -u oauth2accesstoken --password-stdin https://gcr.io\n{TRAIN} j "
     f"{IMAGE}", "column 32: a pipe (|) after 'gcloud auth print-access-token': the token it prints goes to the "
                 "command after the pipe (docker login...), which would run"),
    (f"echo 'trainingInput: {{}}' > c.yaml\n{TRAIN} j {IMAGE} --config=c.yaml", "line 1, column 28: c.yaml is written "
     "here, before the training command reads it ('--config=c.yaml')"),
    (f"echo 'trainingInput: {{}}' | tee ./c.yaml\n{TRAIN} j {IMAGE} --config c.yaml", "./c.yaml is written here"),
]


@pytest.mark.parametrize(("script", "says"), REDIRECTION_REFUSED)
def test_input_redirections_and_pipes_into_commands_are_refused(script: str, says: str, tmp_path: Path) -> None:
    with pytest.raises(ShellError) as refused:
        split_words(script, {}, tmp_path)
    assert says in str(refused.value)


def test_bash_runs_the_redirections_as_said(tmp_path: Path) -> None:
    """What the notes and refusals above say of bash: the x2 of x2>f is a word, 2>&1 | tee keeps both streams,
    >&3 stops the command, and a pipe's assignment is lost."""
    env = {"PATH": os.environ.get("PATH", ""), "LC_ALL": "C"}
    run = subprocess.run([BASH, "-c", "echo a x2>f; cat f; { echo o; echo e >&2; } 2>&1 | tee g >/dev/null; cat g; "
                          "echo z >&3; echo rc=$?; A=1 | true; echo A=$A"], cwd=tmp_path, env=env, capture_output=True,
                         text=True)
    assert run.stdout == "a x2\no\ne\nrc=1\nA=\n" and "Bad file descriptor" in run.stderr


SUBSTITUTED = [
    "JOB=census_$(date +%Y%m%d_%H%M%S)",
    "JOB=census_`date '+%Y%m%d_%H%M%S'`",
    "JOB=t$(date +%s)",
    'JOB="j_$(date -u +%Y-%m-%dT%H:%M:%S%z_%Z_%j_%a_%b_%-d_%e_%k)"',
    "JOB=j_$(date +%y%m%d%H%M)",
    'PROJECT_ID=$(gcloud config get-value project); JOB=j_$PROJECT_ID',
    'PROJECT_ID=$(gcloud config get project 2>/dev/null) && JOB=j_$PROJECT_ID',
    'P=$(gcloud config list project --format "value(core.project)")\nJOB=j_$P',
    "P=$(gcloud config list project --format='value(core.project)')\nJOB=j_$P",
    'gcloud config set project other-project\nP=$(gcloud config get-value project)\nJOB=j_$P',
    'R=$(gcloud config get-value compute/region)\nJOB=j_$R',
    'JOB="j$(pwd)"',  # $(pwd): the folder the script runs from (local-package-path=$(pwd) in a public script)
    "JOB=j`pwd -L`/trainer",
]


@pytest.mark.parametrize("assignment", SUBSTITUTED)
def test_date_and_gcloud_config_substitutions_read_as_bash_runs_them(assignment: str, tmp_path: Path,
                                                                    frozen: None) -> None:
    script = f"{assignment}\n{TRAIN} $JOB {IMAGE}\n"
    env = _env(tmp_path, CLOUDSDK_CORE_PROJECT="env-project", CLOUDSDK_COMPUTE_REGION="europe-west4")
    line = read_line(script, env, tmp_path)
    assert line.words == _bash_words(script, env, tmp_path)
    assert any("the time of the conversion" in n or "gcloud" in n or "the folder the script runs from" in n
               for n in line.notes)


@pytest.mark.parametrize("form", ["+%Y%m%d_%H%M%S", "+%s", "-u +%H:%M %Z %z", "+%a %A %b %B %p %j %U %V %G %u %w %C",
                                  "+%-m/%_d/%0e %F %T %D %R %h %I %l %P %%", "+%EY %Oe"])
@pytest.mark.parametrize("zone", ["UTC", "America/New_York", "Asia/Kolkata"])
def test_date_formats_as_the_real_date(form: str, zone: str, monkeypatch: pytest.MonkeyPatch, frozen: None,
                                       tmp_path: Path) -> None:
    utc, fmt = form.startswith("-u "), form.removeprefix("-u ")
    monkeypatch.setenv("TZ", zone)
    time.tzset()
    try:
        words = split_words(f"gcloud \"$(date {'-u ' if utc else ''}'{fmt}')\"", {}, tmp_path)
    finally:
        monkeypatch.undo()
        time.tzset()
    real = subprocess.run(["date", *(["-u"] if utc else []), "-d", f"@{int(FROZEN)}", fmt],
                          env={"TZ": zone, "LC_ALL": "C"}, capture_output=True, text=True, check=True)
    assert words[1] == real.stdout.rstrip("\n")


REFUSED = [
    (f"docker push gcr.io/p/i:1\n{TRAIN} j {IMAGE}", "line 1, column 1: 'docker push' before the training command would "
                                                    "run first, and trainjobs never runs a command"),
    (f"cd trainer\n{TRAIN} j {IMAGE}", "line 1, column 1: 'cd' before the training command changes the folder bash "
                                      "reads the command's relative paths from: run trainjobs convert from that folder"),
    (f"source env.sh\n{TRAIN} j {IMAGE}", "line 1, column 1: 'source' before the training command runs another file's "
                                         "commands, which are not read"),
    (f"{TRAIN} j {IMAGE}\ngsutil cp a gs://b/", "line 2, column 1: 'gsutil cp' after the training command"),
    (f"{TRAIN} j {IMAGE}\n\npython3 -m trainer.task", "line 3, column 1: 'python3 -m' after the training command"),
    (f"{TRAIN} j {IMAGE}\ngcloud ai-platform jobs cancel j", "line 2, column 1: gcloud ai-platform jobs cancel j after "
                                                             "the training command cancels a job"),
    (f"{TRAIN} j {IMAGE}\n{TRAIN} k {IMAGE}", "line 2, column 1: gcloud ai-platform jobs submit training is a second "
                                              "training command"),
    (f'echo "$(id -u)"\n{TRAIN} j {IMAGE}', "line 1, column 7: '$(id -u)': $(...) is command substitution"),
    (f"J=$(whoami)\n{TRAIN} $J {IMAGE}", "line 1, column 3: '$(whoami)': $(...) is command substitution"),
    (f"J=`hostname`\n{TRAIN} $J {IMAGE}", "line 1, column 3: '`hostname`': backticks are command substitution"),
    (f"J=$(pwd -P)\n{TRAIN} $J {IMAGE}", "line 1, column 3: '$(pwd -P)': pwd '-P' is not read; allowed: $(pwd)"),
    (f"J=$(date)\n{TRAIN} $J {IMAGE}", "line 1, column 3: '$(date)': date without +FORMAT"),
    (f"J=$(date +%c)\n{TRAIN} $J {IMAGE}", "date's %c prints the locale's own format"),
    (f"J=$(date +%N)\n{TRAIN} $J {IMAGE}", "date's '%N' is not read"),
    (f"J=$(date -d yesterday +%F)\n{TRAIN} $J {IMAGE}", "date '-d' is not read"),
    (f"J=$(date +%F; id)\n{TRAIN} $J {IMAGE}", "a second command (;)"),
    (f"J=$(gcloud config get-value project)\n{TRAIN} $J {IMAGE}",
     "line 1, column 3: '$(gcloud config get-value project)' prints the core/project property of the gcloud "
     "configuration of the machine that runs the script, which is not known here; give it: export "
     "CLOUDSDK_CORE_PROJECT=VALUE"),
    (f"J=$(gcloud config get-value account)\n{TRAIN} $J {IMAGE}", "is command substitution"),
    (f"sleep forever\n{TRAIN} j {IMAGE}", "line 1, column 7: sleep takes one duration"),
    (f"exit 0\n{TRAIN} j {IMAGE}", "line 1, column 1: 'exit' before the training command ends the script"),
    (f"{TRAIN} j {IMAGE} \\\n  --job-dir gs://b/x\n  --staging-bucket gs://b", "line 2, column 21: a newline without a "
                                                                             "backslash ends the command"),
]


@pytest.mark.parametrize(("script", "says"), REFUSED)
def test_what_else_a_script_runs_is_refused_by_name_at_its_line(script: str, says: str, tmp_path: Path) -> None:
    with pytest.raises(ShellError) as refused:
        parse(split_words(script, {}, tmp_path))
    assert says in str(refused.value)


def test_bash_runs_the_refused_forms_as_said(tmp_path: Path) -> None:
    """What the refusals above say of bash: $(date) alone prints the locale's format, an unquoted (...) in a
    substitution is a syntax error, and : runs its word's ${X:=word}."""
    run = [BASH, "-c"]
    env = {"PATH": os.environ.get("PATH", ""), "LC_ALL": "C"}
    syntax = subprocess.run([*run, "P=$(gcloud config list --format=value(core.project))"], env=env,
                            capture_output=True, text=True)
    assert syntax.returncode != 0 and "syntax error near unexpected token `('" in syntax.stderr
    with pytest.raises(ShellError, match="a subshell or group"):
        split_words("P=$(gcloud config list --format=value(core.project))\ngcloud x $P", {}, tmp_path)
    assigned = subprocess.run([*run, ": ${X:=word}; echo $X"], env=env, capture_output=True, text=True)
    assert assigned.stdout == "word\n"


@pytest.mark.parametrize("name", ["navigation_controller.sh", "rapids_a100.sh", "iris_training.sh"])
def test_a_public_script_converts(name: str, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "iris_training").mkdir(parents=True)
    (repo / "iris_training" / "__init__.py").write_text("")
    (repo / "iris_training" / "train.py").write_text("")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    shutil.copy(SCRIPTS / name, repo / name)
    env = {"CLOUDSDK_CORE_PROJECT": "env-project", "CLOUDSDK_COMPUTE_REGION": "europe-west4"}
    done = run_cli("convert", name, cwd=repo, env=env)
    assert done.returncode == 0, done.stderr
    out = done.stdout + done.stderr
    assert re.search(r"\n  name: [a-z_]+_[0-9]{8}_[0-9]{6}\n", done.stdout)
    assert "stream-logs only reads the job it submitted: ignored" in out
    assert "Traceback" not in out


def test_convert_reads_a_script_file_and_names_its_line_and_column(tmp_path: Path) -> None:
    (tmp_path / "train.sh").write_text(f'#!/bin/bash\nJOB=j1\necho "$JOB"\n{TRAIN} $JOB {IMAGE}\ngsutil ls gs://b\n')
    done = run_cli("convert", "train.sh", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.startswith("trainjobs: train.sh:5:1: 'gsutil ls' after the training command would run as well")
    (tmp_path / "submit").write_text(f"#!/usr/bin/env bash\n{TRAIN} j $UNSET {IMAGE}\n")  # no suffix: its #! line
    done = run_cli("convert", "submit", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.startswith("trainjobs: submit:2:43: $UNSET is not defined in the environment")
    (tmp_path / "flag.sh").write_text(f"#!/bin/bash\n\n{TRAIN} j --bogus-flag {IMAGE}\n")  # gcloud's refusal, placed
    done = run_cli("convert", "flag.sh", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.startswith(f"trainjobs: flag.sh:3:{len(TRAIN) + 4}: unrecognized arguments: --bogus-flag")
    (tmp_path / "train.bash").write_text(f"{TRAIN} j {IMAGE}\n")
    done = run_cli("convert", "train.bash", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "  name: j\n" in done.stdout


@pytest.mark.parametrize(("raw", "says"), [
    (b"#!/bin/sh\necho \xff\n", "run.sh:2:6: error: the file is not valid UTF-8 (byte 0xff)"),
    (b"#!/bin/sh\x00\n", "run.sh:1:1: error: this is a binary file, not a shell script"),
    (b"#!/bin/sh\n" + b"#" * (1024 * 1024 + 1), "run.sh:1:1: the file is 1,048,587 bytes, larger than the 1,048,576-byte limit"),
])
def test_a_script_that_is_not_text_is_refused_as_a_spec_is(raw: bytes, says: str, tmp_path: Path) -> None:
    (tmp_path / "run.sh").write_bytes(raw)
    done = run_cli("convert", "run.sh", cwd=tmp_path)
    assert done.returncode == 1
    assert says in done.stdout + done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(("script", "name", "column"), [
    # find_string id 29536435847: a launcher whose gcloud ai custom-jobs create is inside main() { ... }, called last
    ("#!/bin/bash\nset -e\nmain() {\n    gcloud ai custom-jobs create --display-name $JOB_NAME "
     "--region=$REGION --config=/tmp/$JOB_NAME.yaml\n}\nEPOCHS=10\nmain\n", "main", 1),
    ("f () {\n  gcloud ai custom-jobs create --region=x\n}\nf\n", "f", 1),
])
def test_a_function_definition_is_named_as_one(script: str, name: str, column: int, tmp_path: Path) -> None:
    """bash runs a function's body where the script calls it: named as a definition, not as a subshell."""
    with pytest.raises(ShellError) as refused:
        split_words(script, {}, tmp_path)
    said = str(refused.value)
    line = 3 if script.startswith("#!") else 1
    assert said.startswith(f"line {line}, column {column}: a function definition ({name}() {{ ... }})"), said
    assert "subshell" not in said
    syntax = subprocess.run([BASH, "-n", "-c", script], capture_output=True, text=True)  # bash reads it as one
    assert syntax.returncode == 0, syntax.stderr


@pytest.mark.parametrize(("script", "word", "what"), [
    # find_string id 34328271400: if [ -z "$GCP_PROJECT" ]; then echo ...; exit 1; fi before the command
    ('if [ -z "$GCP_PROJECT" ]; then\n    exit 1\nfi\ngcloud ai custom-jobs create --region=x\n', "if", "an if block"),
    # find_string id 36883783847: for i in {0..9}; do SEED=$i; gcloud ... --args="solve,--seed,${SEED}"; done
    ('for i in {0..9}; do\n  gcloud ai custom-jobs create --region=x --args="--seed,$i"\ndone\n', "for", "a for loop"),
    ("while true; do\n  sleep 1\ndone\ngcloud ai custom-jobs create --region=x\n", "while", "a while loop"),
    ("function submit() {\n  gcloud ai custom-jobs create --region=x\n}\nsubmit\n", "function",
     "a function definition"),
])
def test_a_compound_command_is_named_by_its_word(script: str, word: str, what: str, tmp_path: Path) -> None:
    """bash's compound commands are named at their first word, not by what comes next in them (an undefined $VAR
    in the test, a brace expansion, the ; before then)."""
    with pytest.raises(ShellError) as refused:
        split_words(script, {}, tmp_path)
    assert str(refused.value).startswith(f"line 1, column 1: '{word}' begins {what} ("), str(refused.value)
    syntax = subprocess.run([BASH, "-n", "-c", script], capture_output=True, text=True)
    assert syntax.returncode == 0, syntax.stderr


_CAPTURED = ("#!/usr/bin/env bash\nset -e\nREGION=us-central1\n"
             "JOB_TEXT={open}gcloud ai custom-jobs create \\\n  --region=$REGION \\\n  --display-name=embed-text \\\n"
             "  --worker-pool-spec=machine-type=n1-standard-4,container-image-uri=gcr.io/p/embed:1 \\\n"
             "  --format='value(name)'){close}\necho \"  Job: $JOB_TEXT\"\n")


@pytest.mark.parametrize(("opened", "closed"), [("$(", ""), ('"$(', '"')])
def test_a_training_command_whose_output_a_variable_keeps_is_the_command(opened: str, closed: str,
                                                                        tmp_path: Path) -> None:
    """find_string id 36901409290: JOB_TEXT=$(gcloud ai custom-jobs create ... --format='value(name)'), the job's
    name kept for the lines after it. bash runs the command as it runs it alone (a stand-in gcloud shows its words)."""
    script = _CAPTURED.format(open=opened, close=closed)
    line = read_line(script, {}, tmp_path)
    alone = read_line(script.split("JOB_TEXT=", 1)[1].replace(opened, "", 1).split(f"){closed}\n")[0],
                      {"REGION": "us-central1"}, tmp_path)
    assert line.words == alone.words == ["gcloud", "ai", "custom-jobs", "create", "--region=us-central1",
                                         "--display-name=embed-text", "--worker-pool-spec=machine-type=n1-standard-4,"
                                         "container-image-uri=gcr.io/p/embed:1", "--format=value(name)"]
    assert any(note.startswith("line 4: JOB_TEXT=$(...) keeps what the training command prints") for note in line.notes)
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "gcloud").write_text("#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$WORDS\"\necho projects/p/x/1\n")
    (tmp_path / "bin" / "gcloud").chmod(0o755)
    env = {"PATH": f"{tmp_path / 'bin'}:{os.environ.get('PATH', '')}", "WORDS": str(tmp_path / "words")}
    ran = subprocess.run([BASH, "-c", script], env=env, capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    assert (tmp_path / "words").read_text().splitlines() == line.words[1:]
    assert "Job: projects/p/x/1" in ran.stdout


@pytest.mark.parametrize(("script", "says"), [
    ("JOB=$(gcloud ai custom-jobs list --region=us-central1)\ngcloud ai custom-jobs create --region=x\n",
     "command substitution: trainjobs never runs commands"),
    ("JOB=$(gcloud ai custom-jobs create --region=x --display-name=a --worker-pool-spec=machine-type=n1-standard-4,"
     "container-image-uri=gcr.io/p/i:1) OTHER=1\n", "more comes in the same command"),
    ("JOB=$(gcloud ai custom-jobs create --region=x --display-name=a --worker-pool-spec=machine-type=n1-standard-4,"
     "container-image-uri=gcr.io/p/i:1)\ngcloud ai custom-jobs create --region=x\n", "a second training command"),
])
def test_what_a_captured_command_does_not_make_readable_is_refused(script: str, says: str, tmp_path: Path) -> None:
    with pytest.raises(ShellError, match=re.escape(says)):
        read_line(script, {}, tmp_path)


def test_a_problem_of_the_scripts_job_names_the_commands_line(tmp_path: Path) -> None:
    """A problem the spec's check finds (a runtime with no Python 3) names the script's line and column where its
    gcloud command starts, as a flag's own problem does."""
    (tmp_path / "trainer").mkdir()
    for name in ("__init__.py", "task.py"):
        (tmp_path / "trainer" / name).write_text("")
    script = tmp_path / "cmd.sh"
    script.write_text("#!/bin/bash\nREGION=us-central1\n\n  gcloud ai-platform jobs submit training job1 \\\n"
                      "  --region=$REGION --runtime-version=1.0 \\\n  --module-name=trainer.task --package-path=trainer "
                      "--staging-bucket=gs://my-bucket\n")
    proc = run_cli("convert", "cmd.sh", cwd=tmp_path)
    assert proc.returncode == 1
    assert "cmd.sh:4:3 (its gcloud command): error: runtimeVersion '1.0' without pythonVersion" in proc.stderr, \
        proc.stderr
