"""A script's SDK calls, walked statement by statement: the one training job it launches, and what it sets.

Statements are read in the order Python runs them, with the static evaluator (nothing is run): the branch
taken of an ``if`` whose test is known (``if __name__ == "__main__":`` too), a ``try``'s body, and the body of a
function the code calls at top level, as top-level code (provider.document.python_flow). What is found:

- ``aiplatform.init(...)`` calls (merged as the SDK merges them: a later one sets what it gives); ``x =
  aiplatform.CustomJob(...)`` / ``HyperparameterTuningJob(custom_job=x, ...)`` objects, by variable; ``x.run(...)``
  / ``x.submit(...)``, or chained; a message's field set after it is built (``spec.scheduling = ...``: message_changes.py);
- the SDK's TrainingPipeline classes (pipelines.py; ``CustomTrainingJob``: script_training.py), ``from_local_script``;
- the API's own clients: ``JobServiceClient.create_custom_job(...)`` (gapic.py) and AI Platform's ``ml.projects()
  .jobs().create(...)`` (ml_client.py), read as the request they send; a Kubeflow pipeline's step (kfp.py) is named;
- SDK calls in a loop whose items are not known, a ``with``, an ``except``, an ``if`` whose test is not known, a class's
  method or a function not called at top level (their arguments known only when it runs) are named where the script
  launches nothing at top level (a run of a job built before is refused there); those in a branch not taken, in a note.

A script that launches several jobs (one job twice, or a job per turn of a loop) is refused, naming each call.
A notebook's code cells are read the same way, one after another as they run (``read(sources, ..., cells=True)``);
there a job whose arguments cannot be known is refused only when it is the one converted, so that a notebook of
several jobs is refused naming each, and ``pick`` (``--cell N``: "cell N") chooses the job built or run there.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Callable, Sequence
from typing import NoReturn

from provider.core.record import Record, field
from provider.document.python_flow import unfollowed
from provider.document.python_names import bound_names
from provider.pysdk import ml_client
from provider.pysdk.arguments import Call, SdkError, merged
from provider.pysdk.binding import Assigned, Reader
from provider.pysdk.custom_job import Body, custom_job
from provider.pysdk.gapic import builds_client, creates, named_create, read_request
from provider.pysdk.kfp import WAY, imports_package, step
from provider.pysdk.local_script import local_script
from provider.pysdk.message_changes import changed
from provider.pysdk.pipelines import pipeline_job
from provider.pysdk.script_training import script_training_job
from provider.pysdk.signatures import DATASET_ARGS, SIGNATURES, TRAINING_PIPELINES, imported_in, is_init, sdk_class
from provider.pysdk.tuning import tuning_job
from provider.spec.formats.vertex import api_enums

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
        self.init_failed: list[tuple[int, SdkError]] = []  # a notebook's init whose arguments cannot be known
        self.nested: dict[str, str] = {}  # place -> an SDK call inside a block, named when nothing is launched
        self.deferred: list[SdkError] = []  # a run inside a function: raised when the job picked has no run
        self.unmatched: list[str] = []  # x.run() on a name that holds no job the walk knows
        self.rebound: dict[str, str] = {}  # a job's name set again in a block not followed: the block
        self.skipped: list[str] = []  # SDK calls in a branch not taken: named in a note, or in the refusal
        self.others: list[str] = []  # the script's other calls into the SDK, named when it launches no job
        self.clients: set[str] = set()  # what holds a JobServiceClient the code built, as written (clients["job"])
        self.steps: list[str] = []  # Kubeflow pipeline steps that run a training job (kfp.py), named likewise
        self.imports_kfp = False
        self.gave: Job | None = None  # the job the last return read gave (job = make_job())

    def passed(self, stmt: ast.stmt, why: str, reader: Reader) -> None:
        """A statement that does not run (a branch not taken), or may not: its SDK calls (and runs of known jobs),
        each named with why."""
        for sub in ast.walk(stmt):
            if isinstance(sub, ast.Call):
                self.nested.pop(reader.at(sub), None)  # named here instead (a function's call, read where it is called)
                what = self.sdk_call(sub, reader)
                if what is not None:
                    self.skipped.append(f"{what} at {reader.at(sub)} is not read: {why}")

    def sdk_call(self, node: ast.Call, reader: Reader) -> str | None:
        """How a message names ``node`` when it builds or runs an SDK job (CustomJob, job.run), else None."""
        func = node.func.value if isinstance(node.func, ast.Attribute) else node.func
        if (isinstance(node.func, ast.Attribute) and node.func.attr in _METHODS and isinstance(func, ast.Name)
                and func.id in self.objects):
            return f"{ast.unparse(node.func)}()"
        return (sdk_class(reader.qualified(node.func)) or sdk_class(reader.qualified(func)) or named_create(node)
                or ml_client.named_create(node))

    def statement(self, index: int, stmt: ast.stmt, reader: Reader, returned: ast.expr | None = None) -> None:
        """One statement the code runs; ``returned``: for ``job = make_job()`` read into make_job, what its return
        gave (the job, where it is a name of one)."""
        self.imports_kfp = self.imports_kfp or imports_package(stmt)
        for sub in ast.walk(stmt):  # a function's calls, read where it is called: no longer nested in its def
            if isinstance(sub, ast.Call):
                self.nested.pop(reader.at(sub), None)
        value = stmt.value if isinstance(stmt, (ast.Expr, ast.Assign, ast.AnnAssign, ast.Return)) else None
        targets: list[str] = []  # job = other = aiplatform.CustomJob(...): each name is the job
        if isinstance(stmt, ast.Assign) and all(isinstance(t, ast.Name) for t in stmt.targets):
            targets = [t.id for t in stmt.targets if isinstance(t, ast.Name)]
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            targets = [stmt.target.id]
        job = self.call(index, value, reader) if isinstance(value, ast.Call) else None
        if job is None and value is not None:
            self.created_in(index, value, reader)
        job = self.given(stmt, value, job, returned)
        if value is None:
            self.find_nested(stmt, reader)
        self.client_held(stmt, reader, returned)
        changed(stmt, index, reader, self.objects)
        for target in targets:
            if value is None:  # x: int alone assigns nothing
                break
            self.assigned[target] = Assigned(value, reader.scope, reader.shown, index)
            self.rebound.pop(target, None)
            if job is not None:
                self.objects[target] = job
            else:
                self.objects.pop(target, None)

    def given(self, stmt: ast.stmt, value: ast.expr | None, job: Job | None, returned: ast.expr | None) -> Job | None:
        """The job ``stmt`` holds: a return's is kept for the statement that called its function (job = make_job()),
        which gets it."""
        if isinstance(stmt, ast.Return):
            self.gave = job if job is not None or not isinstance(value, ast.Name) else self.objects.get(value.id)
        elif job is None and returned is not None:
            job, self.gave = self.gave, None
        return job

    def created_in(self, index: int, value: ast.expr, reader: Reader) -> None:
        """The API client's create call inside ``value`` (print(client.create_custom_job(...).name), x = ....name)."""
        inner = [sub for sub in ast.walk(value) if sub is not value and isinstance(sub, ast.Call)]
        created = [sub for sub in inner if creates(sub, reader, self.clients) or ml_client.creates(sub, reader)]
        if created:
            self.call(index, created[0], reader)

    def client_held(self, stmt: ast.stmt, reader: Reader, returned: ast.expr | None) -> None:
        """Each target ``stmt`` assigns holds a JobServiceClient when its value is one: built here, another name of
        one, or returned by the function called (``clients["job"] = create_job_client()``); else it holds none."""
        if not isinstance(stmt, (ast.Assign, ast.AnnAssign)) or stmt.value is None:
            return
        source = returned if returned is not None else stmt.value
        holds = builds_client(source, reader) or ast.unparse(source) in self.clients
        for target in stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]:
            (self.clients.add if holds else self.clients.discard)(ast.unparse(target))

    def find_nested(self, stmt: ast.stmt, reader: Reader) -> None:
        block = unfollowed(stmt, reader.scope)
        for sub in ast.walk(stmt):
            if (isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and sub.func.attr in _METHODS
                    and isinstance(sub.func.value, ast.Name) and sub.func.value.id in self.objects):
                error = SdkError(reader.at(sub), f"{ast.unparse(sub.func)}() is inside {block}: trainjobs reads "
                                 f"the SDK's calls where the {self.noun} runs them and their arguments are known",
                                 "the call at top level, under an if whose test is known, or in a function the "
                                 f"{self.noun} calls at top level")
                if not isinstance(stmt, ast.FunctionDef):
                    raise error
                self.deferred.append(error)  # read where the function is called, if it is
            if isinstance(sub, ast.Call) and (found := step(sub, reader.qualified(sub.func), self.imports_kfp)):
                self.steps.append(f"{found} at {reader.at(sub)} (inside {block})")
            elif isinstance(sub, ast.Call):
                func = sub.func.value if isinstance(sub.func, ast.Attribute) else sub.func
                name = (next(filter(None, (sdk_class(reader.qualified(f)) or sdk_class(imported_in(stmt, f))
                                           for f in (sub.func, func))), None) or named_create(sub) or ml_client.named_create(sub))
                if name is not None:
                    self.nested[reader.at(sub)] = f"{name} at {reader.at(sub)} (inside {block})"
        for name in bound_names(stmt):  # job = CustomJob(A), then `if args.big: job = CustomJob(B)`
            if self.objects.pop(name, None) is not None:
                self.rebound[name] = block

    def call(self, index: int, node: ast.Call, reader: Reader) -> Job | None:
        qualified = reader.qualified(node.func)
        if is_init(qualified):
            try:
                self.inits.append((index, reader.bind(node, "init", "aiplatform.init")))
            except SdkError as exc:  # a notebook's: raised only where a job after it is converted (init_before)
                if not self.cells:
                    raise
                self.init_failed.append((index, exc))
            return None
        kind = sdk_class(qualified)
        if kind is not None:
            return self.construct(index, kind, node, reader)
        if (found := step(node, qualified, self.imports_kfp)) is not None:
            self.steps.append(f"{found} at {reader.at(node)}")
        if (method := creates(node, reader, self.clients)) is not None:  # client.create_custom_job(parent=, ...)
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
            if method in _METHODS:
                self.ran(index, node, receiver, method, reader)
        return None

    def ran(self, index: int, node: ast.Call, receiver: ast.expr, method: str, reader: Reader) -> None:
        """``job.run(...)`` / ``job.submit(...)`` (or chained on the constructor): the run of the job it names."""
        job: Job | None = None
        if isinstance(receiver, ast.Name) and receiver.id in self.rebound:
            raise SdkError(reader.at(node), f"{receiver.id} may be set again inside {self.rebound[receiver.id]}: "
                           f"which job {receiver.id}.{method}() launches is known only when the {self.noun} runs",
                           f"{receiver.id} set once, at top level or under an if whose test is known")
        if isinstance(receiver, ast.Name) and receiver.id in self.objects:
            job = self.objects[receiver.id]
        elif isinstance(receiver, ast.Name):
            self.unmatched.append(f"{receiver.id}.{method}() at {reader.at(node)}")
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

    def _request(self, index: int, node: ast.Call, reader: Reader) -> Job:
        method = creates(node, reader, self.clients)
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
        if isinstance(node, ast.Name) and node.id in self.objects and self.objects[node.id].kind in (
                "CustomJob", "CustomJob.from_local_script"):
            self.objects[node.id].in_tuning = True
            failed = self.objects[node.id].failed
            if failed is not None:
                raise failed
            return self.objects[node.id].call
        if isinstance(node, ast.Call) and sdk_class(reader.qualified(node.func)) == "CustomJob":
            return reader.bind(node, "CustomJob", ast.unparse(node.func))
        raise SdkError(reader.at(node), f"{call.what}(custom_job=...) is not an aiplatform.CustomJob the "
                       f"{reader.noun} builds at top level before it", "custom_job=JOB where JOB = aiplatform.CustomJob(...) earlier")

    def init_before(self, index: int) -> Call:
        failed = [exc for at, exc in self.init_failed if at < index]
        if failed:
            raise failed[-1]
        return merged([call for at, call in self.inits if at < index])


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


