"""The experiments page: Vertex AI experiments (the metadata service) and their curves (TensorBoard).

For each vertex stack the console reads (Vertex AI, or ``trainjobs emulator`` through its
``trainjobs:apiEndpoint``), the experiments of its project and region, as the SDK writes them
(``aiplatform.init(experiment=...)``, ``start_run``, ``log_params``, ``log_metrics``,
``log_time_series_metrics``): each experiment is a ``system.Experiment`` context of the default
metadata store, its runs the ``system.ExperimentRun`` contexts below it, with their state,
parameters (``_params``) and metrics (``_metrics``); the curves are the time series of each run's
TensorBoard run (``<backing tensorboard>/experiments/<experiment>/runs/<run>``), one chart per
tag with a line per run, drawn on the server as charts.py draws a tuning job's. The TensorBoard
experiments that no SDK experiment stands for (a CustomJob's uploaded logs, named after the job's
ID; runs written with the gapic client) follow, with their curves.

Read through google-cloud-aiplatform's gapic clients (imported here, only when the page is
asked for), over REST with no credentials for an ``http://`` endpoint, as the vertex backend's
clients are made.
"""

from __future__ import annotations

from html import escape
from typing import Any

from provider.console.charts import BOTTOM, HEIGHT, LEFT, RIGHT, TOP, WIDTH, Scale, _frame, fmt
from provider.console.sources import Source, SourceError
from provider.core.backend_registry import capabilities
from provider.core.record import Record

Point = tuple[int, float]


class Run(Record):
    """One experiment run: its name, state, parameters, metrics and curves (tag -> points)."""

    name: str
    state: str
    params: dict[str, Any]
    metrics: dict[str, Any]
    curves: dict[str, list[Point]]


class Experiment(Record):
    """One experiment of a stack: its name and runs."""

    source: str
    name: str
    runs: list[Run]

    @property
    def param_names(self) -> list[str]:
        return sorted({k for r in self.runs for k in r.params})

    @property
    def metric_names(self) -> list[str]:
        return sorted({k for r in self.runs for k in r.metrics})

    def charts(self) -> list[str]:
        tags = sorted({t for r in self.runs for t in r.curves})
        return [curve_chart(tag, {r.name: r.curves[tag] for r in self.runs if r.curves.get(tag)}) for tag in tags]


def curve_chart(tag: str, lines: dict[str, list[Point]]) -> str:
    """One SVG chart: the tag's value by step, a polyline per run, each point with its tooltip."""
    values = [v for points in lines.values() for _, v in points]
    steps = [s for points in lines.values() for s, _ in points]
    if not values:
        return ""
    ys = Scale.of(values, HEIGHT - BOTTOM, TOP)
    xs = Scale(min(steps), max(max(steps), min(steps) + 1), LEFT + 24, WIDTH - RIGHT - 24)
    out = _frame(tag, "step", tag, ys, f"{tag} by step, one line per run")
    for i, (run, points) in enumerate(sorted(lines.items())):
        drawn = " ".join(f"{xs(s):.1f},{ys(v):.1f}" for s, v in points)
        out.append(f'<g class="curve run-{i % 6}" data-run="{escape(run)}"><polyline class="curve-line" '
                   f'points="{drawn}"><title>{escape(run)}</title></polyline>')
        out += [f'<circle class="curve-dot" cx="{xs(s):.1f}" cy="{ys(v):.1f}" r="3"><title>{escape(run)}: '
                f'{escape(tag)} = {fmt(v)} at step {s}</title></circle>' for s, v in points]
        out.append(f'<text class="tick" x="{WIDTH - RIGHT - 4}" y="{TOP + 14 * (i + 1)}" '
                   f'text-anchor="end">{escape(run)}</text></g>')
    out.append("</svg>")
    return "".join(out)


