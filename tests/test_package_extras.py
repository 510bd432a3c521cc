"""``pythonPackage.requirements`` and ``extraPackages`` (issue 20): checked, staged, content-addressed.

The requirements become one small sdist (provider.packaging.extras) and each extra package file
is staged as it is; both are package URIs after the package's own. Validation names the spec's
line and column for a requirement install_requires cannot take and for an extra package that is
missing, a directory, or outside the repository. A flat repository root may be the package path.
"""

from __future__ import annotations

import io
import os
import tarfile
import zipfile
from pathlib import Path

import pytest

from provider.backends.local import envs
from provider.packaging import PackageError, UploadKind, package_uris, uploads
from provider.packaging.extras import REQUIREMENTS_FILE, requirements_uri, write_requirements_sdist
from provider.packaging.files import check_boundary
from provider.packaging.stage import LocalStager, stage_file
from provider.submission import launch
from provider.validation.validator import validate_data, validate_paths

EXECUTOR = "us-docker.pkg.dev/vertex-ai/training/tf-cpu.2-17.py310:latest"
HEAD = """\
apiVersion: trainjobs/v1
kind: TrainingJob
metadata: {name: extras_job}
spec:
  region: us-central1
  workerPools:
    chief: {machineType: n1-standard-4}
  jobDir: gs://bucket/jobs/extras_job
  application:
    pythonPackage:
      path: trainer
      module: trainer.task
      executorImage: EXECUTOR
""".replace("EXECUTOR", EXECUTOR)


def repo(root: Path) -> Path:
    """A repository (.git) with trainer/ (a package) and dist/a-1.0-py3-none-any.whl."""
    (root / ".git").mkdir(parents=True)
    (root / "trainer").mkdir()
    (root / "trainer" / "__init__.py").write_text("")
    (root / "trainer" / "task.py").write_text("print('hi')\n")
    (root / "dist").mkdir()
    (root / "dist" / "a-1.0-py3-none-any.whl").write_bytes(b"PK wheel bytes")
    return root


def problems(spec: Path) -> list[tuple[int | None, int | None, str, str]]:
    return [(p.line, p.column, p.rule or "", p.message) for p in validate_paths([str(spec)]).all_problems
            if p.is_error]


class _Storage:
    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, uri: str) -> Path:
        return self.root / uri.removeprefix("gs://")


def _job(root: Path, **package: object) -> launch.TrainingJob:
    app = {"path": "trainer", "module": "trainer.task", "executorImage": EXECUTOR, **package}
    result = validate_data({"apiVersion": "trainjobs/v1", "kind": "TrainingJob", "metadata": {"name": "extras_job"},
                            "spec": {"region": "us-central1", "workerPools": {"chief": {"machineType": "n1-standard-4"}},
                                     "jobDir": "gs://bucket/jobs/extras_job",
                                     "application": {"pythonPackage": app}}})
    assert result.job is not None, result.problems
    return result.job


# -- validation ------------------------------------------------------------------------------------
def test_a_requirement_install_requires_cannot_take_is_named_at_its_line(tmp_path: Path) -> None:
    root = repo(tmp_path / "repo")
    spec = root / "job.yaml"
    spec.write_text(HEAD + "      requirements:\n        - pandas>=2\n        - -r more.txt\n"
                    "        - --index-url https://example.com/simple\n        - not a requirement\n")
    found = problems(spec)
    assert found[0][:3] == (16, 11, "package.requirements")
    assert found[0][3] == "'-r more.txt' is a pip option, which install_requires cannot carry"
    assert found[1][:3] == (17, 11, "package.requirements") and "'--index-url" in found[1][3]
    assert found[2][:3] == (18, 11, "package.requirements")
    assert found[2][3].startswith("'not a requirement' is not a requirement (")
    assert len(found) == 3  # pandas>=2 is fine
    allowed = next(p.allowed for p in validate_paths([str(spec)]).all_problems if p.is_error)
    assert allowed is not None and "one PEP 508 requirement per item" in allowed


def test_extra_packages_missing_a_directory_and_outside_are_named(tmp_path: Path) -> None:
    root = repo(tmp_path / "repo")
    (tmp_path / "outside.whl").write_bytes(b"x")
    os.symlink(tmp_path / "outside.whl", root / "dist" / "link-1.0-py3-none-any.whl")
    (root / "dist" / "folder.whl").mkdir()
    spec = root / "job.yaml"
    spec.write_text(HEAD + "      extraPackages:\n        - dist/a-1.0-py3-none-any.whl\n        - dist/missing.whl\n"
                    "        - dist/folder.whl\n        - ../outside.whl\n        - dist/link-1.0-py3-none-any.whl\n"
                    "        - trainer/task.py\n")
    found = problems(spec)
    assert [(line, rule) for line, _, rule, _ in found] == [
        (16, "path.exists"), (17, "path.exists"), (18, "path.boundary"), (19, "path.boundary"), (20, "path.exists")]
    assert found[0][3] == f"the extra package dist/missing.whl does not exist (looked for {root / 'dist/missing.whl'})"
    assert found[1][3] == f"the extra package dist/folder.whl is a directory ({root / 'dist/folder.whl'})"
    assert found[2][3] == (f"the extra package ../outside.whl resolves to {tmp_path / 'outside.whl'}, outside the "
                           f"repository {root}")
    assert "link-1.0-py3-none-any.whl resolves to" in found[3][3]  # a symlink that leaves the repository
    assert "trainer/task.py is not a Python archive" in found[4][3]
    assert all(col == 11 for _, col, _, _ in found)