def _none(walk: _Walk) -> NoReturn:
    """SdkError: the code launches no job where it can be read (naming what it builds elsewhere), or none at all."""
    if walk.steps:
        raise SdkError(walk.shown, f"the {walk.noun} creates no Vertex AI training job itself; it defines Kubeflow "
                       f"pipeline steps that do: {'; '.join(walk.steps)}", WAY)
    if walk.nested or walk.skipped:
        classes = any("whose methods are not read" in said for said in walk.nested.values())  # python_flow.unfollowed
        raise SdkError(walk.shown, f"the {walk.noun} launches no Vertex AI training job where it can be read: " + "; ".join([
            *walk.nested.values(), *walk.skipped]), "the job's calls at top level, under an if whose test is known (if "
            f"__name__ == '__main__': too), or in a function the {walk.noun} calls at top level" + ("; for a class's method: "
            "those calls in a def called at top level, the values the class holds as its parameters or module constants"
            if classes else ""))
    held = f"; its calls into the SDK: {'; '.join(walk.others[:5])}" if walk.others else ""
    raise SdkError(walk.shown, f"the {walk.noun} builds no Vertex AI training job (aiplatform.CustomJob or "
                   f"HyperparameterTuningJob, from google.cloud import aiplatform){held}",
                   f"a {walk.noun} that calls aiplatform.CustomJob(...).run() or HyperparameterTuningJob(...).run(), "
                   "or runs a gcloud training command (subprocess.run, os.system, get_ipython().system)")


