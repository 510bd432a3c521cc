"""``trainjobs convert train.py``: the training job a Python script launches with the Vertex AI SDK.

The script is read statically, never run (provider/pysdk: its top-level statements with the document
layer's evaluator, its ``aiplatform`` calls mapped as the SDK maps them). The spec body it gives is
checked and printed as every other input is (``check_document``, then convert's ``emit``); a problem
the check finds in a field points at the script's line and column of the argument that gave it (in a
notebook: its cell, and the line and column there).
"""

from __future__ import annotations

import argparse
import ast
import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from provider.core.errors import UserError

if TYPE_CHECKING:
    from provider.document.loaded import LoadedDocument, Position
    from provider.validation.validator import SpecResult



# The convert options this reader takes of those that go only with some inputs (convert_sources.refuse_options):
# an SDK job's, or a gcloud command's that the script runs; each is refused where the script's job does not use it.
_SDK_TAKES = ("name", "staging_bucket")
_GCLOUD_TAKES = ("staging_bucket", "stack")
_DAG_TAKES = ("name", "staging_bucket", "target", "var")  # an Airflow DAG's: --target TASK_ID, --var NAME=VALUE
TAKES: tuple[str, ...] = _SDK_TAKES + _GCLOUD_TAKES + ("target", "var")

_IN_CELL = re.compile(r" cell (\d+), line (\d+), column (\d+)$")


def _position(at: str) -> Position:
    """``train.py:12:5`` -> (12, 5); a notebook's ``NB.ipynb cell 3, line 1, column 9`` (binding.Reader.at) -> its
    CellPosition: (1, 9) in cell 3."""
    from provider.document.loaded import CellPosition

    cell = _IN_CELL.search(at)
    if cell is not None:
        return CellPosition(int(cell[1]), int(cell[2]), int(cell[3]))
    _, line, column = at.rsplit(":", 2)
    return int(line), int(column)


def _positions(doc: dict[str, Any], at: dict[str, str]) -> LoadedDocument:
    """The document with each spec field (and everything inside it) at the argument that gave it."""
    from provider.document.loaded import LoadedDocument

    loaded = LoadedDocument(data=doc)
    spec = doc["spec"]

    def mark(value: object, where: Position) -> None:
        if isinstance(value, dict):
            loaded.starts[id(value)] = where
            loaded.key_positions[id(value)] = {str(k): where for k in value}
            loaded.value_positions[id(value)] = {str(k): where for k in value}
            for item in value.values():
                mark(item, where)
        elif isinstance(value, list):
            loaded.starts[id(value)] = where
            loaded.item_positions[id(value)] = [where] * len(value)
            for item in value:
                mark(item, where)

    for key, value in spec.items():
        if key in at:
            mark(value, _position(at[key]))
    for inner, where in at.items():  # a tuning job's custom_job.service_account ...
        head, _, key = inner.partition(".")
        if key and isinstance(spec.get(head), dict) and key in spec[head]:
            loaded.key_positions.setdefault(id(spec[head]), {})[key] = _position(where)
            loaded.value_positions.setdefault(id(spec[head]), {})[key] = _position(where)
            mark(spec[head][key], _position(where))
    loaded.key_positions[id(spec)] = {k: _position(v) for k, v in at.items() if k in spec}
    loaded.value_positions[id(spec)] = dict(loaded.key_positions[id(spec)])
    return loaded


def _name(display: object, path: Path, args: argparse.Namespace, notes: list[str]) -> str:
    if args.name:
        return str(args.name)
    from provider.gcloud.build import job_name

    if isinstance(display, str) and display:
        return job_name(display, notes)
    return job_name(path.stem, notes) if not path.stem[:1].isalpha() or not path.stem.isidentifier() else path.stem


def _environment_reads(module: ast.AST) -> list[tuple[str, ast.AST]]:
    """``os.environ.get("NAME")``, ``os.getenv("NAME")``, ``os.environ["NAME"]`` read (not set: ``os.environ["NAME"] =
    ...``), and ``environ``/``getenv`` bare."""
    reads: list[tuple[str, ast.AST]] = []
    for node in ast.walk(module):
        arg = None
        if isinstance(node, ast.Call) and node.args and (
                (isinstance(node.func, ast.Attribute) and node.func.attr in ("get", "getenv"))
                or (isinstance(node.func, ast.Name) and node.func.id == "getenv")):
            target = node.func.value if isinstance(node.func, ast.Attribute) and node.func.attr == "get" else None
            if target is None or "environ" in ast.unparse(target):
                arg = node.args[0]
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and "environ" in ast.unparse(node.value):
            arg = node.slice
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            reads.append((arg.value, node))
    return reads


def _parsed_argv(module: ast.AST) -> list[int]:
    """The lines of ``parser.parse_args()`` / ``parse_known_args()`` calls that read the script's own command line."""
    return [node.lineno for node in ast.walk(module) if isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute) and node.func.attr in ("parse_args", "parse_known_args")
            and not node.args and not any(k.arg == "args" for k in node.keywords)]


