"""``requirements=`` and ``extra-packages=`` of a local package, and ``local-package-path=.`` at the root (issue 20).

gcloud's image ``pip install``s each ``requirements`` entry and each ``extra-packages`` file (paths
relative to local-package-path, its build context); the converted spec carries them as
``application.pythonPackage.requirements`` and ``extraPackages`` (written relative to the spec),
and every backend installs them as package URIs. A user in a fresh folder running
``local-package-path=.,script=task.py`` converts and runs too: the folder is its own repository,
packaged as a flat folder.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
import yaml

from provider.gcloud.build import build
from provider.gcloud.command import GcloudError, parse
from provider.gcloud.words import split_words

from ..conftest import ROOT, no_traceback, run_cli

IMAGE = "us-docker.pkg.dev/vertex-ai/training/tf-cpu.2-12.py310:latest"
HEAD = "gcloud ai custom-jobs create --region us-central1 --display-name extras-job --config job.yaml "
WHEEL = "extra_mod-1.0-py3-none-any.whl"
TASK = """\
import json, os, sys

import extra_mod  # from extra-packages only
import pluggy  # from requirements= only (no requirements.txt, no setup.py)

os.makedirs(os.environ["AIP_MODEL_DIR"], exist_ok=True)
with open(os.path.join(os.environ["AIP_MODEL_DIR"], "result.json"), "w") as out:
    json.dump({"argv": sys.argv[1:], "extra": extra_mod.VALUE, "requirement": pluggy.__name__}, out)
