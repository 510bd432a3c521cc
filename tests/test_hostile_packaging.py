"""Packaging is the second line: it refuses what validation refuses, whoever calls it.

Regular files only, no symlink out of the package, no device/FIFO/socket, limits on files and
bytes, the repository boundary at ``trainjobs run`` (launch.prepare), the Pulumi provider
(stage with its project root) and a local submit that asks for more replicas than this machine
can start. Each refusal is one message (a PackageError is a BackendError and a UserError).
"""

from __future__ import annotations

import os
import re
import socket
from pathlib import Path

import pytest

from provider.backends.base import BackendError, FailedPrecondition, Submission
from provider.core.errors import UserError
from provider.packaging import PackageError, files, source_digest, source_files
from provider.packaging.stage import LocalStager, stage
from provider.submission import launch
from provider.validation.rules import Context, Target
from provider.validation.validator import validate_data, validate_paths

from .conftest import no_traceback, run_cli

EXECUTOR = "us-docker.pkg.dev/vertex-ai/training/tf-cpu.2-17.py310:latest"


def spec(app: dict[str, object], **extra: object) -> dict[str, object]:
    return {"apiVersion": "trainjobs/v1", "kind": "TrainingJob", "metadata": {"name": "pack_test"},
            "spec": {"region": "us-central1", "workerPools": {"chief": {"machineType": "n1-standard-4"}},
                     "jobDir": "gs://bucket/jobs/pack_test", "application": {"pythonPackage": app}, **extra}}


def package(root: Path) -> Path:
    """repo/trainer: a repository (.git) holding a two-file package."""
    (root / ".git").mkdir(parents=True)
    pkg = root / "trainer"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "task.py").write_text("print('hi')\n")
    return pkg


def test_a_plain_package_is_packaged(tmp_path: Path) -> None:
    pkg = package(tmp_path / "repo")
    assert [rel for rel, _ in source_files(pkg)] == ["trainer/__init__.py", "trainer/task.py"]


@pytest.mark.timeout(30)
def test_a_fifo_in_the_package_is_refused_not_opened(tmp_path: Path) -> None:
    pkg = package(tmp_path / "repo")
    os.mkfifo(pkg / "data.py")
    with pytest.raises(PackageError, match=r"trainer/data\.py in the package is a FIFO; packages hold regular files"):
        source_digest(pkg)


def test_a_socket_in_the_package_is_refused(tmp_path: Path) -> None:
    pkg = package(tmp_path / "repo")
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(str(pkg / "s"))
        with pytest.raises(PackageError, match="is a socket"):
            source_files(pkg)
    finally:
        sock.close()


def test_a_symlink_out_of_the_package_is_refused(tmp_path: Path) -> None:
    pkg = package(tmp_path / "repo")
    secret = tmp_path / "id_rsa"
    secret.write_text("PRIVATE KEY")
    (pkg / "key.py").symlink_to(secret)
    with pytest.raises(PackageError, match=r"trainer/key\.py in the package is a symlink that leaves"):
        source_files(pkg)
    (pkg / "key.py").unlink()
    (pkg / "etc").symlink_to("/etc")  # a linked directory that leaves is refused too, never walked
    with pytest.raises(PackageError, match="trainer/etc in the package is a symlink that leaves"):
        source_files(pkg)


def test_a_symlink_inside_the_package_is_packaged_as_its_file(tmp_path: Path) -> None:
    pkg = package(tmp_path / "repo")
    (pkg / "alias.py").symlink_to(pkg / "task.py")
    (pkg / "loop").symlink_to(pkg)  # a linked directory inside is not descended into: no endless walk
    found = dict(source_files(pkg))
    assert found["trainer/alias.py"] == (pkg / "task.py").resolve() and "trainer/loop" not in str(found)


def test_a_dangling_or_looping_link_in_the_package_is_refused(tmp_path: Path) -> None:
    pkg = package(tmp_path / "repo")
    (pkg / "gone.py").symlink_to(pkg / "missing.py")
    with pytest.raises(PackageError, match=r"trainer/gone\.py in the package is a dangling symlink"):
        source_files(pkg)
    (pkg / "gone.py").unlink()
    (pkg / "me.py").symlink_to(pkg / "me.py")
    with pytest.raises(PackageError, match=r"trainer/me\.py in the package is a symlink loop"):
        source_files(pkg)


