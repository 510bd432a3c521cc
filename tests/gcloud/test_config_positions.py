"""Problems in a ``--config`` file read by ``convert --gcloud`` carry that file's name, line and column.

The config is read by the document layer, and the TrainingJob made from the command embeds the
config's own mappings, so a problem in a value from the config is reported at
``config.yaml:LINE:COLUMN`` as a problem in a spec is; a problem in a flag's value names the command.
"""

from __future__ import annotations

from pathlib import Path

from ..conftest import no_traceback, run_cli

AIP = ("gcloud ai-platform jobs submit training j1 --region us-central1 --config config.yaml --package-path trainer "
       "--module-name trainer.task --job-dir gs://my-bucket/j1 --runtime-version 2.11 --python-version 3.7")
VERTEX = "gcloud ai custom-jobs create --region us-central1 --display-name d --config config.yaml"


def _trainer(where: Path) -> None:
    (where / "trainer").mkdir()
    (where / "trainer" / "__init__.py").write_text("")
    (where / "trainer" / "task.py").write_text("print('hello')\n")


def _convert(tmp_path: Path, line: str, config: str) -> str:
    _trainer(tmp_path)
    (tmp_path / "config.yaml").write_text(config)
    proc = run_cli("convert", "--gcloud", line, cwd=tmp_path)
    no_traceback(proc)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    return proc.stderr


def test_an_ai_platform_config_problem_is_at_its_line(tmp_path: Path) -> None:
    out = _convert(tmp_path, AIP + " --master-machine-type n1-standard-4x",
                   "trainingInput:\n  scaleTier: CUSTOM\n  masterType: n1-standard-4\n  workerCount: 2\n")
    assert "config.yaml:4:16: error: workerCount is 2 but workerType is not set" in out
    assert "at spec.trainingInput.workerCount" in out
    # the flag's value has no line: it is the command's
    assert "<gcloud command> --config config.yaml: error: 'n1-standard-4x' is not allowed" in out


def test_a_vertex_config_problem_is_at_its_line(tmp_path: Path) -> None:
    out = _convert(tmp_path, VERTEX, "workerPoolSpecs:\n  - machineSpec:\n      machineType: n1-standard-4\n"
                   "      acceleratorType: NVIDIA_TESLA_T4\n      acceleratorCount: 3\n    replicaCount: 1\n"
                   "    containerSpec: {imageUri: gcr.io/p/i}\n")
    assert "config.yaml:5:25: error: 3 x NVIDIA_TESLA_T4 is not a valid count on n1-standard-4" in out


def test_a_config_that_is_not_yaml_is_reported_at_its_line(tmp_path: Path) -> None:
    out = _convert(tmp_path, VERTEX, "workerPoolSpecs:\n\t- x\n")
    assert "config.yaml:2:1: error: a tab character is used for indentation" in out
    (tmp_path / "dup").mkdir()
    out = _convert(tmp_path / "dup", AIP, "trainingInput:\n  scaleTier: CUSTOM\n  scaleTier: BASIC\n")
    assert "config.yaml:3:3: error: duplicate key 'scaleTier' (first defined at line 2)" in out
