"""``trainjobs convert Makefile`` (provider.gcloud.makefile, make_expand, make_recipe; provider.cli.convert_makefile).

GNU make itself is the oracle: each Makefile's recipe, expanded here, must be exactly what the real ``make -n TARGET
[NAME=VALUE]`` prints (run with a controlled environment; nothing is run by make -n but the recipes' ``+`` lines, which
these Makefiles have none of); and the spec of ``convert Makefile`` must be the spec of ``convert train.sh`` where
train.sh holds the commands make -n printed. The Makefiles of tests/gcloud/makefiles/ are public ones, adapted as
each says in its header.
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
from provider.gcloud.make_expand import Refused
from provider.gcloud.make_recipe import expanded, recipe
from provider.gcloud.makefile import Makefile

from ..conftest import run_cli

MAKE = shutil.which("make")
pytestmark = pytest.mark.skipif(MAKE is None, reason="GNU make is not installed: these tests ask the real make")
HERE = Path(__file__).parent / "makefiles"
TRAIN = "gcloud ai-platform jobs submit training"
FROZEN = 1700000000.0


def _shell(command: str, written: str, env: object, notes: list[str]) -> str:
    from provider.cli.convert_makefile import _shell as shell

    return shell(command, written, env, notes)  # type: ignore[arg-type]


def _read(path: Path, name: str) -> str:
    return path.read_text()


def _ours(folder: Path, target: str, variables: dict[str, str], env: dict[str, str]) -> str:
    mk = Makefile(env, variables, folder, _shell, _read)
    mk.load((folder / "Makefile").read_text(), "Makefile", folder)
    return "".join(t.s + "\n" for _, t in expanded(mk, mk.rules[target]))


def _make(folder: Path, target: str, variables: dict[str, str], env: dict[str, str]) -> str:
    done = subprocess.run([MAKE or "make", "-s", "-n", "-f", "Makefile", target,
                           *(f"{k}={v}" for k, v in variables.items())],
                          cwd=folder, env={"PATH": os.environ["PATH"], **env}, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


# (Makefile text, target, command-line variables, environment): each reading of make's that the expansion must match.
CASES = [
    # recursive (=) against simple (:=), late definitions, $V, ${V}, $$ for the shell
    ("B = early\nA = $(B)\nC := $(B)\nB = late\nV = v\nt:\n\techo $(A) $(C) ${A} $V $$HOME $$$$\n", "t", {}, {}),
    # ?= keeps the environment's, the file wins over the environment, += of both flavors, override over the command line
    ("R ?= file\nE = file\nS := s\nS += $(E)\nQ = q\nQ += $(E)\noverride O = file\nC = file\n"
     "t:\n\techo $(R) $(E) $(S) $(Q) $(O) $(C)\n", "t", {"O": "cmd", "C": "cmd"}, {"R": "env", "E": "env"}),
    # ::=, export, trailing spaces kept before a comment, \# and a continued assignment
    ("X ::= a\nexport Y = b   # comment\nH = a\\#b\nL = one \\\n     two\\\n  three\nt:\n\techo [$(X)] [$(Y)] $(H) [$(L)]\n",
     "t", {}, {}),
    # conditionals, both spellings, else if, nested, ifdef of an empty and of a non-empty value
    ("A = 1\nE =\nifeq ($(A),1)\nX = yes\nelse\nX = no\nendif\nifneq \"$(A)\" '2'\nY = ne\nendif\n"
     "ifdef E\nZ = d\nelse ifndef A\nZ = n\nelse\nZ = other\nendif\nW = none\nifeq ( $(A) , 1 )\nW = w\nendif\n"
     "ifeq ($(A) , 1)\nW2 = w\nendif\n"
     "t:\n\techo $(X) $(Y) $(Z) [$(W)] [$(W2)]\nifeq ($(A),1)\n\techo in-recipe\nendif\n", "t", {}, {}),
    # a conditional nested in a branch not taken, else ifeq taken, an ifdef of the environment's variable
    ("A = 1\nifeq ($(A),2)\nifdef A\nX = bad\nelse\nX = bad2\nendif\nelse ifeq ($(A),1)\nX = good\nelse\nX = bad3\n"
     "endif\nifdef FROM_ENV\nY = env\nendif\nt:\n\techo $(X) $(Y)\n", "t", {}, {"FROM_ENV": "1"}),
    # prefixes @ - + and one from a variable, continuation kept in the recipe, the next line's tab taken off
    ("Q = @\nt:\n\t@echo one\n\t-echo two \\\n\t  three \\\n    four\n\t$(Q)echo five\n\n# comment\n\techo six\n", "t", {}, {}),
    # .RECIPEPREFIX, the functions read, substitution references, an inline recipe
    (".RECIPEPREFIX = >\nF = a.py b.py\nt:\n>echo $(F:.py=.o) $(F:%.py=x%) $(subst a,z,$(F)) $(patsubst %.py,%,$(F))"
     " [$(strip  a   b )] $(firstword $(F)) $(lastword $(F)) $(words $(F)) $(word 2,$(F)) $(if $(F),yes,no)\n"
     "u: ; echo inline $(F)\n", "t", {}, {}),
    ("F = x\nu: ; echo inline $(F)\n", "u", {}, {}),
    # include relative to the Makefile's folder, -include of a missing file
    ("include vars.mk\n-include missing.mk\nt:\n\techo $(FROM_INCLUDE)\n", "t", {}, {}),
    # a tab-led assignment outside a rule, export/unexport, the modifiers in either order
    ("A = 1\n\tB = 2\noverride export X = 1\nexport override Y = 2\nt:\n\techo $(B) $(X) $(Y)\n", "t", {}, {}),
    # a second recipe for a target replaces the first; CRLF line ends
    ("A = 1\r\nt:\r\n\techo $(A) \\\r\n\t  two\r\n", "t", {}, {}),
    ("t:\n\techo first\nt:\n\techo second\n", "t", {}, {}),
    # $(shell pwd): the folder make runs in, as its shell prints it (a stale $PWD of the environment aside)
    ("D = $(shell pwd)\nE := $(shell pwd)/trainer\nt:\n\techo $(D) $(E) $(CURDIR)\n", "t", {}, {"PWD": "/elsewhere"}),
]


@pytest.mark.parametrize(("text", "target", "variables", "env"), CASES)
def test_the_recipe_expands_as_make_n_prints_it(text: str, target: str, variables: dict[str, str],
                                                env: dict[str, str], tmp_path: Path) -> None:
    (tmp_path / "Makefile").write_text(text)
    (tmp_path / "vars.mk").write_text("FROM_INCLUDE = included\n")
    assert _ours(tmp_path, target, variables, env) == _make(tmp_path, target, variables, env)


def test_the_shell_date_is_the_conversion_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(clock, "now", lambda: FROZEN)
    (tmp_path / "Makefile").write_text("J = job_$(shell date -u +%Y%m%d_%H%M%S)\nt:\n\techo $(J)\n")
    notes: list[str] = []
    mk = Makefile({}, {}, tmp_path, _shell, _read)
    mk.load((tmp_path / "Makefile").read_text(), "Makefile", tmp_path)
    mk.notes = notes
    assert _ours(tmp_path, "t", {}, {}) == "echo job_20231114_221320\n"
    real = subprocess.run(["date", "-u", "-d", f"@{int(FROZEN)}", "+%Y%m%d_%H%M%S"], capture_output=True, text=True)
    assert real.stdout.strip() == "20231114_221320"


REFUSED = [
    ("A = $(B)\nB = $(A)\nt:\n\techo $(A)\n", "t", "Makefile:1:5: Recursive variable 'A' references itself"),
    ("U = $(shell whoami)\nt:\n\techo $(U)\n", "t", "Makefile:1:5: $(shell whoami) runs a command when make reads it"),
    ("t:\n\techo $(wildcard *.py)\n", "t", "Makefile:2:7: $(wildcard *.py): make's function wildcard is not read"),
    ("t:\n\techo $(NOPE)\n", "t", "Makefile:2:7: $(NOPE): make variable NOPE is not defined"),
    ("X != date\n", None, "Makefile:1:3: X != ... runs its value as a shell command"),
    ("ifeq (a,b)\nX = 1\n", None, "missing 'endif'"),
    ("endif\n", None, "Makefile:1:1: extraneous 'endif'"),
    ("just words\n", None, "Makefile:1:1: missing separator"),
    ("t: X = 1\n", None, "a target's own variable"),
    ("define X\nv\nendef\n", None, "Makefile:1:1: define is not read"),
    ("$(error stop here)\n", None, "Makefile:1:1: $(error ...): make stops here with 'stop here'"),
    ("include nothere.mk\n", None, "Makefile:1:1: include nothere.mk: no such file"),
    ("t:\n\techo 1\nA = 1\n\techo $(A)\n", None, "Makefile:4:2: recipe commences before first target"),
]


@pytest.mark.parametrize(("text", "target", "says"), REFUSED)
def test_what_make_cannot_give_here_is_refused_by_name(text: str, target: str | None, says: str,
                                                       tmp_path: Path) -> None:
    mk = Makefile({}, {}, tmp_path, _shell, _read)
    with pytest.raises(Refused) as caught:
        mk.load(text, "Makefile", tmp_path)
        if target is not None:
            expanded(mk, mk.rules[target])
    assert says in str(caught.value)


def test_make_stops_where_said(tmp_path: Path) -> None:
    """The refusals that are make's own errors are make's errors too."""
    for text, says in [("A = $(B)\nB = $(A)\nt:\n\techo $(A)\n", "Recursive variable 'A' references itself"),
                       ("ifeq (a,b)\nX = 1\n", "missing 'endif'"), ("endif\n", "extraneous 'endif'"),
                       ("just words\n", "missing separator"), ("$(error stop here)\n", "stop here"),
                       ("include nothere.mk\nt:\n\techo\n", "nothere.mk"),
                       ("t:\n\techo 1\nA = 1\n\techo $(A)\n", "recipe commences before first target")]:
        (tmp_path / "Makefile").write_text(text)
        done = subprocess.run([MAKE or "make", "-n", "t"], cwd=tmp_path, capture_output=True, text=True)
        assert done.returncode != 0 and says in done.stderr, (text, done.stderr)


def _repo(tmp_path: Path, text: str, name: str = "Makefile") -> Path:
    repo = tmp_path / "repo"
    repo.mkdir(exist_ok=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / name).write_text(text)
    return repo


IMAGE = "--region us-central1 --master-image-uri gcr.io/p/i:1 --scale-tier BASIC"
SAME_AS_SCRIPT = [
    (f"JOB ?= job_1\nREGION = us-east1\nIMG = gcr.io/p/i:1\nexport BUCKET = bucket-one\nsubmit: build\n"
     f"\t@echo submitting $(JOB)\n\t{TRAIN} $(JOB) --region $(REGION) \\\n\t  --master-image-uri $(IMG) "
     "--scale-tier BASIC \\\n\t  --job-dir gs://$$BUCKET/x -- --epochs 3\n\tgcloud ai-platform jobs stream-logs $(JOB)\n"
     "build:\n\tdocker build -t $(IMG) .\n", "submit", []),
    (f"ARGS = --lr 0.1\nlocal:\n\tgcloud ai-platform local train --package-path trainer --module-name trainer.task\n"
     f"train:\n\t{TRAIN} j2 {IMAGE} -- $(ARGS)\n", "train", ["ARGS=--lr 0.2"]),
]


@pytest.mark.parametrize(("text", "target", "variables"), SAME_AS_SCRIPT)
def test_convert_makefile_gives_the_spec_of_the_script_make_n_prints(text: str, target: str, variables: list[str],
                                                                     tmp_path: Path) -> None:
    repo = _repo(tmp_path, text)
    printed = subprocess.run([MAKE or "make", "-n", target, *variables], cwd=repo, capture_output=True, text=True)
    lines = printed.stdout.split("\n")
    script = "\n".join(lines[lines.index(next(k for k in lines if "gcloud" in k or "echo" in k)):])  # its own recipe
    (repo / "train.sh").write_text("#!/bin/bash\n" + script)
    options = [f"--var={v}" for v in variables]
    ours = run_cli("convert", "Makefile", *options, "--output", "request", cwd=repo)
    theirs = run_cli("convert", "train.sh", "--output", "request", cwd=repo, env={"BUCKET": "bucket-one"})  # exported
    assert ours.returncode == 0, ours.stderr
    assert theirs.returncode == 0, theirs.stderr
    assert ours.stdout == theirs.stdout
    assert "Traceback" not in ours.stderr


def _convert(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_cli("convert", *args, cwd=repo)


@pytest.mark.parametrize(("text", "args", "says"), [
    (f"a:\n\t{TRAIN} a {IMAGE}\nb:\n\t{TRAIN} b {IMAGE}\n", [],
     "Makefile: 2 targets run a training command: a (Makefile:1:1), b (Makefile:3:1); give the one to convert with "
     "--target NAME"),
    ("local:\n\tgcloud ai-platform local train --module-name m\n", [],
     "no target's recipe runs a training command (gcloud ai-platform jobs submit training, gcloud ai custom-jobs create "
     "or gcloud ai hp-tuning-jobs create); these recipes run other gcloud commands: local (Makefile:2:2: gcloud "
     "ai-platform local train --module-name m)"),
    (f"a: b\n\t{TRAIN} a {IMAGE}\nb:\n\t{TRAIN} b {IMAGE}\n", ["--target", "a"],
     "Makefile:3:1: target b, a prerequisite of a, runs a training command too"),
    (f"a:\n\t{TRAIN} a {IMAGE}\n", ["--target", "zz"], "no rule for target 'zz'; its targets: a"),
    (f"a:\n\tX=1\n\t{TRAIN} a {IMAGE}\n", [], "Makefile:2:2: X=... on a recipe line of its own: make runs each"),
    (f"a:\n\t{TRAIN} a $$UNSET {IMAGE}\n", [], "Makefile:2:44: $UNSET is not defined in the environment"),
    (f"R = $$NOPE\na:\n\t{TRAIN} a --region $(R) {IMAGE}\n", [], "Makefile:1:5: $NOPE is not defined"),
    (f"a:\n\t{TRAIN} a {IMAGE}\n\tgsutil ls gs://b\n", [], "Makefile:3:2: 'gsutil ls' after the training command"),
    (f"a:\n\t{TRAIN} a {IMAGE}\n", ["--var", "novalue"], "--var novalue: give NAME=VALUE"),
    (f"export CLOUDSDK_CORE_PROJECT = p\na:\n\t{TRAIN} a {IMAGE}\n", [],
     "Makefile:1:32: export CLOUDSDK_CORE_PROJECT sets a gcloud property"),
    (f"SHELL = /usr/bin/python3\na:\n\t{TRAIN} a {IMAGE}\n", [], "Makefile:1:9: SHELL = /usr/bin/python3: the recipe"),
    (f"a:\n\t$(shell whoami)\n\t{TRAIN} a {IMAGE}\n", [], "Makefile:2:2: $(shell whoami) runs a command"),
    (f"SHA := $(shell git rev-parse HEAD)\na: b\n\t{TRAIN} a-$(SHA) {IMAGE}\nb:\n\techo\n", [],
     "Makefile:1:8: $(shell git rev-parse HEAD) runs a command"),
    (f"a: $(wildcard *.py)\n\t{TRAIN} a {IMAGE}\n", [], "Makefile:1:4: $(wildcard *.py): make's function wildcard"),
    ("x", ["--cell", "1"], "--cell goes with a notebook"),
])
def test_convert_refuses_by_name_at_the_makefiles_line(text: str, args: list[str], says: str, tmp_path: Path) -> None:
    repo = _repo(tmp_path, text)
    done = _convert(repo, "Makefile", *args)
    assert done.returncode != 0
    assert says in done.stderr
    assert "Traceback" not in done.stderr


def test_target_and_var_go_with_a_makefile_only(tmp_path: Path) -> None:
    repo = _repo(tmp_path, f"{TRAIN} a {IMAGE}\n", "train.sh")
    done = _convert(repo, "train.sh", "--target", "a")
    assert done.returncode == 2 and "--target goes with a Makefile FILE" in done.stderr


@pytest.mark.parametrize(("setup", "says"), [
    ("outside", "Makefile:1:1: include secret.mk: the file is a symlink to a target outside the repository"),
    ("linked", "the file is a symlink to a target outside the repository"),
    ("above", "Makefile:1:1: include ../secret.mk: the file is outside the repository"),
    ("binary", "Makefile:1:1: error: this is a binary file, not a Makefile"),
    ("huge", "Makefile:1:1: the file is 1,048,577 bytes, larger than the 1,048,576-byte limit"),
    ("deep", "nests more than 100 levels deep"),
    ("wide", "takes more than 100,000 variable references"),
    ("self", "more than 20 includes"),
])
def test_hostile_makefiles_get_one_clear_message(setup: str, says: str, tmp_path: Path) -> None:
    repo = _repo(tmp_path, "")
    text = f"a:\n\t{TRAIN} a $(V0) {IMAGE}\n"
    if setup == "outside":
        (tmp_path / "secret.mk").write_text("X = 1\n")
        (repo / "secret.mk").symlink_to(tmp_path / "secret.mk")
        (repo / "Makefile").write_text("include secret.mk\n" + text)
    elif setup == "above":
        (tmp_path / "secret.mk").write_text("X = 1\n")
        (repo / "Makefile").write_text("include ../secret.mk\n" + text)
    elif setup == "linked":
        (tmp_path / "Elsewhere").write_text(text)
        (repo / "Makefile").unlink()
        (repo / "Makefile").symlink_to(tmp_path / "Elsewhere")
    elif setup == "binary":
        (repo / "Makefile").write_bytes(b"\x00\x01junk")
    elif setup == "huge":
        (repo / "Makefile").write_bytes(b"#" * (1024 * 1024 + 1))
    elif setup == "deep":
        (repo / "Makefile").write_text("".join(f"V{k} = $(V{k + 1})\n" for k in range(300)) + text)
    elif setup == "wide":
        (repo / "Makefile").write_text("V30 = x\n" + "".join(f"V{k} = $(V{k + 1})$(V{k + 1})\n" for k in range(30))
                                       + text)
    else:
        (repo / "Makefile").write_text("include Makefile\n" + text)
    done = _convert(repo, "Makefile")
    assert done.returncode == 1
    assert says in done.stdout + done.stderr
    assert "Traceback" not in done.stderr


def test_what_is_not_known_where_make_reads_it_matters_only_where_used(tmp_path: Path) -> None:
    """A := or a rule's prerequisites make computes by running something: refused only for the target converted."""
    repo = _repo(tmp_path, f"SHA := $(shell git rev-parse HEAD)\nUNAME := $(shell uname)\nlint: $(wildcard *.py)\n"
                           f"\tflake8 $(SHA)\ntrain:\n\t{TRAIN} a {IMAGE}\n")
    done = _convert(repo, "Makefile")
    assert done.returncode == 0, done.stderr
    assert "  name: a\n" in done.stdout


