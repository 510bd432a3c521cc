"""``trainjobs run --stack S`` on a vertex stack whose ``trainjobs:apiEndpoint`` is the emulator.

The job goes to the emulator (never to this machine's local backend), staged through its Cloud
Storage API, with the stack's labels and the identity label the Pulumi program computes for the
same spec (provider.submission.stack_request, which the program calls), so a second ``run`` of
the same spec adopts the first job instead of starting another, as ``pulumi up`` would. ``--dry-run``
says where it would go. Everything runs as a user runs it: the real command, from a project
directory, through the real google-cloud-aiplatform and google-cloud-storage clients.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from provider.backends.base import JobState
from provider.backends.local.backend import LocalBackend
from provider.backends.vertex import VertexBackend
from provider.core.labels import IDENTITY_LABEL, STACK_LABEL
from provider.emulator.server import Emulator
from provider.stack.check import validate_in
from provider.submission.stack_request import stack_request, team_account
from provider.workspace import Workspace
from tests.conftest import no_traceback
from tests.vertex.conftest import BUCKET, LOCATION, PROBE, PROJECT, ROOT, emulator_stack

pytestmark = pytest.mark.slow

STACK = "team-emu"
TIMED = re.compile(r"^(?P<time>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z) (?P<line>\[workerpool0-0\] .*)$")
SPEC = """\
apiVersion: trainjobs/v1
kind: TrainingJob
metadata:
  name: {name}
  labels: {{cost-center: research}}
spec:
  region: us-central1
  workerPools:
    chief: {{machineType: n1-standard-4}}
  application:
    pythonPackage:
      path: ../trainer/probe
      module: probe.task
      executorImage: us-docker.pkg.dev/vertex-ai/training/pytorch-xla.2-4.py310:latest
  args: [--steps, "{steps}", --step-seconds, "0.2"]
  baseOutputDirectory: gs://{bucket}/{name}
"""


@pytest.fixture
def project(tmp_path: Path, emulator: Emulator) -> Path:
    proj = tmp_path / "project"
    emulator_stack(proj, STACK, emulator.endpoint, f"  trainjobs:bucket: {BUCKET}\n  trainjobs:labels: {{env: emu}}\n")
    (proj / "Pulumi.yaml").write_text("name: emu\nruntime: python\n")
    shutil.copytree(PROBE.parent, proj / "trainer")
    (proj / "specs").mkdir()
    (proj / "specs" / "quick.yaml").write_text(SPEC.format(name="emu_quick", steps=1, bucket=BUCKET))
    (proj / "specs" / "long.yaml").write_text(SPEC.format(name="emu_long", steps=600, bucket=BUCKET))
    return proj


def cli(cwd: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1", "PYTHONPATH": str(ROOT)}
    env.pop("TRAINJOBS_DEBUG", None)
    proc = subprocess.run([sys.executable, "-m", "provider", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout, check=False)
    no_traceback(proc)
    return proc


def emulator_jobs(emulator: Emulator) -> list[dict[str, object]]:
    """Every job the emulator holds, as its REST API lists them."""
    backend = VertexBackend(PROJECT, LOCATION, api_endpoint=emulator.endpoint)
    return [{"id": j.id, "labels": j.labels_dict, "state": j.state} for j in backend.list()]


def provider_identity(project: Path, spec: str) -> str:
    """The identity label the Pulumi program gives the spec's job in the stack."""
    ws = Workspace.of(project / spec)
    (stack,) = ws.stacks
    job = validate_in(project / spec, stack).job
    assert job is not None
    request = stack_request(job, (project / spec).parent, stack, account=team_account(stack))
    return str(request.body["labels"][IDENTITY_LABEL])


def test_run_on_a_vertex_stack_submits_to_its_endpoint_with_the_identity_label(project: Path,
                                                                                emulator: Emulator) -> None:
    dry = cli(project / "specs", "run", "long.yaml", "--stack", STACK, "--dry-run", "--format", "json")
    assert dry.returncode == 0, dry.stderr
    shown = json.loads(dry.stdout)
    assert shown["where"] == {"backend": "vertex", "stack": STACK, "description":
                              f"Vertex AI, project {PROJECT}, region {LOCATION}, at {emulator.endpoint}"}
    assert shown["verdict"]["ok"] is True and shown["replicas"] == []
    assert emulator_jobs(emulator) == []  # a dry run starts nothing

    first = cli(project / "specs", "run", "long.yaml", "--stack", STACK, "--detach", "--format", "json")
    assert first.returncode == 0, first.stderr
    started = json.loads(first.stdout)
    assert f"as stack {STACK}'s Vertex AI job {started['id']}" in first.stderr
    (job,) = emulator_jobs(emulator)
    labels = job["labels"]
    assert isinstance(labels, dict)
    assert job["id"] == started["id"]
    assert labels[IDENTITY_LABEL] == provider_identity(project, "specs/long.yaml")
    assert labels[STACK_LABEL] == STACK and labels["env"] == "emu"
    # never this machine's own backend: the local job store of TRAINJOBS_HOME holds nothing
    assert LocalBackend().list() == []

    again = cli(project, "run", "specs/long.yaml", "--stack", STACK, "--detach", "--format", "json")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout) == {"id": started["id"], "name": "emu_long", "adopted": True}
    assert f"adopted stack {STACK}'s Vertex AI job {started['id']}" in again.stderr
    assert [j["id"] for j in emulator_jobs(emulator)] == [started["id"]]  # no second job

    cancelled = cli(project / "specs", "cancel", started["id"], "--stack", STACK, "--format", "json")  # a subfolder
    assert cancelled.returncode == 0, cancelled.stderr
    # a cancelled job is not adopted (the provider's rule): the next run starts a new one
    third = cli(project, "run", "specs/long.yaml", "--stack", STACK, "--detach", "--format", "json")
    assert third.returncode == 0, third.stderr
    assert json.loads(third.stdout)["id"] != started["id"]
    assert len(emulator_jobs(emulator)) == 2
    assert cli(project, "cancel", json.loads(third.stdout)["id"], "--stack", STACK).returncode == 0


