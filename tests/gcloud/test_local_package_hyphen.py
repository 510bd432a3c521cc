"""``script=my-task.py``: a hyphenated script name, as gcloud accepts it, converted and run.

gcloud (528, command_lib/ai/custom_jobs/custom_jobs_util.py and docker/build.py) takes any
``script=FILE``: without python-module it writes ``ENTRYPOINT ["python3", "FILE"]`` (``/bin/bash``
for a file not ending in .py) in a copy of the script's folder, so the name is never a module
name there. trainjobs runs a module of a package (``python -m my-task``), which python -m finds by
its file name, hyphen and all (provider.spec.modules). What python -m
cannot find (a dot in the file's name, a leading digit) is refused in gcloud's terms, with the fix.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from provider.gcloud.build import build
from provider.gcloud.command import GcloudError, parse
from provider.gcloud.words import split_words

from ..conftest import ROOT, no_traceback, run_cli

FLAT = ROOT / "tests" / "fixtures" / "gcloud_flat_trainer"
IMAGE = "us-docker.pkg.dev/vertex-ai/training/tf-cpu.2-12.py310:latest"
HEAD = "gcloud ai custom-jobs create --region us-central1 --display-name dash-job "


def _pool(keys: str) -> str:
    return f"--worker-pool-spec=machine-type=n1-standard-4,executor-image-uri={IMAGE},{keys} "


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository with the flat trainer as trainer_dir/, its script renamed my-task.py, and a
    package pkg/ holding run-it.py."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    shutil.copytree(FLAT, root / "trainer_dir", ignore=shutil.ignore_patterns("__pycache__"))
    (root / "trainer_dir" / "task.py").rename(root / "trainer_dir" / "my-task.py")
    for name in ("1task.py", "task.v2.py"):
        (root / "trainer_dir" / name).write_text("print('not a module name')\n")
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    for name in ("run-it.py", "2run.py"):
        (root / "pkg" / name).write_text("print('in a package')\n")
    monkeypatch.chdir(root)
    return root


@pytest.mark.parametrize(("keys", "module", "folder"), [
    ("local-package-path=trainer_dir,script=my-task.py", "my-task", "trainer_dir"),
    ("local-package-path=.,script=trainer_dir/my-task.py", "my-task", "trainer_dir"),
    ("local-package-path=.,script=pkg/run-it.py", "pkg.run-it", "pkg"),
])
def test_a_hyphenated_script_is_converted_to_the_module_python_m_runs(
        repo: Path, keys: str, module: str, folder: str) -> None:
    package = build(parse(split_words(HEAD + _pool(keys), {})), repo).document["spec"]["application"]["pythonPackage"]
    assert (package["path"], package["module"]) == (str(repo / folder), module)


@pytest.mark.parametrize(("keys", "module"), [
    ("local-package-path=trainer_dir,script=1task.py", "1task"),
    ("local-package-path=trainer_dir,script=task.v2.py", "task.v2"),
    ("local-package-path=.,script=pkg/2run.py", "pkg.2run"),
])
def test_a_script_python_m_cannot_find_is_refused_with_the_fix(repo: Path, keys: str, module: str) -> None:
    with pytest.raises(GcloudError) as exc:
        build(parse(split_words(HEAD + _pool(keys), {})), repo)
    said = str(exc.value)
    assert f"trainjobs runs it as python -m {module}, which python -m cannot find as a module" in said
    assert "such as train_model.py or my-train.py): rename it" in said
    assert said.count("\n") == 0 and "Traceback" not in said


def _convert_and_run(repo: Path, home: dict[str, str], line: str, spec: str) -> tuple[dict[str, Any], str]:
    """``convert --gcloud LINE --write SPEC``, then ``trainjobs run SPEC`` to SUCCEEDED; the spec written and
    what the run printed."""
    (repo / "specs").mkdir(exist_ok=True)
    converted = run_cli("convert", "--gcloud", line, "--write", spec, cwd=repo)
    no_traceback(converted)
    assert converted.returncode == 0, converted.stderr
    ran = run_cli("run", spec, cwd=repo, env=home, timeout=600)
    no_traceback(ran)
    assert ran.returncode == 0 and "SUCCEEDED" in ran.stdout, ran.stdout + ran.stderr
    written: dict[str, Any] = yaml.safe_load((repo / spec).read_text())
    return written, ran.stdout


@pytest.mark.slow
def test_a_hyphenated_script_runs_on_the_local_backend(repo: Path, home: dict[str, str]) -> None:
    (repo / "job.yaml").write_text("baseOutputDirectory:\n  outputUriPrefix: gs://local-bucket/dash\n")
    line = HEAD + "--config job.yaml " + _pool("local-package-path=trainer_dir,script=my-task.py") + "--args=--epochs,2"
    spec, _ = _convert_and_run(repo, home, line, "specs/dash.yaml")
    assert spec["spec"]["application"]["pythonPackage"]["module"] == "my-task"
    result = Path(home["TRAINJOBS_HOME"]) / "storage" / "local-bucket" / "dash" / "model" / "result.json"
    # the installed package ran my-task.py as the module my-task, its sibling util imported as gcloud's image has it
    assert json.loads(result.read_text()) == {"argv": ["--epochs", "2"], "module": "my-task", "sibling": "util",
                                              "requirement": "pluggy"}


@pytest.mark.slow
def test_a_hyphenated_script_in_a_package_runs_on_the_local_backend(repo: Path, home: dict[str, str]) -> None:
    (repo / "pkg" / "run-it.py").write_text("import sys\nprint('ran', __spec__.name, sys.argv[1:])\n")
    (repo / "job.yaml").write_text("baseOutputDirectory:\n  outputUriPrefix: gs://local-bucket/dash-pkg\n")
    line = HEAD + "--config job.yaml " + _pool("local-package-path=.,script=pkg/run-it.py") + "--args=x"
    _, printed = _convert_and_run(repo, home, line, "specs/pkg.yaml")
    assert "ran pkg.run-it ['x']" in printed