def _several(walk: _Walk, jobs: list[Job]) -> None:
    """The refusal of code that launches several jobs, each place once (a loop launches one per turn)."""
    fix = "the cell to convert with --cell N" if walk.cells else "one job per script (convert each on its own)"
    places = Counter(f"{job.call.what} at {job.call.where}" for job in jobs)
    raise SdkError(walk.shown, f"the {walk.noun} launches several jobs: " + "; ".join(
        place + (f" ({n} times: the code runs it more than once)" if n > 1 else "") for place, n in places.items()),
        fix + ("; a job launched once per item of a loop is one spec per item" if max(places.values()) > 1 else ""))


def _launched(walk: _Walk, pick: str | None = None) -> Job:
    run = [job for job in walk.jobs if job.runs]
    jobs = run or [job for job in walk.jobs if not job.in_tuning]
    if pick is not None:
        jobs = _picked(walk, jobs, pick)
    if not jobs:
        _none(walk)
    if len(jobs) > 1:
        _several(walk, jobs)
    job = jobs[0]
    failed = job.failed if job.failed is not None or job.runs or not walk.deferred else walk.deferred[0]
    if failed is not None:
        raise failed
    if not job.runs and walk.unmatched:
        raise SdkError(job.call.where, f"{job.call.what} is built here, and the {walk.noun} runs no job trainjobs can "
                       f"match to it: {'; '.join(walk.unmatched)} (the name holds no job built before it)",
                       "job.run() on the name the job is built into (job = aiplatform.CustomJob(...), or returned by "
                       "a function the code calls)")
    if len(job.runs) > 1:
        raise SdkError(walk.shown, f"{job.call.what} at {job.call.where} is run {len(job.runs)} times: " + "; ".join(
            f"{call.what}() at {call.where}" for call, _, _ in job.runs), "one run() or submit()")
    return job


