"""Preview, replace order and checkouts: the program's inputs through the SDK's own host.

``pulumi preview`` (and the preview step of ``pulumi up``) sends Check and Diff inputs that may
be unknown: the engine's sentinel ``rpc.UNKNOWN``, which the host turns into an Unknown object
at any depth. Every input of a job, and every value nested in its request and spec, is made
unknown here in turn; the whole program is also run in preview mode under mocks, with built
images and service accounts unknown, for every stack in stacks/, and its registered inputs go to
the host: Check, then Diff against the state of an earlier ``pulumi up``.

The program does not carry the request: Check builds it (provider.resources.job_request) and
returns it among the checked inputs, which are what the engine stores and sends to Diff. So the
state here is the checked inputs of an earlier run, and a Diff's news are Check's answer.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pulumi.runtime import rpc

from provider.resources.job_args import JobArgs
from provider.resources.job_diff import WHERE
from provider.resources.job_request import MADE_OF, decode, encode
from provider.resources.unknowns import UNKNOWN, is_unknown
from provider.stack.membership import StackIndex

from .conftest import ROOT, by_type, project_copy, registration, run_program, stack_config
from .host import DiffAnswer, ProviderHost

pytestmark = pytest.mark.slow

JOB = "pulumi-python:dynamic/trainjobs:TrainingJob"
STACKS = sorted(s.name for s in StackIndex.load(ROOT / "stacks").stacks)
OUTPUTS = {"jobId": "123", "resourceName": "projects/p/locations/l/customJobs/123", "state": "RUNNING",
           "createTime": "2026-01-01T00:00:00Z", "startTime": "", "endTime": "", "error": "", "consoleUrl": "",
           "outputDir": "", "trials": 0, "bestTrial": "", "waitNotice": ""}


def state(inputs: dict[str, Any]) -> dict[str, Any]:
    """What the engine keeps after a create: the inputs and the outputs (the olds of a Diff)."""
    return {**copy.deepcopy(inputs), **OUTPUTS}


def jobs(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    assert report["error"] is None, report["error"]
    return {name: report["dynamicInputs"][name] for name in by_type(report, JOB)}


def checked_jobs(host: ProviderHost, report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Each job's checked inputs: the program's inputs through Check (which builds the request)."""
    out = {}
    for name, inputs in jobs(report).items():
        checked, failures = host.check(inputs, name=name)
        assert failures == [], (name, failures)
        out[name] = checked
    return out


def leaves(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield from leaves(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from leaves(v, (*path, i))
    else:
        yield path


def with_unknown(value: dict[str, Any], path: tuple[Any, ...]) -> dict[str, Any]:
    out = copy.deepcopy(value)
    target: Any = out
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = UNKNOWN
    return out


@pytest.fixture(scope="module")
def host() -> Iterator[ProviderHost]:
    with ProviderHost() as h:
        yield h


@pytest.fixture(scope="module")
def programs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, dict[str, Any]]]:
    """The program's inputs of each job (no request)."""
    tmp = tmp_path_factory.mktemp("declared")
    return {stack: jobs(run_program(tmp, stack)) for stack in ("local", "vision-dev")}


@pytest.fixture(scope="module")
def declared(host: ProviderHost, programs: dict[str, dict[str, dict[str, Any]]]) -> dict[str, dict[str, dict[str, Any]]]:
    """The checked inputs of each job: what the engine stores (the request built by Check)."""
    return {stack: {name: checked_jobs_one(host, name, inputs) for name, inputs in by_name.items()}
            for stack, by_name in programs.items()}


def checked_jobs_one(host: ProviderHost, name: str, inputs: dict[str, Any]) -> dict[str, Any]:
    checked, failures = host.check(inputs, name=name)
    assert failures == [], (name, failures)
    request = checked["request"]  # one property, the body's canonical JSON
    assert "request" not in inputs and isinstance(decode(request), dict) and request == encode(decode(request)), name
    return checked


def test_the_sentinel_is_the_engines() -> None:
    assert UNKNOWN == rpc.UNKNOWN
    from pulumi.output import Unknown

    assert is_unknown(UNKNOWN) and is_unknown(Unknown()) and not is_unknown("04da6b54")


MAKES_THE_REQUEST = set(JobArgs.props_of(MADE_OF))


def _expected(key: str) -> tuple[str, tuple[str, ...]]:
    replaces = ({key} & set(WHERE)) | ({"request"} if key in MAKES_THE_REQUEST | {"request"} else set())
    if replaces:
        return "DIFF_SOME", tuple(sorted(replaces))  # it may move the job or change what runs: a replace
    if key == "desiredState":
        return "DIFF_SOME", ()  # it may become CANCELLED: an update
    return "DIFF_NONE", ()


