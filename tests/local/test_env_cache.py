"""The local backend's environments are cached by what a package holds, not by its archive's bytes.

Two specs that use the same trainer stage two sdists (under two job dirs, built at two times): the
archives differ in their tar headers, but the package layer is the same, so the second spec
installs nothing.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from provider.backends.local import envs
from provider.packaging.sdist import build_sdist

ROOT = Path(__file__).resolve().parents[2]
TRAINER = ROOT / "examples" / "trainers" / "simple" / "trainer"


def test_a_rebuilt_sdist_has_another_file_digest_but_the_same_content(tmp_path: Path) -> None:
    first = build_sdist(TRAINER, tmp_path / "a")
    time.sleep(1.1)  # tar headers keep whole seconds
    os.utime(TRAINER / "task.py")  # a checkout, a touch: the sources' times change, not their bytes
    second = build_sdist(TRAINER, tmp_path / "b")
    assert envs.file_digest(first) != envs.file_digest(second)
    assert envs.content_digest(first) == envs.content_digest(second)


def test_a_changed_trainer_has_another_content_digest(tmp_path: Path) -> None:
    pkg = tmp_path / "proj" / "trainer"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "task.py").write_text("print(1)\n")
    before = envs.content_digest(build_sdist(pkg, tmp_path / "a"))
    (pkg / "task.py").write_text("print(2)\n")
    assert envs.content_digest(build_sdist(pkg, tmp_path / "b")) != before


@pytest.mark.slow
def test_the_second_spec_with_the_same_trainer_installs_nothing(tmp_path: Path) -> None:
    first = build_sdist(TRAINER, tmp_path / "a")
    time.sleep(1.1)
    second = build_sdist(TRAINER, tmp_path / "b")
    cache = tmp_path / "envs"
    log = tmp_path / "setup.log"
    one = envs.ensure(cache, [first], log)
    installs = log.read_text().count("$ ")
    two = envs.ensure(cache, [second], log)
    assert two == one
    assert log.read_text().count("$ ") == installs  # no pip ran for the second
