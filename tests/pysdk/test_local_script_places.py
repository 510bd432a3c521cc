"""A from_local_script job's problems name the call that builds it (file:line:column), as every other SDK job's do:
the spec checked once its script's folder is packaged (provider/cli/convert_python.py ``_packaged``) keeps the
call's place."""

from __future__ import annotations

from pathlib import Path

from .test_corpus import convert

# source: find_string id 56944297558, a public guide's multi-node job: CustomJob.from_local_script(display_name,
#   script_path="train.py", container_uri=pytorch-gpu.2-1, requirements, machine_type="n1-standard-8",
#   accelerator_type="NVIDIA_TESLA_V100", accelerator_count=4, replica_count=2) after
#   aiplatform.init(project="ai-trading-prod", location="asia-south1"), a region without V100s.
# adapted: a staging bucket added to init (the SDK requires one), the script a stand-in.
_SCRIPT = '''from google.cloud import aiplatform

aiplatform.init(project="ai-trading-prod", location="asia-south1", staging_bucket="gs://ai-trading-prod-vertex")

job = aiplatform.CustomJob.from_local_script(
    display_name="finbert-distributed",
    script_path="train.py",
    container_uri="us-docker.pkg.dev/vertex-ai/training/pytorch-gpu.2-1:latest",
    requirements=["transformers", "accelerate", "deepspeed"],
    machine_type="n1-standard-8",
    accelerator_type="NVIDIA_TESLA_V100",
    accelerator_count=4,
    replica_count=2,
)
job.run()
'''


def test_a_packaged_scripts_problem_names_the_call(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text("print('train')\n", encoding="utf-8")
    (tmp_path / "launch.py").write_text(_SCRIPT, encoding="utf-8")
    done = convert(Path("launch.py"), "--output", "request", cwd=tmp_path)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "launch.py:5:7: error: NVIDIA_TESLA_V100 is not offered for training in asia-south1" in done.stderr
    assert "launch.py: error:" not in done.stderr
