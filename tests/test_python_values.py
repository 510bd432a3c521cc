"""provider.document.python_values: the values of top-level Python variables, read without running anything.

The oracle: for snippets whose every value is known, the snippet is run by Python (``exec`` in a
fresh namespace) and every name's value must equal the evaluator's.
"""

from __future__ import annotations

import ast
import os
import textwrap
from types import ModuleType

import pytest

from provider.document.python_cells import MAGIC, SHELL, ipython_line, python_text
from provider.document.python_values import Scope, Unknown, Where, scope_after, statements

ORACLE = [
    'REGION = "us-central1"\nPROJECT = "p"\nBUCKET = f"gs://{PROJECT}-bucket"\nURI = BUCKET + "/" + REGION',
    'A = "x" * 3 + "%s-%d" % ("a", 5)\nB = "%(r)s" % {"r": A}\nC = "{}-{x}".format(1, x=A)',
    'N = 4\nN += 2\nN *= 3\nM = N // 5\nF = N / 4\nP = 2 ** 10\nQ = -N\nR = not N\nS = ~N % 7',
    'L = [1, 2, *(3, 4)]\nT = (L[0], L[-1], L[1:3], L[::2])\nD = {"a": 1, **{"b": 2}}\nE = D["b"]\nG = len(L)',
    'X = "  Hello World  "\nY = X.strip().lower().replace(" ", "_")\nZ = X.split()\nW = "-".join(Z).upper()',
    'a, b = 1, 2\na, b = b, a\nc, *d = [1, 2, 3, 4]\n(e, f), g = ("xy", 3)',
    'V = 3.14159\nS1 = f"{V:.2f}|{V!r}|{\'q\'!s:>5}|{V=}|{7:05d}|{\'é\'!a}"',
    'A = "" or "dflt"\nB = "x" and 0\nC = 1 if A == "dflt" else 2\nD = 1 < 2 < 3\nE = "a" in "abc"\nF = None is None',
    'x = 1\nif x == 1:\n    y = "one"\nelif x == 2:\n    y = "two"\nelse:\n    y = "other"\nif not y:\n    z = 0\nelse:\n    z = 9',
    'S = str(5) + str(2.5) + str(True) + str(None)\nI = int("42") + int(3.9) + int("ff", 16)\nF = float("1.5")\nB = bool("")',
    'L = []\nL.append(1)\nL.extend([2, 3])\nD = {}\nD["k"] = "v"\nD.update(a=1)\nM = L',
    'L = [1]\nK = L\nL += [2]\nT = (1,)\nU = T\nT += (2,)',
    'import os\nP = os.path.join("a", "b", "c.txt")\nB = os.path.basename(P)\nQ = os.path.splitext(P)',
    'X = "gs://b/p"[5:].split("/", 1)\nY = "abc"[::-1]\nZ = "Job-%s" % "x".zfill(4)\nW = repr("a\'b")',
    'D = {"a": [1, 2]}\nE = D.get("a")\nF = D.get("z", "none")\nG = sorted([3, 1, 2])\nH = max(1, 5) - min([4, 2])',
    'A = 7\ndel A\nA = "back"\nB: str = "annotated"\nC = D = "chained"',
    'W = [{"m": {"t": "a"}}]\nW[0]["m"]["spot"] = True\nX = {"a": 1, "b": [1]}\nX["a"] += 1\nX["b"] += [2]\ndel X["a"]',
    'L = [1, 2, 3]\nL[0] *= 5\ndel L[1]\nN = {"k": {"j": 1}}\nN["k"]["j"] -= 3',
    'W = [{"args": [], "env": {}}]\nW[0]["args"].append("--x")\nW[0]["args"].extend(["--y", "1"])\n'
    'W[0]["env"].update(A="1")\nA = W[0]["args"]\nA.insert(0, "--first")\nS = {"a"}\nS.add("b")\nT = "x"\nT.upper()',
    # comprehensions (find_string id 13656554681: args=[...] + [f"--image-sizes={n}" for n in [12, 16, 20, 24, 30]])
    'n = "outer"\nA = ["t"] + [f"--size={n}" for n in [12, 16]]\nB = n\nC = {k: v * 2 for k, v in {"a": 1}.items()}',
    'D = {"a": 1, "b": 2}\nE = [f"--{k}={D[k]}" for k in D if k != "a"]\nF = {c for c in "abca"}\nG = ",".join(s for s in ["x", "y"])',
    'D = {"a": 1, "b": 2}\nK = list(D.keys())\nV = sorted(D.values())\nI = tuple(D.items())\nM = max(D.keys())',
    'A = [f"--worker-{i}" for i in range(1, 4)]\nC = [f"{i}:{x}" for i, x in enumerate("ab", 1)]',
    # pathlib.Path of a known str, its text only (a public launcher's pathlib.Path(NOTEBOOK).stem, find_string id
    # 11526267896): the values the names keep are str, as Path objects are another class when run
    'from pathlib import Path\nimport pathlib\nS = Path("nb/x.ipynb").stem\nN = Path("nb/x.ipynb").with_suffix(".py").name\n'
    'D = str(Path("nb/x.ipynb").parent / "data" / "t.csv")\nF = f"{Path(\'nb/x\').parent}/m"\n'
    'Q = pathlib.PurePosixPath("/a/b").parts',
    'P = [(i, j) for i in [1, 2] if i > 1 for j in "ab"]\nQ = [[x for x in row] for row in [[1], [2, 3]]]\nR = len([1 for _ in "xyz"])',
]


