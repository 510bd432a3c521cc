"""Charts of a tuning job as SVG text, drawn on the server (no JavaScript, no network).

* ``trials_chart``: each trial's metric in trial order (one dot a trial, the best one ringed
  and labelled), the best value so far as a step line, and the goal in the title.
* ``scatter``: one numeric parameter against the metric (one dot a trial, the best ringed).

Both return "" when no trial has a metric. Every element carries a class and a <title> (the
browser shows it on hover), so tests and people can read what is drawn.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

from provider.backends.base import TrialStatus
from provider.core.record import Record

WIDTH, HEIGHT = 640, 280
LEFT, RIGHT, TOP, BOTTOM = 64, 20, 34, 40


class Scale(Record):
    """A linear map of values (``lo`` to ``hi``) to pixels (``start`` to ``end``) on one axis of a chart."""

    lo: float
    hi: float
    start: float  # pixel of lo
    end: float  # pixel of hi

    def __call__(self, value: float) -> float:
        if self.hi == self.lo:
            return (self.start + self.end) / 2
        return self.start + (value - self.lo) * (self.end - self.start) / (self.hi - self.lo)

    @classmethod
    def of(cls, values: Sequence[float], start: float, end: float) -> Scale:
        lo, hi = min(values), max(values)
        pad = (hi - lo) * 0.08 or (abs(hi) * 0.1 or 1.0)
        return cls(lo - pad, hi + pad, start, end)


class LogScale(Record):
    """A logarithmic map of positive values (``lo`` to ``hi``) to pixels, for a parameter searched
    on UNIT_LOG_SCALE: equal ratios are equal distances, as the tuning service samples them."""

    lo: float
    hi: float
    start: float
    end: float

    def __call__(self, value: float) -> float:
        return Scale(math.log10(self.lo), math.log10(self.hi), self.start, self.end)(math.log10(value))

    @classmethod
    def of(cls, values: Sequence[float], start: float, end: float) -> LogScale:
        lo, hi = math.log10(min(values)), math.log10(max(values))
        pad = (hi - lo) * 0.08 or 0.5
        return cls(10 ** (lo - pad), 10 ** (hi + pad), start, end)


def _log_ticks(scale: LogScale) -> list[float]:
    """Powers of ten inside the scale; 1, 2 and 5 times them where it spans less than three decades."""
    low, high = math.floor(math.log10(scale.lo)), math.ceil(math.log10(scale.hi))
    steps = (1, 2, 5) if high - low < 3 else (1,)
    ticks = [m * 10.0 ** e for e in range(low, high + 1) for m in steps]
    return [t for t in ticks if scale.lo <= t <= scale.hi]


def fmt(value: float) -> str:
    """An axis tick: 4 significant digits are enough to place it."""
    return f"{value + 0.0:.4g}"  # + 0.0: never "-0"


def value_text(value: object) -> str:
    """A trial's value as the table and the dots' tooltips show it: a float with 6 significant
    digits (not the 17 of its repr), an integer as an integer, anything else (a string) as it is."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    if isinstance(value, int):
        return str(value)
    return f"{value + 0.0:.6g}"  # + 0.0: never "-0"


def _ticks(scale: Scale, n: int = 5) -> list[float]:
    """Round values (1, 2 or 5 times a power of ten apart) inside the scale, about ``n`` of them."""
    span = scale.hi - scale.lo
    if span <= 0:
        return [scale.lo]
    raw = span / n
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.ceil(scale.lo / step) * step
    count = math.floor((scale.hi - first) / step + 1e-9) + 1
    return [round(first + i * step, 12) + 0.0 for i in range(count)]


def _frame(title: str, x_label: str, y_label: str, ys: Scale, label: str) -> list[str]:
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" '
           f'role="img" aria-label="{escape(label)}">',
           f'<text class="chart-title" x="{LEFT}" y="20">{escape(title)}</text>',
           f'<line class="axis" x1="{LEFT}" y1="{HEIGHT - BOTTOM}" x2="{WIDTH - RIGHT}" y2="{HEIGHT - BOTTOM}"/>',
           f'<line class="axis" x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{HEIGHT - BOTTOM}"/>']
    for tick in _ticks(ys):
        y = ys(tick)
        out.append(f'<line class="grid" x1="{LEFT}" y1="{y:.1f}" x2="{WIDTH - RIGHT}" y2="{y:.1f}"/>')
        out.append(f'<text class="tick" x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">{fmt(tick)}</text>')
    out.append(f'<text class="axis-label" x="{(LEFT + WIDTH - RIGHT) / 2}" y="{HEIGHT - 6}" '
               f'text-anchor="middle">{escape(x_label)}</text>')
    out.append(f'<text class="axis-label" x="14" y="{(TOP + HEIGHT - BOTTOM) / 2}" text-anchor="middle" '
               f'transform="rotate(-90 14 {(TOP + HEIGHT - BOTTOM) / 2})">{escape(y_label)}</text>')
    return out


