"""The local backend's environments are cached by what a package holds, not by its archive's bytes.

Two specs that use the same trainer stage two sdists (under two job dirs, built at two times): the
archives differ in their tar headers, but the package layer is the same, so the second spec
installs nothing.
"""

from __future__ import annotations

import os
import tarfile
import time
from pathlib import Path
from typing import Any

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
def test_the_second_spec_with_the_same_trainer_installs_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = build_sdist(TRAINER, tmp_path / "a")
    time.sleep(1.1)
    second = build_sdist(TRAINER, tmp_path / "b")
    cache = tmp_path / "envs"
    log = tmp_path / "setup.log"
    opened: list[str] = []
    real_open = tarfile.open

    def counted(name: Any, *args: Any, **kwargs: Any) -> tarfile.TarFile:
        opened.append(Path(name).name)
        return real_open(name, *args, **kwargs)

    monkeypatch.setattr(tarfile, "open", counted)  # pip runs in its own process: only envs' reads count
    one = envs.ensure(cache, [first], log)
    assert opened == [first.name]  # requirements, content digest and whether they are static: one read
    monkeypatch.undo()
    installs = log.read_text().count("$ ")
    two = envs.ensure(cache, [second], log)
    assert two == one
    assert log.read_text().count("$ ") == installs  # no pip ran for the second


@pytest.mark.slow
def test_a_bare_source_archive_is_installed_with_what_its_setup_py_requires(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A notebook's ``tar`` of a folder with a setup.py (no PKG-INFO) says what it requires only once
    built: its install_requires reaches the trainer, not dropped with --no-deps."""

    src = tmp_path / "trainer-0.1"
    (src / "needs_pluggy").mkdir(parents=True)
    (src / "needs_pluggy" / "__init__.py").write_text("")
    (src / "setup.py").write_text("import setuptools\nsetuptools.setup(name='needs-pluggy', version='0.1', "
                                  "install_requires=['pluggy==1.7.0'], packages=['needs_pluggy'])\n")
    archive = tmp_path / "trainer-0.1.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(src, arcname=src.name)
    assert not envs.static_metadata(archive) and envs.requirements(archive) == []
    monkeypatch.setenv("PIP_NO_INDEX", "1")  # offline: pluggy and setuptools from the setup's wheelhouse
    monkeypatch.setenv("PIP_FIND_LINKS", str(ROOT / ".venv" / "wheelhouse"))
    heard: list[str] = []
    env = envs.ensure(tmp_path / "envs", [archive], tmp_path / "setup.log", heard.append)
    assert any("setup.py" in line and archive.name in line for line in heard), heard
    import subprocess

    out = subprocess.run([str(env.python), "-c", "import needs_pluggy, pluggy; print(pluggy.__name__)"],
                         env={"PYTHONPATH": str(env.pythonpath), "PATH": os.environ["PATH"]},
                         capture_output=True, text=True, check=False)
    assert out.returncode == 0 and out.stdout.strip() == "pluggy", out.stderr


def test_an_sdist_and_a_wheel_say_what_they_require_without_a_build(tmp_path: Path) -> None:
    sdist = build_sdist(TRAINER, tmp_path / "a")
    assert envs.static_metadata(sdist)
