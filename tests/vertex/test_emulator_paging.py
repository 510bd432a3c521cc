"""The emulator's list under change: page tokens that hold while jobs come and go, work per job returned.

Every call goes through google-cloud-aiplatform's JobServiceClient over REST (its pager sends the
page tokens back as they came); the malformed tokens are sent as raw HTTP, as a client could.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import Any

import pytest

from provider.emulator.server import Emulator
from tests.vertex.conftest import PARENT
from tests.vertex.test_emulator_api import create, http


def page(client: Any, size: int, token: str = "", **request: Any) -> tuple[list[str], str]:
    response = next(iter(client.list_custom_jobs(
        request={"parent": PARENT, "page_size": size, "page_token": token, **request}).pages))
    return [j.display_name for j in response.custom_jobs], response.next_page_token


def test_jobs_created_and_deleted_between_pages_are_neither_skipped_nor_repeated(client: Any) -> None:
    first = [create(client, f"first_{i}") for i in range(9)]
    expected = [j.display_name for j in reversed(first)]
    seen: list[str] = []
    added: list[Any] = []
    token = ""
    while True:
        names, token = page(client, 2, token)
        seen += names
        if not token:
            break
        added += [create(client, f"added_{len(added)}"), create(client, f"added_{len(added) + 1}")]
        if len(seen) == 4:  # the job the token points at goes away: the next page starts just below it
            client.delete_custom_job(name=next(j.name for j in first if j.display_name == names[-1])).result()
    assert seen == expected  # each job of the first listing exactly once, in order
    now, _ = page(client, 100)
    assert now == [j.display_name for j in reversed(added)] + [n for n in expected if n != seen[3]]


def _forged(token: str, position: object) -> str:
    """A real token with its position replaced (the request digest kept)."""
    data = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
    data["a"] = position
    return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")


@pytest.mark.parametrize("make", [
    lambda real: "not-a-token",
    lambda real: real[:-3],
    lambda real: base64.urlsafe_b64encode(b"[1, 2]").decode(),
    lambda real: _forged(real, "xy"),  # two characters are not a (create time, id) position
    lambda real: _forged(real, [1, 2]),
    lambda real: _forged(real, ["2026-01-01T00:00:00Z"]),
    lambda real: _forged(real, ["", ""]),
], ids=["not-base64-json", "truncated", "a-list", "a-string-position", "numbers", "one-part", "empty-parts"])
def test_a_malformed_page_token_is_refused_as_invalid_argument(emulator: Emulator, client: Any,
                                                               make: Callable[[str], str]) -> None:
    for i in range(3):
        create(client, f"job_{i}")
    _, real = page(client, 1)
    status, _, body = http(emulator, "GET", f"/v1/{PARENT}/customJobs?pageSize=1&pageToken={make(real)}")
    assert status == 400, body
    assert body["error"]["status"] == "INVALID_ARGUMENT" and body["error"]["message"] == "Invalid page token."


@pytest.fixture
def renders(emulator: Emulator, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ids of the jobs the service renders (looks up their local state for), in order."""
    seen: list[str] = []
    render = emulator.jobs.render

    def counted(record: dict[str, Any]) -> dict[str, Any]:
        seen.append(record["id"])
        return render(record)

    monkeypatch.setattr(emulator.jobs, "render", counted)
    return seen


def test_a_page_reads_the_state_of_the_jobs_it_returns_only(client: Any, renders: list[str]) -> None:
    jobs = [create(client, f"job_{i}", {"half": "a" if i % 2 else "b"}) for i in range(12)]
    renders.clear()
    assert page(client, 1, filter='display_name="job_0"') == (["job_0"], "")
    assert len(renders) == 1  # the eleven newer jobs were checked on their stored request
    renders.clear()
    names, token = page(client, 3, filter="labels.half=a")
    assert names == ["job_11", "job_9", "job_7"] and token
    assert renders == [j.name.rsplit("/", 1)[1] for j in jobs[11:6:-2]]  # not the fourth, which only says "more"
    renders.clear()
    assert page(client, 3, token, filter="labels.half=a") == (["job_5", "job_3", "job_1"], "")
    assert len(renders) == 3
    renders.clear()
    assert page(client, 2, filter='state="JOB_STATE_FAILED" AND display_name="job_0"')[0] == ["job_0"]
    assert len(renders) == 12  # a state filter needs every candidate's state
