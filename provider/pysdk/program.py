"""A script's SDK calls, walked statement by statement: the one training job it launches, and what it sets.

Top-level statements are read in order with the static evaluator (nothing is run); the body of an
``if __name__ == "__main__":`` guard is read as top-level code (main_guard.py). What is found:

- ``aiplatform.init(...)`` calls (merged as the SDK merges them: a later one sets what it gives);
- ``x = aiplatform.CustomJob(...)`` / ``HyperparameterTuningJob(custom_job=x, ...)`` objects, by variable;
- ``x.run(...)`` / ``x.submit(...)``, or ``aiplatform.CustomJob(...).run(...)`` chained;
- the SDK's other training classes and ``CustomJob.from_local_script``, refused by name (training_jobs.py);
- SDK calls inside a function, loop or ``with`` block: their arguments are known only when it runs, so
  they are named when the script launches nothing at top level.

A script that launches several jobs (or one job twice) is refused, naming each call's line.

A notebook's code cells are read the same way, one after another as they run (``read(sources, ...,
cells=True)``); there a job whose arguments cannot be known is refused only when it is the one
converted, so that a notebook of several jobs is refused naming each, and ``pick`` (``--cell N``:
"cell N") chooses the job built or run in that cell.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence

from provider.core.record import Record, field
from provider.pysdk import ml_client
from provider.pysdk.arguments import Call, SdkError, merged
from provider.pysdk.binding import Assigned, Reader
from provider.pysdk.custom_job import Body, custom_job
from provider.pysdk.gapic import creates, named_create, read_request
from provider.pysdk.kfp import WAY, imports_package, step
from provider.pysdk.local_script import local_script
from provider.pysdk.main_guard import unguarded
from provider.pysdk.pipelines import pipeline_job
from provider.pysdk.script_training import script_training_job
from provider.pysdk.signatures import DATASET_ARGS, SIGNATURES, TRAINING_PIPELINES, is_init, sdk_class
from provider.pysdk.tuning import tuning_job

_METHODS = ("run", "submit")


class Job(Record, frozen=False):
    """One job the script builds: its class, its call, its runs (and a tuning job's CustomJob)."""

    kind: str  # CustomJob or HyperparameterTuningJob
    call: Call
    index: int  # the statement that built it
    trial: Call | None = None  # a tuning job's CustomJob
    runs: list[tuple[Call, str, int]] = field(default_factory=list)  # (arguments, run or submit, statement)
    in_tuning: bool = False
    failed: SdkError | None = None  # a notebook's job whose arguments cannot be known: raised if it is converted


class _Walk:
    def __init__(self, shown: str, cells: bool = False) -> None:
        self.shown, self.cells = shown, cells
        self.noun = "notebook" if cells else "script"
        self.labels: list[str] = []  # the label of each statement (its cell), by index
        self.assigned: dict[str, Assigned] = {}
        self.objects: dict[str, Job] = {}
        self.jobs: list[Job] = []
        self.inits: list[tuple[int, Call]] = []
        self.nested: list[str] = []
        self.others: list[str] = []  # the script's other calls into the SDK, named when it launches no job
        self.steps: list[str] = []  # Kubeflow pipeline steps that run a training job (kfp.py), named likewise
        self.imports_kfp = False

    def statement(self, index: int, stmt: ast.stmt, reader: Reader) -> None:
        self.imports_kfp = self.imports_kfp or imports_package(stmt)
        value = stmt.value if isinstance(stmt, (ast.Expr, ast.Assign, ast.AnnAssign)) else None
        target = None
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            target = stmt.targets[0].id
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            target = stmt.target.id
        job = self.call(index, value, reader) if isinstance(value, ast.Call) else None
        if value is None:
            self.find_nested(stmt, reader)
        if target is not None and value is not None:
            self.assigned[target] = Assigned(value, reader.scope, reader.shown)
            if job is not None:
                self.objects[target] = job
            else:
                self.objects.pop(target, None)

    def find_nested(self, stmt: ast.stmt, reader: Reader) -> None:
        for sub in ast.walk(stmt):
            if (isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and sub.func.attr in _METHODS
                    and isinstance(sub.func.value, ast.Name) and sub.func.value.id in self.objects):
                raise SdkError(reader.at(sub), f"{ast.unparse(sub.func)}() is inside {_block(stmt)} at line "
                               f"{stmt.lineno}: trainjobs reads the SDK's calls at top level only, where their "
                               "arguments are known", "the call at top level (or under if __name__ == '__main__':)")
            if isinstance(sub, ast.Call) and (found := step(sub, reader.qualified(sub.func), self.imports_kfp)):
                self.steps.append(f"{found} at {reader.at(sub)} (inside {_block(stmt)} at line {stmt.lineno})")
            elif isinstance(sub, ast.Call):
                func = sub.func.value if isinstance(sub.func, ast.Attribute) else sub.func
                name = (sdk_class(reader.qualified(sub.func)) or sdk_class(reader.qualified(func)) or named_create(sub)
                        or ml_client.named_create(sub))
                if name is not None:
                    self.nested.append(f"{name} at {reader.at(sub)} (inside {_block(stmt)} at line {stmt.lineno})")

    def call(self, index: int, node: ast.Call, reader: Reader) -> Job | None:
        qualified = reader.qualified(node.func)
        if is_init(qualified):
            self.inits.append((index, reader.bind(node, "init", "aiplatform.init")))
            return None
        kind = sdk_class(qualified)
        if kind is not None:
            return self.construct(index, kind, node, reader)
        if (found := step(node, qualified, self.imports_kfp)) is not None:
            self.steps.append(f"{found} at {reader.at(node)}")
        if (method := creates(node, reader)) is not None:  # JobServiceClient.create_custom_job(parent=, custom_job=)
            return self._built(index, f"JobServiceClient.{method}", node, reader, lambda: self._request(index, node, reader))
        if (create := ml_client.creates(node, reader)) is not None:  # ml.projects().jobs().create(parent=, body=)
            return self._built(index, ml_client.KIND, create, reader, lambda: self._ml_request(index, create, reader))
        if qualified is not None and qualified.startswith("google.cloud.aiplatform"):
            self.others.append(f"{qualified} at {reader.at(node)}")
        if isinstance(node.func, ast.Attribute):
            receiver, method = node.func.value, node.func.attr
            if method == "from_local_script" and sdk_class(reader.qualified(receiver)) == "CustomJob":
                return self._built(index, "CustomJob.from_local_script", node, reader, lambda: Job(
                    "CustomJob.from_local_script", reader.bind(node, "CustomJob.from_local_script",
                                                               ast.unparse(node.func)), index))
            if method not in _METHODS:
                return None
            job: Job | None = None
            if isinstance(receiver, ast.Name) and receiver.id in self.objects:
                job = self.objects[receiver.id]
            elif isinstance(receiver, ast.Call):
                job = self.call(index, receiver, reader)
            if job is not None and job.failed is not None:  # named by its place only
                job.runs.append((Call(f"{job.call.what}.{method}", reader.at(node)), method, index))
            elif job is not None:
                signature = f"{job.kind.removesuffix('.from_local_script')}.{method}"
                if signature not in SIGNATURES:
                    raise SdkError(reader.at(node), f"{job.kind}.{method}() is not read by trainjobs",
                                   f"{job.kind}.run()")
                keep = (lambda name: name in DATASET_ARGS) if job.kind in TRAINING_PIPELINES else (lambda name: False)
                job.runs.append((reader.bind(node, signature, f"{job.call.what}.{method}", keep), method, index))
        return None

    def _request(self, index: int, node: ast.Call, reader: Reader) -> Job:
        method = creates(node, reader)
        assert method is not None
        notes: list[str] = []
        request = read_request(node, method, reader, notes)
        call = Call(ast.unparse(node.func), reader.at(node), {"request": request, "notes": notes})
        return Job(f"JobServiceClient.{method}", call, index, runs=[(call, "create", index)])

    def _ml_request(self, index: int, node: ast.Call, reader: Reader) -> Job:
        notes: list[str] = []
        request = ml_client.read_request(node, reader, notes)
        call = Call(ast.unparse(node.func), reader.at(node), {"request": request, "notes": notes})
        return Job(ml_client.KIND, call, index, runs=[(call, "create", index)])

    def construct(self, index: int, kind: str, node: ast.Call, reader: Reader) -> Job:
        return self._built(index, kind, node, reader, lambda: self._construct(index, kind, node, reader))

    def _built(self, index: int, kind: str, node: ast.Call, reader: Reader, build: Callable[[], Job]) -> Job:
        """The job ``build`` makes, among the jobs; in a notebook, one whose arguments cannot be read is kept with
        its refusal, raised only if it is the job converted."""
        try:
            job = build()
        except SdkError as exc:
            if not self.cells:
                raise
            job = Job(kind, Call(ast.unparse(node.func), reader.at(node)), index, failed=exc)
        self.jobs.append(job)
        return job

    def _construct(self, index: int, kind: str, node: ast.Call, reader: Reader) -> Job:
        what = ast.unparse(node.func)
        if kind != "HyperparameterTuningJob":
            job = Job(kind, reader.bind(node, kind, what), index)
        else:
            call = reader.bind(node, kind, what, keep=lambda name: name == "custom_job")
            job = Job(kind, call, index, trial=self.trial(call, index, reader))
        return job

    def trial(self, call: Call, index: int, reader: Reader) -> Call:
        node = call.get("custom_job")
        assert isinstance(node, ast.expr)
        if isinstance(node, ast.Name) and node.id in self.objects and self.objects[node.id].kind == "CustomJob":
            self.objects[node.id].in_tuning = True
            failed = self.objects[node.id].failed
            if failed is not None:
                raise failed
            return self.objects[node.id].call
        if isinstance(node, ast.Call) and sdk_class(reader.qualified(node.func)) == "CustomJob":
            return reader.bind(node, "CustomJob", ast.unparse(node.func))
        raise SdkError(reader.at(node), f"{call.what}(custom_job=...) is not an aiplatform.CustomJob the script builds "
                       "at top level before it", "custom_job=JOB where JOB = aiplatform.CustomJob(...) earlier")

    def init_before(self, index: int) -> Call:
        return merged([call for at, call in self.inits if at < index])


def _block(stmt: ast.stmt) -> str:
    """How a message names a compound statement: def NAME, class NAME, a for loop, a with block ..."""
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return f"{'class' if isinstance(stmt, ast.ClassDef) else 'def'} {stmt.name}"
    word = type(stmt).__name__.lower().removeprefix("async")
    return f"a{'n' if word[:1] in 'aeiou' else ''} {word} {'loop' if word in ('for', 'while') else 'block'}"


def _in(walk: _Walk, job: Job, label: str) -> bool:
    return walk.labels[job.index] == label or any(walk.labels[at] == label for _, _, at in job.runs)


def _picked(walk: _Walk, jobs: list[Job], pick: str) -> list[Job]:
    """The jobs built or run in cell ``pick``; SdkError naming the cells that do, where none is."""
    picked = [job for job in jobs if _in(walk, job, pick)]
    if not picked:
        elsewhere = dict.fromkeys(walk.labels[job.index] for job in jobs)
        raise SdkError(walk.shown, f"{pick} builds or runs no Vertex AI training job"
                       + (f"; cells that do: {', '.join(elsewhere)}" if elsewhere else ""),
                       "--cell N of a cell that builds or runs the job")
    return picked


def _launched(walk: _Walk, pick: str | None = None) -> Job:
    run = [job for job in walk.jobs if job.runs]
    jobs = run or [job for job in walk.jobs if not job.in_tuning]
    if pick is not None:
        jobs = _picked(walk, jobs, pick)
    if not jobs:
        if walk.steps:
            raise SdkError(walk.shown, f"the {walk.noun} creates no Vertex AI training job itself; it defines Kubeflow "
                           f"pipeline steps that do: {'; '.join(walk.steps)}", WAY)
        if walk.nested:
            raise SdkError(walk.shown, f"the {walk.noun} launches no Vertex AI training job at top level; its SDK calls are "
                           "inside functions or blocks, whose arguments are known only when they run: "
                           + "; ".join(walk.nested),
                           "the job's calls at top level (or under if __name__ == '__main__':)")
        held = f"; its calls into the SDK: {'; '.join(walk.others[:5])}" if walk.others else ""
        raise SdkError(walk.shown, f"the {walk.noun} builds no Vertex AI training job (aiplatform.CustomJob or "
                       f"HyperparameterTuningJob, from google.cloud import aiplatform){held}",
                       "a script that calls aiplatform.CustomJob(...).run() or HyperparameterTuningJob(...).run()")
    if len(jobs) > 1:
        fix = "the cell to convert with --cell N" if walk.cells else "one job per script (convert each on its own)"
        raise SdkError(walk.shown, f"the {walk.noun} launches several jobs: " + "; ".join(
            f"{job.call.what} at {job.call.where}" for job in jobs), fix)
    job = jobs[0]
    failed = job.failed
    if failed is not None:
        raise failed
    if len(job.runs) > 1:
        raise SdkError(walk.shown, f"{job.call.what} at {job.call.where} is run {len(job.runs)} times: " + "; ".join(
            f"{call.what}() at {call.where}" for call, _, _ in job.runs), "one run() or submit()")
    return job


def read(sources: Sequence[tuple[str, str]], shown: str, cells: bool = False, pick: str | None = None) -> Body:
    """The spec body of the one job ``sources`` launch: a Python script, ``[(shown, text)]``, or (``cells``) a
    notebook's code cells in order, ``[("cell 4", text), ...]``, named ``shown`` in messages ("NB.ipynb cell 4,
    line 3, column 9"); ``pick``: the label of the cell whose job to convert."""
    from provider.document.loaded import LoadedDocument
    from provider.document.python_values import statements

    walk = _Walk(shown, cells)
    columns: dict[int, int] = {}
    if not cells:
        (label, text), = sources
        source, columns = unguarded(text)
        sources = [(label, source)]
    for index, (where, stmt, scope) in enumerate(statements(sources)):
        walk.labels.append(where.label)
        place = f"{shown} {where.label}" if cells else shown
        walk.statement(index, stmt, Reader(place, scope, walk.assigned, columns, cells))
    job = _launched(walk, pick)
    run, method, last = job.runs[0] if job.runs else (None, "run", job.index)
    init = walk.init_before(last + 1)
    if job.kind.startswith("JobServiceClient.") or job.kind == ml_client.KIND:  # an API's client: its request
        request, notes = job.call.args["request"], job.call.args["notes"]
        assert isinstance(request, LoadedDocument) and isinstance(notes, list)
        return Body(request=request, notes=notes)
    if job.kind == "CustomJob":
        return custom_job(job.call, run, init, method)
    if job.kind == "CustomJob.from_local_script":
        return local_script(job.call, run, init, method)
    if job.kind == "CustomTrainingJob":
        return script_training_job(job.call, run, init, method)
    if job.kind != "HyperparameterTuningJob":
        return pipeline_job(job.kind, job.call, run, init, method)
    assert job.trial is not None
    return tuning_job(job.call, job.trial, run, init)


def builders(sources: Sequence[tuple[str, str]]) -> dict[str, str]:
    """Which sources (a notebook's cells, by label) build an SDK training job, each with its first such call
    ("aiplatform.CustomJob at line 54"): read without binding any argument, to choose between readers."""
    from provider.document.python_values import statements

    found: dict[str, str] = {}
    for where, stmt, scope in statements(sources):
        for node in ast.walk(stmt):
            if isinstance(node, ast.Call) and where.label not in found:
                local = (isinstance(node.func, ast.Attribute) and node.func.attr == "from_local_script"
                         and sdk_class(scope.qualified(node.func.value)) == "CustomJob")
                if (local or sdk_class(scope.qualified(node.func)) or named_create(node)  # gapic.py, ml_client.py
                        or ml_client.named_create(node)):
                    found[where.label] = f"{ast.unparse(node.func)} at line {node.lineno}"
    return found
