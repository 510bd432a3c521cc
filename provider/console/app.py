"""The console's web app (Starlette): server-rendered pages, a few fragments for live updates.

    GET  /                               jobs (filters: ?state= &stack= &q=)
    GET  /fragments/jobs                 the jobs table's rows (the page refreshes them)
    GET  /jobs/{source}/{id}             a job (a tuning job with its charts and trials)
    GET  /fragments/jobs/{source}/{id}   the job's live part (state, replicas, trials)
    GET  /jobs/{source}/{id}/logs        its log lines as Server-Sent Events (?replica=)
    POST /jobs/{source}/{id}/cancel      cancel it (the only write; guard.py says what it must carry)
    GET  /stacks, /stacks/{name}         stacks; a stack's jobs, GPUs, GPU-hours, cost, policy
    GET  /plan                           a plan (--plan FILE, or ?base=REF computed on request)

Bad input and unreachable backends answer with a page that says what and how to fix it. Every
request passes the guard first (guard.py: Host, Origin, Fetch Metadata; the cancel form's token).
Backend calls (the Vertex SDK may wait 30 s) and other blocking work run in worker threads
(``run_in_threadpool``), never on the event loop: one slow backend does not stall other pages.
"""

from __future__ import annotations

import datetime
import secrets
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from anyio import CapacityLimiter
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from provider.backends.base import JobState
from provider.backends.summary import log_scaled
from provider.console import charts, guard, views
from provider.console.sources import Source, SourceError, Sources, source_for
from provider.console.usage import StackSpec, model_of, spec_of, stack_models, usage
from provider.core.backend_registry import capabilities
from provider.core.job_kinds import TUNING_JOB
from provider.core.record import Record, field
from provider.core.trust import Binding, Refusal, Verdict

HERE = Path(__file__).parent
MODELS_TTL = 30.0  # seconds a stack's parsed specs are reused
PAGE = 50  # jobs a page of the jobs list shows
LOG_STREAMS = 64  # log streams followed at once (each holds a thread while it waits for a line)


class Console(Record, frozen=False):
    """What the app serves from: the sources, a saved plan, and the secret of its forms' tokens (guard.py)."""

    sources: Sources
    plan_file: Path | None = None
    project_root: Path = field(default_factory=Path.cwd)
    secret: bytes = field(default_factory=lambda: secrets.token_bytes(32), repr=False)
    _models: dict[str, tuple[float, dict[str, StackSpec]]] = field(default_factory=dict)
    _log_limiter: CapacityLimiter | None = None

    def log_limiter(self) -> CapacityLimiter:
        """The threads that follow logs: their own LOG_STREAMS, so open streams never starve the pages' pool."""
        if self._log_limiter is None:  # made in the event loop, at the first stream
            self._log_limiter = CapacityLimiter(LOG_STREAMS)
        return self._log_limiter

    def models(self, source: Source) -> dict[str, StackSpec]:
        if source.stack is None or self.sources.index is None:
            return {}
        cached = self._models.get(source.name)
        if cached is None or time.monotonic() - cached[0] > MODELS_TTL:
            cached = (time.monotonic(), stack_models(self.sources.index, source.stack))
            self._models[source.name] = cached
        return cached[1]

    def source(self, name: str) -> Source:
        """The source of a job page: ``local``, a chosen stack, or any stack of stacks/."""
        try:
            return self.sources.get(name)
        except SourceError:
            if self.sources.index is None or self.sources.index.stack(name) is None:
                raise
            return self.stack_source(name)

    def stack_source(self, name: str) -> Source:
        """A stack's own source (its jobs only), built on request for a stack not chosen with --stack."""
        for source in self.sources.sources:
            if source.stack is not None and source.name == name:
                return source
        return source_for(self.sources.stack(name))


templates = Jinja2Templates(directory=str(HERE / "templates"))
templates.env.globals["STATES"] = [s.value for s in JobState]
templates.env.globals["JobState"] = JobState
templates.env.globals["value_text"] = charts.value_text


def _console(request: Request) -> Console:
    console: Console = request.app.state.console
    return console


def rows(console: Console, sources: list[Source], limit: int | None = None) -> tuple[list[views.JobRow],
                                                                                     list[SourceError]]:
    """Every job of these sources (with ``limit``, each source's newest that many), newest first; a source
    that fails is reported, not fatal."""
    out: list[views.JobRow] = []
    errors: list[SourceError] = []
    seen: set[tuple[str, str, str]] = set()
    for source in sources:
        try:
            jobs = source.jobs(limit)
        except SourceError as exc:
            errors.append(exc)
            continue
        models = console.models(source)
        store = source.backend.jobs_at()  # two sources on one store list the same jobs once
        for job in jobs:
            key = (source.kind, store, job.id)
            if key in seen:
                continue
            seen.add(key)
            out.append(views.row(source.name, job, model_of(job, models)))
    epoch = datetime.datetime.fromtimestamp(0, datetime.UTC)
    out.sort(key=lambda r: views.parse_time(r.job.create_time) or epoch, reverse=True)
    return out, errors


