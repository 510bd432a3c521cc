"""The console as a person sees it, in Debian's headless chromium: real jobs, real pages."""

from __future__ import annotations

import math
import re
from typing import Any

import pytest

from provider.backends.base import JobState

from .conftest import World, screenshot, wait_until

pytestmark = pytest.mark.slow


def _error_of(world: World, name: str) -> str | None:
    backend = world.vertex if name == "emulated-job" else world.local
    return backend.get(world.jobs[name].id).error


def row(page: Any, name: str) -> Any:
    return page.locator("#job-rows tr", has_text=name)


def test_jobs_list_shows_every_job_with_its_state_and_filters(world: World, page: Any) -> None:
    page.goto(world.url)
    for name, state in (("finished-job", "SUCCEEDED"), ("failed-job", "FAILED"), ("tuning-job", "SUCCEEDED"),
                        ("running-job", "RUNNING"), ("emulated-job", "SUCCEEDED")):
        r = row(page, name)
        r.first.wait_for()
        assert r.locator(".state").first.inner_text() == state, (name, world.jobs[name].id, _error_of(world, name))
    failed = row(page, "failed-job").first
    assert "bad" in (failed.locator(".state").get_attribute("class") or "")
    assert "ok" in (row(page, "finished-job").first.locator(".state").get_attribute("class") or "")
    stack_row = row(page, "stack-job").first
    assert "team-local" in stack_row.inner_text() and "vision" in stack_row.inner_text()
    assert "n1-standard-8 + 1 x T4" in stack_row.inner_text()  # provider.spec.hardware's line
    assert stack_row.locator("td.num").inner_text() == "1"
    emulated = row(page, "emulated-job").first
    assert "emu" in emulated.inner_text() and "nlp" in emulated.inner_text()
    assert "n1-standard-8" in emulated.inner_text()  # from the stack's spec: Vertex AI's answer has no request
    # newest first
    names = [n.strip() for n in page.locator("#job-rows tr td:nth-child(2) a").all_inner_texts()]
    assert names.index("cancel-me") < names.index("finished-job")
    screenshot(page, "console-jobs.png")

    for field, value, shown in (("state", "FAILED", ["failed-job"]), ("stack", "emu", ["emulated-job"]),
                                ("q", "tuning", ["tuning-job"])):
        page.select_option("select[name=state]", value if field == "state" else "")
        page.select_option("select[name=stack]", value if field == "stack" else "")
        page.fill("input[name=q]", value if field == "q" else "")
        page.wait_for_function(f"() => document.getElementById('job-rows').dataset.query === "
                               f"'?state={value if field == 'state' else ''}&stack={value if field == 'stack' else ''}"
                               f"&q={value if field == 'q' else ''}'")
        names = [n.strip() for n in page.locator("#job-rows tr[data-job] td:nth-child(2) a").all_inner_texts()]
        assert names == shown, (field, value, {n: _error_of(world, n) for n in world.jobs})
        assert f"{field}={value}" in page.url  # the address keeps the filter


def test_the_list_updates_live_without_a_reload(world: World, page: Any) -> None:
    from tests.local.conftest import submit

    from .conftest import probe_spec

    page.goto(world.url)
    row(page, "finished-job").first.wait_for()
    page.evaluate("() => { window.sameDocument = true; }")
    job = submit(world.local, probe_spec("late-job", args=["--steps", "1"]))
    row(page, "late-job").first.wait_for(timeout=120_000)
    world.local.wait(job.id, timeout=300)
    page.wait_for_function("() => [...document.querySelectorAll('#job-rows tr')]"
                           ".some(r => r.innerText.includes('late-job') && r.dataset.state === 'SUCCEEDED')",
                           timeout=120_000)
    assert page.evaluate("() => window.sameDocument") is True  # no reload happened


def test_a_running_job_streams_its_logs_with_the_replica_prefixes(world: World, page: Any) -> None:
    job = world.jobs["running-job"]
    page.goto(f"{world.url}jobs/local/{job.id}")
    assert page.locator("#job-state").inner_text() == "RUNNING"
    page.wait_for_function("() => /\\[workerpool0-0\\] workerpool0-0: step \\d+/.test("
                           "document.getElementById('log').textContent)", timeout=120_000)
    first = _steps(page)
    page.wait_for_function(f"() => (document.getElementById('log').textContent.match(/: step \\d+/g) || [])"
                           f".length > {len(first)} + 2", timeout=120_000)
    later = _steps(page)
    assert later[: len(first)] == first and len(later) > len(first)  # lines keep coming, in order, on one page
    replicas = page.locator("table.replicas tbody tr")
    assert replicas.count() == 1 and "running" in replicas.first.inner_text()
    assert page.locator("details.spec summary", has_text="Request").count() == 1
    assert '"workerPoolSpecs"' in page.locator("details.spec pre").first.text_content()
    assert "Cancel job" in page.locator("button.danger").inner_text()
    screenshot(page, "console-job-logs.png")


