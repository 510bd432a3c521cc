"""The validate path stays light: no Pulumi, no Vertex AI SDK, and a fast cold start."""

from __future__ import annotations

import subprocess
import sys

from .conftest import ROOT


def test_validate_never_imports_pulumi_or_the_vertex_sdk() -> None:
    code = (
        "import sys\n"
        "from provider.cli import main\n"
        "rc = main(['validate', 'specs', '--format', 'json'])\n"
        "heavy = sorted(m for m in sys.modules if m == 'pulumi' or m.startswith(('pulumi.', 'google.cloud.aiplatform',"
        " 'google.cloud.aiplatform_v1', 'grpc')))\n"
        "print('HEAVY', heavy)\n"
        "sys.exit(rc)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "HEAVY []" in proc.stdout


def test_convert_and_schema_stay_light_too() -> None:
    code = (
        "import sys\n"
        "from provider.cli import main\n"
        "main(['convert', 'specs/seeds/custom_cpu_cluster.yaml'])\n"
        "main(['schema'])\n"
        "print('HEAVY', sorted(m for m in sys.modules if m.startswith(('pulumi', 'google.cloud.aiplatform'))))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert "HEAVY []" in proc.stdout, proc.stderr