def _page(request: Request) -> int:
    raw = request.query_params.get("page", "") or "1"
    if not raw.isdigit() or int(raw) < 1:
        raise SourceError(f"page={raw!r} is not a page number", "use page=1 for the newest jobs, page=2 for the "
                          "ones before them, and so on (the Older and Newer links)", 400)
    return int(raw)


def _filtered(request: Request) -> dict[str, Any]:
    """One page of the jobs list, newest first. Unfiltered, each source reads only its newest
    page x PAGE + 1 jobs (the one past the page says whether an older page exists), so the first
    page costs the same at any history size; a filter looks at every job (as the emulator's does)."""
    console = _console(request)
    state, stack, text = (request.query_params.get(k, "") for k in ("state", "stack", "q"))
    page = _page(request)
    end = page * PAGE
    found, errors = rows(console, console.sources.sources, None if state or stack or text else end + 1)
    wanted = next((s for s in JobState if s.value == state), None)  # an unknown state shows no job
    shown = [r for r in found if (not state or r.job.state is wanted) and (not stack or r.stack == stack)
             and (not text or text.lower() in r.text())]
    stacks = sorted({r.stack for r in found if r.stack != "-"} | set(console.sources.names()[1:]))
    return {"rows": shown[end - PAGE:end], "total": len(found), "errors": errors, "state": state, "stack": stack,
            "q": text, "stacks": stacks, "page": page, "older": len(shown) > end}


async def jobs_page(request: Request) -> Response:
    return templates.TemplateResponse(request, "jobs.html", await run_in_threadpool(_filtered, request))


async def jobs_fragment(request: Request) -> Response:
    return templates.TemplateResponse(request, "_rows.html", await run_in_threadpool(_filtered, request))


def _job_context(request: Request) -> dict[str, Any]:
    console = _console(request)
    source = console.source(request.path_params["source"])
    job = source.get(request.path_params["job_id"])
    spec = spec_of(job, console.models(source))
    model = spec.job if spec else None
    root = console.sources.index.root if console.sources.index else console.project_root
    context: dict[str, Any] = {"source": source, "job": job, "row": views.row(source.name, job, model),
                               "spec": spec, "spec_file": _relative(spec.path, root) if spec else None,
                               "token": guard.form_token(console.secret, guard.nonce_of(request)),
                               "request_body": views.request_body(job)}
    context["artifacts"], context["more_artifacts"] = views.artifacts(source.backend, job)
    if job.kind == TUNING_JOB.name:
        goal, metric = views.goal(job, model)
        parameter = charts.numeric_parameter(job.trials)
        context.update(goal=goal, metric=metric, parameter=parameter,
                       trials_svg=charts.trials_chart(job.trials, goal, metric, job.best_trial),
                       scatter_svg=charts.scatter(job.trials, parameter, metric, job.best_trial,
                                                  log=parameter in log_scaled(job)) if parameter else "",
                       parameter_names=sorted({n for t in job.trials for n, _ in t.parameters}))
    return context


