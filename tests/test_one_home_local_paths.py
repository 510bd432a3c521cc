"""The local paths a spec names have one home (provider.spec.local_paths), and its three readers agree.

Validation (provider.validation.rules.paths, rules/package_extras.py), the Pulumi Check's carry
decision (``TrainingJob.names_local_files``, provider.resources.job_check) and a GitOps plan's
folders (provider.gitops.sources) all derive from ``local_paths``. For a spec naming each field
of the schema that holds a local path, and for a spec naming none, each test here asks all three.

The schema has no format for a local path; its descriptions say "relative to this file" (or, for a
Dockerfile, "relative to the context"). The first test finds the fields by that wording, so a new
local-path field fails it until it is listed in ``CASES`` (and in ``local_paths``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from provider.gitops.sources import local_folders, tree_folder
from provider.spec.local_paths import LocalKind, local_paths
from provider.validation.rules.base import Context
from provider.validation.validator import validate_bytes

ROOT = Path(__file__).resolve().parent.parent
MARKS = ("relative to this file", "relative to the context")

NATIVE = """apiVersion: trainjobs/v1
kind: TrainingJob
metadata: {{name: local_paths_job, team: platform}}
spec:
  region: us-central1
  workerPools:
    chief: {{machineType: n1-standard-4}}
  application:
{application}
  baseOutputDirectory: gs://local-bucket/jobs/local_paths_job
"""
LEGACY = """apiVersion: trainjobs/v1
kind: TrainingJob
metadata: {{name: local_paths_legacy, team: seeds}}
spec:
  region: us-east1
{fields}
  moduleName: trainer.task
  jobDir: gs://seeds-bucket/jobs/local_paths_legacy
  trainingInput:
    scaleTier: BASIC
"""
PYTHON = "    pythonPackage:\n      module: trainer.task\n      executorImage: us-docker.pkg.dev/vertex-ai/training/tf-cpu.2-17.py310:latest\n"

# (schema field as (parent, name), spec text, the kinds local_paths gives, what each is written as)
CASES: dict[tuple[str, str], tuple[str, list[tuple[LocalKind, str]]]] = {
    ("pythonPackage", "path"): (NATIVE.format(application=PYTHON + "      path: missing/trainer"),
                                [(LocalKind.PACKAGE, "missing/trainer")]),
    ("pythonPackage", "extraPackages"): (
        NATIVE.format(application=PYTHON + "      uris: [gs://local-bucket/p.tar.gz]\n"
                      "      extraPackages: [dist/missing-1.0.tar.gz]"),
        [(LocalKind.EXTRA_PACKAGE, "dist/missing-1.0.tar.gz")]),
    ("build", "context"): (NATIVE.format(application="    container:\n      build: {context: missing/ctx}"),
                           [(LocalKind.BUILD_CONTEXT, "missing/ctx"), (LocalKind.DOCKERFILE, "Dockerfile")]),
    ("build", "dockerfile"): (
        NATIVE.format(application="    container:\n      build: {context: ctx, dockerfile: docker/Train.dockerfile}"),
        [(LocalKind.BUILD_CONTEXT, "ctx"), (LocalKind.DOCKERFILE, "docker/Train.dockerfile")]),
    ("", "packagePath"): (LEGACY.format(fields="  packagePath: missing/trainer"),
                          [(LocalKind.PACKAGE, "missing/trainer")]),
    ("", "packages"): (LEGACY.format(fields="  packages: [gs://seeds-bucket/p.tar.gz, dist/missing-1.0.tar.gz]"),
                       [(LocalKind.EXTRA_PACKAGE, "dist/missing-1.0.tar.gz")]),
}
NONE = NATIVE.format(application=PYTHON + "      uris: [gs://local-bucket/p.tar.gz]")
SPEC_FILE = "specs/job.yaml"


def _marked(node: Any, parent: str = "") -> set[tuple[str, str]]:
    """The (parent, name) of every schema property whose description says it is a local path."""
    out: set[tuple[str, str]] = set()
    if isinstance(node, list):
        for item in node:
            out |= _marked(item, parent)
    elif isinstance(node, dict):
        for key, value in node.items():
            if key == "properties" and isinstance(value, dict):
                for name, sub in value.items():
                    if isinstance(sub, dict) and any(m in str(sub.get("description", "")) for m in MARKS):
                        out.add((parent, name))
                    out |= _marked(sub, name)
            else:
                out |= _marked(value, parent)
    return out


def test_every_local_path_field_of_the_schema_is_a_case() -> None:
    schema = json.loads((ROOT / "schemas" / "trainingjob.schema.json").read_text())
    assert _marked(schema) == set(CASES)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository with the spec's folder and a build context ``ctx`` that holds no Dockerfile."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "specs" / "ctx").mkdir(parents=True)
    return tmp_path


def _check(repo: Path, text: str) -> tuple[Any, list[str]]:
    (repo / SPEC_FILE).write_text(text)
    result = validate_bytes(text.encode(), SPEC_FILE, Context(spec_dir=repo / "specs"))
    assert result.job is not None, [p.message for p in result.problems]
    return result.job, [p.message for p in result.problems]


@pytest.mark.parametrize("field", sorted(CASES), ids=lambda f: ".".join(p for p in f if p))
def test_the_three_uses_agree_on_each_field(repo: Path, field: tuple[str, str]) -> None:
    text, expected = CASES[field]
    job, messages = _check(repo, text)
    named = local_paths(job)
    assert [(p.kind, p.written) for p in named] == expected
    # validation: each path that is not there is refused by name (a Dockerfile: by its context's,
    # when the context is missing)
    for item in named:
        assert any(item.written in m or (item.under and item.under in m) for m in messages), (item, messages)
    # Check: the spec reads local files, so its verdict is never carried
    assert job.names_local_files
    # the plan: it proves each named folder alike; a named file is read from the folder holding it
    folders = local_folders(job, SPEC_FILE)
    assert {f for f, _ in folders} == {tree_folder(SPEC_FILE, p) for p in named if p.kind.folder}
    for item in named:
        want = "specs/" + (item.from_spec if item.kind.folder else item.from_spec.rpartition("/")[0])
        assert tree_folder(SPEC_FILE, item) == want


def test_the_three_uses_agree_on_a_spec_naming_none(repo: Path) -> None:
    job, messages = _check(repo, NONE)
    assert local_paths(job) == ()
    assert not [m for m in messages if "does not exist" in m or "not a directory" in m]
    assert not job.names_local_files
    assert local_folders(job, SPEC_FILE) == []


def test_an_empty_package_path_is_the_spec_folder_for_all_three(repo: Path) -> None:
    """``path: ""`` packages the spec's own folder (provider.packaging.resolve_source): validation
    checks it, the Check does not carry, the plan proves that folder."""
    (repo / "specs" / "ctx" / "__init__.py").write_text("")
    (repo / "specs" / "__init__.py").write_text("")
    job, messages = _check(repo, NATIVE.format(application=PYTHON + '      path: ""'))
    assert [(p.kind, p.written) for p in local_paths(job)] == [(LocalKind.PACKAGE, "")]
    assert job.names_local_files
    assert local_folders(job, SPEC_FILE)[0][0] == "specs"
    assert not [m for m in messages if "does not exist" in m]