@pytest.mark.parametrize("stack", ["local", "vision-dev"])
def test_every_input_may_be_unknown(host: ProviderHost, programs: dict[str, Any], declared: dict[str, Any],
                                    stack: str) -> None:
    """Each of the program's inputs (and the request, as a state or an older program holds it) unknown in
    turn: Check fails nothing, and the request it returns is unknown as a whole where the key is
    something the request is made of (the image, the account, the spec, ...), so Diff replaces."""
    for name, inputs in programs[stack].items():
        olds = state(declared[stack][name])
        for key in sorted((set(inputs) | set(WHERE) | {"request"}) - {"__provider"}):
            news = {**inputs, key: UNKNOWN}
            checked, failures = host.check(news, olds, name=name)
            assert failures == [], (name, key, failures)
            assert is_unknown(checked[key])
            assert is_unknown(checked["request"]) == (key in MAKES_THE_REQUEST | {"request"}), (name, key)
            answer = host.diff(olds["jobId"], olds, checked, name=name)
            changes, replaces = _expected(key)
            assert (answer.changes, answer.replaces) == (changes, replaces), (name, key, answer)
            if replaces:
                assert answer.delete_before_replace  # the default order: the old job goes first


def test_unknowns_nested_in_the_request_replace_unless_only_labels(host: ProviderHost,
                                                                     declared: dict[str, Any]) -> None:
    for name, inputs in declared["vision-dev"].items():
        olds = state(inputs)
        body = decode(inputs["request"])  # a map, as an older program carried it: unknowns at any depth
        for path in leaves(body):
            news = {**inputs, "request": with_unknown(body, path)}
            _, failures = host.check(news, olds, name=name)
            assert failures == [], (name, path, failures)
            answer = host.diff("1", olds, news, name=name)
            if path[0] == "labels":
                assert answer == DiffAnswer("DIFF_NONE", (), False), (name, path)
            else:
                assert (answer.changes, answer.replaces) == ("DIFF_SOME", ("request",)), (name, path)


def test_unknowns_nested_in_the_spec_are_left_to_pulumi_up(host: ProviderHost, programs: dict[str, Any],
                                                           declared: dict[str, Any]) -> None:
    for name, inputs in declared["local"].items():
        olds = state(inputs)
        for path in leaves(inputs["spec"]):
            news = {**inputs, "spec": with_unknown(inputs["spec"], path)}  # beside a known request
            _, failures = host.check(news, olds, name=name)
            assert failures == [], (name, path, failures)
            assert host.diff("1", olds, news, name=name).changes == "DIFF_NONE"
            # from the program (no request): what runs cannot be known yet, a replace in the preview
            checked, failures = host.check({**programs["local"][name], "spec": news["spec"]}, olds, name=name)
            assert failures == [] and is_unknown(checked["request"]), (name, path, failures)
            assert host.diff("1", olds, checked, name=name).replaces == ("request",), (name, path)
        bad = copy.deepcopy(programs["local"][name])  # known values are still checked alongside an unknown
        bad["spec"]["spec"]["workerPools"]["chief"]["machineType"] = "n1-standard-999"
        bad["wait"] = {"until": UNKNOWN, "timeout": UNKNOWN}
        _, failures = host.check(bad, olds, name=name)
        assert [p for p, _ in failures] == ["spec"], failures


def test_a_cancelled_job_with_an_unknown_desired_state_may_run_again(host: ProviderHost,
                                                                      declared: dict[str, Any]) -> None:
    inputs = next(iter(declared["local"].values()))
    olds = state({**inputs, "desiredState": "CANCELLED"})
    answer = host.diff("1", olds, {**inputs, "desiredState": UNKNOWN})
    assert (answer.changes, answer.replaces) == ("DIFF_SOME", ("desiredState",))


# -- replace order ---------------------------------------------------------------------------------
def test_the_replace_order_is_the_stacks_choice(host: ProviderHost, declared: dict[str, Any]) -> None:
    inputs = next(iter(declared["vision-dev"].values()))
    olds = state(inputs)
    body = decode(inputs["request"])
    changed = {**inputs, "request": encode({**body, "displayName": "another run"})}
    assert host.diff("1", olds, changed) == DiffAnswer("DIFF_SOME", ("request",), True)
    assert host.diff("1", olds, {**changed, "replace": "createFirst"}) == DiffAnswer("DIFF_SOME", ("request",), False)
    assert host.diff("1", olds, {**changed, "replace": "deleteFirst"}).delete_before_replace
    _, failures = host.check({**inputs, "replace": "sideways"})
    assert failures == [("replace", "replace is 'sideways'; allowed: deleteFirst, createFirst")]


def test_the_program_sets_replace_order_and_custom_timeouts(tmp_path: Path) -> None:
    default = run_program(tmp_path, "local")
    for name in by_type(default, JOB):
        reg = registration(default, name)
        assert reg["deleteBeforeReplace"] is True
        assert reg["customTimeouts"] == {"create": "", "update": "", "delete": ""}
        assert default["dynamicInputs"][name]["replace"] == "deleteFirst"
        assert "timeouts" not in default["dynamicInputs"][name]
    config = stack_config("local", **{"trainjobs:replace": "createFirst",
                                      "trainjobs:customTimeouts": {"create": "600s", "delete": "90s"}})
    chosen = run_program(tmp_path, "local", config)
    assert chosen["error"] is None, chosen["error"]
    for name in by_type(chosen, JOB):
        reg = registration(chosen, name)
        assert reg["deleteBeforeReplace"] is False
        assert reg["customTimeouts"] == {"create": "600s", "update": "", "delete": "90s"}
        assert chosen["dynamicInputs"][name]["timeouts"] == {"create": 600, "delete": 90}


