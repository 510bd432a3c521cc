"""provider/pysdk/program.py reads the SDK's calls where the script runs them (provider.document.python_flow): in
the branch taken of an if whose test is known, a try's body, a function called at top level; the rest is named."""

from __future__ import annotations

import pytest

from provider.pysdk.arguments import SdkError
from provider.pysdk.program import read

_HEAD = ("from google.cloud import aiplatform\naiplatform.init(project='p', location='us-east1', staging_bucket='gs://b')\n"
         "POOLS = [{'machine_spec': {'machine_type': 'n1-standard-4'}, 'replica_count': 1, "
         "'container_spec': {'image_uri': 'gcr.io/p/i:1'}}]\n")


def _read(text: str) -> dict[str, object]:
    return dict(read([("train.py", _HEAD + text)], "train.py").spec)


def _refused(text: str) -> str:
    with pytest.raises(SdkError) as caught:
        read([("train.py", _HEAD + text)], "train.py")
    return str(caught.value)


def test_every_name_of_a_chained_assignment_is_the_job() -> None:
    spec = _read("job = other = aiplatform.CustomJob(display_name='j', worker_pool_specs=POOLS)\n"
                 "other.run(timeout=60)\n")
    assert spec["scheduling"] == {"timeout": "60s"}


def test_a_function_called_twice_launches_two_jobs() -> None:
    said = _refused("def launch(name):\n    aiplatform.CustomJob(display_name=name, worker_pool_specs=POOLS).run()\n"
                    "launch('a')\nlaunch('b')\n")
    assert "train.py: the script launches several jobs: aiplatform.CustomJob at train.py:5:5 (2 times: the code runs " \
           "it more than once)" in said


def test_a_job_launched_in_a_loop_over_known_items_is_one_per_turn() -> None:
    said = _refused("for lr in [0.1, 0.01]:\n    aiplatform.CustomJob(display_name=f'lr-{lr}', "
                    "worker_pool_specs=POOLS).run()\n")
    assert "launches several jobs: aiplatform.CustomJob at train.py:" in said and "(2 times" in said, said
    assert "a job launched once per item of a loop is one spec per item" in said


def test_a_run_in_an_except_clause_is_refused_with_why() -> None:
    said = _refused("job = aiplatform.CustomJob(display_name='j', worker_pool_specs=POOLS)\ntry:\n    import x\n"
                    "except ImportError:\n    job.run()\n")
    assert said.startswith("train.py:8:5: job.run() is inside an except clause of the try at line 5, which runs only "
                           "when the try's body raises")


def test_a_run_in_a_function_never_called_is_refused() -> None:
    said = _refused("job = aiplatform.CustomJob(display_name='j', worker_pool_specs=POOLS)\ndef go():\n    job.run()\n")
    assert said.startswith("train.py:6:5: job.run() is inside def go at line 5, not called where it can be read")
    spec = _read("job = aiplatform.CustomJob(display_name='j', worker_pool_specs=POOLS)\ndef go():\n"
                 "    job.run(timeout=5)\ngo()\n")
    assert spec["scheduling"] == {"timeout": "5s"}


def test_the_branch_not_taken_is_named_in_a_note() -> None:
    body = read([("train.py", _HEAD + "GPU = None\nmachine = {'machine_type': 'n1-standard-4'}\nif GPU:\n"
                  "    machine['accelerator_type'] = GPU\n    big = aiplatform.CustomJob(display_name='g', "
                  "worker_pool_specs=POOLS)\nelse:\n    aiplatform.CustomJob(display_name='c', "
                  "worker_pool_specs=[dict(POOLS[0], machine_spec=machine)]).run()\n")], "train.py")
    assert body.spec["display_name"] == "c"
    assert "not converted: CustomJob at train.py:8:11 is not read: the if at line 6 is false (GPU: None), so its body " \
           "does not run" in body.notes


def test_a_job_set_again_in_a_block_not_followed_is_refused_where_it_runs() -> None:
    said = _refused("import sys\njob = aiplatform.CustomJob(display_name='a', worker_pool_specs=POOLS)\n"
                    "if len(sys.argv) > 1:\n    job = aiplatform.CustomJob(display_name='b', worker_pool_specs=POOLS)\n"
                    "job.run()\n")
    assert said.startswith("train.py:8:1: job may be set again inside the if at line 6, whose test is not known (")
    spec = _read("import sys\njob = aiplatform.CustomJob(display_name='a', worker_pool_specs=POOLS)\njob.run()\n"
                 "for job in sys.argv:\n    print(job)\n")  # set again only after its run
    assert spec["display_name"] == "a"


def test_a_job_in_a_block_not_followed_is_named_in_a_note() -> None:
    body = read([("train.py", _HEAD + "def unused():\n    aiplatform.CustomJob(display_name='u', "
                  "worker_pool_specs=POOLS).run()\naiplatform.CustomJob(display_name='a', worker_pool_specs=POOLS)"
                  ".run()\n")], "train.py")
    assert body.spec["display_name"] == "a"
    assert any(note.startswith("not converted: CustomJob at train.py:5:5 (inside def unused at line 4, not called")
               for note in body.notes), body.notes


