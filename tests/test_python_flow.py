"""provider.document.python_flow: the statements Python runs, in order, read without running anything.

The oracle: each snippet calls ``mark(...)`` where it wants a value checked; Python runs the snippet (``exec``) and
records each call's arguments, and the flow must reach the same ``mark`` calls in the same order with the same
values (each read in the Scope flow gives for its statement). A ``mark`` flow passes over comes with ``skipped``.
"""

from __future__ import annotations

import ast
import copy
import textwrap

import pytest

from provider.document.python_flow import flow
from provider.document.python_values import Unknown

ORACLE = {
    "known if, elif, else": """
        LOCAL = False
        RUN = "yes"
        if LOCAL:
            mark("local")
        elif RUN == "yes":
            mark("run", RUN)
            if not LOCAL:
                mark("nested", 1)
        else:
            mark("else")
        """,
    "a raise in a try body ends it there, and its else does not run": """
        X = 1
        try:
            X = 2
            raise ValueError("x")
            X = 3
            mark("not reached")
        except ValueError:
            pass
        else:
            X = 4
            mark("else")
        mark("after", X)
        """,
    "a raise in a function a try body calls ends that body": """
        def check():
            raise KeyError("k")
            mark("no")
        Y = "a"
        try:
            check()
            Y = "b"
        except KeyError:
            pass
        mark("y", Y)
        """,
    "main guard": """
        X = 3
        if __name__ == "__main__":
            X += 1
            mark("guard", X)
        """,
    "a function called at top level, its locals put back": """
        N = "global"
        def submit(gpu, count=1, *, spot=False):
            N = f"{gpu}x{count}"
            pools = [{"m": gpu}]
            if count > 1:
                pools[0]["count"] = count
            if spot:
                pools[0]["spot"] = True
            mark("submit", N, pools)
            return pools
            mark("after return")
        def main():
            submit("T4", 2, spot=True)
            out = submit(gpu="L4")
            mark("main", N)
        main()
        mark("top", N)
        """,
    "arguments that name the parameters": """
        def f(a, b):
            mark("f", a, b)
        a, b = 1, 2
        f(b, a)
        """,
    "sys.exit(main()) and a try body": """
        import sys
        def main():
            try:
                x = [1]
                x.append(2)
                mark("try", x)
            except Exception as e:
                mark("except")
                return 1
            else:
                mark("else", x)
            finally:
                mark("finally")
            return 0
        try:
            sys.exit(main())
        except SystemExit:
            pass
        """,
    "raise SystemExit(main()) runs main as sys.exit(main()) does": """
        def main():
            x = ["a"]
            mark("main", x)
            return 0
        try:
            raise SystemExit(main())
        except SystemExit:
            pass
        mark("after")
        """,
    "a default is evaluated where def runs, and is one object for every call": """
        MACHINE = "n1-standard-4"
        def main(machine=MACHINE, args=[], *, gpu=MACHINE + "-gpu"):
            args.append("--n")
            mark("main", machine, args, gpu)
        MACHINE = "n1-standard-8"
        main()
        main()
        main("a2-highgpu-1g", ["--x"])
        mark("after", MACHINE)
        """,
    "a global a function sets, a global read at the call": """
        MACHINE = "n1-standard-4"
        def setup():
            global MACHINE
            MACHINE = "n1-standard-16"
        def main():
            mark("main", MACHINE)
        MACHINE = "n1-standard-8"
        main()
        setup()
        main()
        """,
    # find_string id 13116973799: `match accelerator_type: case "tpu": kw = dict(...) case "gpu": ... case _: raise`
    "a match on a known value takes its first matching case": """
        family = {"L4": "gpu", "v6e": "tpu"}["L4"]
        match family:
            case "tpu":
                mark("tpu")
            case "cpu" | "gpu" if False:
                mark("guarded")
            case "cpu" | "gpu":
                mark("gpu", family)
            case _:
                mark("other")
        match 3:
            case None:
                mark("none")
            case 1 | 2:
                mark("small")
            case _:
                mark("wildcard")
        """,
    "a return's call runs in the function": """
        def make():
            return mark("made")
        made = make()
        """,
}


def _python(code: str) -> list[tuple[object, ...]]:
    marks: list[tuple[object, ...]] = []
    exec(code, {"__name__": "__main__", "mark": lambda *args: marks.append(copy.deepcopy(args))})  # values then
    return marks


def _flow(code: str) -> tuple[list[tuple[object, ...]], list[str]]:
    marks: list[tuple[object, ...]] = []
    skipped: list[str] = []
    # mark, as the reader sees it: a library's function (it changes nothing it is given), bound by a source before
    for step in flow([("prelude", "from _trainjobs_marks import mark\n"), ("t", code)]):
        calls = [node for node in ast.walk(step.stmt)
                 if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "mark"]
        if step.skipped is not None:
            skipped += [ast.unparse(node) for node in calls]
        elif isinstance(step.stmt, (ast.Expr, ast.Return)) and step.stmt.value in calls:  # a mark the flow runs
            marks.append(tuple(step.scope.evaluate(arg) for arg in step.stmt.value.args))
    return marks, skipped


