"""Stack files: their own schema, the same quality of errors, and which specs they hold."""

from __future__ import annotations

from pathlib import Path

from provider.stack.config import load_stack
from provider.stack.membership import StackIndex

from .conftest import ROOT, no_traceback, run_cli


def test_every_stack_file_is_valid() -> None:
    index = StackIndex.load(ROOT / "stacks")
    assert not index.problems
    assert {s.name for s in index.stacks} >= {"local", "vision-dev", "vision-prod", "nlp-dev"}
    vision = index.stack("vision-dev")
    assert vision is not None and vision.backend == "vertex" and vision.project == "acme-vision-dev"
    assert vision.bucket == "acme-vision-dev-vision-dev"
    assert vision.quotas.max_gpus_per_job == 32 and vision.wait.until == "running"


def test_stack_membership_and_targets() -> None:
    index = StackIndex.load(ROOT / "stacks")
    resnet = ROOT / "specs/vision/resnet_t4.yaml"
    assert sorted(s.name for s in index.stacks_of(resnet)) == ["vision-dev", "vision-prod"]
    assert index.context_for(resnet).target.value == "vertex"
    assert index.context_for(ROOT / "specs/local/simple.yaml").target.value == "local"
    assert index.context_for(ROOT / "specs/seeds/basic_tier.yaml").target.value == "any"


def test_bad_stack_file_gets_positions(tmp_path: Path) -> None:
    bad = tmp_path / "Pulumi.broken.yaml"
    bad.write_text(
        "config:\n"
        "  trainjobs:backend: vertx\n"
        "  trainjobs:team: Vision\n"
        "  gcp:region: us-central1\n"
        "  trainjobs:specs: [specs/vision/*.yaml]\n"
        "  trainjobs:quotas: {maxGpusPerJob: -1, allowedAccelerators: [T4]}\n"
        "  trainjobs:unknown: 1\n"
    )
    loaded = load_stack(bad, "Pulumi.broken.yaml")
    assert loaded.config is None
    text = "\n".join(f"{p.where}: {p.message} | {p.allowed} | {p.hint}" for p in loaded.problems)
    assert "Pulumi.broken.yaml:2:22: 'vertx' is not allowed for trainjobs:backend" in text
    assert "did you mean 'vertex'" in text
    assert "'Vision' is not a valid trainjobs:team" in text
    assert "maxGpusPerJob is -1, it must be at least 0" in text
    assert "'T4' is not allowed" in text
    assert "unknown key 'trainjobs:unknown'" in text


def test_vertex_stack_needs_a_project(tmp_path: Path) -> None:
    f = tmp_path / "Pulumi.x.yaml"
    f.write_text("config:\n  trainjobs:backend: vertex\n  trainjobs:team: x\n  gcp:region: us-central1\n"
                 "  trainjobs:specs: [specs/x/*.yaml]\n")
    problems = load_stack(f).problems
    assert any("missing the required key 'gcp:project'" in p.message for p in problems)


def test_validate_reports_stack_problems_and_duplicate_names_in_a_stack(tmp_path: Path) -> None:
    (tmp_path / "stacks").mkdir()
    (tmp_path / "specs" / "team").mkdir(parents=True)
    (tmp_path / "stacks" / "Pulumi.team-dev.yaml").write_text(
        "config:\n  trainjobs:backend: local\n  trainjobs:team: team\n  gcp:region: us-central1\n"
        "  trainjobs:specs: [specs/team/*.yaml]\n")
    spec = (ROOT / "tests" / "test_hostile.py").read_text().split('VALID = b"""\\\n')[1].split('"""')[0]
    (tmp_path / "specs" / "team" / "a.yaml").write_text(spec)
    (tmp_path / "specs" / "team" / "b.yaml").write_text(spec)
    proc = run_cli("validate", cwd=tmp_path)
    no_traceback(proc)
    assert proc.returncode == 1
    assert "job name 'hostile_ok' is already used by specs/team/a.yaml" in proc.stdout
    assert "unique across the specs of stack team-dev" in proc.stdout
    # validating one file still sees the other specs of its stack
    proc = run_cli("validate", "specs/team/b.yaml", cwd=tmp_path)
    assert proc.returncode == 1 and "already used by specs/team/a.yaml" in proc.stdout
