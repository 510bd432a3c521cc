"""A function of the script's own called inside a statement's value (``print(launch())``, ``x = [launch()]``,
``log(launch())``) runs where Python evaluates it (provider/document/python_calls.run_calls): its job is the
script's; a call in a lambda, comprehension or a condition's branch is not read there, and is named."""

from __future__ import annotations

import pytest

from provider.pysdk.arguments import SdkError
from provider.pysdk.program import read

_HEAD = ("from google.cloud import aiplatform\n"
         "def log(message):\n    print(message)\n"
         "def launch(machine='n1-standard-4'):\n"
         "    aiplatform.init(project='p', location='us-east1', staging_bucket='gs://b')\n"
         "    job = aiplatform.CustomJob(display_name='j', worker_pool_specs=[{'machine_spec': {'machine_type': machine},"
         " 'replica_count': 1, 'container_spec': {'image_uri': 'gcr.io/p/i:1'}}])\n"
         "    job.run(timeout=60)\n    return job\n")


@pytest.mark.parametrize("line", ["print(launch('n1-standard-8'))", "jobs = [launch('n1-standard-8')]",
                                  "log(launch('n1-standard-8'))", "name = log(launch(machine='n1-standard-8').name)",
                                  "print(f\"{launch('n1-standard-8').resource_name}\")"])
def test_a_function_called_inside_a_value_is_read_where_python_runs_it(line: str) -> None:
    spec = dict(read([("train.py", _HEAD + line + "\n")], "train.py").spec)
    pools = spec["worker_pool_specs"]
    assert isinstance(pools, list) and pools[0]["machine_spec"] == {"machine_type": "n1-standard-8"}
    assert spec["scheduling"] == {"timeout": "60s"}


def test_each_call_inside_a_value_runs_once() -> None:
    with pytest.raises(SdkError) as caught:
        read([("train.py", _HEAD + "print(launch(), launch())\n")], "train.py")
    assert "launches several jobs: aiplatform.CustomJob at train.py:6:11 (2 times" in str(caught.value)


@pytest.mark.parametrize("line", ["jobs = [launch() for _ in range(1)]", "print(launch() if FLAG else None)",
                                  "go = lambda: launch()\n"])
def test_a_call_run_later_or_on_a_condition_is_named(line: str) -> None:
    with pytest.raises(SdkError) as caught:
        read([("train.py", _HEAD + "FLAG = input()\n" + line + "\n")], "train.py")
    assert "def launch at line 4, not called where it can be read (at top level: alone, x = launch(...), or inside a " \
           "statement's value, print(launch(...)), not in a lambda, comprehension or condition" in str(caught.value)


def test_a_job_built_in_a_class_is_refused_naming_the_class_and_a_way_forward() -> None:
    """Real launchers that build the job in a method (self.worker_pool_specs from Dynaconf, a config dict, parsed
    arguments: find_string ids 46531612569, 249569254, 3563753472) hold values known only when they run: the class's
    methods are not read, and the refusal says so, with the way forward."""
    code = ("from dataclasses import dataclass\nfrom google.cloud import aiplatform\n@dataclass\nclass Config:\n"
            "    machine_type: str = 'n1-standard-8'\n"
            "class Trainer:\n    def __init__(self, cfg):\n        self.cfg = cfg\n    def run(self):\n"
            "        aiplatform.CustomJob(display_name='j', worker_pool_specs=[{'machine_spec': {'machine_type': "
            "self.cfg.machine_type}, 'replica_count': 1, 'container_spec': {'image_uri': 'gcr.io/p/i:1'}}]).run()\n"
            "Trainer(Config()).run()\n")
    with pytest.raises(SdkError) as caught:
        read([("train.py", code)], "train.py")
    said = str(caught.value)
    assert "CustomJob at train.py:10:9 (inside class Trainer at line 6, whose methods are not read (nor what an " \
           "instance holds, self.X))" in said, said
    assert "for a class's method: those calls in a def called at top level, the values the class holds as its " \
           "parameters or module constants" in said
