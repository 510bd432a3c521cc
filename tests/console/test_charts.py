"""The console's SVG charts: what is drawn for a tuning job's trials (no browser needed)."""

from __future__ import annotations

import itertools
import xml.etree.ElementTree as ET

from provider.backends.base import TrialStatus
from provider.console.charts import best_so_far, numeric_parameter, scatter, trials_chart

NS = "{http://www.w3.org/2000/svg}"


def trial(i: int, metric: float | None, **params: object) -> TrialStatus:
    return TrialStatus(id=str(i), state="SUCCEEDED" if metric is not None else "FAILED",
                       parameters=tuple(sorted(params.items())), metric=metric)


def test_best_so_far_follows_the_goal() -> None:
    assert best_so_far([3.0, 1.0, 4.0, 2.0], "MAXIMIZE") == [3.0, 3.0, 4.0, 4.0]
    assert best_so_far([3.0, 1.0, 4.0, 0.5], "MINIMIZE") == [3.0, 1.0, 1.0, 0.5]


def test_the_trials_chart_marks_the_best_trial_and_the_goal() -> None:
    trials = [trial(1, 0.2), trial(2, None), trial(3, 0.9), trial(4, 0.5)]
    svg = ET.fromstring(trials_chart(trials, "MAXIMIZE", "accuracy", best="3"))
    title = svg.find(f"{NS}text[@class='chart-title']")
    assert title is not None and title.text == "accuracy by trial, goal: MAXIMIZE"
    dots = [c for c in svg.iter(f"{NS}circle") if c.get("class", "").startswith("dot") and c.find(f"{NS}title") is not None]
    assert [d.find(f"{NS}title").text for d in dots] == [  # type: ignore[union-attr]
        "trial 1: accuracy = 0.2", "trial 3: accuracy = 0.9", "trial 4: accuracy = 0.5"]  # the failed trial has none
    assert [d.get("class") for d in dots] == ["dot", "dot best", "dot"]
    line = svg.find(f"{NS}polyline[@class='best-so-far']")
    assert line is not None
    ys = [float(p.split(",")[1]) for p in (line.get("points") or "").split()]
    assert ys[0] > ys[-1] and ys == sorted(ys, reverse=True)  # rises once (to 0.9), then stays: higher is up


def test_minimize_puts_the_best_so_far_down() -> None:
    svg = ET.fromstring(trials_chart([trial(1, 5.0), trial(2, 1.0), trial(3, 3.0)], "MINIMIZE", "loss", best="2"))
    line = svg.find(f"{NS}polyline[@class='best-so-far']")
    assert line is not None
    ys = [float(p.split(",")[1]) for p in (line.get("points") or "").split()]
    assert ys == sorted(ys)  # the loss only falls: the line only goes down the screen


def test_no_metric_yet_draws_nothing() -> None:
    assert trials_chart([trial(1, None)], "MAXIMIZE", "m", None) == ""


def test_a_scatter_only_for_one_numeric_parameter() -> None:
    one = [trial(1, 0.1, lr=0.01), trial(2, 0.3, lr=0.1)]
    assert numeric_parameter(one) == "lr"
    assert numeric_parameter([trial(1, 0.1, lr=0.01, depth=3)]) is None
    assert numeric_parameter([trial(1, 0.1, opt="adam")]) is None
    svg = ET.fromstring(scatter(one, "lr", "score", best="2"))
    tips = [t.text for t in svg.iter(f"{NS}title")]
    assert tips == ["trial 1: lr = 0.01, score = 0.1", "trial 2: lr = 0.1, score = 0.3"]


def test_text_is_escaped() -> None:
    svg = trials_chart([trial(1, 1.0)], "MAXIMIZE", "<b>&", best="1")
    assert "<b>&" not in svg and ET.fromstring(svg) is not None


def _dot_xs(svg: ET.Element) -> list[float]:
    return [float(c.get("cx") or 0) for c in svg.iter(f"{NS}circle") if c.get("class", "").startswith("dot")]


def test_a_log_scaled_parameter_gets_a_log_axis() -> None:
    trials = [trial(1, 0.1, lr=0.0001), trial(2, 0.2, lr=0.001), trial(3, 0.3, lr=0.01), trial(4, 0.4, lr=0.1)]
    svg = ET.fromstring(scatter(trials, "lr", "score", best="4", log=True))
    xs = _dot_xs(svg)
    gaps = [b - a for a, b in itertools.pairwise(xs)]
    assert max(gaps) - min(gaps) < 0.5  # each tenfold step is the same distance
    ticks = [t.text for t in svg.iter(f"{NS}text") if t.get("class") == "tick"]
    assert {"0.0001", "0.001", "0.01", "0.1"} <= set(ticks)
    assert any(t.text == "lr (log scale)" for t in svg.iter(f"{NS}text"))
    linear = _dot_xs(ET.fromstring(scatter(trials, "lr", "score", best="4")))
    assert linear[1] - linear[0] < (linear[3] - linear[2]) / 50  # on a linear axis the small values huddle


def test_a_log_axis_needs_positive_values() -> None:
    trials = [trial(1, 0.1, shift=-1.0), trial(2, 0.2, shift=2.0)]
    svg = ET.fromstring(scatter(trials, "shift", "score", best="2", log=True))
    assert not any(t.text == "shift (log scale)" for t in svg.iter(f"{NS}text"))


def test_values_show_six_significant_digits_integers_as_integers_and_strings_as_they_are() -> None:
    from provider.console.charts import value_text

    assert value_text(0.1 + 0.2) == "0.3"
    assert value_text(0.00012345678901234567) == "0.000123457"
    assert value_text(1.2345678e-7) == "1.23457e-07"
    assert value_text(12) == "12" and value_text(-0.0) == "0"
    assert value_text("adam") == "adam" and value_text(True) == "True"