@pytest.mark.parametrize("code", ORACLE)
def test_agrees_with_python(code: str) -> None:
    namespace: dict[str, object] = {"__name__": "__main__"}
    exec(compile(code, "<snippet>", "exec"), namespace)
    expected = {k: v for k, v in namespace.items() if not k.startswith("__") and not isinstance(v, (type, ModuleType))}
    scope = scope_after([("cell 1", code)])
    got = {name: scope.get(name) for name in scope.names()}
    assert not [v for v in got.values() if isinstance(v, Unknown)], got
    assert got == expected
    assert {k: type(v) for k, v in got.items()} == {k: type(v) for k, v in expected.items()}


def _why(code: str | list[str], name: str) -> str:
    cells = [code] if isinstance(code, str) else code
    value = scope_after([(f"cell {i}", textwrap.dedent(c)) for i, c in enumerate(cells, 1)]).get(name)
    assert isinstance(value, Unknown), value
    return value.why


def test_google_project_id_pattern(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CLOUDSDK_CORE_PROJECT", raising=False)  # the output gcloud would print (test_python_shell.py)
    cells = ['PROJECT_ID = "[your-project-id]"  # @param {type:"string"}',
             'if PROJECT_ID == "" or PROJECT_ID is None or PROJECT_ID == "[your-project-id]":\n'
             '    # Get your GCP project id from gcloud\n'
             '    shell_output = ! gcloud config list --format "value(core.project)" 2>/dev/null\n'
             '    PROJECT_ID = shell_output[0]\n',
             'BUCKET_URI = f"gs://{PROJECT_ID}-unique"']
    assert _why(cells, "BUCKET_URI") == (
        "BUCKET_URI is set from PROJECT_ID at cell 3, line 1; PROJECT_ID is set from shell_output at cell 2, "
        "line 4; shell_output is set from a shell command's output: gcloud config list --format \"value(core.project)\" "
        "prints the core/project property of the gcloud configuration of the machine that runs the notebook, which is "
        "not known here; give it: CLOUDSDK_CORE_PROJECT=VALUE in the environment of trainjobs convert (gcloud reads "
        "the property from it first) at cell 2, line 3")
    cells[0] = 'PROJECT_ID = "my-project"  # @param {type:"string"}'
    assert scope_after([(f"cell {i}", c) for i, c in enumerate(cells, 1)]).get("BUCKET_URI") == "gs://my-project-unique"


def test_why_values_are_unknown() -> None:
    assert _why("import time\nT = time.perf_counter()", "T") == "T is set from the time the code runs at cell 1, line 2"
    assert "a random value" in _why("import uuid\nU = str(uuid.uuid4())[:8]", "U")
    assert "a random value" in _why("import random, string\nU = ''.join(random.choices(string.ascii_lowercase, k=8))", "U")
    assert _why("x = get()", "x") == "x is set from a call to get() (get is not assigned before cell 1, line 1) at cell 1, line 1"
    assert "a function defined at cell 1, line 1" in _why("def f():\n    return 1\nx = f()", "x")
    assert _why("x = 1\nfor i in range(3):\n    x = i", "x") == "x is set inside the for at cell 1, line 2"
    assert _why("try:\n    R = 'a'\nexcept Exception:\n    R = 'b'", "R") == "R is set inside the try at cell 1, line 1"
    assert "whose test is not known" in _why("import sys\nif 'google.colab' in sys.modules:\n    X = 1", "X")
    assert _why("y = z", "y").endswith("z is not assigned before cell 1, line 1")
    assert "ZeroDivisionError" in _why("x = 1 / 0", "x")
    assert "too large" in _why("x = 'a' * 10**9", "x")
    assert "too large" in _why("x = 2 ** 10**9", "x")
    assert "does not evaluate" in _why("x = '{:9999999999}'.format(1)", "x")
    assert "too large" in _why("x = f'{1:9999999999}'", "x")
    assert "format trainjobs does not evaluate" in _why("x = '{0.__class__}'.format(1)", "x")
    assert "may be changed by L.frob()" in _why("L = [1]\nL.frob()", "L")
    assert "is set by the function f" in _why("X = 1\ndef f():\n    global X\n    X = 2", "X")
    assert "a call to f()" in _why("x = [i for i in f()]", "x")
    assert "too large" in _why("x = [1 for i in 'a' * 99999 for j in 'b' * 99999]", "x")
    assert scope_after([("c", "D = {'a': 1}\nK = D.keys()")]).get("K") == ["a"]  # a view is kept as a list (JSON)
    assert "whose items trainjobs does not go through" in _why("x = [i for i in {'a', 'b'}]", "x")  # hash order
    assert "whose items trainjobs does not go through" in _why("x = [i for i in range(10**9)]", "x")
    assert "loop target trainjobs does not bind" in _why("x = [a for *a, b in ['xy']]", "x")
    assert "ValueError" in _why("x = [a for a, b in ['xyz']]", "x")
    shadowed = scope_after([("cell 1", "import os\nx = [os for os in ['a']]\ny = x + [os.path.join('a', 'b')]")])
    assert shadowed.get("y") == ["a", "a/b"]  # the loop's own os, then the module again


def test_broken_cell_poisons_what_it_names() -> None:
    cells = ["A = 1\nB = 2", "A = (3\n", "C = A + B"]
    scope = scope_after([(f"cell {i}", c) for i, c in enumerate(cells, 1)])
    assert scope.get("B") == 2
    why = _why(cells, "C")
    assert why.startswith("C is set from A at cell 3, line 1; A may be set in cell 2, which does not parse as Python")


def test_ipython_lines() -> None:
    cell = "X = 1\n!gcloud ai custom-jobs create \\\n  --region=$R\n%env R=us-east1\nY = %pwd\nZ = X"
    text = python_text(cell)
    assert text is not None and len(text.split("\n")) == len(cell.split("\n"))
    found = [(w.line, ipython_line(s)) for w, s, _ in statements([("cell 1", cell)])]
    assert found == [(1, None), (2, (SHELL, "!gcloud ai custom-jobs create \\\n  --region=$R")),
                     (4, (MAGIC, "%env R=us-east1")), (5, None), (6, None)]
    scope = scope_after([("cell 1", cell), ("cell 2", "import os\nE = os.environ['R']")])
    assert scope.get("Z") == 1 and scope.get("E") == "us-east1"
    assert isinstance(scope.get("Y"), Unknown) and "the output of %pwd" in str(scope.get("Y"))
    assert python_text("%%bash\necho hi") is None
    assert python_text("\n%%writefile trainer/task.py\nimport os") is None
    assert scope_after([("c", "%%capture out\nX = 5")]).get("X") == 5


def test_scope_before_each_statement() -> None:
    seen = [(str(w), sc.get("X")) for w, _, sc in statements([("cell 1", "X = 1"), ("cell 2", "X = 2\nX = 3")])]
    assert seen[0][0] == "cell 1, line 1" and isinstance(seen[0][1], Unknown)
    assert seen[1:] == [("cell 2, line 1", 1), ("cell 2, line 2", 2)]
    assert str(Where("train.py", 3)) == "train.py, line 3"


def test_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TJ_SET", "from-env")
    monkeypatch.delenv("TJ_UNSET", raising=False)
    code = ("import os\nfrom os import getenv\nA = os.environ.get('TJ_SET')\nB = getenv('TJ_UNSET', 'dflt')\n"
            "C = os.getenv('TJ_UNSET')\nos.environ['TJ_NEW'] = 'n'\nD = os.environ['TJ_NEW']\nE = os.environ['TJ_UNSET']")
    scope = scope_after([("train.py", code)])
    assert [scope.get(n) for n in "ABCD"] == ["from-env", "dflt", None, "n"]
    assert "the environment variable TJ_UNSET, which is not set" in str(scope.get("E"))
    assert os.environ.get("TJ_NEW") is None  # nothing is run


def test_qualified_names() -> None:
    scope = scope_after([("c", "from google.cloud import aiplatform as aip\nimport google.cloud.aiplatform as aiplatform\n"
                              "from google.cloud.aiplatform import hyperparameter_tuning as hpt\nimport os.path\n")])

    def q(text: str) -> str | None:
        return scope.qualified(ast.parse(text, mode="eval").body)

    assert q("aip.CustomJob") == "google.cloud.aiplatform.CustomJob"
    assert q("aiplatform.CustomTrainingJob") == "google.cloud.aiplatform.CustomTrainingJob"
    assert q("hpt.DoubleParameterSpec") == "google.cloud.aiplatform.hyperparameter_tuning.DoubleParameterSpec"
    assert q("os.path.join") == "os.path.join" and q("unknown.x") is None
    assert Scope().qualified(ast.parse("aip", mode="eval").body) is None
    assert scope_after([("c", "import os\nos = 1")]).qualified(ast.parse("os.path", mode="eval").body) is None


def test_nothing_runs(tmp_path: pytest.TempPathFactory) -> None:
    marker = f"{tmp_path}/ran"
    scope_after([("c", f"import os\nos.system('touch {marker}')\nopen('{marker}', 'w')\n!touch {marker}\n"
                       f"X = __import__('os').system('touch {marker}')")])
    assert not os.path.exists(marker)


def test_what_may_not_run_leaves() -> None:
    code = ("import os\nfor i in range(2):\n    os.environ['A'] = str(i)\n    %env B=$i\n"
            "try:\n    import google.cloud.aiplatform as aip\nexcept ImportError:\n    pass\nX = os.environ.get('A')")
    scope = scope_after([("cell 1", code)])
    assert set(scope.environ_set()) == {"A", "B"}
    assert all(isinstance(v, Unknown) and "inside the for at cell 1, line 2" in v.why for v in scope.environ_set().values())
    assert "the environment variable A, set inside the for" in str(scope.get("X"))
    assert scope.qualified(ast.parse("aip.CustomJob", mode="eval").body) == "google.cloud.aiplatform.CustomJob"


def test_env_magic_expands_its_arguments() -> None:
    scope = scope_after([("cell 1", "R = 'us-east1'\nM = 'x'\n%env REGION=$R\n%env MODEL = $M\n%env PLAIN value\n"
                                    "%env LIT=R\nimport uuid\nU = str(uuid.uuid4())\n%env JOB={U}")])
    env = scope.environ_set()
    assert (env["REGION"], env["MODEL"], env["PLAIN"], env["LIT"]) == ("us-east1", "x", "value", "R")
    assert isinstance(env["JOB"], Unknown) and "a random value" in env["JOB"].why



def test_a_change_through_a_subscript_is_never_dropped() -> None:
    """A store, augmented store or del through a subscript that cannot be done leaves its variable Unknown (it is
    never left as it was)."""
    scope = scope_after([("t", "import os\nD = {}\nD['q']['r'] = 1\nE = {'a': 1}\nE[os.getcwd()] += 1\n"
                               "F = [1]\ndel F[5]\nG = {'a': 1}\nG.x = 2\n")])
    for name in "DEFG":
        value = scope.get(name)
        assert isinstance(value, Unknown) and "is changed at" in value.why, (name, value)


def test_a_change_inside_a_module_leaves_the_module_imported() -> None:
    scope = scope_after([("t", "import sys, os\nsys.argv[1] = 'x'\nos.sep += 'x'\ndel sys.path[0]\n")])
    assert scope.qualified(ast.parse("sys.exit").body[0].value) == "sys.exit"  # type: ignore[attr-defined]
    assert scope.qualified(ast.parse("os.path").body[0].value) == "os.path"  # type: ignore[attr-defined]


def test_a_name_set_by_the_walrus_is_never_read_as_it_was() -> None:
    """``print(m := "b")`` sets m: the evaluator does not run := and so must not keep m's earlier value."""
    code = 'm = "a"\nprint(m := "b")\nn = [(k := i) for i in range(3)]\ndef f():\n    (local := 1)\nlocal = 2\n'
    namespace: dict[str, object] = {}
    exec(code, namespace)
    assert (namespace["m"], namespace["k"], namespace["local"]) == ("b", 2, 2)
    scope = scope_after([("cell 1", code)])
    for name in ("m", "k"):
        value = scope.get(name)
        assert isinstance(value, Unknown) and value.why.startswith(f"{name} is set by := at cell 1, line "), value
    assert scope.get("local") == 2  # a := inside a function binds the function's own name


def test_a_change_the_evaluator_does_not_make_is_never_read_as_before() -> None:
    """``x = args.pop()``, ``d.setdefault(k, []).append(v)``: Python changes args and d; trainjobs does not run these,
    so it must not keep their values from before."""
    code = 'P = [1, 2]\nX = P.pop()\nD = {}\nD.setdefault("a", []).append(1)\nQ = ["a"]\nN = len(Q) + Q.count("a")\n'
    namespace: dict[str, object] = {}
    exec(code, namespace)
    assert (namespace["P"], namespace["D"]) == ([1], {"a": [1]})
    scope = scope_after([("cell 1", code)])
    for name, call, line in (("P", "P.pop", 2), ("D", "D.setdefault", 4)):
        value = scope.get(name)
        assert isinstance(value, Unknown) and value.why == f"{name} may be changed by {call}() at cell 1, line {line}"
    assert scope.get("Q") == ["a"]  # count changes nothing