def test_makefile_names_and_suffix_pick_the_reader(tmp_path: Path) -> None:
    for name in ("makefile", "GNUmakefile", "train.mk"):
        repo = _repo(tmp_path, f"a:\n\t{TRAIN} a {IMAGE}\n", name)
        done = _convert(repo, name)
        assert done.returncode == 0, done.stderr
        assert "  name: a\n" in done.stdout
        (repo / name).unlink()


def test_secret_looking_environment_variable_is_never_written(tmp_path: Path) -> None:
    repo = _repo(tmp_path, f"a:\n\t{TRAIN} a {IMAGE} -- --key $(API_TOKEN)\n")
    done = run_cli("convert", "Makefile", cwd=repo, env={"API_TOKEN": "s3cr3t-value"})
    assert done.returncode == 1
    assert "named like a secret" in done.stderr and "s3cr3t-value" not in done.stdout + done.stderr


# The public Makefiles of tests/gcloud/makefiles/ (each says its source and what was adapted): the target converted,
# the command line's variables, and what the environment gives.
CORPUS = [("artsnob", None, {}, {}), ("etude", "microbenchmark", {}, {"USER": "ada"}),
          ("covergen", None, {"ENV": "prod"}, {}), ("omr", None, {"FILE": "src/lstm.py", "CONFIG": "config.yml"},
                                                    {"CLOUDSDK_CORE_PROJECT": "omr-project"}),
          ("christineoo", None, {}, {})]
