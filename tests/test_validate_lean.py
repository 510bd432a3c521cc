"""What keeps validate lean (issue 13): nothing kept per spec, nothing imported it does not use.

No timing here: each test pins a behaviour that the speed and the flat memory rest on.
"""

from __future__ import annotations

import gc
import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from provider.cli.guard import guard
from provider.core.errors import UserError
from provider.document import boundary, scalars
from provider.document.loaded import LoadedDocument
from provider.validation import schema_check
from provider.validation.validator import validate_paths

from .conftest import ROOT, modules_after

SPEC = """\
apiVersion: trainjobs/v1
kind: TrainingJob
metadata:
  name: lean_{i}
spec:
  region: us-central1
  workerPools:
    chief: {{machineType: n1-standard-4}}
  application:
    pythonPackage:
      uris: [gs://bucket/trainer-0.1.tar.gz]
      module: trainer.task
      executorImage: us-docker.pkg.dev/vertex-ai/training/pytorch-xla.2-4.py310:latest
"""


@pytest.mark.slow
def test_help_does_not_import_the_backend_seam() -> None:
    modules = modules_after("--help")
    assert not {m for m in modules if m.startswith("provider.backends")}
    assert "provider.cli.jobs" in modules  # every command is still registered for --help


@pytest.mark.slow
def test_validate_imports_neither_the_backend_seam_nor_other_commands(tmp_path: Path) -> None:
    spec = tmp_path / "one.yaml"
    spec.write_text(SPEC.format(i=0))
    modules = modules_after("validate", str(spec), "--stacks", str(tmp_path / "none"))
    assert "provider.validation.validator" in modules
    assert not {m for m in modules if m.startswith(("provider.backends", "provider.submission.request"))}
    assert not {"provider.cli.jobs", "provider.cli.emulator", "provider.cli.console"} & modules
    assert "provider.spec.schema" not in modules  # the committed schema is loaded, not generated


def test_guard_turns_backend_errors_into_user_errors_only() -> None:
    from provider.backends.base import InvalidArgument

    def refused(_: object) -> int:
        raise InvalidArgument("no such machine")

    def broken(_: object) -> int:
        raise KeyError("bug")

    with pytest.raises(UserError, match="no such machine"):
        guard(refused)(None)  # type: ignore[arg-type]
    with pytest.raises(KeyError):
        guard(broken)(None)  # type: ignore[arg-type]


def _live_documents() -> int:
    gc.collect()
    return sum(1 for o in gc.get_objects() if isinstance(o, LoadedDocument))


def test_results_keep_no_document_after_the_check(tmp_path: Path) -> None:
    for i in range(40):
        (tmp_path / f"s{i:02d}.yaml").write_text(SPEC.format(i=i))
    before = _live_documents()
    report = validate_paths([str(tmp_path)])
    assert report.ok and len(report.results) == 40 and len(report.jobs) == 40
    assert _live_documents() == before  # the old code kept all 40 until the end
    assert all(r._document is None for r in report.results)


def test_a_released_result_still_locates_values_from_its_file(tmp_path: Path) -> None:
    from provider.document.locate import locate

    (tmp_path / "a.yaml").write_text(SPEC.format(i=1))
    (result,) = validate_paths([str(tmp_path)]).results
    assert result._document is None
    doc = result.document  # read again from the file, for a message that needs a position
    assert doc is not None and locate(doc, ("metadata", "name")) == (4, 9)
    assert result._data is None and result.data["metadata"]["name"] == "lean_1"  # the values too (program.py)


