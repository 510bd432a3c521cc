"""Python launchers from a sweep of public repositories (tests/pysdk/gapic/README.md names those in the corpus):
what each showed, kept. Each input is adapted from a public file named by its find_string id."""

from __future__ import annotations

import json
from pathlib import Path

from ..conftest import no_traceback, run_cli

# A public AI Platform launcher (find_string id 7717607541; repository not named), adapted: its settings module's
# values inlined; the job id from the clock, as it is written.
_ML = ("import os\nimport time\nfrom googleapiclient import discovery\n"
       "os.environ['GOOGLE_APPLICATION_CREDENTIALS'] = 'key.json'\n"
       "training_inputs = {'scaleTier': 'CUSTOM', 'masterType': 'complex_model_m',\n"
       "    'packageUris': ['gs://hh-bucket/trainer/trainer-0.1.tar.gz'], 'pythonModule': 'trainer.task',\n"
       "    'args': ['--train-files', 'gs://hh-bucket/data/train.csv'], 'region': 'us-central1',\n"
       "    'jobDir': 'gs://hh-bucket/jobs', 'runtimeVersion': '2.11', 'pythonVersion': '3.7'}\n"
       "job_spec = {'jobId': 'HH_{}'.format(time.strftime('%Y%m%d_%H%M%S')), 'trainingInput': training_inputs}\n"
       "cloudml = discovery.build('ml', 'v1')\n"
       "request = cloudml.projects().jobs().create(body=job_spec, parent='projects/hh-project')\n")


def test_a_job_id_from_the_clock_is_the_time_of_the_conversion(tmp_path: Path) -> None:
    """The job id the launcher makes from the clock (time.strftime) is the time of the conversion, as a script's
    $(date +FORMAT) is (provider/document/python_clock.py), named in a note."""
    path = tmp_path / "submit.py"
    path.write_text(_ML)
    proc = run_cli("convert", str(path), "--format", "request")
    no_traceback(proc)
    assert proc.returncode == 0, proc.stderr
    job_id = json.loads(proc.stdout)["body"]["displayName"]
    assert job_id.startswith("HH_") and len(job_id) == len("HH_20261127_204501")
    assert f"the time the code runs, written as {job_id.removeprefix('HH_')!r}, the time of the conversion" in proc.stderr


def test_a_random_job_id_is_refused_with_convert_name_as_the_way_forward(tmp_path: Path) -> None:
    path = tmp_path / "submit.py"
    path.write_text(_ML.replace("import time\n", "import uuid\n").replace("time.strftime('%Y%m%d_%H%M%S')",
                                                                         "uuid.uuid4().hex[:8]"))
    proc = run_cli("convert", str(path), "--format", "request")
    no_traceback(proc)
    assert proc.returncode == 1
    assert ("submit.py:9:22: cloudml.projects().jobs().create(body=...).jobId cannot be known without running the "
            "script: a random value") in proc.stderr and "or name the job with convert --name NAME" in proc.stderr
    named = run_cli("convert", str(path), "--format", "request", "--name", "hh_run")
    no_traceback(named)
    assert named.returncode == 0, named.stderr
    assert json.loads(named.stdout)["body"]["displayName"] == "hh_run"
    assert "jobId at " in named.stderr and "is not written: convert --name names the job" in named.stderr


def test_a_variable_the_script_sets_in_its_environment_is_not_read_from_convert_s(tmp_path: Path) -> None:
    """os.environ['GOOGLE_APPLICATION_CREDENTIALS'] = ... sets it (for the script's clients): nothing is read from the
    environment convert runs in, and no note says so."""
    path = tmp_path / "submit.py"
    path.write_text(_ML)
    proc = run_cli("convert", str(path), "--format", "request", "--name", "hh_run")
    no_traceback(proc)
    assert "GOOGLE_APPLICATION_CREDENTIALS" not in proc.stderr, proc.stderr
