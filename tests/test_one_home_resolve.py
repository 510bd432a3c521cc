"""Job id and name resolution: one algorithm (provider.backends.resolve) for the local backend,
Vertex AI and the console (issue 28, part 4)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from provider.backends.base import NotFound
from provider.backends.local.backend import LocalBackend
from provider.backends.resolve import Seen, resolve


@pytest.fixture
def local(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[LocalBackend, list[str]]]:
    """A local backend holding three job records, oldest first: train (stack a), train (stack b), other (a)."""
    monkeypatch.setenv("TRAINJOBS_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("TRAINJOBS_STORAGE", raising=False)
    backend = LocalBackend()
    ids = []
    for name, stack in (("train", "a"), ("train", "b"), ("other", "a")):
        job_dir = backend.store.create({"kind": "CustomJob", "parent": "projects/local/locations/us-central1",
                                        "display_name": name, "labels": {"trainjobs-stack": stack}, "request": {},
                                        "create_time": "2026-01-01T00:00:00Z"})
        ids.append(job_dir.name)
    yield backend, ids


def _seen(ids: list[str]) -> list[Seen]:
    """The same jobs as Vertex AI lists them (newest first, answered by resource name)."""
    return [Seen(i, f"projects/p/locations/l/customJobs/{i}", n)
            for i, n in reversed(list(zip(ids, ("train", "train", "other"), strict=True)))]


def test_local_and_vertex_resolve_the_same_references_alike(local: tuple[LocalBackend, list[str]]) -> None:
    backend, ids = local
    stacks = dict(zip(ids, ("a", "b", "a"), strict=True))

    def on_vertex(ref: str, stack: str | None) -> str:
        """What VertexBackend.resolve does with the same jobs listed (a full Vertex AI id: 10 digits or more)."""
        jobs = [j for j in _seen(ids) if stack is None or stacks[j.id] == stack]
        return resolve(ref, lambda: jobs, lambda r: r.isdigit() and len(r) >= 10, "Vertex AI job", "x").rsplit("/", 1)[-1]

    cases = [("train", None, ids[1]), ("train", "a", ids[0]), ("train", "b", ids[1]), ("other", None, ids[2]),
             (ids[0], None, ids[0]), (ids[0][:4], None, None), ("nothing", None, None), ("other", "b", None)]
    for ref, stack, expected in cases:
        labels = {"trainjobs-stack": stack} if stack else None
        if expected is None:
            with pytest.raises(NotFound):
                backend.resolve(ref, labels)
            with pytest.raises(NotFound):
                on_vertex(ref, stack)
            continue
        assert backend.resolve(ref, labels) == expected, (ref, stack)
        assert on_vertex(ref, stack) == expected, (ref, stack)


def test_a_prefix_is_unique_or_said_to_be_ambiguous(local: tuple[LocalBackend, list[str]]) -> None:
    backend, ids = local
    common = ids[0][:4]  # three ids made in the same second share their first digits
    with pytest.raises(NotFound, match=r"matches 3 local jobs in the local backend .*give more digits"):
        backend.resolve(common)
    assert backend.resolve(ids[2][:-1]) == ids[2]  # the last digit left out: still one job


def test_not_found_says_what_was_looked_for_and_where(local: tuple[LocalBackend, list[str]]) -> None:
    backend, _ = local
    with pytest.raises(NotFound) as err:
        backend.resolve("no_such_job", {"trainjobs-stack": "a"})
    message = str(err.value)
    assert "no local job 'no_such_job'" in message and "trainjobs-stack" in message
    assert "a job id, a unique id prefix, a resource name or a job name" in message


def test_the_console_finds_a_job_as_the_cli_does(local: tuple[LocalBackend, list[str]]) -> None:
    """The console's /jobs/SOURCE/JOB takes the same references as ``trainjobs status JOB``."""
    from provider.console.sources import Source

    backend, ids = local
    source = Source("local", backend)
    for ref in ("train", "other", ids[0], ids[2][:-1]):
        assert source.get(ref).id == backend.resolve(ref), ref
