"""The validate command: exit codes, formats, colour, and no traceback for a user error."""

from __future__ import annotations

import json
from pathlib import Path

from .conftest import ROOT, no_traceback, run_cli

BAD = ROOT / "tests" / "negative" / "two_v100_on_n1_standard_32.yaml"


def test_exit_codes() -> None:
    assert run_cli("validate", "specs/local/simple.yaml").returncode == 0
    assert run_cli("validate", str(BAD)).returncode == 1
    usage = run_cli("validate", "--format", "yaml")
    assert usage.returncode == 2 and "invalid choice" in usage.stderr
    no_traceback(usage)
    assert run_cli("no-such-command").returncode == 2
    assert run_cli().returncode == 2


def test_text_output_shows_where_what_and_allowed() -> None:
    proc = run_cli("validate", str(BAD))
    out = proc.stdout
    assert "two_v100_on_n1_standard_32.yaml:14:53: error: 2 x NVIDIA_TESLA_V100 is not a valid count" in out
    assert "at spec.workerPools.chief.accelerator.count" in out
    assert "allowed: 4 or 8 x NVIDIA_TESLA_V100 on n1-standard-32" in out
    assert "\033[" not in out  # NO_COLOR is set by run_cli


def test_colour_unless_no_color(tmp_path: Path) -> None:
    coloured = run_cli("validate", str(BAD), "--color", "always")
    assert "\033[1;31merror" in coloured.stdout
    plain = run_cli("validate", str(BAD), "--color", "auto")  # not a tty, and NO_COLOR set
    assert "\033[" not in plain.stdout


def test_json_output() -> None:
    data = json.loads(run_cli("validate", str(BAD), "--format", "json").stdout)
    assert data["ok"] is False and data["errors"] == 1
    (problem,) = [p for p in data["problems"] if p["severity"] == "error"]  # (and its image's date warning)
    assert problem["line"] == 14 and problem["column"] == 53
    assert problem["path"] == "spec.workerPools.chief.accelerator.count"
    assert problem["rule"] == "gpu.count" and "seed 001" in problem["source"]


def test_github_annotations() -> None:
    proc = run_cli("validate", str(BAD), "--format", "github")
    line = next(x for x in proc.stdout.splitlines() if x.startswith("::error"))
    assert line.startswith("::error file=") and ",line=14,col=53,title=gpu.count::" in line
    assert "%0Aallowed: 4 or 8" in line  # newlines escaped as the workflow command syntax requires


def test_close_match_suggestions() -> None:
    proc = run_cli("validate", "tests/negative/unknown_key_typo.yaml", "tests/negative/unknown_region.yaml")
    assert "did you mean 'machineType'?" in proc.stdout
    assert "did you mean 'us-central1'" in proc.stdout


def test_validate_defaults_to_specs_and_refuses_a_missing_default(tmp_path: Path) -> None:
    proc = run_cli("validate", cwd=tmp_path)
    no_traceback(proc)
    assert proc.returncode == 2 and "no specs/ directory here" in proc.stderr


def test_internal_errors_are_not_tracebacks(tmp_path: Path) -> None:
    # A stacks path that is a file makes StackIndex fail in an unexpected way: still one line.
    weird = tmp_path / "stacks"
    weird.write_text("not a dir")
    proc = run_cli("validate", "specs/local/simple.yaml", "--stacks", str(weird))
    no_traceback(proc)
    assert proc.returncode in (0, 3)


def test_summary_lists_jobs() -> None:
    proc = run_cli("validate", "specs/local", "--summary")
    assert proc.returncode == 0
    assert "local_simple" in proc.stdout and "JOB" in proc.stdout


