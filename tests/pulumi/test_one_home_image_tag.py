"""The plan's image placeholder and the tag the Pulumi program pushes are one digest of the same
folder (provider.packaging.digest; issue 28, part 4)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from provider.gitops.git import Git
from provider.gitops.sources import built_image
from provider.gitops.tree import WorkTree
from provider.packaging.digest import directory_digest, image_tag
from provider.validation.validator import validate_bytes

from .conftest import by_type, project_copy, run_program


def test_the_pushed_tag_is_the_plans_placeholder(tmp_path: Path) -> None:
    project = project_copy(tmp_path)
    (project / "examples/containers/cassava/trainer/task.py").write_text("# a trainer only this test has\n")
    report = run_program(tmp_path, "vision-dev", project=project)
    assert report["error"] is None, report["error"]
    tag = by_type(report, "docker-build:index:Image")["vision_cassava_multiworker-image"]["inputs"]["tags"][0]

    subprocess.run(["git", "init", "-q"], cwd=project, check=True, capture_output=True)  # the plan reads a checkout
    spec_file = "specs/vision/cassava_multiworker.yaml"
    result = validate_bytes((project / spec_file).read_bytes(), str(project / spec_file))
    assert result.job is not None
    placeholder = built_image(result.job, spec_file, WorkTree(Git(project)))
    expected = image_tag("vision_cassava_multiworker", directory_digest(project / "examples/containers/cassava"))
    assert placeholder == f"<built from examples/containers/cassava: {expected}>"
    assert tag.endswith("/" + expected)  # the registry's path, then the plan's image:tag
