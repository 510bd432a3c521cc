"""One answer everywhere: a spec ``trainjobs convert`` writes is one ``trainjobs validate`` accepts.

A legacy scale tier whose machines Vertex AI does not offer for training (STANDARD_1: n1-highcpu-8) is only a
warning in the trainingInput it is written in, but the spec's own schema refuses such a machine type: convert says so
and writes no spec, never one validate refuses. ``--output request`` writes the request as it is read, with the
warnings. Every seed spec and seed config that converts gives a spec validate accepts (its local paths aside: they
are checked where the spec is written)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import ROOT, run_cli

STANDARD_1 = ('trainingInput:\n  scaleTier: STANDARD_1\n  region: us-central1\n  runtimeVersion: "2.11"\n'
              '  pythonVersion: "3.7"\n  pythonModule: trainer.task\n  packageUris: [gs://b/t.tar.gz]\n')
SEEDS = sorted([*(ROOT / "specs" / "seeds").glob("*.yaml"), *(ROOT / "tests" / "fixtures" / "seed_configs").glob("*.yaml")])


def test_a_scale_tier_whose_machines_are_not_offered_is_not_written_as_a_spec(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text(STANDARD_1, encoding="utf-8")
    done = run_cli("convert", str(config))
    assert done.returncode == 1 and not done.stdout
    assert "the spec converted from it would be refused by trainjobs validate, so it is not written" in done.stderr
    assert "'n1-highcpu-8' is not allowed for machineType" in done.stderr
    assert "scale tier STANDARD_1 maps its chief pool to n1-highcpu-8" in done.stderr  # why: the conversion's warning
    request = run_cli("convert", str(config), "--output", "request")
    assert request.returncode == 0, request.stderr


@pytest.mark.parametrize("seed", SEEDS, ids=[p.stem for p in SEEDS])
def test_what_convert_writes_validate_accepts(seed: Path, tmp_path: Path) -> None:
    written = tmp_path / "spec.yaml"
    done = run_cli("convert", str(seed), "--region", "us-central1", "--module-name", "trainer.task",
                   "--package-path", "trainer", "--job-dir", "gs://b/job", "--write", str(written))
    assert done.returncode == 0, done.stderr  # every seed converts, with the flags a bare config.yaml needs
    checked = run_cli("validate", str(written))
    schema_errors = [line for line in checked.stdout.splitlines() if "error:" in line and "does not exist" not in line]
    assert not schema_errors, checked.stdout
