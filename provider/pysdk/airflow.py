"""Airflow DAGs (Cloud Composer) that launch training with apache-airflow-providers-google's operators.

``trainjobs convert dag.py`` reads the DAG file statically, as the SDK reader reads a script (provider/document/
python_flow.py, binding.Reader: nothing is run), with the DAG's own blocks followed: the body of ``with DAG(...)``
(and ``with TaskGroup(...)``) runs when the file is imported, as does a function decorated with ``@dag`` that the
file calls; both are read as top-level code (``unwrapped``: the same lines and columns, so every message names the
place written). The training operators found (airflow_args.py: which, and where each argument goes) become the
request their hook sends: the Vertex AI operators' through the SDK reader's own mappings (pipelines.py,
script_training.py, tuning.py), MLEngineStartTrainingJobOperator's as the ``projects.jobs.create`` body convert
reads as AI Platform's (airflow_mlengine.py). An argument's value must be known without running Airflow: a Jinja
template (``"{{ ds_nodash }}"``, rendered when the task runs) and ``Variable.get("NAME")`` (read from Airflow's
database) are refused by name, the latter unless ``convert --var NAME=VALUE`` gives it. A DAG with several training
tasks is refused naming each, unless ``--target TASK_ID`` (or a notebook's ``--cell N``) picks one.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from provider.core.record import Record, field
from provider.pysdk.arguments import SdkError
from provider.pysdk.binding import Assigned, Reader

if TYPE_CHECKING:
    from provider.pysdk.custom_job import Body

OPERATORS = {"MLEngineStartTrainingJobOperator": "mlengine", "MLEngineTrainingOperator": "mlengine",
             "CreateCustomContainerTrainingJobOperator": "CustomContainerTrainingJob",
             "CreateCustomPythonPackageTrainingJobOperator": "CustomPythonPackageTrainingJob",
             "CreateCustomTrainingJobOperator": "CustomTrainingJob",
             "CreateHyperparameterTuningJobOperator": "HyperparameterTuningJob"}
_BLOCKS = ("DAG", "TaskGroup")  # with DAG(...) / with TaskGroup(...): their bodies run at import
_COMPOUND = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.FunctionDef, ast.AsyncFunctionDef,
             ast.ClassDef, ast.Try, ast.Match)


def operator_kind(qualified: str | None) -> str | None:
    """The job an Airflow operator's dotted import path launches (airflow_args.py's kinds), else None: the provider's
    (airflow.providers.google...), airflow.contrib's, or a plugin's copy (airflow.operators.ml_engine_plugin, a
    DAG folder's own mlengine_operator.py), by the operator's name."""
    if not qualified or "." not in qualified:
        return None
    return OPERATORS.get(qualified.rsplit(".", 1)[-1])


def _last(node: ast.expr) -> str:
    func = node.func if isinstance(node, ast.Call) else node
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


class Unwrapped(Record):
    """A source with its DAG blocks opened: the text, and each ``with DAG(...)`` / ``with TaskGroup(...)`` / ``@dag(...)``
    (first line, last line, call), whose default_args reach the operators on those lines."""

    text: str
    dags: list[tuple[int, int, ast.Call]] = field(default_factory=list)


def unwrapped(text: str, variables: Mapping[str, str] | None = None) -> Unwrapped:
    """``text`` with each ``with DAG(...) as dag:`` header made ``if True:`` and each ``@dag(...)`` decorator blank, on
    the same lines and columns; each ``Variable.get("NAME")`` on one line given by ``variables`` (--var) as its value."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return Unwrapped(text)
    lines = text.splitlines(keepends=True)
    if variables:
        _given(tree, lines, variables)
    dags: list[tuple[int, int, ast.Call]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.With):
            _opened(node, lines, dags)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for dec in node.decorator_list:
                if _last(dec) == "dag":
                    _blank(lines, dec.lineno, dec.end_lineno or dec.lineno)
                    if isinstance(dec, ast.Call) and node.body:
                        dags.append((node.body[0].lineno, node.end_lineno or node.lineno, dec))
    return Unwrapped("".join(lines), dags)


def _given(tree: ast.AST, lines: list[str], variables: Mapping[str, str]) -> None:
    """Each one-line ``Variable.get("NAME")`` that --var gives, as its value (JSON's with deserialize_json=True)."""
    for node in ast.walk(tree):
        name = _variable(node, variables)
        if name is None or not isinstance(node, ast.Call) or node.end_lineno is None:
            continue
        deserialize = any(k.arg == "deserialize_json" and isinstance(k.value, ast.Constant) and k.value.value
                          for k in node.keywords)
        value = repr(json.loads(variables[name])) if deserialize else repr(variables[name])
        if node.lineno == node.end_lineno:
            lines[node.lineno - 1] = _replaced(lines[node.lineno - 1], node, value)
        else:  # "(VALUE" on its first line, ")" where it ends: the lines between, blank, inside the parentheses
            first = lines[node.lineno - 1].encode("utf-8")
            lines[node.lineno - 1] = (first[:node.col_offset].decode("utf-8") + "(" + value + "\n")
            _blank(lines, node.lineno + 1, node.end_lineno - 1)
            last = lines[node.end_lineno - 1].encode("utf-8")
            end = node.end_col_offset or 0
            lines[node.end_lineno - 1] = " " * (end - 1) + ")" + last[end:].decode("utf-8")


def _opened(node: ast.With, lines: list[str], dags: list[tuple[int, int, ast.Call]]) -> None:
    """A ``with DAG(...)`` / ``with TaskGroup(...)`` block's header as ``if True:`` (its body runs at import), and
    each call's lines, for its default_args."""
    if not node.items or not all(isinstance(i.context_expr, ast.Call) and _last(i.context_expr) in _BLOCKS
                                 for i in node.items):
        return
    end = max(getattr(i.optional_vars or i.context_expr, "end_lineno", node.lineno) for i in node.items)
    first = node.body[0]
    start = min([first.lineno, *(d.lineno for d in getattr(first, "decorator_list", []))])
    if start <= end:
        return
    line = lines[node.lineno - 1]
    lines[node.lineno - 1] = line[:node.col_offset] + "if True:" + ("\n" if line.endswith("\n") else "")
    _blank(lines, node.lineno + 1, start - 1)
    for item in node.items:  # the block's default_args (a DAG's, a TaskGroup's) reach the operators in it
        if isinstance(item.context_expr, ast.Call):
            dags.append((start, getattr(node, "end_lineno", start) or start, item.context_expr))


def _blank(lines: list[str], first: int, last: int) -> None:
    for index in range(first - 1, last):
        lines[index] = "\n" if lines[index].endswith("\n") else ""


def _replaced(line: str, node: ast.Call, value: str) -> str:
    start, end = node.col_offset, node.end_col_offset or node.col_offset
    width = end - start
    text = f"({value})" if len(value) + 2 >= width else "(" + value + " " * (width - len(value) - 2) + ")"
    encoded = line.encode("utf-8")  # ast's columns count UTF-8 bytes
    return (encoded[:start] + text.encode("utf-8") + encoded[end:]).decode("utf-8")


def _variable(node: ast.AST, variables: Mapping[str, str]) -> str | None:
    from provider.pysdk.airflow_args import reads_variable

    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"):
        return None
    name = reads_variable(node)
    return name if name in variables and reads_variable(node.args[0]) is None else None


class Operator(Record, frozen=False):
    """One training operator the DAG builds: its kind, call, the reader of its arguments, and its task_id."""

    kind: str
    node: ast.Call
    reader: Reader
    label: str
    task: str
    dags: list[ast.Call] = field(default_factory=list)  # the DAG calls (and task groups) around it, outermost first


def _task(node: ast.Call, reader: Reader) -> str:
    for kw in node.keywords:
        if kw.arg == "task_id":
            try:
                return str(reader.value(kw.value, "task_id"))
            except SdkError:
                return ast.unparse(kw.value)
    return "?"


def operators(sources: Sequence[tuple[str, str]]) -> dict[str, str]:
    """Which sources (a notebook's cells, by label) build an Airflow training operator, each with its first one
    ("CreateCustomContainerTrainingJobOperator at line 12"); read without reading any argument."""
    from provider.document.python_flow import flow
    from provider.spec.formats.vertex import api_enums

    found: dict[str, str] = {}
    if not any(name in text for _, text in sources for name in OPERATORS):
        return found
    opened = [(label, unwrapped(text).text) for label, text in sources]
    for at in flow(opened, api_enums.member):
        for node in ast.walk(at.stmt) if at.skipped is None else ():
            if (isinstance(node, ast.Call) and at.where.label not in found
                    and operator_kind(at.scope.qualified(node.func)) is not None):
                found[at.where.label] = f"{ast.unparse(node.func)} at line {node.lineno}"
    return found


class _Walk:
    def __init__(self, shown: str, cells: bool, named: bool, bucket: str | None) -> None:
        self.shown, self.cells, self.named, self.bucket = shown, cells, named, bucket
        self.assigned: dict[str, Assigned] = {}
        self.found: list[Operator] = []
        self.elsewhere: dict[str, str] = {}  # place -> an operator in a block not followed or a branch not taken

    def step(self, at: object, place: str, dags: list[tuple[int, int, ast.Call]]) -> None:
        from provider.document.python_flow import unfollowed

        stmt, scope = at.stmt, at.scope  # type: ignore[attr-defined]
        reader = Reader(place, scope, self.assigned, self.cells, self.named, self.bucket)
        for node in ast.walk(stmt):
            kind = operator_kind(reader.qualified(node.func)) if isinstance(node, ast.Call) else None
            if kind is None or not isinstance(node, ast.Call):
                continue
            what, place = f"{ast.unparse(node.func)} at {reader.at(node)}", reader.at(node)
            if at.skipped is not None:  # type: ignore[attr-defined]
                self.elsewhere[place] = f"{what} is not read: {at.skipped}"  # type: ignore[attr-defined]
            elif isinstance(stmt, _COMPOUND):  # a function's: read where it is called, if it is
                self.elsewhere[place] = (f"{what} (inside {unfollowed(stmt, scope)}: its arguments are known only "
                                         "when it runs)")
            else:
                self.elsewhere.pop(place, None)
                around = [call for first, last, call in dags if first <= node.lineno <= last]
                given = self.dag_of(node)
                self.found.append(Operator(kind, node, reader, at.where.label, _task(node, reader),  # type: ignore[attr-defined]
                                           [given] if given is not None else around))
        if at.skipped is None and isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:  # type: ignore[attr-defined]
            for target in stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]:
                if isinstance(target, ast.Name):
                    self.assigned[target.id] = Assigned(stmt.value, scope, place)


    def dag_of(self, node: ast.Call) -> ast.Call | None:
        """The ``DAG(...)`` call of the operator's ``dag=NAME`` (``NAME = DAG(...)`` earlier), else None."""
        for kw in node.keywords:
            if kw.arg == "dag" and isinstance(kw.value, ast.Name) and kw.value.id in self.assigned:
                value = self.assigned[kw.value.id].value
                if isinstance(value, ast.Call) and _last(value) == "DAG":
                    return value
        return None


