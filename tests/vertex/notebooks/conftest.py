"""The notebook corpus: Google's own training notebooks and SDK samples, their Vertex AI calls verbatim.

Each module is one notebook (or one sample family), its source named as ``repo@commit path`` in
its docstring. Only placeholders are made concrete (project, region, bucket, names) and the
trainers replaced by tiny ones that do with Vertex what the notebook's trainer does (write to
AIP_MODEL_DIR, log to TensorBoard or experiments, read AIP_*_DATA_URI), since the real ones
download data. Every module talks to one real ``trainjobs emulator`` process of its own, through
the real google-cloud-aiplatform over REST; its jobs run on the local backend with real processes.
At the end the emulator is stopped and no job it started may survive.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from provider.packaging.gcs import gcs_client
from tests.local.conftest import cleanup

ROOT = Path(__file__).resolve().parents[3]
PROJECT_ID = "nb-project"
LOCATION = "us-central1"
BUCKET_NAME = "nb-bucket"
BUCKET_URI = f"gs://{BUCKET_NAME}"


@dataclass(frozen=True)
class Served:
    """One running ``trainjobs emulator``: where it answers and where it keeps its state."""

    endpoint: str
    state_dir: Path
    env: dict[str, str]

    @property
    def storage_root(self) -> Path:
        return self.state_dir / "storage"


def _job_env(home: Path, env_cache: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("TRAINJOBS_STORAGE", "TRAINJOBS_LOCAL_GPU_MODE", "STORAGE_EMULATOR_HOST")}
    env.update({"TRAINJOBS_HOME": str(home), "TRAINJOBS_ENV_CACHE": str(env_cache),
                "TRAINJOBS_LOCAL_GPUS": "none", "NO_COLOR": "1", "PYTHONPATH": str(ROOT)})
    return env


# Where google-cloud-aiplatform and -storage are installed: a trainer given it in its environment
# appends it to sys.path, as a prebuilt container has them (tests/fixtures/trainers/tracked does too).
SDK_SITE = next(p for p in sys.path if p.endswith("site-packages"))


@pytest.fixture(scope="module")
def served(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
           env_cache: Path) -> Iterator[Served]:
    """A ``trainjobs emulator`` process for the module, with a bucket; stopped (SIGTERM) at the end,
    and every job it started cancelled and checked gone. A module's ``EMULATOR_ARGS`` are added to
    its command line (``--cpu`` for a notebook that trains on a GPU)."""
    base = tmp_path_factory.mktemp("notebook")
    env = _job_env(base / "home", env_cache)
    state = base / "state"
    out, err = base / "emulator.out", base / "emulator.err"
    # Files, not pipes: a pipe nobody reads would stall the emulator once it filled.
    with out.open("w") as stdout, err.open("w") as stderr:
        proc = subprocess.Popen([sys.executable, "-m", "provider", "emulator", "--port", "0",
                                 "--state-dir", str(state), *getattr(request.module, "EMULATOR_ARGS", ())], cwd=ROOT, env=env, stdout=stdout, stderr=stderr)
    try:
        first = wait_for(lambda: proc.poll() is not None or "\n" in out.read_text(), deadline=120)
        m = re.match(r"trainjobs emulator: Vertex AI on (http://127\.0\.0\.1:\d+)$",
                     out.read_text().split("\n", 1)[0])
        assert first and m, out.read_text() + err.read_text()
        endpoint = m.group(1)
        gcs_client(PROJECT_ID, endpoint).create_bucket(BUCKET_NAME)
        yield Served(endpoint, state, env)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        from provider.backends.local.backend import LocalBackend

        cleanup(LocalBackend(home=state / "local", storage_root=state / "storage", adopt=False))


@pytest.fixture
def aiplatform(served: Served, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """google.cloud.aiplatform pointed at the module's emulator, as a notebook's ``aiplatform.init``
    would point it at Vertex AI (the endpoint, REST and anonymous credentials are the only
    additions); its wait loops poll faster, and its global state is reset afterwards."""
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import aiplatform as aip
    from google.cloud.aiplatform import initializer, jobs, training_jobs
    from google.cloud.aiplatform.metadata import metadata

    for name in ("TRAINJOBS_HOME", "TRAINJOBS_ENV_CACHE", "TRAINJOBS_LOCAL_GPUS"):
        monkeypatch.setenv(name, served.env[name])
    monkeypatch.setattr(training_jobs, "_JOB_WAIT_TIME", 0.2)
    monkeypatch.setattr(jobs, "_JOB_WAIT_TIME", 0.2)
    monkeypatch.setenv("STORAGE_EMULATOR_HOST", served.endpoint)
    aip.init(project=PROJECT_ID, location=LOCATION, api_endpoint=served.endpoint, api_transport="rest",
             credentials=AnonymousCredentials())
    yield aip
    metadata._experiment_tracker.reset()
    metadata._experiment_tracker._global_tensorboard = None  # reset() keeps it: the next module's would be asked
    initializer.global_config.__init__()  # type: ignore[misc]


# The setup's wheelhouse (scripts/setup.sh dev): a notebook's setup.py that requires
# google-cloud-aiplatform is installed from there by the trainer's pip, offline, as it would be from
# PyPI on Vertex (tests/fixtures/wheelhouse-sdk.txt lists what it holds).
WHEELHOUSE = ROOT / ".venv" / "wheelhouse"


@pytest.fixture(scope="module")
def offline_pip() -> Iterator[None]:
    """The module's emulator (started after this) and so its trainers' pip install from the setup's
    wheelhouse, never an index. Used by a module as ``pytestmark = pytest.mark.usefixtures("offline_pip")``."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PIP_NO_INDEX", "1")
        patch.setenv("PIP_FIND_LINKS", str(WHEELHOUSE))
        yield


