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


AIP = ("gcloud ai-platform jobs submit training j1 --config=config.yaml --scale-tier=CUSTOM --region=us-central1 "
       "--master-image-uri=gcr.io/p/i:1 --master-machine-type=n1-highcpu-16 {flag}")


def _aip(folder: Path, config: str, flag: str) -> str:
    """A public script's form (find_string id 47308550268: --config of useChiefInTfConfig, then
    --master-accelerator=count=2,type=nvidia-tesla-k80), converted: its stderr."""
    (folder / ".git").mkdir(exist_ok=True)
    (folder / "config.yaml").write_text(config)
    (folder / "run.sh").write_text(AIP.format(flag=flag) + "\n")
    done = run_cli("convert", "run.sh", "--format", "request", cwd=folder)  # its warnings on stderr
    return done.stderr


def test_a_cluster_flags_problem_is_the_commands(tmp_path: Path) -> None:
    said = _aip(tmp_path, "trainingInput:\n  useChiefInTfConfig: true\n",
                "--master-accelerator=count=2,type=nvidia-tesla-k80")
    assert "run.sh:1:1 (its gcloud command) --config config.yaml: warning: NVIDIA_TESLA_K80" in said, said
    assert "config.yaml:2:3" not in said


def test_the_configs_own_accelerator_stays_at_its_line(tmp_path: Path) -> None:
    said = _aip(tmp_path, "trainingInput:\n  masterConfig:\n    acceleratorConfig:\n      count: 2\n"
                "      type: NVIDIA_TESLA_K80\n", "")
    assert "config.yaml:5:13: warning: NVIDIA_TESLA_K80" in said, said