def test_a_package_over_the_size_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    pkg = package(tmp_path / "repo")
    with open(pkg / "weights.bin", "wb") as f:  # sparse: the size is there, the disk blocks are not
        f.truncate(files.MAX_PACKAGE_BYTES + 1)
    with pytest.raises(PackageError, match="is larger than 100 MiB, the limit for a trainer package"):
        source_digest(pkg)


def test_a_package_over_the_file_limit_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pkg = package(tmp_path / "repo")
    monkeypatch.setattr(files, "MAX_PACKAGE_FILES", 3)
    for i in range(3):
        (pkg / f"m{i}.py").write_text("")
    with pytest.raises(PackageError, match="has more than 3 files, the limit for a trainer package"):
        source_files(pkg)


def test_validate_reports_what_packaging_would_refuse(tmp_path: Path) -> None:
    pkg = package(tmp_path / "repo")
    os.mkfifo(pkg / "pipe")
    path = tmp_path / "repo" / "spec.yaml"
    path.write_text(
        "apiVersion: trainjobs/v1\nkind: TrainingJob\nmetadata: {name: pack_test}\nspec:\n  region: us-central1\n"
        "  workerPools: {chief: {machineType: n1-standard-4}}\n  jobDir: gs://bucket/x\n  application:\n"
        f"    pythonPackage: {{path: trainer, module: trainer.task, executorImage: {EXECUTOR}}}\n")
    (problem,) = [p for p in validate_paths([str(path)]).all_problems if p.is_error]
    assert problem.line == 9 and problem.rule == "package.files"
    assert "trainer/pipe in the package is a FIFO" in problem.message and "100 MiB" in (problem.allowed or "")


