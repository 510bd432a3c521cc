"""Fixtures of the gcloud tests that run converted jobs on the local backend."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ..conftest import ROOT

WHEELHOUSE = ROOT / ".venv" / "wheelhouse"


@pytest.fixture
def home(tmp_path: Path, env_cache: Path) -> Iterator[dict[str, str]]:
    """A local backend home whose pip installs from the offline wheelhouse only."""
    if not (WHEELHOUSE / "pluggy-1.7.0-py3-none-any.whl").is_file():
        pytest.fail(f"{WHEELHOUSE} has no pluggy wheel: run bash scripts/setup.sh dev")
    from ..local.conftest import local_home

    yield from local_home(tmp_path, env_cache, PIP_NO_INDEX="1", PIP_FIND_LINKS=str(WHEELHOUSE))
