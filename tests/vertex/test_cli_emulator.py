"""``trainjobs emulator``: serves until SIGTERM, says how to use it, refuses a busy state dir."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, no_traceback, run_cli
from tests.vertex.conftest import PARENT


def test_serve_use_and_stop(tmp_path: Path, job_env: None) -> None:
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import aiplatform_v1

    state = tmp_path / "state"
    env = {**os.environ, "NO_COLOR": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "provider", "emulator", "--port", "0", "--state-dir", str(state)],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        m = re.match(r"trainjobs emulator: Vertex AI on (http://127\.0\.0\.1:\d+)$", first.strip())
        assert m, first
        endpoint = m.group(1)
        usage = first
        while not usage.rstrip().endswith("finds them."):
            line = proc.stdout.readline()
            assert line, usage  # the emulator ended before saying how to use it
            usage += line
        client = aiplatform_v1.JobServiceClient(transport="rest", credentials=AnonymousCredentials(),
                                                client_options={"api_endpoint": endpoint})
        assert list(client.list_custom_jobs(parent=PARENT)) == []
        # Another emulator on the same state dir is refused, clearly.
        busy = run_cli("emulator", "--state-dir", str(state), timeout=30)
        assert busy.returncode == 1
        assert f"another emulator (pid {proc.pid}) is serving {state}" in busy.stderr
        no_traceback(busy)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err
    assert f'api_endpoint="{endpoint}"' in usage and 'api_transport="rest"' in usage
    assert f"STORAGE_EMULATOR_HOST={endpoint}" in usage
    assert out.strip() == "trainjobs emulator: stopped"
    assert "Traceback" not in err
    assert (state / "jobs").is_dir() and (state / "storage").is_dir()


@pytest.mark.parametrize("port", ["70000", "-1"])
def test_a_bad_port_is_a_usage_error(port: str, tmp_path: Path) -> None:
    proc = run_cli("emulator", "--port", port, "--state-dir", str(tmp_path))
    assert proc.returncode == 2 and "is not a port" in proc.stderr
    no_traceback(proc)
