"""The program checks each spec in its stack like ``trainjobs validate``: a quota violation has
the same wording, with line and column, and the stack-wide quota points at the stack file."""

from __future__ import annotations

from pathlib import Path

from .conftest import by_type, run_program, stack_config

JOB = "pulumi-python:dynamic/trainjobs:TrainingJob"


def test_quota_violations_fail_the_program_with_their_positions(tmp_path: Path) -> None:
    quotas = {"maxGpusPerJob": 1, "maxGpusPerStack": 2}
    report = run_program(tmp_path, "vision-dev", stack_config("vision-dev", **{"trainjobs:quotas": quotas}))
    error = report["error"] or ""
    assert "stack vision-dev: the specs are invalid" in error, error
    assert ("specs/vision/detector_l4.yaml:12:5: vision_detector_l4 holds 2 GPUs at once, more than stack vision-dev "
            "allows per job at spec.workerPools (allowed: quotas.maxGpusPerJob of stack vision-dev: 1)") in error
    assert "stacks/Pulumi.vision-dev.yaml: the jobs of stack vision-dev hold" in error
    assert "(allowed: quotas.maxGpusPerStack: at most 2)" in error
    assert not by_type(report, JOB)
