"""gcloud's own YAML loader (googlecloudsdk.core.yaml, run by gcloud's bundled Python) as a probe:
what it reads from each of many short texts, to compare with trainjobs' readings where gcloud is
installed."""

from __future__ import annotations

import shutil
import subprocess
import textwrap
from pathlib import Path

GCLOUD_PYTHON = Path("/usr/lib/google-cloud-sdk/platform/bundledpythonunix/bin/python3")
NO_GCLOUD = shutil.which("gcloud") is None or not GCLOUD_PYTHON.is_file()


def gcloud_yaml(tmp_path: Path, each: str, texts: list[str]) -> list[str]:
    """The lines gcloud's Python prints running ``each`` (Python source, with ``yaml`` being
    googlecloudsdk.core.yaml) for each text ``t`` of ``texts``."""
    script = tmp_path / "probe.py"
    script.write_text(
        "import sys, warnings\nwarnings.simplefilter('ignore')\n"
        "sys.path[:0] = ['/usr/lib/google-cloud-sdk/lib', '/usr/lib/google-cloud-sdk/lib/third_party']\n"
        "from googlecloudsdk.core import yaml\n"
        "for t in sys.argv[1:]:\n" + textwrap.indent(each, "    ") + "\n")
    return subprocess.run([str(GCLOUD_PYTHON), str(script), *texts], capture_output=True, text=True, check=True,
                          timeout=120).stdout.splitlines()