def _steps(page: Any) -> list[str]:
    return re.findall(r"step (\d+)", page.locator("#log").text_content())


def test_a_finished_job_shows_all_its_logs_and_its_output(world: World, page: Any) -> None:
    job = world.jobs["finished-job"]
    page.goto(f"{world.url}jobs/local/{job.id}")
    page.wait_for_function("() => document.getElementById('log-status').textContent.includes('ended')")
    text = page.locator("#log").text_content()
    assert "[workerpool0-0] workerpool0-0: step 1" in text and "[workerpool0-0] workerpool0-0: done" in text
    assert "gs://test-bucket/out/finished-job" in page.locator("dl.facts").inner_text()
    assert "checkpoints/workerpool0-0.json" in page.locator("section.artifacts").inner_text()  # what the probe wrote
    assert page.locator("button.danger").count() == 0  # nothing to cancel


TIMED = re.compile(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z) \[[\w/-]+\] ")


@pytest.mark.parametrize(("source", "name"), [("local", "failed-job"), ("emu", "emulated-job")])
def test_the_log_stream_shows_each_lines_time_in_time_order(world: World, page: Any, source: str, name: str) -> None:
    """Every line the page shows starts with the RFC 3339 time it was written (as ``trainjobs logs``
    prints it), and the lines of all replicas come in time order: the local backend's two replicas,
    the emulator's Cloud Logging entries."""
    job = world.jobs[name]
    page.goto(f"{world.url}jobs/{source}/{job.id}")
    page.wait_for_function("() => document.getElementById('log-status').textContent.includes('ended')",
                           timeout=120_000)
    lines = [line for line in page.locator("#log").text_content().splitlines() if line]
    assert lines and all(TIMED.match(line) for line in lines), lines
    times = [line.split(" ", 1)[0] for line in lines]
    assert times == sorted(times), lines  # fixed-width UTC times sort as text
    assert any("[workerpool0-0] workerpool0-0: " in line for line in lines), lines


def test_a_failed_job_shows_its_error_and_the_failed_replica(world: World, page: Any) -> None:
    job = world.local.get(world.jobs["failed-job"].id)
    page.goto(f"{world.url}jobs/local/{job.id}")
    error = page.locator(".job-error")
    assert error.is_visible()
    assert job.error and job.error.splitlines()[0] in error.inner_text()
    assert "failed" in page.locator("table.replicas").inner_text()
    page.select_option("#log-replica", "workerpool0-0")
    page.wait_for_function("() => document.getElementById('log').textContent.includes("
                           "'[workerpool0-0] workerpool0-0: failing on purpose at step 1')")
    assert "[workerpool1-0]" not in page.locator("#log").text_content()


def test_a_tuning_job_charts_each_trial_the_best_so_far_and_the_parameter(world: World, page: Any) -> None:
    job = world.local.get(world.jobs["tuning-job"].id)
    assert job.state is JobState.SUCCEEDED
    page.goto(f"{world.url}jobs/local/{job.id}")
    charts = page.locator("svg.chart")
    assert charts.count() == 2
    trials_chart, scatter = charts.nth(0), charts.nth(1)
    assert "goal: MAXIMIZE" in trials_chart.locator(".chart-title").text_content()
    assert trials_chart.locator("circle.dot:not(.best)").count() + trials_chart.locator("circle.dot.best").count() == 6
    assert trials_chart.locator("circle.dot.best").count() == 1
    best_tip = trials_chart.locator("circle.dot.best title").text_content()
    assert best_tip.startswith(f"trial {job.best_trial}:")
    points = trials_chart.locator("polyline.best-so-far").get_attribute("points").split()
    ys = [float(p.split(",")[1]) for p in points]
    assert ys == sorted(ys, reverse=True)  # MAXIMIZE: the best-so-far line never goes down on screen
    assert "score against lr" in scatter.locator(".chart-title").text_content()
    assert scatter.locator("circle.dot").count() == 5
    rows = page.locator("table.trials tbody tr")
    assert rows.count() == 5
    best_row = page.locator("table.trials tr.best")
    assert best_row.count() == 1 and "0.3" in best_row.inner_text()
    screenshot(page, "console-tuning.png")


