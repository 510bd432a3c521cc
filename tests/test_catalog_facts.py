"""The catalog's facts where they bear on a spec: prebuilt containers' dates for every named image,
retired accelerators never offered as allowed, the AIP_* output directories, and ``convert``
never writing a retired default image.

The dates come from the catalog (runtimes.json, accelerators.json); each test fixes "today" in the
rules' Context, so the same spec is judged before and after a date without waiting for it.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from provider.catalog import CATALOG
from provider.core.problem import Severity
from provider.validation.rules import Context, Target
from provider.validation.validator import validate_bytes

from .conftest import run_cli

SPEC = """\
apiVersion: trainjobs/v1
kind: TrainingJob
metadata:
  name: facts_job
spec:
  region: us-central1
{output}  workerPools:
    chief:
      machineType: {machine}
{accelerator}  application:
    pythonPackage: {{uris: [gs://b/p.tar.gz], module: trainer.task, executorImage: {image}}}
{env}"""
IMAGE = "us-docker.pkg.dev/vertex-ai/training/{name}:latest"


def check(image: str = "tf-cpu.2-17.py310", *, machine: str = "n1-standard-4", accelerator: str = "",
          env: str = "", output: str = "", today: dt.date = dt.date(2026, 11, 25), target: Target = Target.ANY):
    text = SPEC.format(image=IMAGE.format(name=image), machine=machine, accelerator=accelerator, env=env,
                       output=output)
    return validate_bytes(text.encode(), "facts.yaml", Context(target=target, today=today)).problems


def by_rule(problems, rule: str):
    return [p for p in problems if p.rule == rule]


def container(name: str) -> dict[str, str]:
    rec: dict[str, str] = CATALOG.runtimes()["prebuilt_training_containers"][name]
    return rec


# -- prebuilt containers ----------------------------------------------------------------------------


def test_a_current_container_is_not_mentioned() -> None:
    eos = dt.date.fromisoformat(container("tf-cpu.2-17.py310")["end_of_support"])
    assert by_rule(check(today=eos), "container.end_of_support") == []
    assert by_rule(check(today=eos), "container.end_of_availability") == []


def test_past_end_of_support_is_a_warning_with_the_day_it_stops() -> None:
    rec = container("tf-cpu.2-17.py310")
    day_after = dt.date.fromisoformat(rec["end_of_support"]) + dt.timedelta(days=1)
    (found,) = by_rule(check(today=day_after, target=Target.VERTEX), "container.end_of_support")
    assert found.severity is Severity.WARNING and f"until {rec['end_of_availability']}" in found.message
    assert found.line == 11  # the pythonPackage line that names the image


def test_past_end_of_availability_with_a_newer_container_is_an_error_in_a_vertex_stack() -> None:
    # tf-cpu.2-8 left on 2024-11-15; on 2025-01-01 the catalog still served newer TensorFlow CPU builds.
    today = dt.date(2025, 1, 1)
    assert dt.date.fromisoformat(container("tf-cpu.2-8")["end_of_availability"]) < today
    (vertex,) = by_rule(check("tf-cpu.2-8", today=today, target=Target.VERTEX), "container.end_of_availability")
    assert vertex.severity is Severity.ERROR and "no longer serves it" in vertex.message
    assert vertex.allowed is not None and "tf-cpu." in vertex.allowed and "tf-cpu.2-8 " not in vertex.allowed
    (anywhere,) = by_rule(check("tf-cpu.2-8", today=today), "container.end_of_availability")
    assert anywhere.severity is Severity.WARNING


def test_past_end_of_availability_without_a_served_successor_stays_a_warning_that_says_so() -> None:
    late = max(dt.date.fromisoformat(r["end_of_availability"])
               for r in CATALOG.runtimes()["prebuilt_training_containers"].values()
               if r.get("framework") == "tensorflow") + dt.timedelta(days=1)
    (found,) = by_rule(check(today=late, target=Target.VERTEX), "container.end_of_availability")
    assert found.severity is Severity.WARNING and "lists none still served" in (found.allowed or "")


def test_the_legacy_gcr_host_is_checked_too() -> None:
    text = SPEC.format(image="gcr.io/cloud-aiplatform/training/tf-cpu.2-8:latest", machine="n1-standard-4",
                       accelerator="", env="", output="")
    problems = validate_bytes(text.encode(), "facts.yaml", Context(today=dt.date(2025, 1, 1))).problems
    assert by_rule(problems, "container.end_of_availability")


def test_convert_never_writes_a_retired_default_image(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text("trainingInput:\n  scaleTier: BASIC\n  packageUris: [gs://b/p.tar.gz]\n"
                      "  pythonModule: trainer.task\n", encoding="utf-8")
    proc = run_cli("convert", str(config), "--name", "conv_job", "--region", "us-central1")
    default = CATALOG.runtimes()["default_without_runtime"]
    served = CATALOG.default_container_served(dt.date.today())
    body = "\n".join(line for line in proc.stdout.splitlines() if not line.startswith("#"))
    assert (default["cpu"] in body) is served, proc.stdout + proc.stderr
    if not served:
        assert "executorImage" not in body and "stopped serving" in proc.stdout


# -- accelerators -----------------------------------------------------------------------------------


def test_retired_accelerators_are_never_offered_as_allowed() -> None:
    problems = check(machine="n1-standard-8", accelerator="      accelerator: {type: NVIDIA_TESLA_A100, count: 1}\n")
    (found,) = by_rule(problems, "gpu.type")
    assert "NVIDIA_TESLA_T4" in (found.allowed or "")
    for retired in ("NVIDIA_TESLA_K80", "NVIDIA_TESLA_P100"):
        assert all(retired not in (p.allowed or "") for p in problems), problems
    # Before P100's end of support it was still a choice.
    before = check(machine="n1-standard-8", accelerator="      accelerator: {type: NVIDIA_TESLA_A100, count: 1}\n",
                   today=dt.date(2026, 9, 1))
    assert "NVIDIA_TESLA_P100" in (by_rule(before, "gpu.type")[0].allowed or "")


def test_a_count_names_the_machine_type_that_takes_it() -> None:
    problems = check("tf-gpu.2-17.py310", machine="a2-highgpu-1g",
                     accelerator="      accelerator: {type: NVIDIA_TESLA_A100, count: 4}\n")
    (found,) = by_rule(problems, "gpu.count")
    assert "a2-highgpu-4g takes 4 x NVIDIA_TESLA_A100" in (found.allowed or "")


# -- environment ------------------------------------------------------------------------------------


def test_aip_output_directories_in_env_are_a_warning_naming_which_value_wins() -> None:
    for name in ("AIP_MODEL_DIR", "AIP_CHECKPOINT_DIR", "AIP_TENSORBOARD_LOG_DIR"):
        alone = by_rule(check(env=f"  env: {{{name}: gs://b/out}}\n", target=Target.VERTEX), "env.output_dir")
        assert len(alone) == 1 and alone[0].severity is Severity.WARNING and "as written" in alone[0].message
        both = by_rule(check(env=f"  env: {{{name}: gs://b/out}}\n", output="  baseOutputDirectory: gs://b/base\n",
                             target=Target.VERTEX), "env.output_dir")
        assert len(both) == 1 and "may see either" in both[0].message
    other = check(env="  env: {AIP_TRAINING_DATA_URI: gs://b/d}\n", target=Target.VERTEX)
    assert [p.severity for p in by_rule(other, "env.reserved")] == [Severity.ERROR]


# -- durations --------------------------------------------------------------------------------------


def test_a_bare_number_of_seconds_is_told_to_add_the_suffix_and_nothing_else(tmp_path: Path) -> None:
    """maxRunningTime: 600 in a stack with a maxRunningTime quota: one message, naming 600s."""
    (tmp_path / "stacks").mkdir()
    (tmp_path / "specs" / "local").mkdir(parents=True)
    (tmp_path / "stacks" / "Pulumi.local.yaml").write_text(
        "config:\n  trainjobs:backend: local\n  gcp:region: us-central1\n  trainjobs:specs:\n    - specs/local/*.yaml\n"
        "  trainjobs:quotas:\n    maxRunningTime: 3600s\n", encoding="utf-8")
    spec = SPEC.format(image=IMAGE.format(name="tf-cpu.2-17.py310"), machine="n1-standard-4", accelerator="",
                       env="  scheduling: {maxRunningTime: 600}\n", output="")
    (tmp_path / "specs" / "local" / "job.yaml").write_text(spec, encoding="utf-8")
    proc = run_cli("validate", "specs", cwd=tmp_path)
    assert proc.returncode == 1 and 'write "600s"' in proc.stdout, proc.stdout + proc.stderr
    assert "quote it" not in proc.stdout and "sets no maxRunningTime" not in proc.stdout