def test_duplicate_names_still_have_their_line(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(SPEC.format(i=1))
    (tmp_path / "b.yaml").write_text("# a comment first\n" + SPEC.format(i=1))
    (problem,) = validate_paths([str(tmp_path)]).problems
    assert problem.rule == "name.unique" and problem.file.endswith("b.yaml") and problem.line == 5


def test_the_committed_schema_is_what_validate_checks_against() -> None:
    with open(ROOT / "schemas" / "trainingjob.schema.json", "rb") as f:
        assert schema_check.schema_for("spec") == json.load(f)


def test_without_the_committed_schema_it_is_generated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from provider.stack.schema import stack_schema

    monkeypatch.setattr(schema_check, "_SCHEMA_DIR", tmp_path)
    schema_check.schema_for.cache_clear()
    try:
        assert schema_check.schema_for("stack", stack_schema) == stack_schema()
    finally:
        schema_check.schema_for.cache_clear()


def test_repository_root_is_looked_up_once_per_directory_only_within_a_run(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "project"
    (project / "specs").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    calls: list[Path] = []
    real = boundary._repository_root

    def counted(start: Path) -> Path:
        calls.append(start)
        return real(start)

    monkeypatch.setattr(boundary, "_repository_root", counted)
    with boundary.memo():
        first = boundary.repository_root(project / "specs")
        (project / ".git").mkdir()  # the run already knows this directory's boundary
        assert boundary.repository_root(project / "specs") == first
    assert len(calls) == 1
    assert boundary.repository_root(project / "specs") == project  # outside a run: looked up again
    assert len(calls) == 2


_TRAPS = [scalars._SEXAGESIMAL, scalars._LEADING_ZERO, scalars._EXP_NO_DOT, scalars._UNDERSCORE_NUM, scalars._BINARY]


@settings(max_examples=300, deadline=None)
@given(st.one_of(*(st.from_regex(r, fullmatch=True) for r in _TRAPS)))
def test_the_quick_screen_lets_every_yaml11_number_trap_through(text: str) -> None:
    # _trap looks at the full patterns only when _MAY_TRAP matches: it must never hide one.
    assert scalars._MAY_TRAP.match(text)
    assert scalars._trap(text) is not None


def test_a_run_may_keep_only_the_names_and_still_finds_duplicates(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(SPEC.format(i=1))
    (tmp_path / "b.yaml").write_text(SPEC.format(i=1))
    (tmp_path / "c.yaml").write_text(SPEC.format(i=2))
    report = validate_paths([str(tmp_path)], keep_job=lambda path: path.name == "c.yaml")
    assert [r.name for r in report.results] == ["lean_1", "lean_1", "lean_2"]
    assert [r.job is not None for r in report.results] == [False, False, True]
    (problem,) = report.problems
    assert problem.rule == "name.unique" and problem.file.endswith("b.yaml") and problem.line == 4


@pytest.mark.slow
def test_validate_cli_keeps_the_models_a_stack_quota_counts(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "import provider.validation.validator as v\n"
        "seen = []\n"
        "real = v.validate_paths\n"
        "def spy(*a, **k):\n"
        "    report = real(*a, **k)\n"
        "    seen.extend(r.job is not None for r in report.results)\n"
        "    return report\n"
        "v.validate_paths = spy\n"
        "from provider.cli import main\n"
        f"main(['validate', {str(tmp_path / 'specs')!r}, '--stacks', {str(tmp_path / 'none')!r}] + sys.argv[1:])\n"
        "print('KEPT', seen)\n"
    )
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "a.yaml").write_text(SPEC.format(i=1))
    plain = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    summary = subprocess.run([sys.executable, "-c", code, "--summary"], cwd=ROOT, capture_output=True, text=True,
                             timeout=120)
    assert "KEPT []" in plain.stdout, plain.stdout + plain.stderr  # in no stack: not even its result is kept
    assert "KEPT [True]" in summary.stdout, summary.stdout + summary.stderr  # --summary prints the models


@pytest.mark.parametrize("command", ["validate", "schema", "convert"])
def test_a_core_command_parses_the_same_without_the_other_commands(command: str) -> None:
    import argparse

    from provider.cli import CORE_COMMANDS, build_parser

    assert command in CORE_COMMANDS

    def sub_help(parser: argparse.ArgumentParser) -> str:
        action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        return action.choices[command].format_help()

    assert sub_help(build_parser(command)) == sub_help(build_parser())
    argv = [command, "x.yaml"] if command != "schema" else [command, "--stack"]
    assert vars(build_parser(command).parse_args(argv)) == vars(build_parser().parse_args(argv))
    alone = next(a for a in build_parser(command)._actions if isinstance(a, argparse._SubParsersAction))
    assert list(alone.choices) == [command]


@pytest.mark.parametrize("columns", ["", "0", "57", "wide", "200"])
def test_help_is_as_wide_as_argparse_makes_it(columns: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The help formatter finds the terminal's width without shutil, as shutil finds it."""
    import argparse
    import shutil

    from provider.cli import build_parser

    monkeypatch.setenv("COLUMNS", columns)
    ours = build_parser()
    theirs = build_parser()
    theirs._get_formatter = lambda: argparse.HelpFormatter(prog="trainjobs")  # type: ignore[method-assign]
    assert ours.format_help() == theirs.format_help()
    assert shutil.get_terminal_size().columns == (int(columns) if columns.isdigit() and int(columns) else 80)


def test_a_lean_run_keeps_no_result_of_a_spec_in_no_stack_and_loses_no_problem(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(SPEC.format(i=1))
    (tmp_path / "b.yaml").write_text("# a comment first\n" + SPEC.format(i=1))  # the same name
    (tmp_path / "c.yaml").write_text(SPEC.format(i=2).replace("n1-standard-4", "n1-standard-5"))
    (tmp_path / "d.yaml").write_text("apiVersion: [")
    full = validate_paths([str(tmp_path)], keep_job=lambda path: False)
    lean = validate_paths([str(tmp_path)], keep_job=lambda path: False, lean=True)
    assert lean.results == [] and lean.checked == full.checked == len(full.results) == 4
    assert lean.all_problems == full.all_problems  # the same problems, positions and order
    rules = {(Path(p.file).name, p.rule, p.line) for p in lean.all_problems if p.rule in ("name.unique", "yaml.syntax")}
    assert rules == {("b.yaml", "name.unique", 5), ("d.yaml", "yaml.syntax", 2)}
    assert any(Path(p.file).name == "c.yaml" and p.is_error for p in lean.all_problems)


def test_a_lean_run_keeps_the_results_of_specs_in_a_stack(tmp_path: Path) -> None:
    for name in ("a", "b", "c"):
        (tmp_path / f"{name}.yaml").write_text(SPEC.format(i=name))
    in_stack = {(tmp_path / "b.yaml").resolve()}

    def groups(path: Path) -> list[str]:
        return ["team-dev"] if path in in_stack else ["*"]

    report = validate_paths([str(tmp_path)], groups_for=groups, keep_job=lambda path: path in in_stack, lean=True)
    assert [r.name for r in report.results] == ["lean_b"] and report.results[0].job is not None
    assert report.checked == 3 and report.ok


def test_names_in_no_stack_and_in_a_stack_are_compared_within_their_group_only(tmp_path: Path) -> None:
    for name in ("a", "b", "c", "d"):
        (tmp_path / f"{name}.yaml").write_text(SPEC.format(i=1))
    stacked = {(tmp_path / n).resolve() for n in ("c.yaml", "d.yaml")}

    def groups(path: Path) -> list[str]:
        return ["team-dev"] if path in stacked else ["*"]

    for lean in (False, True):
        report = validate_paths([str(tmp_path)], groups_for=groups, keep_job=lambda path: path in stacked, lean=lean)
        # (SPEC's image is past its end of availability: that warning is not what this test is about)
        found = sorted((Path(p.file).name, p.message, p.allowed) for p in report.problems
                       if p.rule != "container.end_of_availability")
        assert [(f, m.rsplit("/", 1)[-1]) for f, m, _ in found] == [("b.yaml", "a.yaml"), ("d.yaml", "c.yaml")]
        assert "of stack team-dev" in found[1][2] and "of stack" not in found[0][2]