def _environment(trees: list[tuple[str, ast.AST]], spec: dict[str, Any], cells: bool, notes: list[str]) -> None:
    """A value read from this process's environment that reaches the spec: named in a note, or refused when its
    variable's name looks secret (provider.gcloud.secrets' rule: a spec is committed). ``trees``: (how messages
    name it, code): the script, or each of a notebook's cells when ``cells``."""
    import os

    from provider.core.secret_names import looks_secret

    written = json.dumps(spec)
    plain: dict[str, str] = {}
    unset: dict[str, None] = {}
    for shown, name, node in [(shown, *read) for shown, tree in trees for read in _environment_reads(tree)]:
        value = os.environ.get(name)
        if value is None and looks_secret(name):
            unset[name] = None
        if not value or value not in written:
            continue
        line, column = getattr(node, "lineno", 0), getattr(node, "col_offset", 0) + 1
        if looks_secret(name):
            raise UserError(f"{shown}{f', line {line}, column {column}' if cells else f':{line}:{column}'}: ${name} "
                            "looks secret and its value would be written into the spec; allowed: give the job the "
                            f"value in its environment through the stack (trainjobs:secretEnv.{name}), not in the "
                            "script's arguments", exit_code=1)
        plain[name] = value
    for name in unset:  # os.getenv("API_KEY", ""): the job would run without its secret, and nothing would say so
        notes.append(f"${name} looks secret and is not set where convert ran: the spec has what the code gives "
                     f"without it; give the job its value through the stack (trainjobs:secretEnv.{name})")
    if plain:
        shown_values = ", ".join(f"${name}={value!r}" for name, value in sorted(plain.items()))
        notes.append(f"read from the environment and written into the spec: {shown_values}; a spec is committed, so "
                     "check that none is a secret")


def _written_by(sources: list[tuple[str, str]], script: str) -> str:
    """`` (the notebook writes it in cell 12, %%writefile: run that cell first)`` for a script a cell writes, else ""."""
    import os

    for label, text in sources:
        first = text.lstrip().split("\n", 1)[0].split()
        if first[:1] == ["%%writefile"] and first[-1:] != ["%%writefile"] \
                and os.path.normpath(first[-1]) == os.path.normpath(script):
            return f" (the notebook writes it in {label}, %%writefile: run that cell first, or write the file)"
    return ""


def _packaged(result: SpecResult, local: dict[str, Any], shown: str, base: Path, notes: list[str],
              where: str, written: str = "") -> SpecResult:
    """from_local_script's job with the script's folder packaged in place of the SDK's upload: the native spec of
    that job (application.pythonPackage: the folder, the script's module, its requirements), checked again."""
    import os

    from provider.cli.convert import _context
    from provider.core.record import replace
    from provider.packaging.files import is_flat
    from provider.spec.model import PythonPackage
    from provider.submission.emit import to_native
    from provider.validation.validator import check_document

    job = result.job
    assert job is not None and isinstance(job.application, PythonPackage)
    script = Path.cwd() / str(local["script"])
    if not script.is_file():
        raise UserError(f"{local['at']}: script_path {local['script']!r} is not a file (read from the current "
                        f"directory, {Path.cwd()}, as the SDK reads it when the script runs){written}; allowed: the "
                        "training script's path, from the folder you run convert in", exit_code=1)
    if not is_flat(script.parent):
        raise UserError(f"{local['at']}: {local['script']!r} is at the top of a Python package ({script.parent} has "
                        "__init__.py): trainjobs packages the script's folder as a folder of modules; allowed: a "
                        "script in a folder without __init__.py", exit_code=1)
    requirements = tuple(str(r) for r in local["requirements"])
    app = replace(job.application, package_uris=(), source_path=os.path.relpath(script.parent, base),
                  requirements=requirements)
    notes.append(f"the package is {os.path.relpath(script.parent, base)}/ (its folder, read from {Path.cwd()}), built "
                 "and uploaded by trainjobs when the job runs")
    staging = job.staging_bucket
    if staging and job.output is not None and "/" in staging.removeprefix("gs://").strip("/"):
        # the SDK's staging bucket may be a path; a native spec's is a bucket: the output, under it, is kept
        notes.append(f"staging_bucket {staging!r} is a path: the job's output is under it, and trainjobs uploads the "
                     f"package under the output ({job.output.uri})")
        job = replace(job, staging_bucket=None)
    native = to_native(replace(job, application=app))
    # each field at the from_local_script call that builds the job (its pools, its package): the native spec's
    # fields are not the call's arguments one for one
    return check_document(native, shown, _context(), _positions(native, dict.fromkeys(native["spec"], where)))


