"""Safe file reading and directory digests, each in one home (issue 28, part 4).

* Every reader (a spec or stack file, a package's files, a build context's digest, a saved plan)
  goes through provider.document.files.open_inside/read_inside: a symlink out of the repository
  is never read by any of them, a FIFO never blocks them.
* One directory digest (provider.packaging.digest): the plan's image placeholder names the image
  and tag the Pulumi program pushes, for the same folder.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from provider.console.plans import PlanError, saved_plan
from provider.document.files import Refused, read_file, read_inside
from provider.packaging import PackageError, source_digest
from provider.packaging.digest import directory_digest, image_tag
from provider.packaging.files import read_regular

from .plan_repo import PlanRepo, job


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository holding a link to a secret outside it, a FIFO and a plain file."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    secret = tmp_path / "secret.txt"
    secret.write_text("TOKEN=hunter2\n")
    (root / "out.yaml").symlink_to(secret)
    (root / "ok.yaml").write_text("a: 1\n")
    (root / "in.yaml").symlink_to(root / "ok.yaml")
    os.mkfifo(root / "pipe.yaml")
    return root


def test_every_reader_refuses_a_link_out_and_a_fifo(repo: Path) -> None:
    for name, rule in (("out.yaml", "file.symlink"), ("pipe.yaml", "file.type")):
        path = repo / name
        with pytest.raises(Refused) as refused:
            read_inside(path)
        assert refused.value.rule == rule and "hunter2" not in refused.value.message
        data, problem = read_file(path, name)  # specs and stack files (validate, plan, console, Pulumi)
        assert data is None and problem is not None and problem.rule == rule
        with pytest.raises(PackageError):  # a package's files
            read_regular(path)
    assert read_inside(repo / "in.yaml") == b"a: 1\n"  # a link inside the repository is read
    assert read_regular(repo / "in.yaml") == b"a: 1\n"


def test_a_file_over_the_limit_is_refused_by_size(repo: Path) -> None:
    big = repo / "big.yaml"
    big.write_bytes(b"x" * 2048)
    with pytest.raises(Refused, match="2,048 bytes, larger than the 1,024-byte limit"):
        read_inside(big, limit=1024)


def test_a_saved_plan_is_read_the_same_way(repo: Path, tmp_path: Path) -> None:
    with pytest.raises(PlanError, match="not a regular file"):
        saved_plan(repo / "pipe.yaml")  # a FIFO given as --plan: refused at once, never waited on


def test_a_digest_counts_a_link_by_where_it_points_never_by_what_it_reads(repo: Path, tmp_path: Path) -> None:
    context = repo / "ctx"
    context.mkdir()
    (context / "Dockerfile").write_text("FROM scratch\n")
    (context / "leak").symlink_to(tmp_path / "secret.txt")
    before = directory_digest(context)
    (tmp_path / "secret.txt").write_text("changed\n")
    assert directory_digest(context) == before  # what the link points at is never read
    (context / "Dockerfile").write_text("FROM busybox\n")
    assert directory_digest(context) != before


def test_a_package_digest_is_the_files_digest_of_its_files(tmp_path: Path) -> None:
    pkg = tmp_path / "repo" / "trainer"
    pkg.mkdir(parents=True)
    (tmp_path / "repo" / ".git").mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "task.py").write_text("print(1)\n")
    first = source_digest(pkg)
    (pkg / "task.py").write_text("print(2)\n")
    assert source_digest(pkg) != first


def test_the_plans_image_is_the_tag_pulumi_pushes(tmp_path: Path) -> None:
    """For the same folder, the plan's placeholder names the image and tag the Pulumi program builds."""
    from provider.resources import program

    repo = PlanRepo(tmp_path / "repo")
    repo.edit("containers/tuner/task.py", "", "# a changed trainer\n")
    plan = repo.plan("--show-requests")
    tuner = job(plan, "vision-dev", "vision_tuner")
    image = tuner["request"]["body"]["trialJobSpec"]["workerPoolSpecs"][0]["containerSpec"]["imageUri"]
    context = repo.root / "containers" / "tuner"
    assert program.directory_digest is directory_digest  # the program tags with this digest (declare_job)
    assert image == f"<built from containers/tuner: {image_tag('vision_tuner', directory_digest(context))}>"