@pytest.mark.parametrize("name", ORACLE)
def test_agrees_with_python(name: str) -> None:
    code = textwrap.dedent(ORACLE[name])
    marks, _ = _flow(code)
    assert marks == _python(code)


def test_what_does_not_run_comes_skipped_with_why() -> None:
    _, skipped = _flow(textwrap.dedent(ORACLE["known if, elif, else"]))
    assert skipped == ["mark('local')", "mark('else')"]
    steps = [s for s in flow([("t", "A = 0\nif A:\n    mark(1)\n")]) if s.skipped]
    assert steps[0].skipped == "the if at line 2 is false (A: 0), so its body does not run"


def test_what_may_not_run_after_an_unknown_return_or_exit() -> None:
    code = "import os, sys\ndef main():\n    if os.urandom(1):\n        return\n    mark(1)\nmain()\n" \
           "if os.urandom(1):\n    sys.exit(0)\nmark(2)\n"
    steps = [s for s in flow([("t", code)]) if s.skipped]
    assert [s.where.line for s in steps] == [5, 9]
    assert steps[0].skipped is not None and steps[0].skipped.startswith("the if at line 3, whose test is not known")
    assert steps[0].skipped.endswith("may return before it")
    assert steps[1].skipped is not None and steps[1].skipped.endswith("may exit before it")
    # an except clause runs only when its try's body raises: an exit there leaves the rest read
    assert _flow("import sys\ntry:\n    import json\nexcept ImportError:\n    sys.exit('no json')\nmark(1)\n") == ([(1,)], [])
    # a notebook's next cell runs after a cell that exits
    assert not [s for s in flow([("cell 1", "import sys\nif input():\n    sys.exit()\n"), ("cell 2", "mark(3)\n")])
                if s.skipped]


def test_a_call_that_cannot_be_bound_is_not_read() -> None:
    for call in ("f(1, 2)", "f(*xs)", "f(b=1)", "f(**kw)", "[f(1) for _ in 'a']", "g = lambda: f(1)"):
        code = f"def f(a):\n    mark(a)\n{call}\n"
        assert _flow(code) == ([], []), call
    # a decorated function is not read either (the decorator may change what the call does)
    assert _flow("import functools\n@functools.cache\ndef f(a):\n    mark(a)\nf(1)\n") == ([], [])


def test_except_clauses_leave_their_names_unknown() -> None:
    code = "try:\n    A = 1\nexcept ValueError:\n    A = 2\nmark(A)\n"
    (value,), = _flow(code)[0]
    assert isinstance(value, Unknown) and "try at t, line 1" in value.why, value


def test_what_may_not_run_leaves_what_it_changes_unknown() -> None:
    code = "import os\nC = {'a': 1}\nL = []\ndef main():\n    if os.urandom(1):\n        return\n    C['a'] = 2\n" \
           "    L.append(3)\nmain()\nmark(C, L)\n"
    (c, lst), = _flow(code)[0]
    assert isinstance(c, Unknown) and c.why.startswith("C may be changed at t, line 7, after the if at line 5")
    assert isinstance(lst, Unknown) and lst.why.startswith("L may be changed at t, line 8")


def test_a_local_read_before_it_is_assigned_is_unknown() -> None:
    """Python makes a name a function assigns local to all of it: read before, it raises UnboundLocalError."""
    code = "M = 'global'\ndef main():\n    mark(M)\n    M = 'local'\n    mark(M)\nmain()\nmark(M)\n"
    with pytest.raises(UnboundLocalError):
        _python(code)
    (first,), (second,), (after,) = _flow(code)[0]
    assert isinstance(first, Unknown) and "M is local to main (assigned in it), and read before it is assigned there: " \
        "Python raises UnboundLocalError" in first.why, first
    assert (second, after) == ("local", "global")


def test_a_change_inside_a_loop_or_block_leaves_the_value_unknown() -> None:
    """``args.append(...)`` in a for loop whose items are not known (or a with block) changes args: never read as it
    was before the loop. A loop over known items is read turn by turn, as Python runs it (the next test)."""
    code = "import sys\nargs = ['--lr=1']\ncfg = {'a': 1}\nname = 'x'\nfor a in sys.argv[:1]:\n" \
           "    args.append(a)\n    name.upper()\nwith open('/dev/null') as fh:\n    cfg.update(b=2)\nmark(args, cfg, name)\n"
    (args, cfg, name), = _flow(code)[0]
    assert isinstance(args, Unknown) and args.why.startswith("args is set inside the for at t, line 5"), args
    assert isinstance(cfg, Unknown) and cfg.why.startswith("cfg is set inside the with at t, line 8"), cfg
    assert name == "x"  # a str's method changes nothing