def _relative(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


async def job_page(request: Request) -> Response:
    return templates.TemplateResponse(request, "job.html", await run_in_threadpool(_job_context, request))


async def job_fragment(request: Request) -> Response:
    return templates.TemplateResponse(request, "_job_live.html", await run_in_threadpool(_job_context, request))


def _sse(event: str, data: str) -> str:
    return f"event: {event}\n" + "".join(f"data: {line}\n" for line in data.split("\n")) + "\n"


async def job_logs(request: Request) -> Response:
    """Log lines as Server-Sent Events: ``line`` for each, ``end`` when the job has ended."""
    import anyio

    console = _console(request)
    source = await run_in_threadpool(console.source, request.path_params["source"])
    job_id = request.path_params["job_id"]
    await run_in_threadpool(source.get, job_id)
    gone = threading.Event()
    lines = source.logs(job_id, replica=request.query_params.get("replica") or None, follow=True, stop=gone)

    async def stream() -> AsyncIterator[str]:
        try:
            while not await request.is_disconnected():
                # A dropped page cancels this wait (Starlette listens for the disconnect); the thread is let go
                # and ``gone`` (set below) ends the backend's follow within one poll, even on a quiet job.
                line = await anyio.to_thread.run_sync(next, lines, None, abandon_on_cancel=True,
                                                      limiter=console.log_limiter())
                if line is None:
                    break
                yield _sse("line", line.text(timestamps=True))  # its time first, as `trainjobs logs` prints it
            yield _sse("end", "the job has ended")
        finally:
            gone.set()

    return StreamingResponse(stream(), media_type="text/event-stream", headers={"Cache-Control": "no-store"})


async def job_cancel(request: Request) -> Response:
    console = _console(request)
    form = await request.form()
    if not guard.valid_token(console.secret, request, form.get("token")):
        raise SourceError("this cancel form is stale or came from another site",
                          "reload the job's page and press Cancel again", 403)
    source = await run_in_threadpool(console.source, request.path_params["source"])
    await run_in_threadpool(source.cancel, request.path_params["job_id"])
    return RedirectResponse(f"/jobs/{source.name}/{request.path_params['job_id']}", status_code=303)


async def training_page(request: Request) -> Response:
    from provider.console.training import read

    sources = _console(request).sources.sources
    pipelines, models, errors = await run_in_threadpool(read, sources)
    return templates.TemplateResponse(request, "training.html", {
        "pipelines": pipelines, "models": models, "errors": errors, "vertex": any(capabilities(s.kind).vertex_api for s in sources)})
async def experiments_page(request: Request) -> Response:
    from provider.console import experiments

    found, errors = await run_in_threadpool(experiments.read, _console(request).sources.sources)
    return templates.TemplateResponse(request, "experiments.html", {"experiments": found, "errors": errors})


async def stacks_page(request: Request) -> Response:
    index = _console(request).sources.index
    stacks = index.stacks if index else []
    return templates.TemplateResponse(request, "stacks.html", {"stacks": stacks,
                                                               "problems": index.problems if index else []})


def _stack_context(request: Request) -> dict[str, Any]:
    console = _console(request)
    config = console.sources.stack(request.path_params["name"])
    source = console.stack_source(config.name)
    found, errors = rows(console, [source])
    jobs = [r.job for r in found]
    return {"stack": config, "source": source, "rows": found, "errors": errors,
            "usage": usage(config, jobs, console.models(source)), "chosen": config.name in console.sources.names()}


async def stack_page(request: Request) -> Response:
    return templates.TemplateResponse(request, "stack.html", await run_in_threadpool(_stack_context, request))


async def plan_page(request: Request) -> Response:
    from provider.console.plans import computed_plan, default_base, saved_plan

    console = _console(request)
    base = request.query_params.get("base")  # None: not asked; "" (the form left empty): the default base
    if base is not None:
        data = await run_in_threadpool(computed_plan, console.project_root, base.strip() or None)  # runs git
    elif console.plan_file is not None:
        data = await run_in_threadpool(saved_plan, console.plan_file)
    else:
        data = None
    shown = (base or "").strip() or await run_in_threadpool(default_base, console.project_root)
    return templates.TemplateResponse(request, "plan.html", {"plan": data, "base": shown})


async def source_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, SourceError)
    return templates.TemplateResponse(request, "error.html", {"message": exc.message, "fix": exc.fix},
                                      status_code=exc.status)


async def not_found(request: Request, exc: Exception) -> Response:
    return templates.TemplateResponse(request, "error.html", {
        "message": f"no page {request.url.path}", "fix": "start from the jobs list"}, status_code=404)


async def internal_error(request: Request, exc: Exception) -> Response:
    return HTMLResponse(f"<h1>internal error</h1><p>{type(exc).__name__}. This is a bug in trainjobs; the "
                        "console's terminal shows the details.</p>", status_code=500)


_REFUSAL_FIX = {
    Refusal.FOREIGN_HOST: "open the console at the address it printed when it started (a name that points at this "
                          "machine is refused unless the console was started with --allow-host NAME)",
}


def refused(request: Request, verdict: Verdict) -> Response:
    """The page of a request the guard refuses: what was refused, and what is allowed."""
    fix = _REFUSAL_FIX.get(verdict.refusal or Refusal.FOREIGN_ORIGIN,
                           "open the console at its own address and use its own links and buttons")
    return templates.TemplateResponse(request, "error.html", {"message": f"Refused: {verdict.message}.", "fix": fix},
                                      status_code=verdict.status)


def create_app(console: Console, binding: Binding) -> Starlette:
    """The app; ``binding``: where it listens and the names it answers to (its Host check)."""
    from provider.console.plans import PlanError

    async def plan_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, PlanError)
        return templates.TemplateResponse(request, "error.html", {"message": exc.message, "fix": exc.fix},
                                          status_code=400)

    app = Starlette(routes=[
        Route("/", jobs_page),
        Route("/fragments/jobs", jobs_fragment),
        Route("/jobs/{source}/{job_id}", job_page),
        Route("/fragments/jobs/{source}/{job_id}", job_fragment),
        Route("/jobs/{source}/{job_id}/logs", job_logs),
        Route("/jobs/{source}/{job_id}/cancel", job_cancel, methods=["POST"]),
        Route("/training", training_page),
        Route("/experiments", experiments_page),
        Route("/stacks", stacks_page),
        Route("/stacks/{name}", stack_page),
        Route("/plan", plan_page),
        Mount("/static", StaticFiles(directory=str(HERE / "static")), name="static"),
    ], exception_handlers={SourceError: source_error, PlanError: plan_error, 404: not_found,
                           Exception: internal_error},
        middleware=[Middleware(guard.Guard, binding=binding, refuse=refused)])
    app.state.console = console
    return app