def test_a_job_a_function_returns_is_the_job_its_caller_runs() -> None:
    make = "def make(name):\n    j = aiplatform.CustomJob(display_name=name, worker_pool_specs=POOLS)\n    return {}\n"
    spec = _read(make.format("j") + "job = make('m')\njob.run(timeout=70)\n")
    assert spec["display_name"] == "m" and spec["scheduling"] == {"timeout": "70s"}
    said = _refused(make.format("[j][0]") + "job = make('m')\njob.run(timeout=70)\n")
    assert said.startswith("train.py:5:9: aiplatform.CustomJob is built here, and the script runs no job trainjobs "
                           "can match to it: job.run() at train.py:8:1")


def test_a_project_known_only_when_the_code_runs_is_named_not_refused() -> None:
    """A spec names no project (its stack does): Google's notebooks read PROJECT_ID from the environment or gcloud,
    and that value, unknown here, is named in the note; the init's location and bucket are still read."""
    code = ("import os\nfrom google.cloud import aiplatform\nPROJECT_ID = os.environ['TRAINJOBS_NEVER_SET_PROJECT']\n"
            "EXPERIMENT = os.environ.get('TRAINJOBS_NEVER_SET_EXPERIMENT')\n"
            "aiplatform.init(project=PROJECT_ID, location='us-east1', staging_bucket='gs://b', experiment=EXPERIMENT + "
            "'-x')\njob = aiplatform.CustomJob(display_name='j', worker_pool_specs=[{'machine_spec': {'machine_type': "
            "'n1-standard-4'}, 'replica_count': 1, 'container_spec': {'image_uri': 'gcr.io/p/i:1'}}])\njob.run()\n")
    body = read([("train.py", code)], "train.py")
    assert body.spec["region"] == "us-east1" and body.spec["staging_bucket"] == "gs://b"
    said = "\n".join(body.notes)
    assert ("aiplatform.init(project=PROJECT_ID (known only when the script runs: PROJECT_ID is set from the "
            "environment variable TRAINJOBS_NEVER_SET_PROJECT, which is not set at train.py, line 3)) at train.py:5:25 "
            "is not written: a spec names no project; the stack that runs it does") in said, said
    assert "aiplatform.init(experiment=...) at train.py:5:" in said
    # where the value is a job's own (its location), it is refused as before
    refused = code.replace("location='us-east1'", "location=PROJECT_ID")
    with pytest.raises(SdkError, match=r"aiplatform.init\(location=...\) cannot be known without running the script"):
        read([("train.py", refused)], "train.py")


def test_a_job_in_a_function_that_imports_the_sdk_itself_is_named_where_it_is() -> None:
    """find_string id 7814658827: a Kubeflow component's body imports aiplatform and builds a
    CustomContainerTrainingJob; never called by the script, it is named at its line, not 'builds no job'."""
    text = ("from kfp import dsl\n\n@dsl.component(base_image='python:3.11')\ndef model_finetune(project: str = 'p'):\n"
            "    from google.cloud import aiplatform as aip\n    import google.cloud.aiplatform\n"
            "    job = aip.CustomContainerTrainingJob(display_name='ft', container_uri='gcr.io/p/ft:v4')\n"
            "    job.run(replica_count=1, machine_type='a2-highgpu-1g')\n"
            "    google.cloud.aiplatform.CustomJob(display_name='j', worker_pool_specs=[])\n")
    with pytest.raises(SdkError) as caught:
        read([("train.py", text)], "train.py")
    said = str(caught.value)
    assert said.startswith("train.py: the script launches no Vertex AI training job where it can be read: "
                           "CustomContainerTrainingJob at train.py:7:11 (inside def model_finetune at line 4, decorated")
    assert "CustomJob at train.py:9:5 (inside def model_finetune" in said


def test_a_random_display_name_is_refused_with_a_way_forward_or_named_by_the_flag() -> None:
    """A display name made at random (uuid) cannot be converted exactly: refused, saying that convert --name names
    the job; given --name (``named``), the display name is named in a note and the spec takes the flag's. (One made
    from the clock is the time of the conversion: tests/test_python_clock.py.)"""
    code = ("import uuid\n" + _HEAD + "job = aiplatform.CustomJob(display_name=f'nightly-{uuid.uuid4().hex}', "
            "worker_pool_specs=POOLS)\njob.run()\n")
    with pytest.raises(SdkError) as caught:
        read([("train.py", code)], "train.py")
    assert "aiplatform.CustomJob(display_name=...) cannot be known without running the script" in str(caught.value)
    assert str(caught.value).endswith("; or name the job with convert --name NAME")
    body = read([("train.py", code)], "train.py", named=True)
    assert "display_name" not in body.spec
    assert any(note.startswith("aiplatform.CustomJob(display_name=f'nightly-{uuid.uuid4().hex}' (known only when the "
                               "script runs: ") and note.endswith("is not written: convert --name names the job")
               for note in body.notes), body.notes
