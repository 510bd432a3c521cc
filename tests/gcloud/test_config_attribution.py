"""A problem of a flag, when the command also reads a --config file, is the command's, not the file's
(provider.gcloud.config_doc.attribute): gcloud merges the flags into the config's mappings, and a value a flag
wrote there has no place in the file, so its position only fell back to the mapping's (config.yaml:1:1)."""

from __future__ import annotations

from pathlib import Path

from ..conftest import run_cli

CONFIG = """workerPoolSpecs:
- machineSpec:
    machineType: {machine}
  replicaCount: 1
  containerSpec:
    imageUri: gcr.io/p/img:1
"""
CREATE = "gcloud ai custom-jobs create --region=us-central1 --config=config.yaml --display-name=x"


def _convert(folder: Path, machine: str, flags: str) -> str:
    (folder / ".git").mkdir(exist_ok=True)
    (folder / "config.yaml").write_text(CONFIG.format(machine=machine))
    (folder / "run.sh").write_text(f"{CREATE} {flags}\n")
    done = run_cli("convert", "run.sh", cwd=folder)
    assert done.returncode != 0
    return done.stderr


def test_a_flags_problem_is_the_commands(tmp_path: Path) -> None:
    said = _convert(tmp_path, "n1-standard-4", "--network=bad-net")
    assert "'bad-net' is not a valid network" in said
    assert "config.yaml:1:1" not in said and "read by --config" not in said, said
    assert said.startswith("run.sh:1:1 (its gcloud command) --config config.yaml: error: 'bad-net'"), said


def test_a_problem_of_the_file_stays_at_its_line(tmp_path: Path) -> None:
    said = _convert(tmp_path, "n9-nonesuch-4", "--network=projects/1/global/networks/n")
    assert "config.yaml:3:18:" in said and "n9-nonesuch-4" in said, said
    assert "read by --config at run.sh:1:51" in said
