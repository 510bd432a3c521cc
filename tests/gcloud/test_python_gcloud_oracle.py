"""gcloud itself as the oracle of ``trainjobs convert train.py`` for Python that runs a gcloud training command
(``subprocess.run([...])``, ``os.system(f"...")``, ``subprocess.check_call("...", shell=True)``).

Each script is run by Python, as written, with the real installed gcloud on its PATH against the stand-in of
standin.py (test_gcloud_oracle.py's harness: the command each subprocess call makes is the one gcloud gets);
the request ``trainjobs convert train.py --output request`` prints must carry every field gcloud sent, with
the same value. The scripts are this test's own, in the shapes public code uses (e.g. find_string id 6387979642:
``job.run`` scripts that build their arguments as lists and f-strings).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from ..conftest import ROOT
from .test_gcloud_oracle import _carries, _int64, _run_all, json_names, oracle_base

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(600),
    pytest.mark.skipif(shutil.which("gcloud") is None,
                       reason="gcloud is not installed: the gcloud-oracle tests need the Google Cloud CLI"),
]

_POOL = "machine-type=n1-standard-4,replica-count=1,container-image-uri=gcr.io/p/trainer:1"
CASES = {
    "words": ("import subprocess\n\nREGION = 'europe-west4'\nNAME = 'words job'\nARGS = ['--epochs=3', '--lr=0.1']\n"
              "command = ['gcloud', 'ai', 'custom-jobs', 'create', f'--region={REGION}', f'--display-name={NAME}',\n"
              f"           '--worker-pool-spec={_POOL}', '--args=' + ','.join(ARGS), '--labels=team=a_b']\n"
              "subprocess.run(command, check=True)\n"),
    "system": ("import os\n\nREGION = 'us-central1'\nos.environ['IMAGE'] = 'gcr.io/p/other:2'\n"
               "os.system(f\"gcloud ai custom-jobs create --region={REGION} --display-name=sys_job \"\n"
               "          \"--worker-pool-spec=machine-type=n1-standard-8,container-image-uri=$IMAGE "
               "--args='--data=gs://b/x y'\")\n"),
    "shell": ("import subprocess\n\nline = 'gcloud ai custom-jobs create --region=us-east1 --display-name=shell_job'\n"
              f"subprocess.check_call(line + ' --worker-pool-spec={_POOL}', shell=True)\n"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_gcloud_sends_what_convert_reads(case: str) -> None:
    entry = {"id": case, "command": f"{sys.executable} train.py", "sources": {"train.py": CASES[case]}}
    with oracle_base("trainjobs-python-oracle-") as (base, shims):
        outcome = _run_all([entry], base, shims)[case]  # Python runs the script: its call runs gcloud
        assert outcome.sent is not None, f"gcloud sent no job: {outcome.stderr[-2000:]}"
        proc = subprocess.run([sys.executable, "-m", "provider", "convert", "train.py", "--output", "request"],
                              cwd=base / case, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True,
                              text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    request = json.loads(proc.stdout)
    assert f"/locations/{request['parent'].rsplit('/', 1)[-1]}/" in outcome.path
    _carries(_int64(json_names("custom", outcome.sent)), _int64(request["body"]), "CustomJob")