def test_run_follows_a_vertex_job_to_its_end(project: Path, emulator: Emulator) -> None:
    proc = cli(project, "run", "specs/quick.yaml", "--stack", STACK, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (job,) = emulator_jobs(emulator)
    assert job["state"] is JobState.SUCCEEDED
    assert "SUCCEEDED" in proc.stdout
    # the trainer's lines as `trainjobs logs` prints them: each with the time it was written, in time order,
    # and all of them before the final state
    timed = [m for m in (TIMED.match(line) for line in proc.stdout.splitlines()) if m]
    assert [m["line"] for m in timed if ": step " in m["line"] or ": done" in m["line"]] == [
        "[workerpool0-0] workerpool0-0: step 0", "[workerpool0-0] workerpool0-0: done"], proc.stdout
    assert not any(line.startswith("[workerpool0-0]") for line in proc.stdout.splitlines())  # none without its time
    stamps = [m["time"] for m in timed]
    assert stamps == sorted(stamps)
    last_line = proc.stdout.index(timed[-1].group(0))
    assert last_line < proc.stdout.rindex("SUCCEEDED")


def test_run_on_a_stack_whose_bucket_does_not_exist_says_so_and_starts_nothing(project: Path,
                                                                                 emulator: Emulator) -> None:
    stack_file = project / "stacks" / f"Pulumi.{STACK}.yaml"
    stack_file.write_text(stack_file.read_text().replace(f"trainjobs:bucket: {BUCKET}", "trainjobs:bucket: no-such"))
    (project / "specs" / "quick.yaml").write_text(SPEC.format(name="emu_quick", steps=1, bucket="no-such"))
    proc = cli(project, "run", "specs/quick.yaml", "--stack", STACK)
    assert proc.returncode == 1
    assert "the bucket gs://no-such does not exist" in proc.stderr and "pulumi up" in proc.stderr
    assert emulator_jobs(emulator) == []


def test_cpu_is_refused_on_a_vertex_stack(project: Path, emulator: Emulator) -> None:
    proc = cli(project, "run", "specs/quick.yaml", "--stack", STACK, "--cpu")
    assert proc.returncode == 2 and "--cpu runs a GPU spec on this machine's CPU" in proc.stderr
    assert emulator_jobs(emulator) == []


def test_the_emulator_given_the_workspace_refuses_what_the_stack_refuses(project: Path, emulator: Emulator) -> None:
    from provider.backends.base import InvalidArgument
    from provider.submission.launch import submission

    stack_file = project / "stacks" / f"Pulumi.{STACK}.yaml"
    stack_file.write_text(stack_file.read_text() + "  trainjobs:policy: {requiredLabels: [owner]}\n")
    ws = Workspace.of(project / "specs" / "quick.yaml")
    (stack,) = ws.stacks
    job = validate_in(project / "specs" / "quick.yaml", stack).job
    assert job is not None
    request = stack_request(job, project / "specs", stack, account=team_account(stack))
    backend = VertexBackend(PROJECT, LOCATION, api_endpoint=emulator.endpoint)
    emulator.jobs.workspace = ws
    with pytest.raises(InvalidArgument) as refused:
        backend.submit(submission(job, request))
    assert f"emu_quick lacks the label(s) owner that stack {STACK} requires" in refused.value.message
    assert emulator_jobs(emulator) == []
    validate = cli(project, "validate", "specs/quick.yaml")
    assert validate.returncode == 1 and f"lacks the label(s) owner that stack {STACK} requires" in validate.stdout


def test_the_emulator_workspace_must_be_a_repository(tmp_path: Path) -> None:
    proc = cli(tmp_path, "emulator", "--workspace", str(tmp_path), "--state-dir", str(tmp_path / "state"))
    assert proc.returncode == 2 and "no repository there" in proc.stderr