def test_validate_a_stack_file_checks_it_and_the_specs_it_holds(tmp_path: Path) -> None:
    proc = run_cli("validate", "stacks/Pulumi.vision-dev.yaml", "--format", "json")
    assert proc.returncode == 0, proc.stdout
    report = json.loads(proc.stdout)
    vision_specs = len(list((ROOT / "specs" / "vision").glob("*.yaml")))
    stack_files = len(list((ROOT / "stacks").glob("Pulumi.*.yaml")))
    assert report["checked"] == vision_specs + stack_files  # the stack files, and the specs vision-dev holds

    broken = tmp_path / "Pulumi.x.yaml"
    broken.write_text((ROOT / "stacks" / "Pulumi.nlp-dev.yaml").read_text().replace("backend: vertex", "backend: vertx"))
    proc = run_cli("validate", str(broken))
    assert proc.returncode == 1
    assert f"{broken}:4:22: error: 'vertx' is not allowed for trainjobs:backend" in proc.stdout
    assert "did you mean 'vertex'?" in proc.stdout
    no_traceback(proc)


def _tracked_spec(path: Path, tracking: str) -> Path:
    path.write_text(f"""\
apiVersion: trainjobs/v1
kind: TrainingJob
metadata: {{name: {path.stem}, team: platform}}
spec:
  region: europe-west4
  workerPools:
    chief: {{machineType: n1-standard-4}}
  application:
    pythonPackage:
      path: {ROOT / "examples" / "trainers" / "simple" / "trainer"}
      module: trainer.task
      executorImage: us-docker.pkg.dev/vertex-ai/training/pytorch-xla.2-4.py310:latest
  jobDir: gs://local-bucket/jobs/{path.stem}
  serviceAccount: trainer@p.iam.gserviceaccount.com
{tracking}""")
    return path


def test_dry_run_shows_what_the_trainer_would_be_tracked_in(tmp_path: Path) -> None:
    """The plan's environment is the one a run gives (cluster.replica_env): the job's project and
    region, its TensorBoard and log dir, its experiment and run."""
    home = {"TRAINJOBS_HOME": str(tmp_path / "home")}
    contexts = "projects/p/locations/europe-west4/metadataStores/default/contexts"
    board = "projects/p/locations/europe-west4/tensorboards/7"
    runs = _tracked_spec(tmp_path / "in_a_run.yaml", f"  experiment: {contexts}/exp\n"
                                                     f"  experimentRun: {contexts}/exp-first\n")
    boards = _tracked_spec(tmp_path / "with_a_board.yaml", f"  tensorboard: {board}\n")
    shown = []
    for spec in (runs, boards):
        proc = run_cli("run", str(spec), "--dry-run", "--format", "json", env=home)
        no_traceback(proc)
        assert proc.returncode == 0, proc.stderr
        [replica] = json.loads(proc.stdout)["replicas"]
        shown.append({k: v for k, v in replica["env"].items() if k.startswith(("AIP_", "CLOUD_ML_"))})
    where = {"CLOUD_ML_PROJECT_ID": "local", "CLOUD_ML_REGION": "europe-west4", "CLOUD_ML_JOB_ID": "DRY-RUN"}
    logs = {"AIP_MODEL_DIR": "model/", "AIP_CHECKPOINT_DIR": "checkpoints/", "AIP_TENSORBOARD_LOG_DIR": "logs/"}
    assert shown[0] == {**where, **{k: f"gs://local-bucket/jobs/in_a_run/{v}" for k, v in logs.items()},
                        "AIP_EXPERIMENT_NAME": f"{contexts}/exp", "AIP_EXPERIMENT_RUN_NAME": f"{contexts}/exp-first"}
    assert shown[1] == {**where, **{k: f"gs://local-bucket/jobs/with_a_board/{v}" for k, v in logs.items()},
                        "AIP_TENSORBOARD_RESOURCE_NAME": board}
    text = run_cli("run", str(runs), "--dry-run", env=home).stdout
    assert f"    AIP_EXPERIMENT_RUN_NAME={contexts}/exp-first\n" in text and "    CLOUD_ML_REGION=europe-west4\n" in text
    assert not (tmp_path / "home" / "jobs").exists()  # nothing started