def _chosen(walk: _Walk, target: str | None, pick: str | None) -> Operator:
    found = walk.found
    named = "; ".join(f"{ast.unparse(op.node.func)} (task_id {op.task!r}) at {op.reader.at(op.node)}" for op in found)
    if target is not None:
        found = [op for op in found if op.task == target]
        if not found:
            raise SdkError(walk.shown, f"no training task has task_id {target!r}" + (f"; those that do train: {named}"
                           if named else ""), "--target TASK_ID of one of them")
    if pick is not None:
        found = [op for op in found if op.label == pick]
        if not found:
            raise SdkError(walk.shown, f"{pick} builds no Airflow training operator" + (f"; {named}" if named else ""),
                           "--cell N of a cell that builds one")
    if not found:
        raise SdkError(walk.shown, "the DAG builds no training operator where it can be read: "
                       + "; ".join(walk.elsewhere.values()), "the operator at top level, in a with DAG(...) block, or in a "
                       "@dag function the file calls")
    if len(found) > 1:
        raise SdkError(walk.shown, "the DAG has several training tasks: " + "; ".join(
            f"{ast.unparse(op.node.func)} (task_id {op.task!r}) at {op.reader.at(op.node)}" for op in found),
            "--cell N of the cell that builds one (convert each task on its own)" if walk.cells
            else "--target TASK_ID to convert one (convert each task on its own)")
    return found[0]