def _clients(source: Source) -> tuple[Any, Any]:
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import aiplatform_v1

    assert source.stack is not None
    endpoint = source.stack.api_endpoint or f"{source.stack.region}-aiplatform.googleapis.com"
    anonymous = AnonymousCredentials() if endpoint.startswith("http://") else None  # type: ignore[no-untyped-call]
    kwargs: dict[str, Any] = {"client_options": {"api_endpoint": endpoint}, "credentials": anonymous}
    if "://" in endpoint:
        kwargs["transport"] = "rest"
    return aiplatform_v1.MetadataServiceClient(**kwargs), aiplatform_v1.TensorboardServiceClient(**kwargs)


def _curves(tensorboards: Any, run: str) -> dict[str, list[Point]]:
    from google.api_core.exceptions import NotFound

    try:
        series = list(tensorboards.list_tensorboard_time_series(parent=run))
    except NotFound:
        return {}
    out = {}
    for s in series:
        data = tensorboards.read_tensorboard_time_series_data(request={"tensorboard_time_series": s.name,
                                                                       "max_data_points": -1})
        out[s.display_name] = [(int(p.step), float(p.scalar.value)) for p in data.time_series_data.values]
    return out


def _experiments(source: Source) -> list[Experiment]:
    assert source.stack is not None
    metadata, tensorboards = _clients(source)
    store = f"projects/{source.stack.project}/locations/{source.stack.region}/metadataStores/default"
    from google.api_core.exceptions import NotFound

    try:
        contexts = list(metadata.list_contexts(request={"parent": store, "filter": 'schema_title="system.Experiment"'}))
    except NotFound:  # no metadata store yet: no SDK experiment
        contexts = []
    found = []
    for context in contexts:
        name = context.name.rsplit("/", 1)[1]
        board = dict(context.metadata).get("backing_tensorboard_resource")
        runs = []
        for run in metadata.list_contexts(request={"parent": store, "filter": 'schema_title="system.ExperimentRun" '
                                                   f'AND parent_contexts:"{context.name}"'}):
            meta = dict(run.metadata)
            curves = _curves(tensorboards, f"{board}/experiments/{name}/runs/{run.display_name}") if board else {}
            runs.append(Run(run.display_name, str(meta.get("_state", "")), dict(meta.get("_params") or {}),
                            dict(meta.get("_metrics") or {}), curves))
        found.append(Experiment(source.name, context.display_name or name, runs))
    return found + _board_experiments(source, tensorboards, {f"experiments/{e.name}" for e in found})


def _board_experiments(source: Source, tensorboards: Any, shown: set[str]) -> list[Experiment]:
    """The TensorBoard experiments no SDK experiment stands for: a job's uploaded logs (its ID), runs
    written with the gapic client or the uploader. Their runs have curves, no parameters or metrics."""
    assert source.stack is not None
    found = []
    for board in tensorboards.list_tensorboards(parent=f"projects/{source.stack.project}/locations/"
                                                       f"{source.stack.region}"):
        for experiment in tensorboards.list_tensorboard_experiments(parent=board.name):
            short = experiment.name.rsplit("/", 1)[1]
            if f"experiments/{short}" in shown:
                continue
            runs = [Run(r.display_name or r.name.rsplit("/", 1)[1], "", {}, {}, _curves(tensorboards, r.name))
                    for r in tensorboards.list_tensorboard_runs(parent=experiment.name)]
            found.append(Experiment(source.name, f"{board.display_name} / {experiment.display_name or short}", runs))
    return found


def read(sources: list[Source]) -> tuple[list[Experiment], list[SourceError]]:
    """Every vertex source's experiments; a source that cannot be read is one SourceError."""
    experiments: list[Experiment] = []
    errors: list[SourceError] = []
    for source in sources:
        if source.stack is None or not capabilities(source.kind).vertex_api:
            continue
        try:
            experiments += _experiments(source)
        except Exception as exc:  # an SDK or network failure: said on the page, never a traceback
            errors.append(SourceError(f"the experiments of {source.describe()} cannot be read: "
                                      f"{type(exc).__name__}: {str(exc)[:300]}"))
    return experiments, errors