def test_a_log_scaled_parameter_is_on_a_log_axis_and_values_have_six_digits(world: World, page: Any) -> None:
    from provider.console.charts import value_text

    job = world.local.get(world.jobs["lr-search"].id)
    assert job.state is JobState.SUCCEEDED
    lrs = {t.id: float(dict(t.parameters)["lr"]) for t in job.trials if t.metric is not None}
    assert len(lrs) == 3 and any(len(repr(v)) > 12 for v in lrs.values())  # the values the table must shorten
    page.goto(f"{world.url}jobs/local/{job.id}")
    column = page.locator("table.trials thead th").all_text_contents().index("lr")
    for row in page.locator("table.trials tbody tr").all():
        cells = row.locator("td").all_text_contents()
        lr = lrs[cells[0].replace("★", "").strip()]
        assert len(re.sub(r"e.*|[^0-9]", "", cells[column]).lstrip("0")) <= 6, cells  # 6 significant digits
        assert abs(float(cells[column]) - lr) <= lr * 1e-5
    scatter = page.locator("svg.chart").nth(1)
    assert scatter.locator(".axis-label").first.text_content() == "lr (log scale)"
    dots = scatter.locator("circle.dot").all()
    tips = [d.locator("title").text_content() for d in dots]
    by_trial = {t.id: t for t in job.trials}
    assert sorted(tips) == sorted(f"trial {i}: lr = {value_text(lr)}, score = {value_text(by_trial[i].metric)}"
                                  for i, lr in lrs.items())  # the table's formatting, in the tooltips too
    xs = sorted((lrs[tip.split(":")[0].split()[1]], float(d.get_attribute("cx"))) for tip, d in zip(tips, dots))
    (a, xa), (b, xb), (c, xc) = xs  # on a log axis, x is linear in log10(lr)
    slope = (xc - xa) / math.log10(c / a)
    assert abs(xa + slope * math.log10(b / a) - xb) < 1.0


def test_a_stack_shows_its_jobs_gpus_against_its_quota_cost_and_policy(world: World, page: Any) -> None:
    from provider.gitops.capacity import capacity
    from provider.validation.rules import Context, Target
    from provider.validation.validator import validate_data

    from .conftest import probe_spec

    page.goto(f"{world.url}stacks/team-local")
    assert page.locator("#gpus-held").inner_text() == "1 / 4"
    model = validate_data(probe_spec("stack-job", gpus=(1, 0, 0, 0), scheduling={"maxRunningTime": "7200s"}),
                          "spec", Context(target=Target.LOCAL)).job
    assert model is not None
    hours = f"{capacity(model).max_gpu_hours:.1f}"
    assert hours == "2.0"
    text = page.locator("section.usage").inner_text()
    assert hours in text and "not billed" in text
    assert "stack-job" in page.locator("table.jobs").inner_text()
    assert "finished-job" not in page.locator("table.jobs").inner_text()
    policy = page.locator("table.kv").inner_text()
    assert "maxGpusPerStack\t4" in policy and "maxGpusPerJob\t2" in policy
    screenshot(page, "console-stack.png")


def test_an_emulator_job_through_a_vertex_stack(world: World, page: Any) -> None:
    job = world.jobs["emulated-job"]
    page.goto(f"{world.url}jobs/emu/{job.id}")
    assert page.locator("#job-state").inner_text() == "SUCCEEDED"
    facts = page.locator("dl.facts").inner_text()
    assert f"stack emu (vertex, {world.emulator and 'test-project'}/us-central1 through {world.emulator.endpoint})" in facts
    link = page.locator("dl.facts a[href^='https://console.cloud.google.com/']")
    assert link.count() == 1 and job.id in (link.get_attribute("href") or "")
    # its logs come from the emulator's Cloud Logging entries.list, with the local prefixes
    page.wait_for_function("() => document.querySelector('section.logs').innerText.includes('[workerpool0-0]')",
                           timeout=120_000)
    assert "files in gs://test-bucket/out" in page.locator("section.artifacts").inner_text()  # from its storage
    spec = page.locator("details.spec", has_text="Spec (specs/emu/emulated-job.yaml)")
    spec.locator("summary").click()
    assert "name: emulated-job" in spec.locator("pre").inner_text()
    page.goto(f"{world.url}stacks/emu")
    assert page.locator("#gpus-held").inner_text() == "0 / 8"
    assert "emulated-job" in page.locator("table.jobs").inner_text()