# -- two checkouts ---------------------------------------------------------------------------------
def test_two_checkouts_of_one_stack_show_no_changes(tmp_path: Path, host: ProviderHost) -> None:
    (tmp_path / "alice").mkdir()
    first = project_copy(tmp_path / "alice")
    second_parent = tmp_path / "bob" / "src" / "work"
    second_parent.mkdir(parents=True)
    second = project_copy(second_parent)
    for stack in STACKS:
        a = run_program(tmp_path, stack, project=first)
        b = run_program(tmp_path, stack, project=second)
        assert a["error"] is None and b["error"] is None, (a["error"], b["error"])
        for report, checkout in ((a, first), (b, second)):
            text = json.dumps([report["resources"], report["dynamicInputs"]])
            assert str(checkout) not in text and str(tmp_path) not in text, stack  # no local path in the state
        assert {n: r["inputs"] for n, r in a["resources"].items()} == \
               {n: r["inputs"] for n, r in b["resources"].items()}, stack
        # each checkout's Check (its host started there, as the engine starts it) builds the same request
        with ProviderHost(cwd=first) as host_a, ProviderHost(cwd=second) as host_b:
            olds, news = checked_jobs(host_a, a), checked_jobs(host_b, b)
        assert str(tmp_path) not in json.dumps(news), stack
        for name, inputs in news.items():
            assert inputs["request"] == olds[name]["request"], (stack, name)
            answer = host.diff("1", state(olds[name]), inputs, name=name)
            assert answer == DiffAnswer("DIFF_NONE", (), False), (stack, name, answer)


def test_package_sources_are_relative_to_the_project(tmp_path: Path) -> None:
    """The engine starts the provider in the program's directory, where a relative source resolves
    (staging from it runs in test_provider_host's creates, whose host runs in the project copy)."""
    project = project_copy(tmp_path)
    inputs = next(i for i in jobs(run_program(tmp_path, "local", project=project)).values() if i.get("package"))
    assert not Path(inputs["package"]["source"]).is_absolute()
    assert (project / inputs["package"]["source"]).is_dir()
    assert "projectRoot" not in inputs


# -- the whole program in preview ------------------------------------------------------------------
@pytest.mark.parametrize("stack", STACKS)
def test_the_program_in_preview_through_the_host(tmp_path: Path, host: ProviderHost, stack: str) -> None:
    before = checked_jobs(host, run_program(tmp_path, stack))  # the state an earlier `pulumi up` left
    preview = run_program(tmp_path, stack, preview=True)
    news = jobs(preview)
    assert sorted(news) == sorted(before)
    vertex = news and next(iter(news.values()))["backend"] == "vertex"
    for name, inputs in news.items():
        olds = state(before[name])
        assert "request" not in inputs and is_unknown(inputs["serviceAccount"]) == bool(vertex), name
        checked, failures = host.check(inputs, olds, name=name)
        assert failures == [], (stack, name, failures)
        assert is_unknown(checked["request"]) == bool(vertex), name  # the account (and images) unknown
        answer = host.diff("1", olds, checked, name=name)
        if vertex:  # what runs may change: the preview shows a replace, never an error
            assert answer == DiffAnswer("DIFF_SOME", ("request",), True), (stack, name, answer)
        else:
            assert answer == DiffAnswer("DIFF_NONE", (), False), (stack, name, answer)
    images = by_type(preview, "docker-build:index:Image")
    if stack == "vision-dev":
        assert images and all(i["outputs"]["ref"] == UNKNOWN for i in images.values())


# -- a create whose wait ran out -----------------------------------------------------------------------
def test_the_program_warns_with_a_jobs_wait_notice(tmp_path: Path) -> None:
    """create() records a job whose wait ran out and says so in waitNotice: the user sees it as a
    warning on that job (test_provider_host checks create's side through the host)."""
    quiet = run_program(tmp_path, "local")
    assert quiet["error"] is None and quiet["warnings"] == []
    report = run_program(tmp_path, "local", wait_notice="training job {name} (mock-{name}) was still RUNNING")
    assert report["error"] is None, report["error"]
    assert sorted(report["warnings"]) == sorted(f"training job {n} (mock-{n}) was still RUNNING"
                                                for n in by_type(report, JOB))


def test_the_program_passes_an_adopted_job_to_its_spec_only(tmp_path: Path) -> None:
    names = sorted(by_type(run_program(tmp_path, "local"), JOB))
    ref = "projects/local/locations/us-central1/customJobs/42"
    report = run_program(tmp_path, "local", stack_config("local", **{"trainjobs:adopt": {names[0]: ref}}))
    declared = jobs(report)
    assert declared[names[0]]["adopt"] == ref
    assert all("adopt" not in declared[n] for n in names[1:])