STAMP = re.compile(r"[0-9]{8}[_-]?[0-9]{6}")


def _corpus_repo(name: str, tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    shutil.copytree(HERE / name, repo)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "trainer").mkdir()
    (repo / "trainer" / "__init__.py").write_text("")
    (repo / "trainer" / "task.py").write_text("")
    (repo / "config.yml").write_text("trainingInput:\n  scaleTier: BASIC\n")
    return repo


def _date_shim(tmp_path: Path) -> str:
    """A PATH whose date prints the frozen time, as the conversion's clock is frozen (gcloud: the real one)."""
    shims = tmp_path / "shims"
    shims.mkdir(exist_ok=True)
    real = shutil.which("date")
    (shims / "date").write_text(f'#!/bin/sh\nexec {real} -d @{int(FROZEN)} "$@"\n')
    (shims / "date").chmod(0o755)
    return f"{shims}{os.pathsep}{os.environ['PATH']}"


@pytest.mark.parametrize(("name", "target", "variables", "env"), CORPUS)
def test_a_public_makefile_expands_as_make_n_prints_it(name: str, target: str | None, variables: dict[str, str],
                                                       env: dict[str, str], tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    repo = _corpus_repo(name, tmp_path)
    monkeypatch.setattr(clock, "now", lambda: FROZEN)
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    full = {"TZ": "UTC", "CLOUDSDK_CONFIG": str(tmp_path / "gcloud"), **env}
    mk = Makefile(full, variables, repo, _shell, _read)
    mk.load((repo / "Makefile").read_text(), "Makefile", repo)
    found = recipe(mk, "Makefile", target)
    ours = "".join(t.s + "\n" for _, t in expanded(mk, mk.rules[found.target]))
    skip = [f"-o{p}" for p in mk.rules[found.target].prerequisites]  # make -o: the prerequisite is not remade
    done = subprocess.run([MAKE or "make", "-s", "-n", *skip, found.target, *(f"{k}={v}" for k, v in variables.items())],
                          cwd=repo, env={**full, "PATH": _date_shim(tmp_path)}, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert ours == done.stdout
    time.tzset()


@pytest.mark.parametrize(("name", "target", "variables", "env"), CORPUS)
def test_a_public_makefile_converts_as_the_script_make_n_prints(name: str, target: str | None,
                                                               variables: dict[str, str], env: dict[str, str],
                                                               tmp_path: Path) -> None:
    repo = _corpus_repo(name, tmp_path)
    full = {"TZ": "UTC", "CLOUDSDK_CONFIG": str(tmp_path / "gcloud"), **env}
    options = [*(["--target", target] if target else []), *(f"--var={k}={v}" for k, v in variables.items())]
    ours = run_cli("convert", "Makefile", *options, "--output", "request", cwd=repo, env=full)
    assert ours.returncode == 0, ours.stderr
    assert "Traceback" not in ours.stderr
    chosen = target or re.search(r"Makefile target (\S+)", ours.stderr).group(1)  # type: ignore[union-attr]
    skip = [f"-o{p}" for p in re.findall(r"prerequisite (\S+) of", ours.stderr)]
    printed = subprocess.run([MAKE or "make", "-s", "-n", *skip, chosen, *(f"{k}={v}" for k, v in variables.items())],
                             cwd=repo, env={**os.environ, **full}, capture_output=True, text=True, timeout=120)
    assert printed.returncode == 0, printed.stderr
    (repo / "train.sh").write_text("#!/bin/bash\n" + printed.stdout)
    theirs = run_cli("convert", "train.sh", "--output", "request", cwd=repo, env=full)
    assert theirs.returncode == 0, theirs.stderr
    assert STAMP.sub("T", ours.stdout) == STAMP.sub("T", theirs.stdout)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("gcloud") is None, reason="gcloud is not installed: the oracle needs the Google Cloud CLI")
@pytest.mark.parametrize(("name", "target", "variables", "env"), [
    ("artsnob", None, {"JOBNAME": "oracle_job"}, {}),
    ("etude", "microbenchmark", {"JOB_NAME": "oracle_job"}, {}),
])
def test_gcloud_sends_the_job_convert_makefile_builds(name: str, target: str | None, variables: dict[str, str],
                                                     env: dict[str, str], tmp_path: Path) -> None:
    """The recipe's gcloud command, as make -n prints it, run by the real gcloud against the stand-in of
    tests/gcloud/standin.py (test_gcloud_oracle's helpers): the job it sends is the job of the converted spec."""
    import json

    from .test_gcloud_oracle import _request, _run_all, oracle_base

    repo = _corpus_repo(name, tmp_path)
    options = [*(["--target", target] if target else []), *(f"--var={k}={v}" for k, v in variables.items())]
    ours = run_cli("convert", "Makefile", *options, "--format", "json", cwd=repo, env=env)
    assert ours.returncode == 0, ours.stderr
    document = json.loads(ours.stdout[ours.stdout.index("{"):])
    chosen = target or re.search(r"Makefile target (\S+)", ours.stderr).group(1)  # type: ignore[union-attr]
    skip = [f"-o{p}" for p in re.findall(r"prerequisite (\S+) of", ours.stderr)]
    printed = subprocess.run([MAKE or "make", "-s", "-n", *skip, chosen, *(f"{k}={v}" for k, v in variables.items())],
                             cwd=repo, env={**os.environ, **env}, capture_output=True, text=True, timeout=120)
    assert printed.returncode == 0 and printed.stdout.startswith("gcloud "), printed
    with oracle_base("trainjobs-make-oracle-") as (base, shims):
        outcome = _run_all([{"id": name, "command": printed.stdout}], base, shims)[name]
    assert outcome.sent is not None, outcome.stderr[-2000:]
    from_gcloud = {"apiVersion": "trainjobs/v1", "kind": "TrainingJob", "metadata": {"name": "oracle_job"},
                   "spec": {"trainingInput": outcome.sent["trainingInput"]}}
    theirs, their_errors = _request(from_gcloud, None)
    mine, my_errors = _request(document, None)
    assert not my_errors and my_errors == their_errors
    assert mine is not None and mine == theirs


@pytest.mark.parametrize("text", [
    "export\nA = 1\nB = 2\nunexport B\nexport C = 3\nD = 4\nexport D\nHOME = h\nF = f\nt:\n\t@echo \"$$A|$$B|$$C|$$D|$$HOME|$$E|$$F|$$G\"\n",
    "A = 1\nexport C = $(A)x\nHOME = h\nF = f\nunexport E\nt:\n\t@echo \"$$A|$$B|$$C|$$D|$$HOME|$$E|$$F|$$G\"\n",
    ".EXPORT_ALL_VARIABLES:\nA = 1\nF += more\nt:\n\t@echo \"$$A|$$B|$$C|$$D|$$HOME|$$E|$$F|$$G\"\n",
])
def test_the_shell_sees_the_variables_make_exports(text: str, tmp_path: Path) -> None:
    """The recipe's shell environment, from the real make running an echo (it runs nothing else)."""
    (tmp_path / "Makefile").write_text(text)
    env = {"B": "envb", "E": "enve", "HOME": "envhome", "F": "envf"}
    variables = {"G": "cmdg"}
    done = subprocess.run([MAKE or "make", "-s", "t", "G=cmdg"], cwd=tmp_path, capture_output=True, text=True,
                          env={"PATH": os.environ["PATH"], **env}, timeout=60)
    assert done.returncode == 0, done.stderr
    mk = Makefile(env, variables, tmp_path, _shell, _read)
    mk.load(text, "Makefile", tmp_path)
    names = ["A", "B", "C", "D", "HOME", "E", "F", "G"]
    mk.rules["t"].recipe[0].s = f"{TRAIN} j " + " ".join(f"$${n}" for n in names)  # the names the shell reads
    shell_env: dict[str, str | None] = {**env, **recipe(mk, "Makefile", "t").env}
    assert "|".join(shell_env.get(n) or "" for n in names) + "\n" == done.stdout


def test_a_secret_looking_make_variable_is_never_written(tmp_path: Path) -> None:
    repo = _repo(tmp_path, f"WANDB_API_KEY = s3cr3t-value\na:\n\t{TRAIN} a {IMAGE} -- --key $(WANDB_API_KEY)\n")
    done = _convert(repo, "Makefile")
    assert done.returncode == 1
    assert "named like a secret" in done.stderr and "s3cr3t-value" not in done.stdout + done.stderr
