"""A world for the console's browser tests: real jobs, the emulator, the console, Chromium.

One module-scoped world (jobs take a while to run): in a private project directory with its own
stacks/ and specs/, and a private TRAINJOBS_HOME, the local backend runs a finished job, a failed
job, a tuning job with five trials, a job that keeps running (its logs stream) and one to cancel,
plus a job of a local stack; the emulator runs a job of a vertex stack whose trainjobs:apiEndpoint
points at it. ``trainjobs console`` serves them in a subprocess, and Debian's chromium (driven by
Playwright, never a downloaded browser) looks at them. Teardown ends the browser, the console, the
emulator and every job, even when a test fails.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.local.conftest import ROOT, cleanup
from tests.local.conftest import probe_spec as shared_probe_spec

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
# Screenshots go to docs/img (what the README shows) only when asked: TRAINJOBS_SCREENSHOTS=docs/img.
# Otherwise into a temporary directory, so a test run leaves the work tree as it found it.
DOCS_IMG = ROOT / "docs" / "img"
PROJECT, LOCATION, BUCKET = "test-project", "us-central1", "test-bucket"


@dataclass
class World:
    root: Path  # the project directory the console runs in
    env: dict[str, str]
    jobs: dict[str, Any] = field(default_factory=dict)  # name -> JobStatus when submitted
    url: str = ""
    local: Any = None  # LocalBackend
    vertex: Any = None  # VertexBackend on the emulator
    emulator: Any = None


def probe_spec(name: str, **kwargs: Any) -> dict[str, Any]:
    """tests/local's probe job, with an output directory of its own (the probe checkpoints there)."""
    return shared_probe_spec(name, output=f"gs://{BUCKET}/out/{name}", **kwargs)


def write_stack(root: Path, name: str, config: dict[str, Any]) -> None:
    (root / "stacks").mkdir(exist_ok=True)
    (root / "stacks" / f"Pulumi.{name}.yaml").write_text(yaml.safe_dump({"config": config}), encoding="utf-8")


def write_spec(root: Path, folder: str, doc: dict[str, Any]) -> Path:
    path = root / "specs" / folder / f"{doc['metadata']['name']}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    return path


def wait_until(predicate: Any, timeout: float = 180, what: str = "") -> Any:
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def _local_jobs(world: World) -> None:
    from provider.backends.local.backend import LocalBackend
    from tests.local.conftest import submit

    b = world.local = LocalBackend()
    steps = ["--steps", "2", "--step-seconds", "0.05"]
    tuning = {"goal": "MAXIMIZE", "metric": "score", "maxTrials": 5, "maxParallelTrials": 2,
              "algorithm": "GRID_SEARCH", "params": [{"name": "lr", "type": "DISCRETE",
                                                      "values": [0.1, 0.2, 0.3, 0.4, 0.5]}]}
    team = {"team": "research"}
    world.jobs["finished-job"] = submit(b, probe_spec("finished-job", args=steps), labels=team)
    world.jobs["failed-job"] = submit(b, probe_spec("failed-job", workers=1, args=[
        "--steps", "3", "--fail-replica", "workerpool0-0", "--fail-step", "1"]), labels=team)
    world.jobs["tuning-job"] = submit(b, probe_spec("tuning-job", args=steps, tuning=tuning), labels=team)
    # lr drawn log-uniformly: values with 17 digits in their repr, on a log axis
    log_tuning = {**tuning, "maxTrials": 3, "maxParallelTrials": 3, "algorithm": "RANDOM_SEARCH",
                  "params": [{"name": "lr", "type": "DOUBLE", "min": 0.0001, "max": 0.1, "scale": "UNIT_LOG_SCALE"}]}
    world.jobs["lr-search"] = submit(b, probe_spec("lr-search", args=steps, tuning=log_tuning), labels=team)
    for name in ("finished-job", "failed-job", "tuning-job", "lr-search"):
        b.wait(world.jobs[name].id, timeout=300)
    long_run = ["--steps", "100000", "--step-seconds", "0.4"]
    world.jobs["running-job"] = submit(b, probe_spec("running-job", args=long_run), labels=team)
    world.jobs["cancel-me"] = submit(b, probe_spec("cancel-me", args=long_run))
    _stack_job(world, long_run)


def _stack_job(world: World, args: list[str]) -> None:
    """A job of the local stack ``team-local``, submitted as `trainjobs run --stack` labels it."""
    from provider.packaging.stage import LocalStager
    from provider.stack.membership import StackIndex
    from provider.submission.launch import labels_for, prepare, submission
    from provider.validation.rules import Context, Target
    from provider.validation.validator import validate_data

    doc = probe_spec("stack-job", gpus=(1, 0, 0, 0), args=args,
                     scheduling={"maxRunningTime": "7200s"})
    write_spec(world.root, "team", doc)
    write_stack(world.root, "team-local", {
        "trainjobs:backend": "local", "trainjobs:team": "vision", "gcp:region": LOCATION,
        "trainjobs:specs": ["specs/team/*.yaml"], "trainjobs:labels": {"team": "vision"},
        "trainjobs:quotas": {"maxGpusPerJob": 2, "maxGpusPerStack": 4}})
    stack = StackIndex.load(world.root / "stacks").stack("team-local")
    assert stack is not None
    result = validate_data(doc, "spec", Context(target=Target.LOCAL))
    assert result.job is not None, result.problems
    request = prepare(result.job, ROOT, project="local", stager=LocalStager(world.local.storage),
                      labels=labels_for(result.job, stack=stack.name, extra=stack.labels_dict))
    world.jobs["stack-job"] = world.local.submit(submission(result.job, request, cpu_only=True))