def test_requirements_without_anywhere_to_stage_them_are_an_error(tmp_path: Path) -> None:
    root = repo(tmp_path / "repo")
    spec = root / "job.yaml"
    spec.write_text(HEAD.replace("  jobDir: gs://bucket/jobs/extras_job\n", "").replace(
        "      path: trainer\n", "      uris: [gs://bucket/p.tar.gz]\n") + "      requirements: [pandas]\n")
    (found,) = problems(spec)
    assert found[2] == "package.staging" and "need a job dir or a staging bucket" in found[3]


# -- staged URIs -----------------------------------------------------------------------------------
def test_the_uris_follow_the_package_in_request_order(tmp_path: Path) -> None:
    root = repo(tmp_path / "repo")
    job = _job(root, uris=["gs://bucket/other.tar.gz"], requirements=["pandas>=2"],
               extraPackages=["dist/a-1.0-py3-none-any.whl"])
    uris = package_uris(job, root)
    assert uris[0].endswith("/trainer.tar.gz") and uris[1] == "gs://bucket/other.tar.gz"
    assert uris[2].startswith("gs://bucket/jobs/extras_job/packages/") and uris[2].endswith("/a-1.0-py3-none-any.whl")
    assert uris[3] == requirements_uri("gs://bucket/jobs/extras_job", ["pandas>=2"])
    assert uris[3].endswith("/" + REQUIREMENTS_FILE) and len(uris) == 4
    assert [u.kind for u in uploads(job, root)] == [UploadKind.SOURCE, UploadKind.EXTRA, UploadKind.REQUIREMENTS]


def test_an_extra_package_named_twice_is_staged_and_installed_once(tmp_path: Path) -> None:
    root = repo(tmp_path / "repo")
    twice = package_uris(_job(root, extraPackages=["dist/a-1.0-py3-none-any.whl", "../repo/dist/a-1.0-py3-none-any.whl"]),
                         root)
    assert len(twice) == 2 and twice[1].endswith("/a-1.0-py3-none-any.whl")


def test_a_changed_requirement_or_extra_file_is_a_new_uri_and_nothing_else_is(tmp_path: Path) -> None:
    root = repo(tmp_path / "repo")
    first = package_uris(_job(root, requirements=["pandas>=2", "scipy"], extraPackages=["dist/a-1.0-py3-none-any.whl"]),
                         root)
    reordered = package_uris(_job(root, requirements=["scipy", "pandas>=2"],
                                  extraPackages=["dist/a-1.0-py3-none-any.whl"]), root)
    assert reordered == first  # the order of requirements means nothing to pip
    changed = package_uris(_job(root, requirements=["pandas>=2.1", "scipy"],
                                extraPackages=["dist/a-1.0-py3-none-any.whl"]), root)
    assert changed[:2] == first[:2] and changed[2] != first[2]
    (root / "dist" / "a-1.0-py3-none-any.whl").write_bytes(b"PK other wheel bytes")
    edited = package_uris(_job(root, requirements=["pandas>=2", "scipy"], extraPackages=["dist/a-1.0-py3-none-any.whl"]),
                          root)
    assert edited[0] == first[0] and edited[1] != first[1] and edited[2] == first[2]


def test_the_requirements_sdist_is_the_same_bytes_and_says_its_requirements(tmp_path: Path) -> None:
    one = write_requirements_sdist(["scipy", "pandas>=2; python_version >= '3.8'"], tmp_path / "one")
    two = write_requirements_sdist(["pandas>=2; python_version >= '3.8'", "scipy"], tmp_path / "two")
    assert one.read_bytes() == two.read_bytes()
    with tarfile.open(one) as tar:
        assert sorted(tar.getnames()) == ["trainjobs_requirements-0.0.0/PKG-INFO", "trainjobs_requirements-0.0.0/setup.py"]
        setup = tar.extractfile("trainjobs_requirements-0.0.0/setup.py").read().decode()  # type: ignore[union-attr]
    assert "install_requires=[\"pandas>=2; python_version >= '3.8'\", 'scipy']" in setup
    # the local backend installs what a package requires (its markers too) into the job's environment
    assert envs.requirements(one) == ["pandas>=2; python_version >= '3.8'", "scipy"]


def test_the_local_backend_reads_a_zip_sdist_it_is_given(tmp_path: Path) -> None:
    archive = tmp_path / "b-1.0.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("b-1.0/PKG-INFO", "Metadata-Version: 2.1\nName: b\nVersion: 1.0\nRequires-Dist: pluggy\n")
        z.writestr("b-1.0/setup.py", "from setuptools import setup\nsetup(name='b', version='1.0')\n")
    assert envs.requirements(archive) == ["pluggy"]
    assert envs.content_digest(archive) == envs.content_digest(archive)