def test_cancel_asks_first_and_then_cancels(world: World, page: Any) -> None:
    job = world.jobs["cancel-me"]
    page.goto(f"{world.url}jobs/local/{job.id}")
    messages: list[str] = []
    page.once("dialog", lambda d: (messages.append(d.message), d.dismiss()))
    page.click("button.danger")
    page.wait_for_timeout(500)
    assert messages and "Cancel cancel-me?" in messages[0]
    assert not world.local.get(job.id).state.terminal  # dismissed: nothing happened
    page.once("dialog", lambda d: d.accept())
    page.click("button.danger")
    wait_until(lambda: world.local.get(job.id).state in (JobState.CANCELLING, JobState.CANCELLED), 60, "the cancel")
    # The click posts a form: while the next page loads, its #job-state may not be parsed yet (hence ?.).
    page.wait_for_function("() => ['CANCELLING', 'CANCELLED'].includes("
                           "document.getElementById('job-state')?.textContent.trim())")
    assert page.locator("button.danger").count() == 0  # the page after the cancel has no Cancel button
    assert world.local.wait(job.id, timeout=60).state is JobState.CANCELLED
    page.wait_for_function("() => document.getElementById('job-state')?.textContent.trim() === 'CANCELLED'")
    assert page.locator("form[data-confirm]").count() == 0  # nor after the live refresh


def test_a_cancel_without_the_pages_token_is_refused(world: World, page: Any) -> None:
    job = world.jobs["running-job"]
    response = page.request.post(f"{world.url}jobs/local/{job.id}/cancel", form={"token": "forged"})
    assert response.status == 403 and "stale or came from another site" in response.text()
    assert world.local.get(job.id).state is JobState.RUNNING


@pytest.mark.parametrize(("path", "status", "says"), [
    ("jobs/local/123456789", 404, "the local backend: no local job '123456789'"),
    ("jobs/nowhere/1", 404, "no source 'nowhere'"),
    ("stacks/nope", 404, "no stack 'nope' in stacks/"),
    ("no/such/page", 404, "no page /no/such/page"),
])
def test_bad_input_gets_a_page_that_says_what_and_how_to_fix_it(world: World, page: Any, path: str, status: int,
                                                                 says: str) -> None:
    response = page.goto(world.url + path)
    assert response.status == status
    text = page.locator("main").inner_text()
    assert says in text and "Traceback" not in page.content()


def test_an_unreachable_backend_and_missing_credentials_say_so(world: World, page: Any) -> None:
    page.goto(f"{world.url}stacks/dead")
    error = page.locator(".source-error").first.inner_text()
    assert "stack dead (vertex, test-project/us-central1 through http://127.0.0.1:9)" in error
    assert "trainjobs emulator" in error  # how to fix it
    page.goto(f"{world.url}stacks/nocreds")
    error = page.locator(".source-error").first.inner_text()
    assert "credentials" in error and "gcloud auth application-default login" in error
    assert page.locator("section.usage").inner_text().startswith("unknown")  # no figures made up
    assert "Traceback" not in page.content()


def test_a_source_without_credentials_gets_one_banner_per_page(world: World, page: Any) -> None:
    from .conftest import start_console, stop_console

    proc, url = start_console(world.root, world.env, "--stack", "nocreds", "--stack", "emu")
    try:
        for path in ("", "stacks/nocreds"):
            page.goto(url + path)
            banners = page.locator(".source-error")
            assert banners.count() == 1, banners.all_inner_texts()
            text = banners.first.inner_text()
            assert "stack nocreds" in text and text.count("gcloud auth application-default login") == 1, text
        page.goto(url)
        page.wait_for_function("() => document.querySelectorAll('#job-rows tr[data-job]').length > 0")
        page.evaluate("document.querySelectorAll('#job-rows tr').forEach(r => r.dataset.old = '1')")
        page.wait_for_function("() => !document.querySelector('#job-rows tr[data-old]')")  # a live refresh
        assert page.locator(".source-error").count() == 1
    finally:
        stop_console(proc)