LOOPS = [  # loops over known items, read turn by turn: Python is the oracle of every value
    "args = ['--lr=1']\nfor a in ['--x', '--y']:\n    args.append(a)\nmark(args, a)\n",
    "params = {'epochs': 3, 'lr': 0.5}\nargs = []\nfor k, v in params.items():\n    args.append(f'--{k}={v}')\n"
    "mark(args)\nfor k in params:\n    args += [k]\nfor v in params.values():\n    mark(v)\n",
    "pools = [{'r': 1}, {'r': 1}]\nfor i, pool in enumerate(pools, 1):\n    pool['r'] = i * 2\nmark(pools)\n",
    "names = []\nfor i in range(2, 9, 3):\n    names.append('w' + str(i))\nelse:\n    names.append('done')\nmark(names)\n",
    "out = []\nfor a, b in zip(['x', 'y'], reversed([1, 2])):\n    out.append((a, b))\nfor s in sorted(['b', 'a']):\n"
    "    out.append(s)\nmark(out)\n",
    "total = 0\nfor i in range(3):\n    for j in [10, 20]:\n        total += i * j\nmark(total)\nfor e in []:\n    total = -1\n"
    "mark(total)\n",
    "def f(xs):\n    out = []\n    for x in xs:\n        if x == 'stop':\n            return out\n        out.append(x)\n"
    "    return out\nr = f(['a', 'stop', 'b'])\nmark(r)\n",
]


@pytest.mark.parametrize("code", LOOPS)
def test_a_loop_over_known_items_is_read_turn_by_turn(code: str) -> None:
    assert _flow(code)[0] == _python(code)


def test_a_loop_with_a_break_or_too_many_items_is_read_whole() -> None:
    for code in ("args = []\nfor a in ['x', 'y']:\n    if a == 'y':\n        break\n    args.append(a)\nmark(args)\n",
                 "args = []\nfor i in range(1000):\n    args.append(i)\nmark(args)\n",
                 "args = []\nfor a in {'x', 'y'}:\n    args.append(a)\nmark(args)\n",  # a set: Python's hash order
                 # the list gone through is changed in the loop (Python stops early) or by a function it calls
                 "L = [1, 2, 3]\nargs = []\nfor i, a in enumerate(L):\n    args.append(a)\n    L.pop()\nmark(args)\n",
                 "L = [1, 2, 3]\ndef f():\n    L.pop()\nargs = []\nfor a in L:\n    args.append(a)\n    f()\nmark(args)\n"):
        (args,), = _flow(code)[0]
        assert isinstance(args, Unknown) and "inside the for" in args.why, (code, args)


def test_an_exit_inside_a_function_may_end_the_whole_program() -> None:
    """``check()`` calling ``sys.exit(1)``: what follows the call may not run, in the caller too (a return only ends
    the function)."""
    code = "import sys\ndef check():\n    print('no quota')\n    sys.exit(1)\ndef early():\n    return\n" \
           "early()\nmark(1)\ncheck()\nmark(2)\n"
    with pytest.raises(SystemExit):
        _python(code)
    marks, skipped = _flow(code)
    assert marks == [(1,)] and skipped == ["mark(2)"]
    step = [s for s in flow([("t", code)]) if s.skipped][-1]
    assert step.skipped == "sys.exit(1) at line 4, may exit before it"


def test_a_raise_that_runs_stops_the_code_unless_a_try_catches_it() -> None:
    """``if not key: raise ValueError(...)`` with the key unset: Python stops there, so what follows is not read as
    running; a raise in a try body with except clauses may be caught, and the code goes on."""
    caught = "try:\n    raise ValueError('x')\nexcept ValueError:\n    pass\nmark(1)\n"
    assert _python(caught) == [(1,)] and _flow(caught) == ([(1,)], [])
    stops = "import os\ndef check(key):\n    if not key:\n        raise ValueError('set it')\n    mark(0)\n" \
            "check(os.environ.get('TRAINJOBS_NEVER_SET'))\nmark(2)\n"
    with pytest.raises(ValueError):
        _python(stops)
    marks, skipped = _flow(stops)
    assert marks == [] and skipped == ["mark(0)", "mark(2)"]
    step = [s for s in flow([("t", stops)]) if s.skipped][-1]
    assert step.skipped == "raise ValueError('set it') at line 4, raises before it"


def test_a_match_is_followed_only_where_its_case_is_known() -> None:
    """A capture, a class pattern or an unknown guard before the case taken: the match is read whole (what it sets
    unknown)."""
    code = 'X = "gpu"\nmatch X:\n    case "tpu":\n        mark(1)\n    case "gpu":\n        K = 2\n'
    steps = list(flow([("t", code)]))
    assert [s.skipped for s in steps if s.skipped] == [
        "the match at line 2 takes the case at line 5 (X: 'gpu'), so this case does not run"]
    for pattern in ("str()", "y", "[a]", "\"gpu\" if f()"):
        code = f'X = "gpu"\nmatch X:\n    case {pattern}:\n        K = 1\n    case "gpu":\n        K = 2\nZ = K\n'
        scope = list(flow([("t", code)]))[-1].scope
        assert isinstance(scope.get("K"), Unknown), pattern