def read(sources: Sequence[tuple[str, str]], shown: str, cells: bool = False, pick: str | None = None,
         target: str | None = None, variables: Mapping[str, str] | None = None, named: bool = False,
         bucket: str | None = None) -> Body:
    """The custom_job.Body of the one training task ``sources`` (a DAG file, or a notebook's code cells) build."""
    from provider.document.python_flow import flow
    from provider.pysdk.airflow_job import body
    from provider.spec.formats.vertex import api_enums

    opened = [(label, unwrapped(text, variables)) for label, text in sources]
    dags = {label: source.dags for label, source in opened}
    walk = _Walk(shown, cells, named, bucket)
    for at in flow([(label, source.text) for label, source in opened], api_enums.member):
        walk.step(at, f"{shown} {at.where.label}" if cells else shown, dags.get(at.where.label, []))
    op = _chosen(walk, target, pick)
    result = body(op.kind, op.node, op.reader, op.dags, variables)
    home = op.reader.qualified(op.node.func) or ""
    if not home.startswith(("airflow.providers.google.", "airflow.contrib.operators.mlengine_operator.")):
        result.notes.append(f"{ast.unparse(op.node.func)} at {op.reader.at(op.node)} is {home}, not "
                            "apache-airflow-providers-google's: read as the provider's operator (a plugin's or the DAG "
                            "folder's own copy may differ: check what it sends)")
    result.notes += [f"not converted: {other}" for other in walk.elsewhere.values()]
    return result