def needs_sdk_wheels() -> None:
    """A trainer requires google-cloud-aiplatform: its wheels must be in the setup's wheelhouse."""
    if not any(WHEELHOUSE.glob("google_cloud_aiplatform-*.whl")):
        set_up_by_setup_sh(f"google-cloud-aiplatform's wheels in {WHEELHOUSE}")


def set_up_by_setup_sh(what: str) -> None:
    """``what`` (installed by ``scripts/setup.sh dev``) is missing: under CI (CI=true), where that
    set-up has run, the test fails; elsewhere (a venv made before it) it is skipped, naming the fix."""
    message = f"{what} is missing: run 'bash scripts/setup.sh dev'"
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


def no_adc(monkeypatch: pytest.MonkeyPatch) -> None:
    """Application Default Credentials that are anonymous. Once an experiment has a TensorBoard
    (``init(experiment_tensorboard=...)``), the SDK's next ``init(experiment=...)`` reads ADC with
    ``google.auth.default()`` whatever credentials ``init`` was given (metadata.py,
    ``_get_global_tensorboard``); this machine has none, a user's machine has theirs."""
    import google.auth
    from google.auth.credentials import AnonymousCredentials

    monkeypatch.setattr(google.auth, "default", lambda *a, **k: (AnonymousCredentials(), PROJECT_ID))


def gapic(served: Served, name: str) -> Any:
    """A gapic client (``aiplatform.gapic.NAME``) at the emulator, over REST."""
    from google.auth.credentials import AnonymousCredentials
    from google.cloud.aiplatform import gapic as gapic_module

    return getattr(gapic_module, name)(transport="rest", credentials=AnonymousCredentials(),
                                       client_options={"api_endpoint": served.endpoint})


def write_package(tmp_path: Path, task: str, served: Served, uri: str, requires: tuple[str, ...] = ()) -> str:
    """A source distribution of package ``trainer`` whose ``trainer/task.py`` is ``task`` and whose
    ``setup.py`` has ``install_requires=requires``, staged at ``uri`` in the emulated storage (the
    notebooks build it with ``tar`` or ``python setup.py sdist`` and copy it there)."""
    import tarfile

    src = tmp_path / "pkg"
    (src / "trainer").mkdir(parents=True, exist_ok=True)
    (src / "trainer" / "__init__.py").write_text("")
    (src / "trainer" / "task.py").write_text(task)
    (src / "setup.py").write_text("import setuptools\nsetuptools.setup(name='trainer', version='0.1', "
                                  f"install_requires={list(requires)!r}, packages=setuptools.find_packages())\n")
    archive = tmp_path / "trainer-0.1.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(src, arcname="trainer-0.1")
    bucket, _, name = uri[len("gs://"):].partition("/")
    gcs_client(PROJECT_ID, served.endpoint).bucket(bucket).blob(name).upload_from_filename(str(archive))
    return uri


def blob_text(served: Served, uri: str) -> str:
    bucket, _, name = uri[len("gs://"):].partition("/")
    return str(gcs_client(PROJECT_ID, served.endpoint).bucket(bucket).blob(name).download_as_text())


def wait_for(check: Any, deadline: float = 240.0) -> Any:
    end = time.monotonic() + deadline
    while True:
        found = check()
        if found or time.monotonic() > end:
            return found
        time.sleep(0.3)


def upload_text(served: Served, uri: str, text: str) -> None:
    bucket, _, name = uri[len("gs://"):].partition("/")
    gcs_client(PROJECT_ID, served.endpoint).bucket(bucket).blob(name).upload_from_string(text)
