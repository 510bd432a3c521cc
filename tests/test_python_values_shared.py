"""provider.document.python_values and python_flow never give a value Python would not: a list or dict two variables
share, changed through one of them, a function's result, a loop, a block that may not run.

The oracle is Python: each program runs with ``exec``; every variable the evaluator knows after it must equal
Python's (an Unknown is allowed: it is refused by name where it is used, never converted wrong). The programs are
drawn (hypothesis) from the statements real launchers write about their worker pools and arguments.
"""

from __future__ import annotations

import contextlib
import io
import textwrap

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from provider.document.python_flow import flow
from provider.document.python_values import Unknown

PRELUDE = """\
import os
def add(pools, extra=[0]):
    pools.append(extra)
    extra.append(1)
    return pools
def first(pools):
    add(pools)
    return pools[0]
def reset():
    global A
    A = "reset"
    return [A]
A = [0]
B = {"k": [0], "j": "v"}
C = "c"
"""

STATEMENTS = [
    "{a} = [1]", "{a} = {{'k': [1], 'j': 'v'}}", "{a} = 's'", "{a} = {b}", "{a} = {b}[0]", "{a} = {b}['k']",
    "{a}.append(1)", "{a}['k'].append(2)", "{a}.extend({b})", "{a}.update(k={b})", "{a} += {b}", "{a}[0] = {b}",
    "del {a}[0]", "X{a} = {a}.pop()", "{a}.setdefault('k', []).append(1)", "print(({a} := 5))",
    "if {a}:\n    {b} = [2]", "if len(str({a})) > 3:\n    {b}.append(7)\nelse:\n    {b} = 'e'",
    "for i in range(2):\n    {a}.append(i)", "{a} = add({b})", "add({a})", "{a} = reset()", "{a} = first({b})",
    "try:\n    {a}.append(1)\nexcept Exception:\n    {b} = 2", "{a} = [{b}, {b}]", "{a}[0].append(9)",
    "{a} = {b}.copy()", "{a} = list({b})", "{a}.sort()", "{a}.clear()", "{a}, {b} = {b}, {a}",
    "{a} = {b} if {a} else {b}", "for p in [{a}]:\n    p.append(3)", "for p in {a}:\n    {b} = p",
    "{a} = {{'n': {b}}}", "{a}['n'].append(4)", "for q in {a}:\n    q.append(5)",
    "with open(os.devnull) as fh:\n    {a}.append(6)", "{a} = {b}[:]", "{a} = [*{b}]",
    "def grow():\n    {a}.append(2)\ngrow()", "def local({a}):\n    {a} = [0]\n    return {a}\n{b} = local({a})",
    "{a}, *{b} = [{b}, {a}, 1]", "{a} = {b}.get('k', [])", "{a}[0][0] = 1", "{a}['k'][0] += 1", "{a} = {{1: {b}}}",
    "{a}[1].append(0)", "def again(v={b}):\n    v.append(1)\n    return v\n{a} = again()", "{a} *= 2",
    "{a}[0:1] = [{b}]", "print({a}.pop())", "{a} = [{b}] * 2", "{a}.insert(0, {b})", "{a} = {b} or [3]",
    "try:\n    {a} = {b}[5]\nexcept IndexError:\n    {a} = [7]",
]

statement = st.builds(lambda template, a, b: template.format(a=a, b=b), st.sampled_from(STATEMENTS),
                      st.sampled_from("ABC"), st.sampled_from("ABC"))


def _python(code: str) -> dict[str, object] | None:
    namespace: dict[str, object] = {"__name__": "__main__"}
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(code, "t", "exec"), namespace)
    except Exception:  # a program Python refuses: nothing to compare
        return None
    return namespace


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(statement, min_size=2, max_size=12))
def test_a_known_value_is_pythons(body: list[str]) -> None:
    code = PRELUDE + "\n".join(body) + "\n"
    namespace = _python(code)
    if namespace is None:
        return
    steps = list(flow([("t", code + "END = 0\n")]))
    scope = steps[-1].scope  # just before END: after every statement
    for name in ("A", "B", "C", "XA", "XB", "XC"):
        got = scope.get(name)
        if name not in namespace or isinstance(got, Unknown):
            continue
        try:
            same = got == namespace[name] and repr(got) == repr(namespace[name])
        except RecursionError:  # a list holding itself: both sides are, Python cannot compare them
            continue
        assert same, (code, name, got, namespace[name])


def _after(code: str) -> dict[str, object]:
    code = textwrap.dedent(code)
    steps = list(flow([("t", code + "END = 0\n")]))
    return {name: steps[-1].scope.get(name) for name in ("pools", "spec", "args", "cfg", "defaults")}


def test_a_change_through_a_shared_list_is_seen_or_unknown() -> None:
    values = _after("""
        spec = {"args": ["--a"]}
        args = spec["args"]
        args.append("--b")
        pools = [{"replica_count": 1}, {"replica_count": 1}]
        for pool in pools:
            pool["replica_count"] = 2
        cfg = [{"replica_count": 1}]
        for item in cfg * len(EXTRA):
            item["replica_count"] = 3
        """)
    assert values["spec"] == {"args": ["--a", "--b"]}  # done on the one list both names hold
    assert values["pools"] == [{"replica_count": 2}, {"replica_count": 2}]  # a loop over known items: each turn
    cfg = values["cfg"]  # a loop whose items are not known: what it changes is not known either
    assert isinstance(cfg, Unknown) and cfg.why.startswith("cfg is set inside the for at t, line 9"), cfg


def test_a_function_returns_the_list_it_was_given() -> None:
    values = _after("""
        def with_gpu(pools):
            pools[0]["accelerator_count"] = 1
            return pools
        pools = [{"machine_type": "n1-standard-4"}]
        spec = with_gpu(pools)
        spec.append({"machine_type": "n1-standard-8"})
        """)
    assert values["pools"] == values["spec"] == [{"machine_type": "n1-standard-4", "accelerator_count": 1},
                                                {"machine_type": "n1-standard-8"}]


def test_what_an_unknown_name_may_hold_is_changed_with_it() -> None:
    values = _after("""
        defaults = {"env": []}
        cfg = defaults
        try:
            import yaml
        except ImportError:
            cfg = {"env": []}
        cfg["env"].append("A=1")
        """)
    defaults = values["defaults"]
    assert isinstance(defaults, Unknown) and defaults.why.startswith("defaults shares a list or dict with cfg"), defaults