# -- staging ---------------------------------------------------------------------------------------
def test_prepare_stages_the_package_the_extra_files_and_the_requirements(tmp_path: Path) -> None:
    root = repo(tmp_path / "repo")
    job = _job(root, requirements=["pluggy==1.7.0"], extraPackages=["dist/a-1.0-py3-none-any.whl"])
    storage = _Storage(tmp_path / "storage")
    request = launch.prepare(job, root, "p", stager=LocalStager(storage))
    uris = request.body["jobSpec"]["workerPoolSpecs"][0]["pythonPackageSpec"]["packageUris"]
    assert len(uris) == 3 and all(storage.path(u).is_file() for u in uris)
    assert storage.path(uris[1]).read_bytes() == b"PK wheel bytes"
    with tarfile.open(storage.path(uris[2])) as tar:
        assert "trainjobs_requirements-0.0.0/setup.py" in tar.getnames()


def test_staging_refuses_an_extra_file_outside_the_repository_or_changed(tmp_path: Path) -> None:
    root = repo(tmp_path / "repo")
    stager = LocalStager(_Storage(tmp_path / "storage"))
    (tmp_path / "outside.whl").write_bytes(b"x")
    with pytest.raises(PackageError, match="outside the repository"):
        stage_file(tmp_path / "outside.whl", "gs://b/packages/0/outside.whl", stager, repository=root)
    (upload,) = [u for u in uploads(_job(root, extraPackages=["dist/a-1.0-py3-none-any.whl"]), root)
                 if u.kind is UploadKind.EXTRA]
    (root / "dist" / "a-1.0-py3-none-any.whl").write_bytes(b"changed since the plan")
    assert upload.source is not None
    with pytest.raises(PackageError, match="changed since its URI"):
        stage_file(upload.source, upload.uri, stager, repository=root)


# -- the repository root as the package path ------------------------------------------------------
def test_a_flat_repository_root_is_a_package_path_and_a_package_root_is_not(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "flat"
    root.mkdir()  # no .git nor Pulumi.yaml above: run from it, the folder itself is the repository
    monkeypatch.chdir(root)
    (root / "task.py").write_text("import util\n")
    (root / "util.py").write_text("X = 1\n")
    assert check_boundary(root, root) == root.resolve()
    spec = root / "job.yaml"
    spec.write_text(HEAD.replace("path: trainer", "path: .").replace("module: trainer.task", "module: task"))
    assert problems(spec) == []
    (root / "__init__.py").write_text("")
    with pytest.raises(PackageError, match=r"is the repository .* itself"):
        check_boundary(root, root)
    (found,) = problems(spec)
    assert found[2] == "path.boundary" and f"the package path . is the repository {root} itself" in found[3]


def test_a_flat_root_over_the_size_limit_is_refused_with_the_limit_message(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from provider.packaging import files

    root = tmp_path / "flat"
    root.mkdir()
    monkeypatch.chdir(root)
    (root / "task.py").write_text("print(1)\n")
    (root / "data.bin").write_bytes(io.BytesIO(b"0" * 4096).getvalue())
    monkeypatch.setattr(files, "MAX_PACKAGE_BYTES", 1024)
    spec = root / "job.yaml"
    spec.write_text(HEAD.replace("path: trainer", "path: .").replace("module: trainer.task", "module: task"))
    (found,) = problems(spec)
    assert found[2] == "package.files" and "is larger than 0 MiB, the limit for a trainer package" in found[3]


def test_the_provider_create_refuses_an_extra_package_outside_its_project_root(tmp_path: Path) -> None:
    """The in-process provider (what the SDK host unpickles): a state that names a file outside is refused."""
    from provider.resources.training_job import TrainingJobError, TrainingJobProvider

    root = repo(tmp_path / "repo")
    (tmp_path / "outside.whl").write_bytes(b"x")
    props = {"jobName": "extras_job", "backend": "local", "localHome": str(tmp_path / "home"),
             "projectRoot": str(root),
             "extraPackages": [{"source": "../outside.whl", "uri": "gs://bucket/packages/0/outside.whl"}],
             "request": {"displayName": "extras_job", "jobSpec": {"workerPoolSpecs": [{  # a job this machine runs
                 "machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": 1,
                 "pythonPackageSpec": {"executorImageUri": "us-docker.pkg.dev/vertex-ai/training/sklearn-cpu.1-6:latest",
                                       "packageUris": ["gs://bucket/packages/0/outside.whl"],
                                       "pythonModule": "trainer.task"}}]}},
             "requestKind": "CustomJob", "parent": "projects/p/locations/us-central1"}
    with pytest.raises(TrainingJobError, match=r"was not started: the extra package .*outside the repository"):
        TrainingJobProvider().create(props)
    assert not (tmp_path / "home" / "storage").exists() or not any((tmp_path / "home" / "storage").rglob("*.whl"))