def test_prepare_refuses_a_package_outside_the_repository_whatever_validated_it(tmp_path: Path) -> None:
    """The validator without a spec dir (the provider's check) cannot see the boundary; prepare does."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    result = validate_data(spec({"path": "/etc", "module": "trainer.task", "executorImage": EXECUTOR}))
    assert result.job is not None
    expected = re.escape(f"the package path /etc resolves to /etc, outside the repository {repo}")
    with pytest.raises(PackageError, match=expected) as caught:
        launch.prepare(result.job, repo, "p", stager=None)
    assert isinstance(caught.value, BackendError) and isinstance(caught.value, UserError)


def test_stage_refuses_a_package_outside_the_project_root(tmp_path: Path) -> None:
    """What the Pulumi provider's create() calls, with the stack's project root."""
    from provider.backends.local.paths import Storage

    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    stager = LocalStager(Storage(tmp_path / "storage"))
    with pytest.raises(PackageError, match="outside the repository"):
        stage(Path("/etc"), "gs://bucket/p/etc.tar.gz", stager, repository=repo)
    assert not (tmp_path / "storage").exists() or not any((tmp_path / "storage").rglob("*.tar.gz"))


def test_the_provider_create_refuses_a_package_outside_its_project_root(tmp_path: Path) -> None:
    from provider.resources.training_job import TrainingJobError, TrainingJobProvider

    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    props = {"jobName": "pack_test", "backend": "local", "localHome": str(tmp_path / "home"),
             "localStorage": str(tmp_path / "storage"), "projectRoot": str(repo),
             "package": {"source": "../../../../../../../../etc", "uri": "gs://bucket/p/etc.tar.gz"},
             "request": {"displayName": "pack_test", "jobSpec": {"workerPoolSpecs": [{
                 "machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": 1,
                 "pythonPackageSpec": {"executorImageUri": EXECUTOR, "packageUris": ["gs://bucket/p/etc.tar.gz"],
                                       "pythonModule": "trainer.task"}}]}},
             "requestKind": "CustomJob", "parent": "projects/p/locations/us-central1"}
    with pytest.raises(TrainingJobError, match=r"was not started: .*outside the repository"):
        TrainingJobProvider().create(props)


def _request(replicas: int) -> Submission:
    doc = spec({"uris": ["gs://bucket/p.tar.gz"], "module": "trainer.task", "executorImage": EXECUTOR})
    doc["spec"]["workerPools"]["workers"] = {"machineType": "n1-standard-4", "replicas": replicas}  # type: ignore[index]
    result = validate_data(doc, ctx=Context(target=Target.LOCAL))
    assert result.ok and result.job is not None, result.problems
    return launch.submission(result.job, launch.prepare(result.job, Path("."), "p"))


def test_a_local_submit_refuses_more_replicas_than_the_machine_can_start(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from provider.backends.local.backend import LocalBackend
    from provider.backends.local.replica_limit import replica_limit

    monkeypatch.setenv("TRAINJOBS_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("TRAINJOBS_LOCAL_GPUS", "none")
    limit, _ = replica_limit()
    backend = LocalBackend()
    with pytest.raises(FailedPrecondition, match=f"the job has 100,001 replicas and the local backend starts at most "
                                                 f"{limit:,} for one job"):
        backend.submit(_request(100_000))
    assert backend.list() == []


def test_run_refuses_too_many_replicas_with_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "wide.yaml"
    path.write_text(
        "apiVersion: trainjobs/v1\nkind: TrainingJob\nmetadata: {name: wide}\nspec:\n  region: us-central1\n"
        "  workerPools:\n    chief: {machineType: n1-standard-4}\n    workers: {machineType: n1-standard-4, replicas: 5000}\n"
        f"  application:\n    pythonPackage: {{uris: [gs://bucket/p.tar.gz], module: trainer.task, executorImage: {EXECUTOR}}}\n")
    proc = run_cli("run", str(path), "--detach", env={"TRAINJOBS_HOME": str(tmp_path / "home"), "TRAINJOBS_LOCAL_GPUS": "none"})
    no_traceback(proc)
    assert proc.returncode == 1 and "the job has 5,001 replicas and the local backend starts at most" in proc.stderr


def test_the_repository_itself_is_not_a_package_path(tmp_path: Path) -> None:
    """Not when it is a Python package: its setup.py would be read from the directory above the
    repository (a flat root, a folder of modules, is one since issue 20: test_package_extras.py)."""
    repo = tmp_path / "repo"
    package(repo)
    (repo / "__init__.py").write_text("")
    (tmp_path / "setup.py").write_text("# outside the repository\n")
    path = repo / "spec.yaml"
    path.write_text(
        "apiVersion: trainjobs/v1\nkind: TrainingJob\nmetadata: {name: pack_test}\nspec:\n  region: us-central1\n"
        "  workerPools: {chief: {machineType: n1-standard-4}}\n  jobDir: gs://bucket/x\n  application:\n"
        f"    pythonPackage: {{path: ., module: trainer.task, executorImage: {EXECUTOR}}}\n")
    (problem,) = [p for p in validate_paths([str(path)]).all_problems if p.is_error]
    assert problem.rule == "path.boundary" and f"the package path . is the repository {repo} itself" in problem.message
    result = validate_data(spec({"path": ".", "module": "trainer.task", "executorImage": EXECUTOR}))
    assert result.job is not None
    with pytest.raises(PackageError, match="is the repository"):
        launch.prepare(result.job, repo, "p")


def test_the_provider_create_stages_nothing_for_a_job_this_machine_refuses(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A local job that asks for GPUs this machine lacks is refused before its package is staged."""
    from provider.resources.training_job import TrainingJobError, TrainingJobProvider

    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")  # no GPU here, whatever the machine has
    monkeypatch.delenv("TRAINJOBS_CPU", raising=False)
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "trainer").mkdir()
    (repo / "trainer" / "__init__.py").write_text("")
    (repo / "trainer" / "task.py").write_text("print('hi')\n")
    pool = {"machineSpec": {"machineType": "n1-standard-8", "acceleratorType": "NVIDIA_TESLA_T4",
                            "acceleratorCount": 2},
            "replicaCount": 1,
            "pythonPackageSpec": {"executorImageUri": EXECUTOR, "packageUris": ["gs://bucket/p/trainer.tar.gz"],
                                  "pythonModule": "trainer.task"}}
    props = {"jobName": "gpu_test", "backend": "local", "localHome": str(tmp_path / "home"),
             "localStorage": str(tmp_path / "storage"), "projectRoot": str(repo),
             "package": {"source": "trainer", "uri": "gs://bucket/p/trainer.tar.gz"},
             "request": {"displayName": "gpu_test", "jobSpec": {"workerPoolSpecs": [pool]}},
             "requestKind": "CustomJob", "parent": "projects/p/locations/us-central1"}
    with pytest.raises(TrainingJobError, match=r"gpu_test was not started: .*GPU"):
        TrainingJobProvider().create(props)
    staged = [p for p in (tmp_path / "storage").rglob("*") if p.is_file()] if (tmp_path / "storage").exists() else []
    assert staged == []