def _dot(x: float, y: float, tip: str, best: bool) -> str:
    cls = "dot best" if best else "dot"
    ring = f'<circle class="best-ring" cx="{x:.1f}" cy="{y:.1f}" r="9"/>' if best else ""
    return f'{ring}<circle class="{cls}" cx="{x:.1f}" cy="{y:.1f}" r="5"><title>{escape(tip)}</title></circle>'


def _scored(trials: Sequence[TrialStatus]) -> list[TrialStatus]:
    return [t for t in trials if t.metric is not None and math.isfinite(t.metric)]


def best_so_far(values: Sequence[float], goal: str) -> list[float]:
    pick = min if goal == "MINIMIZE" else max
    out: list[float] = []
    for value in values:
        out.append(value if not out else pick(out[-1], value))
    return out


def trials_chart(trials: Sequence[TrialStatus], goal: str, metric: str, best: str | None) -> str:
    scored = _scored(trials)
    if not scored:
        return ""
    values = [t.metric for t in scored if t.metric is not None]
    ys = Scale.of(values, HEIGHT - BOTTOM, TOP)
    xs = Scale(0, max(len(scored) - 1, 1), LEFT + 24, WIDTH - RIGHT - 24)
    title = f"{metric} by trial, goal: {goal}"
    out = _frame(title, "trial (in the order they ran)", metric, ys, f"{metric} of each trial, goal {goal}")
    steps = best_so_far(values, goal)
    points = []
    for i, value in enumerate(steps):
        if i:
            points.append(f"{xs(i):.1f},{ys(steps[i - 1]):.1f}")
        points.append(f"{xs(i):.1f},{ys(value):.1f}")
    out.append(f'<polyline class="best-so-far" points="{" ".join(points)}"><title>best so far</title></polyline>')
    for i, trial in enumerate(scored):
        assert trial.metric is not None
        x, y = xs(i), ys(trial.metric)
        out.append(_dot(x, y, f"trial {trial.id}: {metric} = {value_text(trial.metric)}", trial.id == best))
        out.append(f'<text class="tick" x="{x:.1f}" y="{HEIGHT - BOTTOM + 16}" text-anchor="middle">{escape(trial.id)}</text>')
        if trial.id == best:
            out.append(f'<text class="best-label" x="{x:.1f}" y="{y - 14:.1f}" text-anchor="middle">best</text>')
    legend_x = WIDTH - RIGHT - 190
    out.append(f'<g class="legend"><circle class="dot" cx="{legend_x}" cy="16" r="5"/>'
               f'<text x="{legend_x + 9}" y="20">trial</text>'
               f'<line class="best-so-far" x1="{legend_x + 48}" y1="16" x2="{legend_x + 72}" y2="16"/>'
               f'<text x="{legend_x + 77}" y="20">best so far</text></g>')
    out.append("</svg>")
    return "".join(out)


def numeric_parameter(trials: Sequence[TrialStatus]) -> str | None:
    """The job's one parameter, when it has exactly one and every trial's value is a number."""
    names = {name for t in trials for name, _ in t.parameters}
    if len(names) != 1:
        return None
    name = names.pop()
    values = [v for t in trials for n, v in t.parameters if n == name]
    ok = all(isinstance(v, int | float) and not isinstance(v, bool) for v in values)
    return name if values and ok else None


def scatter(trials: Sequence[TrialStatus], parameter: str, metric: str, best: str | None, log: bool = False) -> str:
    """``log``: the parameter was searched on a log scale (UNIT_LOG_SCALE), and its axis is one
    (where every value is positive; a linear axis otherwise)."""
    scored = [t for t in _scored(trials) if parameter in dict(t.parameters)]
    if not scored:
        return ""
    xs_values = [float(dict(t.parameters)[parameter]) for t in scored]
    values = [t.metric for t in scored if t.metric is not None]
    ys = Scale.of(values, HEIGHT - BOTTOM, TOP)
    xs: Scale | LogScale
    if log and min(xs_values) > 0:
        xs = LogScale.of(xs_values, LEFT + 10, WIDTH - RIGHT - 10)
        x_ticks, x_label = _log_ticks(xs), f"{parameter} (log scale)"
    else:
        xs = Scale.of(xs_values, LEFT + 10, WIDTH - RIGHT - 10)
        x_ticks, x_label = _ticks(xs), parameter
    out = _frame(f"{metric} against {parameter}", x_label, metric, ys, f"{parameter} against {metric}")
    for tick in x_ticks:
        out.append(f'<text class="tick" x="{xs(tick):.1f}" y="{HEIGHT - BOTTOM + 16}" text-anchor="middle">{fmt(tick)}</text>')
    for trial, x_value in zip(scored, xs_values):
        assert trial.metric is not None
        out.append(_dot(xs(x_value), ys(trial.metric),
                        f"trial {trial.id}: {parameter} = {value_text(dict(trial.parameters)[parameter])}, "
                        f"{metric} = {value_text(trial.metric)}",
                        trial.id == best))
    out.append("</svg>")
    return "".join(out)
