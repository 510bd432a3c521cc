"""provider.document.python_passed: a list or dict passed to a function the reader does not read may be changed.

The oracle is Python: each snippet runs (``exec``), and every value the reader says it knows after it must be the one
Python's namespace holds; where a function of the code's own that the reader does not read changes what it is
given, the value must be Unknown (saying which call), never the value before the call.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from provider.document.python_flow import flow
from provider.document.python_unknown import Unknown

from .conftest import no_traceback, run_cli

CASES = {
    # a def the flow does not follow (the call is inside a comprehension, run per item): it changes pools
    "a def called inside a comprehension": ("""
        def tweak(p):
            p.append(3)
            return len(p)
        pools = [1, 2]
        KEEP = {"a": 1}
        print([tweak(pools) for _ in "a"])
        """, {"pools": None, "KEEP": {"a": 1}}),
    # the flow reads the body of a def called inside another call, where Python runs it: the value stays known
    "a def called inside an expression": ("""
        def tweak(p):
            p.append(3)
            return len(p)
        pools = [1, 2]
        print(tweak(pools))
        """, {"pools": [1, 2, 3]}),
    # the flow reads the body of a def called alone: what it does is done, and the value stays known
    "a def the flow follows": ("""
        def tweak(p):
            p.append(3)
        pools = [1, 2]
        tweak(pools)
        """, {"pools": [1, 2, 3]}),
    # builtins and installed libraries change nothing they are given
    "builtins and libraries": ("""
        import copy, json
        pools = [{"m": "n1-standard-4"}]
        print(pools)
        n = len(pools)
        text = json.dumps(pools)
        other = copy.deepcopy(pools)
        sorted(pools[0])
        """, {"pools": [{"m": "n1-standard-4"}], "n": 1}),
    # a part of a variable, passed: the variable may be changed
    "a part passed": ("""
        def setgpu(pool):
            pool["gpu"] = "T4"
        cfg = {"pools": [{"m": "n1"}]}
        same = cfg["pools"]
        x = len(cfg) and [setgpu(cfg["pools"][0])]
        """, {"cfg": None, "same": None}),
}


def _python(code: str) -> dict[str, object]:
    names: dict[str, object] = {"__name__": "__main__"}
    exec(code, names)
    return names


@pytest.mark.parametrize("name", sorted(CASES))
def test_what_a_function_not_read_is_passed_is_not_known_after(name: str) -> None:
    code, expected = CASES[name]
    code = textwrap.dedent(code)
    theirs = _python(code)
    scope = None
    for step in flow([("t", code + "pass\n")]):
        scope = step.scope  # the scope before the last statement: after all of the code
    assert scope is not None
    for variable, value in expected.items():
        ours = scope.get(variable)
        if value is None:
            assert isinstance(ours, Unknown) and "which it is passed to" in ours.why, (variable, ours)
            assert variable in theirs
        else:
            assert theirs[variable] == value, (variable, theirs[variable])
            assert ours == value, (variable, ours)


def test_a_launcher_whose_pools_its_own_module_changes_is_refused_by_that_call(tmp_path: Path) -> None:
    """from helpers import tweak; tweak(pools): helpers.py (the code's own) sets another machine type; the job is
    refused naming the call, never converted with the machine type written before it."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "helpers.py").write_text("def tweak(pools):\n    pools[0]['machine_spec']['machine_type'] = "
                                         "'a2-highgpu-1g'\n")
    (tmp_path / "train.py").write_text(
        "from google.cloud import aiplatform\nfrom helpers import tweak\nimport json\n"
        "pools = [{'machine_spec': {'machine_type': 'n1-standard-4'}, 'replica_count': 1, "
        "'container_spec': {'image_uri': 'gcr.io/p/i'}}]\nprint(json.dumps(pools))\ntweak(pools)\n"
        "job = aiplatform.CustomJob(display_name='j', worker_pool_specs=pools, staging_bucket='gs://b', "
        "location='us-central1')\njob.run()\n")
    proc = run_cli("convert", "train.py", "--output", "request", cwd=tmp_path)
    no_traceback(proc)
    assert proc.returncode != 0, proc.stdout
    assert "pools may be changed by tweak(), which it is passed to at train.py, line 6" in proc.stderr, proc.stderr
    # without the call, the same launcher converts, with what it wrote (json.dumps changes nothing)
    (tmp_path / "train.py").write_text((tmp_path / "train.py").read_text().replace("tweak(pools)\n", ""))
    proc = run_cli("convert", "train.py", "--output", "request", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    pool = json.loads(proc.stdout)["body"]["jobSpec"]["workerPoolSpecs"][0]
    assert pool["machineSpec"]["machineType"] == "n1-standard-4"
