"""Shared fixtures. No test reaches the network: sockets may only connect to loopback."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]


def pytest_configure(config: pytest.Config) -> None:
    """Each run gets a temporary root of its own. pytest's default root is shared by every run of
    the same user, and a run that starts removes all but the newest three: with a second copy of
    the suite beside this one (or CI beside a developer), it would delete a running test's files."""
    if config.option.basetemp is None:
        config.option.basetemp = tempfile.mkdtemp(prefix="trainjobs-pytest-")
        config._trainjobs_basetemp = config.option.basetemp  # type: ignore[attr-defined]


# Folders whose every test runs training jobs, the emulator, a browser, gcloud or the Pulumi host:
# all of them are `slow`, so `pytest -m "not slow"` (the README's fast lane) skips them.
SLOW_FOLDERS = frozenset({"local", "vertex", "console", "gcloud"})
SLOW_MODULES = frozenset({"test_provider_host.py", "test_local_infra_host.py", "test_preview_host.py",
                          "test_program_up.py", "test_stack_commands.py"})


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    tests = Path(__file__).parent
    for item in items:
        try:
            parts = Path(str(item.fspath)).relative_to(tests).parts
        except ValueError:
            continue
        if parts[0] in SLOW_FOLDERS or parts[-1] in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)


def pytest_unconfigure(config: pytest.Config) -> None:
    own = getattr(config, "_trainjobs_basetemp", None)
    if own:
        shutil.rmtree(own, ignore_errors=True)


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    real_connect = socket.socket.connect

    def guarded(self: socket.socket, address):  # type: ignore[no-untyped-def]
        host = address[0] if isinstance(address, tuple) else address
        inet = self.family in (socket.AF_INET, socket.AF_INET6)
        if inet and isinstance(host, str) and host not in ("127.0.0.1", "::1", "localhost", "0.0.0.0"):
            raise OSError(f"tests may not reach the network (tried {address!r})")
        return real_connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", guarded)


@pytest.fixture(scope="session")
def env_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Installed trainers are shared by the session's tests (each test still has its own home)."""
    return tmp_path_factory.mktemp("envs")


@pytest.fixture
def root() -> Path:
    return ROOT


def run_cli(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None,
            timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """Run ``python -m provider ARGS`` in a fresh process, as a user would."""
    full_env = {**os.environ, "NO_COLOR": "1", **(env or {})}
    full_env.pop("TRAINJOBS_DEBUG", None)
    return subprocess.run(
        [sys.executable, "-m", "provider", *args],
        cwd=str(cwd or ROOT),
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def modules_after(*argv: str, cwd: Path = ROOT) -> set[str]:
    """The provider modules (and PyYAML, if loaded) a fresh ``trainjobs ARGV`` has imported when it ends."""
    code = (
        "import sys\n"
        "from provider.cli import main\n"
        f"try:\n    main({list(argv)!r})\nexcept SystemExit:\n    pass\n"
        "print('MODULES', ' '.join(sorted(m for m in sys.modules if m.startswith('provider') or m == 'yaml')))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=120)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("MODULES")), None)
    assert line is not None, proc.stdout[-2000:] + proc.stderr[-2000:]
    return set(line.split()[1:])


def no_traceback(proc: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stdout + proc.stderr


def port_closes(port: int, deadline_s: float = 60.0) -> bool:
    """Whether nothing listens on 127.0.0.1:``port`` any more within the deadline (a server stopped)."""
    import socket
    import time

    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        with socket.socket() as s:
            s.settimeout(2)
            if s.connect_ex(("127.0.0.1", port)) != 0:
                return True
        time.sleep(0.2)
    return False


def stop_process(proc: subprocess.Popen[Any], timeout: float = 60.0) -> None:
    """End a process a test started, whatever state it is in: SIGTERM, then SIGKILL after ``timeout``."""
    proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=timeout)


def ipython_python(module: str = "IPython.core.interactiveshell") -> str | None:
    """A python that imports ``module`` of IPython (the one running these tests does not ship it), or None: the
    oracle of the notebook readers' IPython behaviour is IPython itself."""
    for candidate in ("python3", "python"):
        found = shutil.which(candidate)
        if found and subprocess.run([found, "-c", f"import {module}"], capture_output=True).returncode == 0:
            return found
    return None
