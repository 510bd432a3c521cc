"""``local-package-path=DIR,script=task.py``: a script at the top of a folder of modules (issue 20).

gcloud copies DIR into its image and runs ``python3 task.py`` there, so task.py imports its
siblings as top-level modules, and installs ``DIR/requirements.txt``. The converted spec
packages DIR itself (a flat folder: its top-level modules are modules of their own) and runs
``python -m task``; DIR/requirements.txt goes into the install_requires of the setup.py
trainjobs writes. A shell script, the repository itself and a folder that is a Python package
stay refused, each with one message.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from provider.gcloud.build import Built, build
from provider.gcloud.command import GcloudError, parse
from provider.gcloud.words import split_words

from ..conftest import ROOT, no_traceback, run_cli

FLAT = ROOT / "tests" / "fixtures" / "gcloud_flat_trainer"
IMAGE = "us-docker.pkg.dev/vertex-ai/training/tf-cpu.2-12.py310:latest"
HEAD = "gcloud ai custom-jobs create --region us-central1 --display-name flat-job "


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository (it has .git) holding the flat trainer as trainer_dir/, the current directory."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    shutil.copytree(FLAT, root / "trainer_dir", ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.chdir(root)
    return root


def _build(line: str, cwd: Path) -> Built:
    return build(parse(split_words(line, {})), cwd)


def _pool(keys: str) -> str:
    return f"--worker-pool-spec=machine-type=n1-standard-4,executor-image-uri={IMAGE},{keys} "


def test_a_script_at_the_top_of_the_folder_runs_as_its_own_module(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo / "trainer_dir")  # the usual command: run from the trainer's folder
    built = _build(HEAD + _pool("local-package-path=.,script=task.py") + "--args=--epochs,2", repo / "trainer_dir")
    spec = built.document["spec"]
    assert spec["application"] == {"pythonPackage": {"path": str(repo / "trainer_dir"), "module": "task",
                                                     "executorImage": IMAGE}}
    assert spec["args"] == ["--epochs", "2"]
    notes = "\n".join(built.notes)
    assert ". is a folder of top-level modules" in notes and "runs python -m task" in notes
    assert "gcloud's image runs python3 task.py" in notes and "__file__ is the installed module" in notes
    assert "./requirements.txt is installed with the package" in notes
    assert "not kept" not in notes


@pytest.mark.parametrize(("keys", "module", "folder"), [
    ("local-package-path=trainer_dir,script=task.py", "task", "trainer_dir"),
    ("local-package-path=trainer_dir,python-module=task", "task", "trainer_dir"),
    ("local-package-path=.,script=trainer_dir/task.py", "task", "trainer_dir"),  # python3 trainer_dir/task.py
])
def test_the_folder_that_holds_the_script_is_packaged(repo: Path, keys: str, module: str, folder: str) -> None:
    package = _build(HEAD + _pool(keys), repo).document["spec"]["application"]["pythonPackage"]
    assert (package["path"], package["module"]) == (str(repo / folder), module)


def test_requirements_and_extra_packages_are_carried_and_requirements_txt_beside_a_setup_py_is_a_note(
        repo: Path) -> None:
    (repo / "trainer_dir" / "dist").mkdir()
    (repo / "trainer_dir" / "dist" / "x-1.0.whl").write_bytes(b"PK")
    built = _build(HEAD + _pool("local-package-path=trainer_dir,script=task.py,'requirements=pandas;scipy',"
                                "extra-packages=dist/x-1.0.whl"), repo)
    package = built.document["spec"]["application"]["pythonPackage"]
    assert package["requirements"] == ["pandas", "scipy"]
    assert package["extraPackages"] == [str(repo / "trainer_dir" / "dist" / "x-1.0.whl")]  # under local-package-path
    notes = "\n".join(built.notes)
    assert "trainer_dir/requirements.txt is installed with the package" in notes
    assert ("requirements=pandas;scipy, extra-packages=dist/x-1.0.whl installed with the package, as gcloud's image "
            "installs them") in notes
    assert "not kept" not in notes
    (repo / "trainer_dir" / "setup.py").write_text("from setuptools import setup\nsetup(name='own')\n")
    notes = "\n".join(_build(HEAD + _pool("local-package-path=trainer_dir,script=task.py"), repo).notes)
    assert "trainer_dir/requirements.txt not kept" in notes and "install_requires of trainer_dir/setup.py" in notes


@pytest.mark.parametrize(("keys", "says"), [
    ("local-package-path=trainer_dir,script=run.sh", "script=run.sh cannot be packaged"),
    # issue 20: the repository itself is packaged when it is a flat folder; one that is a Python package is not
    ("local-package-path=.,script=task.py", "script=task.py cannot be packaged, but . is a Python package"),
    ("local-package-path=.,python-module=task", "python-module=task is a module at the top of local-package-path, "
     "but . is a Python package"),
    ("local-package-path=trainer_dir,script=1task.py",  # my-task.py runs: test_local_package_hyphen.py
     "script=1task.py: trainjobs runs it as python -m 1task, which python -m cannot find as a module"),
    ("local-package-path=.,python-module=trainer_dir.task",
     "python-module=trainer_dir.task: ./trainer_dir has no __init__.py, so trainjobs would package it as a folder "
     "of top-level modules; allowed: add trainer_dir/__init__.py"),
])
def test_what_stays_refused_is_one_message(repo: Path, keys: str, says: str) -> None:
    (repo / "task.py").write_text("print('top')\n")
    (repo / "__init__.py").write_text("")  # the repository itself is a Python package
    (repo / "trainer_dir" / "1task.py").write_text("print('digit')\n")
    with pytest.raises(GcloudError) as exc:
        _build(HEAD + _pool(keys), repo)
    assert says.format(repo=repo) in str(exc.value)


def test_convert_and_validate_a_flat_folder(repo: Path) -> None:
    (repo / "specs").mkdir()
    (repo / "job.yaml").write_text("baseOutputDirectory: {outputUriPrefix: gs://my-bucket/flat}\n")
    line = HEAD + "--config job.yaml " + _pool("local-package-path=trainer_dir,script=task.py") + "--args=--epochs,2"
    converted = run_cli("convert", "--gcloud", line, "--write", "specs/flat.yaml", cwd=repo)
    no_traceback(converted)
    assert converted.returncode == 0, converted.stderr
    assert "trainer_dir is a folder of top-level modules" in (repo / "specs" / "flat.yaml").read_text()  # a comment
    spec = yaml.safe_load((repo / "specs" / "flat.yaml").read_text())
    assert spec["spec"]["application"]["pythonPackage"] == {"path": "../trainer_dir", "module": "task",
                                                            "executorImage": IMAGE}
    validated = run_cli("validate", "specs/flat.yaml", cwd=repo)
    assert validated.returncode == 0, validated.stdout + validated.stderr


@pytest.mark.slow
def test_a_converted_flat_folder_runs_on_the_local_backend(repo: Path, home: dict[str, str]) -> None:
    (repo / "job.yaml").write_text("baseOutputDirectory:\n  outputUriPrefix: gs://local-bucket/flat\n")
    line = (HEAD + "--config job.yaml " + _pool("local-package-path=trainer_dir,script=task.py")
            + "--args=--epochs,3")
    (repo / "specs").mkdir()
    converted = run_cli("convert", "--gcloud", line, "--write", "specs/flat.yaml", cwd=repo)
    assert converted.returncode == 0, converted.stderr
    ran = run_cli("run", "specs/flat.yaml", cwd=repo, env=home, timeout=600)
    no_traceback(ran)
    assert ran.returncode == 0 and "SUCCEEDED" in ran.stdout, ran.stdout + ran.stderr
    assert "epoch 2 loss 0.111" in ran.stdout
    result = Path(home["TRAINJOBS_HOME"]) / "storage" / "local-bucket" / "flat" / "model" / "result.json"
    # task ran as a module of its own, imported its sibling as `import util`, and pluggy came from requirements.txt
    assert json.loads(result.read_text()) == {"argv": ["--epochs", "3"], "module": "task", "sibling": "util",
                                              "requirement": "pluggy"}


def test_a_tool_only_pyproject_in_the_folder_keeps_requirements_carried(repo: Path) -> None:
    (repo / "trainer_dir" / "pyproject.toml").write_text("[tool.black]\nline-length = 100\n")
    notes = "\n".join(_build(HEAD + _pool("local-package-path=trainer_dir,script=task.py"), repo).notes)
    assert "trainer_dir/requirements.txt is installed with the package" in notes
    (repo / "trainer_dir" / "pyproject.toml").write_text("[project]\nname = 'own'\nversion = '1'\n")
    notes = "\n".join(_build(HEAD + _pool("local-package-path=trainer_dir,script=task.py"), repo).notes)
    assert "trainer_dir/requirements.txt not kept" in notes
    assert "list them in the dependencies of trainer_dir/pyproject.toml" in notes
