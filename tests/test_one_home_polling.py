"""Waiting: one policy (provider.backends.polling: Backoff, poll_until with an injected clock,
retrying), and no waiting loop of its own anywhere else in provider/ (issue 28, part 4).

The loops that sleep and are not waits for a condition are named here, each with why it stays.
"""

from __future__ import annotations

import ast

import pytest

from provider.backends.polling import Backoff, poll_until, retrying

from .conftest import ROOT

# (module, function) -> why it sleeps or reads a clock in a loop without being a wait for a condition
KEPT = {
    ("provider/backends/polling.py", "poll_until"): "the policy itself",
    ("provider/backends/polling.py", "retrying"): "the policy itself (retries)",
    ("provider/backends/local/supervisor.py", "sleep"): "the supervisor's own loop: it runs the replicas and "
                                                        "writes their state each round until the job ends",
    ("provider/backends/local/supervisor.py", "single"): "the same loop (max running time is a rule of the job, "
                                                         "not a wait)",
    ("provider/backends/local/journal.py", "save_final"): "retries a write a fixed number of times; its waits "
                                                          "are a Backoff's (FINAL_WRITE)",
    ("provider/cli/live.py", "follow"): "trainjobs run's live view: it prints between polls",
    ("provider/cli/emulator.py", "run"): "serves until stopped",
    ("provider/emulator/server.py", "_watch"): "the server's idle-connection watchdog",
    ("provider/emulator/server.py", "_linger"): "drains a closing connection for a bounded time",
}


def _loops() -> set[tuple[str, str]]:
    """(module, function) of every sleep, constant-timeout wait() and clock-bound while loop in provider/."""
    found = set()
    for path in sorted((ROOT / "provider").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for func in ast.walk(tree):
            if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(func):
                sleeps = isinstance(node, ast.Call) and (
                    ast.unparse(node.func) in ("time.sleep", "sleep")
                    or (ast.unparse(node.func).endswith(".wait") and bool(node.args)
                        and isinstance(node.args[0], ast.Constant)))
                clocked = isinstance(node, ast.While) and any(
                    clock in ast.unparse(node) for clock in ("monotonic()", "time.time()"))
                if sleeps or clocked:
                    found.add((path.relative_to(ROOT).as_posix(), func.name))
    return found


def test_no_waiting_loop_outside_the_policy() -> None:
    loops = _loops()
    assert loops - KEPT.keys() == set(), "wait with provider.backends.polling.poll_until instead"
    assert set(KEPT) <= loops  # and the list names no loop that is gone


def test_poll_until_runs_on_the_injected_clock() -> None:
    now = [0.0]
    slept: list[float] = []

    def sleep(s: float) -> None:
        slept.append(s)
        now[0] += s

    value = poll_until(lambda: now[0], lambda t: False, Backoff.every(2.0), timeout=5.0, sleep=sleep,
                       clock=lambda: now[0])
    assert slept == [2.0, 2.0, 1.0] and value == 5.0  # the last wait cut to the time left


def test_every_is_a_steady_wait() -> None:
    delays = Backoff.every(0.25).delays()
    assert [next(delays) for _ in range(4)] == [0.25] * 4


def test_retrying_tries_attempts_times_with_the_policys_waits() -> None:
    calls: list[int] = []
    slept: list[float] = []

    def flaky() -> int:
        calls.append(1)
        raise ConnectionError("down")

    with pytest.raises(ConnectionError):
        retrying(flaky, Backoff(initial=1.0, multiplier=2.0, maximum=3.0, attempts=4, jitter=0.0),
                 lambda e: isinstance(e, ConnectionError), sleep=slept.append)
    assert len(calls) == 4 and slept == [1.0, 2.0, 3.0]


def test_a_wait_moved_onto_the_policy_still_ends() -> None:
    """A process that is never seen: half a second of polls (poll_until), then None."""
    from provider.backends.local.backend import _start_of

    assert _start_of(2**22 + 12345) is None  # no such pid: half a second of polls, then None
