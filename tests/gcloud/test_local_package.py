"""``--worker-pool-spec=...,local-package-path=DIR`` converted, validated and run on the local backend.

gcloud builds an image from DIR that runs the module (or script) on the executor image
(command_lib/ai/docker/build.py); the converted spec packages the same folder and runs the same
module on the same image. What cannot be kept is a note; what cannot be converted is one error.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from provider.gcloud.build import build
from provider.gcloud.command import GcloudError, parse
from provider.gcloud.words import split_words

from ..conftest import ROOT, no_traceback, run_cli

TRAINER = ROOT / "tests" / "fixtures" / "gcloud_local_package"
IMAGE = "us-docker.pkg.dev/vertex-ai/training/tf-cpu.2-12.py310:latest"
HEAD = "gcloud ai custom-jobs create --region us-central1 --display-name local-pkg "


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository (it has .git) holding the trainer folder as app/, the current directory."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    shutil.copytree(TRAINER, root / "app", ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.chdir(root)
    return root


def _build(line: str, cwd: Path):  # type: ignore[no-untyped-def]
    return build(parse(split_words(line, {})), cwd)


def test_a_module_in_the_local_package_becomes_a_package_spec(repo: Path) -> None:
    built = _build(HEAD + f"--worker-pool-spec=machine-type=n1-standard-4,executor-image-uri={IMAGE},"
                   "local-package-path=app,python-module=trainer.task "
                   "--worker-pool-spec=machine-type=n1-standard-8,replica-count=2,accelerator-type=NVIDIA_TESLA_T4 "
                   "--args=--epochs,3 --labels team=vision --python-package-uris=gs://b/p.tar.gz", repo)
    doc = built.document
    assert doc["metadata"] == {"name": "local_pkg", "displayName": "local-pkg"}
    spec = doc["spec"]
    assert spec["application"] == {"pythonPackage": {"path": str(repo / "app" / "trainer"), "module": "trainer.task",
                                                     "executorImage": IMAGE}}
    assert spec["workerPools"] == {
        "chief": {"machineType": "n1-standard-4"},
        "workers": {"machineType": "n1-standard-8", "replicas": 2,
                    "accelerator": {"type": "NVIDIA_TESLA_T4", "count": 1}}}
    assert spec["args"] == ["--epochs", "3"] and spec["labels"] == {"team": "vision"}
    assert any("needs no bucket" in n and "stagingBucket" in n for n in built.notes)
    assert any(n.startswith("--python-package-uris is not kept") for n in built.notes)


def test_a_script_runs_as_its_module_and_what_is_lost_is_said(repo: Path) -> None:
    (repo / "app" / "requirements.txt").write_text("numpy\n")
    built = _build(HEAD + f"'--worker-pool-spec=machine-type=n1-standard-4,executor-image-uri={IMAGE},"
                   "local-package-path=./app,script=./trainer/task.py,output-image-uri=gcr.io/p/img:1,"
                   "requirements=pandas;scipy'", repo)
    package = built.document["spec"]["application"]["pythonPackage"]
    assert package["module"] == "trainer.task" and package["path"] == str(repo / "app" / "trainer")
    notes = "\n".join(built.notes)
    assert "script=./trainer/task.py runs as python -m trainer.task" in notes
    assert "output-image-uri=gcr.io/p/img:1 is not kept" in notes
    # issue 20: requirements= is carried now; the requirements.txt above a package folder still is not
    assert package["requirements"] == ["pandas", "scipy"]
    assert "requirements=pandas;scipy installed with the package" in notes
    assert "./app/requirements.txt not kept" in notes


@pytest.mark.parametrize(("pool", "says"), [
    ("local-package-path=app,python-module=trainer.task",
     "Key [executor-image-uri] is required when `local-package-path` is specified."),
    (f"executor-image-uri={IMAGE},local-package-path=app,python-module=trainer.task,script=trainer/task.py",
     "Exactly one of keys [python-module, script] is required"),
    (f"executor-image-uri={IMAGE},local-package-path=nowhere,python-module=trainer.task",
     "Directory '{repo}/nowhere' is not found."),
    (f"executor-image-uri={IMAGE},local-package-path=..,python-module=trainer.task",
     "outside the repository"),
    (f"executor-image-uri={IMAGE},local-package-path=app,python-module=trainer.missing",
     "File 'trainer/missing.py' is not found under the package: 'app'."),
    (f"executor-image-uri={IMAGE},local-package-path=app/trainer,script=task.py",
     "script=task.py cannot be packaged"),
    (f"executor-image-uri={IMAGE},local-package-path=app,script=run.sh", "script=run.sh cannot be packaged"),
    (f"executor-image-uri={IMAGE},local-package-path=app/trainer,python-module=task",
     "python-module=task is a module at the top of local-package-path"),
    # gcloud's check of the image it would push (corpus c7_output_image_*)
    (f"executor-image-uri={IMAGE},local-package-path=app,python-module=trainer.task,output-image-uri=docker.io/me/t",
     "The value of `output-image-uri` has to be a valid gcr.io or Artifact Registry image"),
    (f"executor-image-uri={IMAGE},local-package-path=app,python-module=trainer.task,output-image-uri=gcr.io/p/T",
     "'gcr.io/p/T' is not a valid container image uri: Invalid path component \"T\" in repository name."),
    # gcloud checks the first pool before the others, and takes --command: its refusal comes first (c7_lariat_*)
    ("local-package-path=app,script=run.sh,container-image-uri=gcr.io/p/t --command=bash "
     "--worker-pool-spec=machine-type=n1-standard-4,local-package-path=app",
     "Key [executor-image-uri] is required when `local-package-path` is specified."),
])
def test_what_cannot_be_converted_is_one_message(repo: Path, pool: str, says: str) -> None:
    with pytest.raises(GcloudError) as exc:
        _build(HEAD + f"--worker-pool-spec=machine-type=n1-standard-4,{pool}", repo)
    assert says.format(repo=repo) in str(exc.value)


def test_the_other_pools_and_the_command_flag(repo: Path) -> None:
    first = f"--worker-pool-spec=machine-type=n1-standard-4,executor-image-uri={IMAGE},local-package-path=app," \
            "python-module=trainer.task "
    with pytest.raises(GcloudError, match=r"Keys \[python-module\] are not allowed: A local package"):
        _build(HEAD + first + "--worker-pool-spec=machine-type=n1-standard-4,python-module=x.y", repo)
    with pytest.raises(GcloudError, match=r"Key \[local-package-path\] is only allowed in the first"):
        _build(HEAD + first + "--worker-pool-spec=machine-type=n1-standard-4,local-package-path=app", repo)
    with pytest.raises(GcloudError, match="--command replaces the entrypoint"):
        _build(HEAD + first + "--command=python,x.py", repo)
    with pytest.raises(GcloudError, match=r"Key \[accelerator-type\] required as \[accelerator-count\]"):
        _build(HEAD + first + "--worker-pool-spec=machine-type=n1-standard-4,accelerator-count=2", repo)
    with pytest.raises(GcloudError, match=r"Key \[machine-type\] required"):
        _build(HEAD + first + "--worker-pool-spec=replica-count=2", repo)


def test_the_config_beside_it_and_the_vertex_request(repo: Path) -> None:
    (repo / "job.yaml").write_text("baseOutputDirectory: {outputUriPrefix: gs://my-bucket/out}\n"
                                   "scheduling: {timeout: 7200s, restartJobOnWorkerRestart: true}\n"
                                   "serviceAccount: trainer@p.iam.gserviceaccount.com\n")
    line = (HEAD + "--config job.yaml --worker-pool-spec=machine-type=n1-standard-4,"
            f"executor-image-uri={IMAGE},local-package-path=app,python-module=trainer.task --args=--epochs,3")
    proc = run_cli("convert", "--gcloud", line, "--output", "request", cwd=repo)
    no_traceback(proc)
    assert proc.returncode == 0, proc.stderr
    body = json.loads(proc.stdout)["body"]
    assert body["displayName"] == "local-pkg"
    job_spec = body["jobSpec"]
    package = job_spec["workerPoolSpecs"][0]["pythonPackageSpec"]
    assert package["executorImageUri"] == IMAGE and package["pythonModule"] == "trainer.task"
    assert package["args"] == ["--epochs", "3"]
    assert package["packageUris"][0].startswith("gs://my-bucket/out/") and package["packageUris"][0].endswith(".tar.gz")
    assert job_spec["scheduling"]["timeout"] == "7200s" and job_spec["scheduling"]["restartJobOnWorkerRestart"]
    assert job_spec["serviceAccount"] == "trainer@p.iam.gserviceaccount.com"
    (repo / "job.yaml").write_text("tensorboard: projects/p/locations/us-central1/tensorboards/1\nmodels: {}\n")
    refused = run_cli("convert", "--gcloud", line, cwd=repo)
    assert refused.returncode == 1 and "--config: models cannot be kept beside local-package-path" in refused.stderr


@pytest.fixture
def home(tmp_path: Path, env_cache: Path) -> Iterator[dict[str, str]]:
    from ..local.conftest import local_home

    yield from local_home(tmp_path, env_cache)


@pytest.mark.slow
def test_convert_validate_and_run_on_the_local_backend(repo: Path, home: dict[str, str]) -> None:
    (repo / "job.yaml").write_text("baseOutputDirectory:\n  outputUriPrefix: gs://local-bucket/gcloud_local\n")
    line = (HEAD + "--config job.yaml --worker-pool-spec=machine-type=n1-standard-4,replica-count=1,"
            f"executor-image-uri={IMAGE},local-package-path=app,python-module=trainer.task --args=--epochs,3")
    (repo / "specs").mkdir()
    converted = run_cli("convert", "--gcloud", line, "--write", "specs/local_pkg.yaml", cwd=repo)
    no_traceback(converted)
    assert converted.returncode == 0, converted.stderr
    spec = yaml.safe_load((repo / "specs" / "local_pkg.yaml").read_text())
    assert spec["spec"]["application"]["pythonPackage"]["path"] == "../app/trainer"  # relative to the spec
    validated = run_cli("validate", "specs/local_pkg.yaml", cwd=repo)
    assert validated.returncode == 0, validated.stdout + validated.stderr
    ran = run_cli("run", "specs/local_pkg.yaml", cwd=repo, env=home, timeout=600)
    no_traceback(ran)
    assert ran.returncode == 0 and "SUCCEEDED" in ran.stdout, ran.stdout + ran.stderr
    assert "epoch 2 loss 0.111" in ran.stdout
    result = Path(home["TRAINJOBS_HOME"]) / "storage" / "local-bucket" / "gcloud_local" / "model" / "result.json"
    assert json.loads(result.read_text()) == {"argv": ["--epochs", "3"], "module": "trainer.task"}