def read(sources: Sequence[tuple[str, str]], shown: str, cells: bool = False, pick: str | None = None,
         named: bool = False, bucket: str | None = None) -> Body:
    """The spec body of the one job ``sources`` launch: a Python script, ``[(shown, text)]``, or (``cells``) a
    notebook's code cells in order, ``[("cell 4", text), ...]``, named ``shown`` in messages ("NB.ipynb cell 4,
    line 3, column 9"); ``pick``: the label of the cell whose job to convert."""
    from provider.document.loaded import LoadedDocument
    from provider.document.python_flow import flow

    walk = _Walk(shown, cells)
    for at in flow(sources, api_enums.member):
        place = f"{shown} {at.where.label}" if cells else shown
        reader = Reader(place, at.scope, walk.assigned, cells, named, bucket, len(walk.labels))
        if at.skipped is not None:
            walk.passed(at.stmt, at.skipped, reader)
            continue
        walk.labels.append(at.where.label)
        walk.statement(len(walk.labels) - 1, at.stmt, reader, at.returned)
    job = _launched(walk, pick)
    run, method, last = job.runs[0] if job.runs else (None, "run", job.index)
    init = walk.init_before(last + 1)
    if job.kind.startswith("JobServiceClient.") or job.kind == ml_client.KIND:  # an API's client: its request
        request, notes = job.call.args["request"], job.call.args["notes"]
        assert isinstance(request, LoadedDocument) and isinstance(notes, list)
        return Body(request=request, notes=notes)
    if job.kind == "CustomJob":
        body = custom_job(job.call, run, init, method)
    elif job.kind == "CustomJob.from_local_script":
        body = local_script(job.call, run, init, method)
    elif job.kind == "CustomTrainingJob":
        body = script_training_job(job.call, run, init, method)
    elif job.kind != "HyperparameterTuningJob":
        body = pipeline_job(job.kind, job.call, run, init, method)
    else:
        assert job.trial is not None
        body = tuning_job(job.call, job.trial, run, init)
    body.notes += [f"not converted: {skipped}" for skipped in [*walk.nested.values(), *walk.skipped]]
    return body
