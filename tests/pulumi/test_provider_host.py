"""The TrainingJob provider, driven through the Pulumi SDK's own dynamic-provider host over gRPC.

The inputs are the ones the real program declares (run under mocks, see harness.py); the host is
``python -u -m pulumi.dynamic``, which unpickles the provider from ``__provider`` exactly as the
engine's host does; the jobs are real local processes. Check, Diff, Create, Read, Update and
Delete are called the way ``pulumi preview``, ``pulumi up``, ``pulumi refresh`` and
``pulumi destroy`` call them.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from provider.backends.base import JobStatus, NotFound
from provider.backends.local.backend import LocalBackend
from provider.resources.job_request import decode, encode
from tests.local.conftest import cleanup

from .conftest import ROOT, project_copy, run_program, stack_config
from .host import HostError, ProviderHost

pytestmark = pytest.mark.slow

PROBE = ROOT / "tests" / "fixtures" / "trainers" / "probe" / "probe"
EXECUTOR = "us-docker.pkg.dev/vertex-ai/training/pytorch-xla.2-4.py310:latest"
SPECS = {
    "host_quick": ["--steps", "2"],
    "host_slow": ["--steps", "1200", "--step-seconds", "0.5"],
    "host_failing": ["--steps", "3", "--fail-replica", "workerpool0-0", "--fail-step", "1", "--exit-code", "7"],
}


def spec_document(name: str, args: list[str]) -> dict[str, Any]:
    return {
        "apiVersion": "trainjobs/v1",
        "kind": "TrainingJob",
        "metadata": {"name": name, "team": "platform", "description": "driven through the provider host"},
        "spec": {
            "region": "us-central1",
            "workerPools": {"chief": {"machineType": "n1-standard-4"}},
            # Inside the project (the repository boundary): _project copies the probe trainer there.
            "application": {"pythonPackage": {"path": "../../trainers/probe/probe", "module": "probe.task",
                                              "executorImage": EXECUTOR}},
            "args": args,
            "baseOutputDirectory": f"gs://local-bucket/host/{name}",
            "scheduling": {"maxRunningTime": "900s"},
        },
    }


EMULATED_STACK = """config:
  trainjobs:backend: vertex
  trainjobs:team: platform
  trainjobs:environment: emulated
  gcp:project: test-project
  gcp:region: us-central1
  trainjobs:specs: [specs/host/*.yaml]
  trainjobs:quotas: {maxGpusPerJob: 2, maxGpusPerStack: 4, maxRunningTime: 3600s}
  trainjobs:wait: {until: completion, timeout: 120s}
  trainjobs:apiEndpoint: ENDPOINT
"""


@dataclass
class World:
    kind: str  # local | emulator
    inputs: dict[str, dict[str, Any]]  # what the program declares, per job (no request: Check builds it)
    host: ProviderHost
    backend: Any  # LocalBackend, or VertexBackend against the emulator
    staged: Callable[[str], bool]  # is this gs:// URI staged?
    logs_hint: Callable[[JobStatus], str]  # where a failed job's error tells the user to look

    def checked(self, name: str) -> dict[str, Any]:
        """A job's declared inputs through Check: what the engine stores, the request built by Check."""
        checked, failures = self.host.check(self.inputs[name], name=name)
        assert failures == [], (name, failures)
        return checked

    def job(self, name: str, tag: str, **changes: Any) -> dict[str, Any]:
        """A job's checked inputs, with an identity of its own (so tests never adopt each other's jobs)."""
        inputs = copy.deepcopy(self.checked(name))
        request = decode(inputs["request"])
        labels = request["labels"]
        labels["trainjobs_id"] = hashlib.sha256(f"{labels['trainjobs_id']}/{tag}".encode()).hexdigest()[:32]
        inputs["request"] = encode(request)
        inputs.update(changes)
        return inputs


def _project(tmp: Path) -> Path:
    project = project_copy(tmp)
    (project / "specs" / "host").mkdir()
    shutil.copytree(PROBE.parent, project / "trainers" / "probe")
    for name, args in SPECS.items():
        (project / "specs" / "host" / f"{name}.yaml").write_text(yaml.safe_dump(spec_document(name, args)))
    return project


def _declared(tmp: Path, project: Path, stack: str, config: dict[str, str] | None = None) -> dict[str, dict[str, Any]]:
    report = run_program(tmp, stack, config, project=project)
    assert report["error"] is None, report["error"]
    inputs = {name: v for name, v in report["dynamicInputs"].items() if name in SPECS}
    assert sorted(inputs) == sorted(SPECS)
    return inputs


@contextlib.contextmanager
def _local_world(tmp: Path, env_cache: Path) -> Iterator[World]:
    project = _project(tmp)
    home = tmp / "home"
    inputs = _declared(tmp, project, "local", stack_config("local", project, **{
        "trainjobs:specs": ["specs/host/*.yaml"],
        "trainjobs:localHome": str(home),
        "trainjobs:wait": {"until": "completion", "timeout": "120s"},
    }))
    backend = LocalBackend(home=home)
    host = ProviderHost(env={"TRAINJOBS_ENV_CACHE": str(env_cache), "TRAINJOBS_LOCAL_GPUS": "none"}, cwd=project)
    try:
        yield World("local", inputs, host, backend, lambda uri: backend.storage.path(uri).is_file(),
                    lambda status: f"TRAINJOBS_HOME={home} trainjobs logs {status.id}")
    finally:
        try:
            cleanup(backend)
        finally:
            host.close()


@contextlib.contextmanager
def _emulator_world(tmp: Path, env_cache: Path) -> Iterator[World]:
    """A vertex stack whose trainjobs:apiEndpoint is the emulator: the provider in the host talks
    to it with the real google-cloud-aiplatform and google-cloud-storage clients."""
    from provider.backends.vertex import VertexBackend
    from provider.emulator.server import Emulator
    from provider.packaging.gcs import GcsStager, gcs_client

    with pytest.MonkeyPatch.context() as env:  # what the emulator's jobs inherit
        env.setenv("TRAINJOBS_ENV_CACHE", str(env_cache))
        env.setenv("TRAINJOBS_LOCAL_GPUS", "none")
        env.delenv("TRAINJOBS_STORAGE", raising=False)
        env.delenv("TRAINJOBS_LOCAL_GPU_MODE", raising=False)
        emulator = Emulator(tmp / "emulator").start()
        try:
            project = _project(tmp)
            (project / "stacks" / "Pulumi.emulated.yaml").write_text(
                EMULATED_STACK.replace("ENDPOINT", emulator.endpoint))
            inputs = _declared(tmp, project, "emulated")
            bucket = next(iter(inputs.values()))["package"]["uri"].split("/")[2]
            storage = gcs_client("test-project", emulator.endpoint)
            storage.create_bucket(bucket)  # what TeamInfra creates on a real vertex stack
            backend = VertexBackend("test-project", "us-central1", api_endpoint=emulator.endpoint)
            host = ProviderHost(cwd=project)
            try:
                yield World("emulator", inputs, host, backend, GcsStager(storage).exists,
                            lambda status: status.console_url)
            finally:
                host.close()
        finally:
            emulator.stop()
            cleanup(emulator.local)


@pytest.fixture(scope="module", params=["local", "emulator"])
def world(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, env_cache: Path) -> Iterator[World]:
    tmp = tmp_path_factory.mktemp(f"host-{request.param}")
    make = _local_world if request.param == "local" else _emulator_world
    with make(tmp, env_cache) as w:
        yield w


# -- the provider as the engine carries it -------------------------------------------------------
def test_the_serialized_provider_is_small_and_carries_no_state(world: World) -> None:
    provider = world.inputs["host_quick"]["__provider"]
    assert isinstance(provider, str)
    assert len(provider) < 10_000, len(provider)
    assert all(i["__provider"] == provider for i in world.inputs.values())  # one provider, no per-job state


# -- Check: pulumi preview ----------------------------------------------------------------------
def test_check_accepts_what_the_program_declares_and_builds_its_request(world: World) -> None:
    for name, inputs in world.inputs.items():
        assert "request" not in inputs  # the program carries what it is made of, not the request
        checked, failures = world.host.check(inputs, name=name)
        assert failures == [], (name, failures)
        request = decode(checked["request"])  # one property: the body's canonical JSON
        assert checked["request"] == encode(request) and isinstance(request, dict), name
        assert {k: v for k, v in checked.items() if k != "request"} == inputs  # the rest as it came
        labels = request["labels"]
        assert len(labels["trainjobs_id"]) == 32 and labels["trainjobs-stack"] == inputs["stack"]
        pool = request["jobSpec"]["workerPoolSpecs"][0]
        assert pool["pythonPackageSpec"]["packageUris"] == [inputs["package"]["uri"]]  # what create stages
        assert pool["pythonPackageSpec"]["args"] == SPECS[name]
        if world.kind == "emulator":  # the team's account, which the program passes as an input
            assert request["jobSpec"]["serviceAccount"] == inputs["serviceAccount"]
        again, _ = world.host.check(inputs, name=name)
        assert again["request"] == checked["request"]  # the same inputs, the same request (and identity)
        kept, _ = world.host.check(checked, name=name)
        assert kept == checked  # a request already there (a state, a secret stack's program) is kept


def test_check_reports_each_problem_on_its_property(world: World) -> None:
    inputs = world.job("host_quick", "check")
    inputs["spec"]["spec"]["workerPools"]["chief"] = {
        "machineType": "n1-standard-8", "accelerator": {"type": "NVIDIA_TESLA_T4", "count": 3}}
    inputs["wait"] = {"until": "forever", "timeout": 10}
    inputs["retention"] = "archive"
    del inputs["jobName"]
    _, failures = world.host.check(inputs)
    assert failures == [("jobName", "jobName is required")]  # the first gate: required inputs

    inputs["jobName"] = "host_quick"
    _, failures = world.host.check(inputs)
    by_property = {p: r for p, r in failures}
    assert set(by_property) == {"spec", "quotas", "wait", "retention"}, failures
    assert by_property["spec"].startswith("specs/host/host_quick.yaml at spec.workerPools.chief.accelerator")
    assert "3 x NVIDIA_TESLA_T4 is not a valid count on n1-standard-8" in by_property["spec"]
    assert "(allowed: 1, 2 or 4 x NVIDIA_TESLA_T4 on n1-standard-8; no machine type takes 3" in by_property["spec"]
    assert "3 GPUs" in by_property["quotas"] and "maxGpusPerJob" in by_property["quotas"]
    assert by_property["wait"] == "wait.until is 'forever'; allowed: none, running, completion"
    assert by_property["retention"] == "retention is 'archive'; allowed: keep, delete"


def test_check_applies_the_stacks_quotas(world: World) -> None:
    inputs = world.job("host_quick", "quota")
    inputs["spec"]["spec"]["workerPools"]["chief"] = {
        "machineType": "n1-standard-8", "accelerator": {"type": "NVIDIA_TESLA_T4", "count": 4}}
    _, failures = world.host.check(inputs)
    assert [p for p, _ in failures] == ["quotas"], failures
    assert "4 GPUs" in failures[0][1] and "maxGpusPerJob" in failures[0][1]


def test_check_rejects_a_spec_that_is_not_the_jobs(world: World) -> None:
    inputs = world.job("host_quick", "rename", jobName="someone_else")
    _, failures = world.host.check(inputs)
    assert failures == [("jobName", "jobName 'someone_else' differs from the spec's metadata.name 'host_quick'")]


# -- Diff: what pulumi preview shows -------------------------------------------------------------
def test_diff_tells_replace_from_update_from_nothing(world: World) -> None:
    old = world.job("host_quick", "diff")
    host = world.host

    assert host.diff("1", old, copy.deepcopy(old)).changes == "DIFF_NONE"
    assert host.diff("1", old, {**old, "description": "new words"}).changes == "DIFF_NONE"
    assert host.diff("1", old, {**old, "wait": {"until": "none", "timeout": 5}}).changes == "DIFF_NONE"

    # a state written before the request was one JSON string holds it as a map: the same request
    assert host.diff("1", {**old, "request": decode(old["request"])}, old).changes == "DIFF_NONE"

    body = decode(old["request"])
    body["jobSpec"]["workerPoolSpecs"][0]["pythonPackageSpec"]["args"].append("--more")
    new = {**old, "request": encode(body)}
    answer = host.diff("1", old, new)
    assert host.diff("1", {**old, "request": decode(old["request"])}, new).replaces == ("request",)
    # delete before replace: the stack's default order (trainjobs:replace deleteFirst), issue 10
    assert (answer.changes, answer.replaces, answer.delete_before_replace) == ("DIFF_SOME", ("request",), True)

    moved = {**old, "parent": "projects/local/locations/europe-west4"}
    assert host.diff("1", old, moved).replaces == ("parent",)
    other = {"local": "vertex", "vertex": "local"}[old["backend"]]
    assert host.diff("1", old, {**old, "backend": other}).replaces == ("backend",)
    elsewhere = "apiEndpoint" if old["backend"] == "vertex" else "localHome"  # the same job service, no more
    assert host.diff("1", old, {**old, elsewhere: "/elsewhere"}).replaces == (elsewhere,)

    cancel = host.diff("1", old, {**old, "desiredState": "CANCELLED"})
    assert (cancel.changes, cancel.replaces) == ("DIFF_SOME", ())
    rerun = host.diff("1", {**old, "desiredState": "CANCELLED"}, {**old, "desiredState": "COMPLETED"})
    assert rerun.replaces == ("desiredState",)


# -- Create: pulumi up ---------------------------------------------------------------------------
def test_create_stages_runs_and_waits_for_the_job(world: World) -> None:
    inputs = world.job("host_quick", "create")
    job_id, outs = world.host.check_and_create(inputs)
    assert outs["jobId"] == job_id and outs["state"] == "SUCCEEDED", outs
    assert outs["createTime"] and outs["endTime"] and outs["error"] == ""
    status = world.backend.get(job_id)
    assert status.state.value == "SUCCEEDED"
    assert dict(status.labels)["trainjobs_id"] == decode(inputs["request"])["labels"]["trainjobs_id"]
    assert world.staged(inputs["package"]["uri"]) and inputs["package"]["uri"].endswith(".tar.gz")

    again, outs2 = world.host.check_and_create(inputs)  # a retried `pulumi up`: adopted, not re-run
    assert again == job_id and outs2["state"] == "SUCCEEDED"
    assert [j.id for j in world.backend.list({"trainjobs_id": decode(inputs["request"])["labels"]["trainjobs_id"]})] == [job_id]


def test_a_failed_job_fails_the_update_with_its_error(world: World) -> None:
    inputs = world.job("host_failing", "fail")
    with pytest.raises(HostError) as caught:
        world.host.check_and_create(inputs)
    (failed,) = world.backend.list({"trainjobs_id": decode(inputs["request"])["labels"]["trainjobs_id"]})
    assert failed.state.value == "FAILED"
    # The SDK's host prints a traceback first; the line that ends what `pulumi up` shows is ours.
    assert caught.value.last_line == (
        f"provider.resources.training_job.TrainingJobError: training job host_failing ({failed.id}) failed: "
        f"{failed.error.splitlines()[0]} (its logs: {world.logs_hint(failed)})")
    assert "exited with code 7" in caught.value.last_line

    with pytest.raises(HostError):  # `pulumi up` again is a retry: a second job, not the failed one
        world.host.check_and_create(inputs)
    assert len(world.backend.list({"trainjobs_id": decode(inputs["request"])["labels"]["trainjobs_id"]})) == 2


def _gone_or_cancelled(world: World, job_id: str) -> None:
    """Deleted (retention delete), or cancelled (retention keep): a cancel asked of a job still
    being set up may take a while to land on a loaded machine, so poll for it."""
    with contextlib.suppress(NotFound):
        assert world.backend.wait(job_id, timeout=300).state.value == "CANCELLED"


@pytest.mark.parametrize("limits", [{"wait": {"until": "completion", "timeout": 2}},
                                    {"wait": {"until": "completion", "timeout": 600}, "timeouts": {"create": 2}}],
                         ids=["wait-timeout", "custom-timeout"])
def test_a_wait_that_runs_out_records_the_running_job(world: World, limits: dict[str, Any]) -> None:
    """The job was submitted: create returns it (the engine records its id and state), and
    ``waitNotice`` says the wait ran out. The shorter of the wait's timeout and customTimeouts wins."""
    inputs = world.job("host_slow", f"timeout-{len(limits)}", **limits)
    job_id, outs = world.host.check_and_create(inputs)
    (running,) = world.backend.list({"trainjobs_id": decode(inputs["request"])["labels"]["trainjobs_id"]})
    assert job_id == running.id == outs["jobId"] and not running.state.terminal
    assert outs["state"] in ("QUEUED", "PENDING", "RUNNING"), outs["state"]
    assert outs["waitNotice"].startswith(f"training job host_slow ({job_id}) was still ")
    assert "after 2s (wait policy: until completion). It keeps running and is recorded in the stack" \
        in outs["waitNotice"]

    read_id, refreshed = world.host.read(job_id, outs)  # `pulumi refresh` sees it, and the notice goes
    assert read_id == job_id and refreshed["waitNotice"] == "" and refreshed["state"] in ("PENDING", "RUNNING")
    world.host.delete(job_id, outs)  # `pulumi destroy` (or removing the spec) cancels it
    _gone_or_cancelled(world, job_id)


# -- Adoption: trainjobs:adopt -------------------------------------------------------------------
def test_adopt_records_an_existing_job_without_starting_one(world: World) -> None:
    existing = world.job("host_slow", "adopt-existing", wait={"until": "running", "timeout": 60})
    job_id, _ = world.host.check_and_create(existing)  # a job that already runs
    status = world.backend.get(job_id)
    for ref in (job_id, status.name):  # its id, or its resource name
        spec = world.job("host_slow", f"adopting-{ref == job_id}", wait={"until": "running", "timeout": 60},
                         adopt=ref)
        adopted_id, outs = world.host.check_and_create(spec)
        assert adopted_id == job_id and outs["state"] == "RUNNING" and outs["jobId"] == job_id
        assert world.backend.list({"trainjobs_id": decode(spec["request"])["labels"]["trainjobs_id"]}) == []  # nothing new started
        without = {k: v for k, v in spec.items() if k != "adopt"}  # the stack option removed later: no change
        assert world.host.diff(job_id, outs, without).changes == "DIFF_NONE"
    with pytest.raises(HostError) as caught:
        world.host.check_and_create(world.job("host_slow", "adopt-missing", adopt="4040404040"))
    assert caught.value.last_line.endswith(
        "training job host_slow was not adopted (job 4040404040): no job 4040404040 in "
        f"{existing['parent']} (trainjobs:adopt names a job id or its resource name)")
    world.backend.cancel(job_id, wait=15)


# -- Read: pulumi refresh ------------------------------------------------------------------------
def test_refresh_sees_a_job_cancelled_outside_pulumi(world: World) -> None:
    inputs = world.job("host_slow", "refresh", wait={"until": "running", "timeout": 60})
    job_id, outs = world.host.check_and_create(inputs)
    assert outs["state"] == "RUNNING"
    world.backend.cancel(job_id, wait=15)
    read_id, refreshed = world.host.read(job_id, outs)
    assert read_id == job_id
    assert refreshed["state"] == "CANCELLED" and refreshed["endTime"]
    assert refreshed["request"] == outs["request"]  # inputs survive a refresh


def test_refresh_drops_a_job_deleted_outside_pulumi(world: World) -> None:
    job_id, outs = world.host.check_and_create(world.job("host_quick", "gone"))
    world.backend.delete(job_id)
    read_id, props = world.host.read(job_id, outs)
    assert read_id == ""  # an empty id: the engine removes the resource from the stack's state
    assert set(props) == {"__provider"}


# -- Update: desiredState CANCELLED --------------------------------------------------------------
def test_update_to_cancelled_cancels_the_running_job(world: World) -> None:
    inputs = world.job("host_slow", "cancel", wait={"until": "running", "timeout": 60})
    job_id, outs = world.host.check_and_create(inputs)
    news = {**inputs, "desiredState": "CANCELLED"}
    assert world.host.diff(job_id, outs, news).changes == "DIFF_SOME"
    updated = world.host.update(job_id, outs, news)
    assert updated["state"] == "CANCELLED" and updated["jobId"] == job_id
    assert world.backend.get(job_id).state.value == "CANCELLED"


# -- Delete: pulumi destroy, or a spec removed ---------------------------------------------------
@pytest.mark.parametrize("retention", ["keep", "delete"])
def test_delete_cancels_then_keeps_or_removes_the_record(world: World, retention: str) -> None:
    inputs = world.job("host_slow", f"delete-{retention}", retention=retention,
                       wait={"until": "running", "timeout": 60})
    job_id, outs = world.host.check_and_create(inputs)
    world.host.delete(job_id, outs)
    if retention == "keep":
        assert world.backend.get(job_id).state.value == "CANCELLED"
    else:
        with pytest.raises(NotFound):
            world.backend.get(job_id)
    world.host.delete(job_id, outs)  # deleting again (or a job already gone) is not an error