print("trained", extra_mod.VALUE, flush=True)
"""


def tiny_wheel(target: Path) -> Path:
    """A wheel with one module, ``extra_mod`` (what a team's own built library is)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    info = "extra_mod-1.0.dist-info"
    with zipfile.ZipFile(target, "w") as z:
        z.writestr("extra_mod.py", "VALUE = 'from the extra package'\n")
        z.writestr(f"{info}/METADATA", "Metadata-Version: 2.1\nName: extra-mod\nVersion: 1.0\n")
        z.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        z.writestr(f"{info}/RECORD", f"extra_mod.py,,\n{info}/METADATA,,\n{info}/WHEEL,,\n{info}/RECORD,,\n")
    return target


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository (.git) with trainer_dir/task.py and trainer_dir/dist/WHEEL; the current directory."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "trainer_dir").mkdir()
    (root / "trainer_dir" / "task.py").write_text(TASK)
    tiny_wheel(root / "trainer_dir" / "dist" / WHEEL)
    (root / "job.yaml").write_text("baseOutputDirectory:\n  outputUriPrefix: gs://local-bucket/extras\n")
    (root / "specs").mkdir()
    monkeypatch.chdir(root)
    return root


def _pool(keys: str) -> str:
    return f"'--worker-pool-spec=machine-type=n1-standard-4,executor-image-uri={IMAGE},{keys}' "


EXTRAS = f"local-package-path=trainer_dir,script=task.py,requirements=pluggy==1.7.0,extra-packages=dist/{WHEEL}"


def test_the_keys_are_read_as_gcloud_reads_them(repo: Path) -> None:
    built = build(parse(split_words(HEAD + _pool(EXTRAS + ";dist/" + WHEEL) + "--args=--epochs,2", {})), repo)
    package = built.document["spec"]["application"]["pythonPackage"]
    assert package["requirements"] == ["pluggy==1.7.0"]
    assert package["extraPackages"] == [str(repo / "trainer_dir" / "dist" / WHEEL)] * 2  # ';' separates items
    assert not any("not kept" in n for n in built.notes)


@pytest.mark.parametrize(("extra", "says"), [
    ("dist/missing.whl", "Package file 'dist/missing.whl' is not found under the package: 'trainer_dir'."),
    (WHEEL, f"Package file '{WHEEL}' is not found under the package: 'trainer_dir'."),  # not the current directory
    ("../../outside.whl", "extra-packages ../../outside.whl resolves to"),
])
def test_an_extra_package_gcloud_would_not_find_or_outside_is_refused(repo: Path, extra: str, says: str) -> None:
    (repo.parent / "outside.whl").write_bytes(b"PK")
    (repo / WHEEL).write_bytes(b"PK")
    with pytest.raises(GcloudError) as exc:
        build(parse(split_words(HEAD + _pool(f"local-package-path=trainer_dir,script=task.py,extra-packages={extra}"),
                                {})), repo)
    assert says in str(exc.value)


def test_convert_writes_them_relative_to_the_spec_and_the_request_carries_them(repo: Path) -> None:
    line = HEAD + _pool(EXTRAS) + "--args=--epochs,2"
    converted = run_cli("convert", "--gcloud", line, "--write", "specs/extras.yaml", cwd=repo)
    no_traceback(converted)
    assert converted.returncode == 0, converted.stderr
    package = yaml.safe_load((repo / "specs" / "extras.yaml").read_text())["spec"]["application"]["pythonPackage"]
    assert package["requirements"] == ["pluggy==1.7.0"]
    assert package["extraPackages"] == [f"../trainer_dir/dist/{WHEEL}"]
    validated = run_cli("validate", "specs/extras.yaml", cwd=repo)
    assert validated.returncode == 0, validated.stdout + validated.stderr
    request = run_cli("convert", "--gcloud", line, "--output", "request", cwd=repo)
    assert request.returncode == 0, request.stderr
    uris = json.loads(request.stdout)["body"]["jobSpec"]["workerPoolSpecs"][0]["pythonPackageSpec"]["packageUris"]
    assert [u.rsplit("/", 1)[-1] for u in uris] == ["trainer_dir.tar.gz", WHEEL, "trainjobs_requirements.tar.gz"]
    assert all(u.startswith("gs://local-bucket/extras/packages/") for u in uris)


@pytest.mark.slow
def test_a_converted_job_installs_its_requirements_and_extra_packages_on_the_local_backend(
        repo: Path, home: dict[str, str]) -> None:
    converted = run_cli("convert", "--gcloud", HEAD + _pool(EXTRAS) + "--args=--epochs,3", "--write",
                        "specs/extras.yaml", cwd=repo)
    assert converted.returncode == 0, converted.stderr
    ran = run_cli("run", "specs/extras.yaml", cwd=repo, env=home, timeout=600)
    no_traceback(ran)
    assert ran.returncode == 0 and "SUCCEEDED" in ran.stdout, ran.stdout + ran.stderr
    result = Path(home["TRAINJOBS_HOME"]) / "storage" / "local-bucket" / "extras" / "model" / "result.json"
    assert json.loads(result.read_text()) == {"argv": ["--epochs", "3"], "extra": "from the extra package",
                                              "requirement": "pluggy"}


@pytest.mark.slow
def test_local_package_path_dot_in_a_fresh_folder_converts_and_runs(tmp_path: Path, home: dict[str, str],
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    fresh = tmp_path / "fresh"  # no .git nor Pulumi.yaml: run from it, the folder is its own repository
    fresh.mkdir()
    flat = (ROOT / "tests" / "fixtures" / "gcloud_flat_trainer")
    for name in ("task.py", "util.py", "requirements.txt"):
        (fresh / name).write_text((flat / name).read_text())
    (fresh / "job.yaml").write_text("baseOutputDirectory:\n  outputUriPrefix: gs://local-bucket/fresh\n")
    monkeypatch.chdir(fresh)
    line = HEAD + _pool("local-package-path=.,script=task.py") + "--args=--epochs,2"
    converted = run_cli("convert", "--gcloud", line, "--write", "spec.yaml", cwd=fresh)
    no_traceback(converted)
    assert converted.returncode == 0, converted.stderr
    package = yaml.safe_load((fresh / "spec.yaml").read_text())["spec"]["application"]["pythonPackage"]
    assert (package["path"], package["module"]) == (".", "task")
    validated = run_cli("validate", "spec.yaml", cwd=fresh)
    assert validated.returncode == 0, validated.stdout + validated.stderr
    ran = run_cli("run", "spec.yaml", cwd=fresh, env=home, timeout=600)
    no_traceback(ran)
    assert ran.returncode == 0 and "SUCCEEDED" in ran.stdout, ran.stdout + ran.stderr
    result = Path(home["TRAINJOBS_HOME"]) / "storage" / "local-bucket" / "fresh" / "model" / "result.json"
    assert json.loads(result.read_text()) == {"argv": ["--epochs", "2"], "module": "task", "sibling": "util",
                                              "requirement": "pluggy"}