def run(raw: bytes, shown: str, path: Path, args: argparse.Namespace) -> int:
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UserError(f"{shown}: not UTF-8 text (byte {exc.start}): a Python script is read as UTF-8") from None
    try:
        module = ast.parse(text, shown)
    except SyntaxError as exc:
        raise UserError(f"{shown}:{exc.lineno}:{exc.offset}: does not parse as Python ({exc.msg}); allowed: a "
                        "Python 3 script") from None
    from provider.cli.convert_shell_runs import convert_run, refuse_passed, training
    from provider.cli.convert_sources import refuse_options
    from provider.pysdk.builders import builders
    from provider.pysdk.shell_runs import shell_runs

    built = builders([(shown, text)])
    found = shell_runs([(shown, text)], shown) if not built else []
    runs, passed = training(found), training(found, skipped=True)
    if runs:  # no SDK job, and a gcloud training command run by subprocess or os.system
        refuse_options(args, _GCLOUD_TAKES)
        return convert_run(runs, shown, args, passed)
    refuse_passed(passed, shown, "script")
    from provider.pysdk.airflow import operators

    dag = bool(built) and bool(operators([(shown, text)]))
    refuse_options(args, _DAG_TAKES if dag else _SDK_TAKES if built else ("name",))  # no job built: no bucket for --staging-bucket to give
    return convert_sdk([(shown, text)], shown, path, args, [(shown, module)])


def _variables(args: argparse.Namespace) -> dict[str, str]:
    """--var NAME=VALUE (repeated): the Airflow Variables a DAG reads with Variable.get("NAME")."""
    given: dict[str, str] = {}
    for item in getattr(args, "var", None) or []:
        name, sep, value = str(item).partition("=")
        if not sep or not name:
            raise UserError(f"--var {item}: give NAME=VALUE (an Airflow Variable's name and value)", exit_code=2)
        given[name] = value
    return given


def convert_sdk(sources: list[tuple[str, str]], shown: str, path: Path, args: argparse.Namespace,
                trees: list[tuple[str, ast.AST]], cells: bool = False, pick: str | None = None) -> int:
    """The job ``sources`` launch with the SDK (provider.pysdk.program.read: one script, or a notebook's code cells
    when ``cells``), checked and printed; ``trees``: the code, for what it reads from the environment."""
    from provider.cli.convert import _context, emit
    from provider.cli.convert_sources import refuse_options
    from provider.document import python_taken
    from provider.pysdk.airflow import operators
    from provider.pysdk.airflow import read as read_dag
    from provider.pysdk.arguments import SdkError
    from provider.pysdk.custom_job import GIVEN_BUCKET
    from provider.pysdk.program import read
    from provider.validation.validator import check_document

    try:
        bucket = getattr(args, "staging_bucket", None)
        with python_taken.taking() as taken:  # datetime.now(), !gcloud config get-value: noted
            if operators(sources):  # an Airflow DAG's training task (provider/pysdk/airflow.py)
                body = read_dag(sources, shown, cells, pick, getattr(args, "target", None), _variables(args),
                                named=bool(getattr(args, "name", None)), bucket=bucket)
            else:
                body = read(sources, shown, cells, pick, named=bool(getattr(args, "name", None)), bucket=bucket)
    except SdkError as exc:
        raise UserError(str(exc), exit_code=1) from None
    if bucket and not any(GIVEN_BUCKET in note for note in body.notes):  # the code names its bucket: never dropped
        refuse_options(args, ("name", "cell"))
    notes = list(body.notes)
    written = body.request.data if body.request is not None else body.spec
    _environment(trees, written, cells, notes)
    notes += python_taken.notes(taken, json.dumps(written, default=str), lambda where: f"{shown} {where}" if
                                where.label.startswith("cell ") else f"{where.label}:{where.line}")
    notes += [f"{shown}:{line}: the command line is read as `python {shown}` gives it, with no arguments: each "
              "argparse option has its default (one given when you launch the script is not seen: make it the "
              "default, or edit the spec)" for _, tree in trees if not cells for line in _parsed_argv(tree)]
    if body.request is not None:  # JobServiceClient.create_custom_job: its request, read as a request file is
        from provider.cli.convert import convert_mapping

        return convert_mapping(body.request, shown, path, args, notes)
    doc: dict[str, Any] = {"apiVersion": "trainjobs/v1", "kind": "TrainingJob",
                           "metadata": {"name": _name(body.spec.get("display_name"), path, args, notes)},
                           "spec": body.spec}
    result = check_document(doc, shown, _context(), _positions(doc, body.at))
    base = path.parent
    if body.local is not None and result.job is not None and result.ok:  # from_local_script: the script's folder
        base = Path(args.write).resolve().parent if getattr(args, "write", None) else Path.cwd()
        pools = body.at.get("worker_pool_specs") or body.at["custom_job.worker_pool_specs"]  # a tuning job's trial
        result = _packaged(result, body.local, shown, base, notes, pools,
                           _written_by(sources, str(body.local["script"])) if cells else "")
    return emit(result, shown, base, args, notes)
