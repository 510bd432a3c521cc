"""The shared wait: poll_until's backoff and monotonic deadline, and Polled's find, cancel and wait."""

from __future__ import annotations

import builtins
import itertools

import pytest

from provider.backends.base import JobState, JobStatus
from provider.backends.local.backend import LocalBackend
from provider.backends.polling import Backoff, Polled, poll_until
from provider.backends.vertex.backend import VertexBackend


class FakeClock:
    """A monotonic clock that only the fake sleep moves."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def test_backoff_grows_and_is_capped() -> None:
    delays = list(itertools.islice(Backoff(initial=1.0, multiplier=2.0, maximum=5.0, jitter=0.0).delays(), 6))
    assert delays == [1.0, 2.0, 4.0, 5.0, 5.0, 5.0]


def test_poll_until_returns_the_first_value_that_is_done() -> None:
    clock = FakeClock()
    values = iter([1, 2, 3, 4])
    got = poll_until(lambda: next(values), lambda v: v == 3, Backoff(initial=0.5, jitter=0.0), timeout=60,
                     sleep=clock.sleep, clock=clock)
    assert got == 3
    assert clock.sleeps == [0.5, 1.0]


def test_poll_until_ends_at_the_deadline_with_the_last_value() -> None:
    clock = FakeClock()
    fetched = itertools.count()
    got = poll_until(lambda: next(fetched), lambda v: False, Backoff(initial=2.0, multiplier=2.0, maximum=8.0,
                     jitter=0.0), timeout=10, sleep=clock.sleep, clock=clock)
    # 2 + 4 + 4 (the last sleep cut to the 4 s left), then one more fetch at the deadline.
    assert clock.sleeps == [2.0, 4.0, 4.0]
    assert got == 3
    assert clock.now == pytest.approx(1010.0)


def test_poll_until_without_a_timeout_waits_for_done() -> None:
    clock = FakeClock()
    values = iter(range(20))
    assert poll_until(lambda: next(values), lambda v: v == 19, Backoff(initial=1.0, maximum=3.0, jitter=0.0),
                      sleep=clock.sleep, clock=clock) == 19
    assert max(clock.sleeps) == 3.0


def test_a_wall_clock_jump_does_not_end_the_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    """The deadline is on time.monotonic(): time.time() jumping a day ahead changes nothing."""
    import time

    clock = FakeClock()
    monkeypatch.setattr(time, "time", lambda: 10.0**12)
    values = iter(range(10))
    assert poll_until(lambda: next(values), lambda v: v == 5, Backoff(initial=1.0, jitter=0.0), timeout=1000,
                      sleep=clock.sleep, clock=clock) == 5


def _status(state: JobState, job_id: str = "1") -> JobStatus:
    return JobStatus(id=job_id, kind="CustomJob", display_name="j", state=state, backend="fake",
                     create_time=job_id)


class FakeBackend(Polled):
    """States to return from get, one per call; records cancel requests."""

    poll = Backoff(initial=0.0, maximum=0.0, jitter=0.0)

    def __init__(self, states: builtins.list[JobState]) -> None:
        self.states = states
        self.got: builtins.list[str] = []
        self.cancelled: builtins.list[str] = []

    def get(self, job_id: str) -> JobStatus:
        self.got.append(job_id)
        return _status(self.states.pop(0) if len(self.states) > 1 else self.states[0], job_id)

    def list(self, labels: dict[str, str] | None = None) -> builtins.list[JobStatus]:
        return [_status(JobState.RUNNING, "2"), _status(JobState.FAILED, "1")]

    def request_cancel(self, status: JobStatus) -> str:
        self.cancelled.append(status.id)
        return f"name/{status.id}"


def test_find_is_the_newest_listed() -> None:
    assert FakeBackend([JobState.RUNNING]).find({"k": "v"}) == _status(JobState.RUNNING, "2")


def test_cancel_leaves_a_finished_job_alone() -> None:
    backend = FakeBackend([JobState.SUCCEEDED])
    assert backend.cancel("7", wait=30).state is JobState.SUCCEEDED
    assert backend.cancelled == []


def test_cancel_follows_the_job_by_the_reference_the_backend_gives() -> None:
    backend = FakeBackend([JobState.RUNNING, JobState.CANCELLING, JobState.CANCELLING, JobState.CANCELLED])
    assert backend.cancel("7", wait=30).state is JobState.CANCELLED
    assert backend.cancelled == ["7"]
    assert backend.got == ["7", "name/7", "name/7", "name/7"]


def test_cancel_without_wait_reads_the_job_once_more() -> None:
    backend = FakeBackend([JobState.RUNNING, JobState.CANCELLING])
    assert backend.cancel("7").state is JobState.CANCELLING
    assert backend.got == ["7", "name/7"]


def test_wait_stops_at_a_goal_state() -> None:
    backend = FakeBackend([JobState.QUEUED, JobState.PENDING, JobState.RUNNING, JobState.SUCCEEDED])
    assert backend.wait("7", until=(JobState.RUNNING,)).state is JobState.RUNNING


@pytest.mark.parametrize("cls", [LocalBackend, VertexBackend])
def test_both_backends_share_find_cancel_and_wait(cls: type[Polled]) -> None:
    for method in ("find", "cancel", "wait"):
        assert getattr(cls, method) is getattr(Polled, method)


def test_the_local_wait_polls_fast_and_is_capped() -> None:
    delays = list(itertools.islice(LocalBackend.poll.delays(), 12))
    assert delays[0] == 0.05 and max(delays) == 1.0 and delays == sorted(delays)