def _emulator_job(world: World, tmp: Path) -> None:
    from provider.backends.vertex import VertexBackend
    from provider.emulator.server import Emulator
    from provider.packaging.gcs import GcsStager, gcs_client
    from provider.submission.launch import labels_for, prepare, submission
    from provider.validation.rules import Context, Target
    from provider.validation.validator import validate_data

    world.emulator = Emulator(tmp / "emulator").start()
    gcs_client(PROJECT, world.emulator.endpoint).create_bucket(BUCKET)
    write_stack(world.root, "emu", {
        "trainjobs:backend": "vertex", "trainjobs:team": "nlp", "gcp:project": PROJECT, "gcp:region": LOCATION,
        "trainjobs:specs": ["specs/emu/*.yaml"], "trainjobs:apiEndpoint": world.emulator.endpoint,
        "trainjobs:quotas": {"maxGpusPerStack": 8}})
    doc = probe_spec("emulated-job", args=["--steps", "2", "--step-seconds", "0.05"])
    write_spec(world.root, "emu", doc)
    result = validate_data(doc, "spec", Context(target=Target.VERTEX))
    assert result.job is not None, result.problems
    request = prepare(result.job, ROOT, project=PROJECT, stager=GcsStager(gcs_client(PROJECT, world.emulator.endpoint)),
                      labels=labels_for(result.job, stack="emu", extra={"team": "nlp"}))
    for name, extra in (("dead", {"trainjobs:apiEndpoint": "http://127.0.0.1:9"}), ("nocreds", {})):
        write_stack(world.root, name, {
            "trainjobs:backend": "vertex", "trainjobs:team": "nlp", "gcp:project": PROJECT, "gcp:region": LOCATION,
            "trainjobs:specs": [f"specs/{name}/*.yaml"], **extra})
    world.vertex = VertexBackend(PROJECT, LOCATION, api_endpoint=world.emulator.endpoint)
    world.jobs["emulated-job"] = world.vertex.submit(submission(result.job, request))
    world.vertex.wait(world.jobs["emulated-job"].id, timeout=300)


def start_console(root: Path, env: dict[str, str], *args: str) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([sys.executable, "-m", "provider", "console", *args], cwd=root, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    line = proc.stdout.readline() if proc.stdout else ""
    if "http://" not in line:
        stop_console(proc)
        raise AssertionError(f"trainjobs console did not start: {line}{proc.stderr.read() if proc.stderr else ''}")
    return proc, line.split()[2]


def stop_console(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=15)
    for stream in (proc.stdout, proc.stderr):
        if stream:
            stream.close()


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory, env_cache: Path) -> Iterator[World]:
    tmp = tmp_path_factory.mktemp("console")
    root = tmp / "project"
    root.mkdir()
    env = {**os.environ, "TRAINJOBS_HOME": str(tmp / "home"), "TRAINJOBS_ENV_CACHE": str(env_cache),
           "TRAINJOBS_LOCAL_GPUS": "none", "NO_COLOR": "1", "PYTHONPATH": str(ROOT),
           # no Google credentials here: the stack `nocreds` must say so
           "GOOGLE_APPLICATION_CREDENTIALS": str(tmp / "no-credentials.json")}
    for key in ("TRAINJOBS_STORAGE", "TRAINJOBS_LOCAL_GPU_MODE", "STORAGE_EMULATOR_HOST", "TRAINJOBS_DEBUG"):
        env.pop(key, None)
    w = World(root, env)
    proc = None
    with pytest.MonkeyPatch.context() as mp:
        for key in ("TRAINJOBS_HOME", "TRAINJOBS_ENV_CACHE", "TRAINJOBS_LOCAL_GPUS"):
            mp.setenv(key, env[key])
        for key in ("TRAINJOBS_STORAGE", "TRAINJOBS_LOCAL_GPU_MODE", "STORAGE_EMULATOR_HOST"):
            mp.delenv(key, raising=False)
        try:
            _local_jobs(w)
            _emulator_job(w, tmp)
            proc, w.url = start_console(root, env, "--stack", "team-local", "--stack", "emu")
            yield w
        finally:
            if proc is not None:
                stop_console(proc)
            if w.emulator is not None:
                w.emulator.stop()
                cleanup(w.emulator.local)
            if w.local is not None:
                cleanup(w.local)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed: apt-get install -y chromium chromium-driver "
                    "(scripts/system-deps.sh does it)")
    playwright = pytest.importorskip("playwright.sync_api", reason="pip install playwright (the dev extra has it)")
    with playwright.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 860}, device_scale_factor=1)
    p = context.new_page()
    p.set_default_timeout(60_000)
    try:
        yield p
    finally:
        context.close()


def screenshot(page: Any, name: str) -> Path:
    """Save what the page shows; the file is checked to be a real PNG of the page."""
    where = Path(os.environ["TRAINJOBS_SCREENSHOTS"]) if os.environ.get("TRAINJOBS_SCREENSHOTS") else \
        Path(tempfile.gettempdir()) / "trainjobs-console-screenshots"
    where.mkdir(parents=True, exist_ok=True)
    path = where / name
    page.screenshot(path=str(path), full_page=False)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    return path


__all__ = ["World", "screenshot", "wait_until"]
