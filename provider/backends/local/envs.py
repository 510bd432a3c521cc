"""Isolated environments for Python-package trainers, cached by content.

Two layers, so that editing a trainer does not reinstall its dependencies:

* ``envs/deps-<hash of requirements and Python>``: a venv holding what the packages require
  (like the prebuilt container under a Vertex AI Python job);
* ``envs/pkg-<hash of the package files>``: the packages themselves, installed with --no-deps.

A replica runs ``<deps>/bin/python -m MODULE`` with the package layer on PYTHONPATH. Each layer
is built once under a file lock and marked ready; a second run of the same package installs
nothing. Installs use this trainjobs' pip (``pip --python``), so the venvs need no pip of their own.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import threading
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

from provider.backends.local import store
from provider.backends.polling import Backoff, poll_until
from provider.core.record import Record


class EnvError(Exception):
    pass


class EnvCancelled(Exception):
    """The job was cancelled while its environment was built: pip was killed, the half-built layer removed."""


Cancelled = Callable[[], bool]


class PythonEnv(Record):
    """A Python-package trainer's cached environment: the venv's python, and the package layer for PYTHONPATH."""

    python: Path
    pythonpath: Path

    def command(self, module: str) -> list[str]:
        return [str(self.python), "-m", module]


def file_digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _requirements_from_metadata(text: str) -> list[str]:
    out = []
    for line in text.splitlines():
        if line.startswith("Requires-Dist:"):
            req = line.split(":", 1)[1].strip()
            if "extra ==" not in req.replace('"', "").replace("'", ""):
                out.append(req)
    return out


def _requirements_from_egg_info(text: str) -> list[str]:
    out = []
    for line in text.splitlines():
        if line.startswith("["):
            break  # extras and markers sections
        if line.strip():
            out.append(line.strip())
    return out


def _is_pkg_info(name: str) -> bool:
    return name.endswith("/PKG-INFO") and name.count("/") == 1


def _is_egg_requires(name: str) -> bool:
    return name.endswith(".egg-info/requires.txt") and name.count("/") == 2


class Staged(Record):
    """What one read of a staged package archive tells the environment cache."""

    requirements: tuple[str, ...]
    """What the built package requires (sdist: egg-info requires.txt, else PKG-INFO; wheel: METADATA).
    Empty for a source archive without either: pip reads its setup.py (``static``)."""
    digest: str
    """SHA-256 of what the package holds: its members' names, (for a tar) whether each is executable,
    and their bytes, not the archive's own bytes. An sdist rebuilt from the same sources (for another
    spec, or another job dir) has new timestamps in its tar headers and so another file digest, but
    the same content digest."""
    static: bool
    """Whether the archive says what it requires without being built: a wheel always does; a source
    archive when it holds PKG-INFO or an egg-info requires.txt. A bare tar of a folder with a
    ``setup.py`` (what notebooks make with ``tar``) does not: its ``install_requires`` is known only
    once pip runs ``setup.py``."""


def _header(name: str, size: int, executable: bool | None = None) -> bytes:
    """What the digest takes before a member's bytes (a tar's executable bit; a zip keeps none)."""
    return (f"{name}\0{size}\0" if executable is None else f"{name}\0{executable}\0{size}\0").encode()


def _requirements(egg: bytes | None, metadata: bytes | None) -> tuple[str, ...]:
    if egg is not None:
        return tuple(_requirements_from_egg_info(egg.decode()))
    return tuple(_requirements_from_metadata(metadata.decode())) if metadata is not None else ()


def _read_tar(path: Path) -> Staged:
    # One sequential read, in the archive's order (a .tar.gz seeks back only by decompressing again):
    # the first requires.txt or PKG-INFO counts; the digest then takes the members by name, so their
    # bytes are held meanwhile (a trainer's sdist is small; a wheel, read by name from a zip, is not held).
    files: list[tuple[str, bool, bytes]] = []
    with tarfile.open(path) as t:
        for member in t:
            if member.isfile():
                f = t.extractfile(member)
                files.append((member.name, member.mode & 0o111 != 0, f.read() if f else b""))
    egg = next((data for name, _, data in files if _is_egg_requires(name)), None)
    pkg_info = next((data for name, _, data in files if _is_pkg_info(name)), None)
    h = hashlib.sha256()
    for name, executable, data in sorted(files, key=lambda m: m[0]):
        h.update(_header(name, len(data), executable))
        h.update(data)
    return Staged(requirements=_requirements(egg, pkg_info), digest=h.hexdigest(),
                  static=egg is not None or pkg_info is not None)


def _read_zip(path: Path, wheel: bool) -> Staged:
    h = hashlib.sha256()
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        wanted = ((lambda n: n.endswith(".dist-info/METADATA")) if wheel else _is_pkg_info)
        meta_name = next((n for n in names if wanted(n)), None)
        meta: bytes | None = None
        for info in sorted(z.infolist(), key=lambda i: i.filename):
            if not info.is_dir():
                data = z.read(info)
                h.update(_header(info.filename, len(data)))
                h.update(data)
                meta = data if info.filename == meta_name else meta
    static = wheel or meta_name is not None or any(_is_egg_requires(n) for n in names)
    return Staged(requirements=_requirements(None, meta), digest=h.hexdigest(), static=static)


def read_staged(path: Path) -> Staged:
    """One pass over a staged package (.tar.gz/.tgz sdist, .whl, or a source .zip, which gcloud's
    extra-packages take) for its requirements, content digest and whether they are static."""
    name = path.name
    if name.endswith((".tar.gz", ".tgz")):
        return _read_tar(path)
    if name.endswith((".whl", ".zip")):
        return _read_zip(path, wheel=name.endswith(".whl"))
    raise EnvError(f"{path.name}: not a Python package (expected .tar.gz, .whl or .zip)")


def requirements(path: Path) -> list[str]:
    """``read_staged(path).requirements``, as a list."""
    return list(read_staged(path).requirements)


def content_digest(path: Path) -> str:
    """``read_staged(path).digest``."""
    return read_staged(path).digest


def static_metadata(path: Path) -> bool:
    """``read_staged(path).static``."""
    return read_staged(path).static


Progress = Callable[[str], None]
# pip's lines that say what it is doing, shown while a job's environment is built
_PROGRESS = ("Collecting ", "Downloading ", "Processing ", "Installing collected packages", "Building wheel")


def _pip(python: Path, args: list[str], log: Path, progress: Progress | None = None,
         cancelled: Cancelled | None = None) -> None:
    """Run pip install, its output copied to ``log``; killed (with what it started) when ``cancelled`` says so."""
    cmd = [sys.executable, "-m", "pip", "--python", str(python), "--disable-pip-version-check",
           "--no-input", "install", "--progress-bar", "off", *args]
    with store.open_private(log, "a") as out:
        out.write("$ " + " ".join(cmd) + "\n")
        out.flush()
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                text=True, errors="replace", start_new_session=True)
        assert proc.stdout is not None
        # pip may be silent for minutes (a large download): its output is copied by a thread, so that
        # this one can look for a cancel every tenth of a second.
        copier = threading.Thread(target=_copy, args=(proc.stdout, out, progress), daemon=True)
        with proc.stdout:
            copier.start()
            while copier.is_alive():
                if cancelled is not None and cancelled():
                    with contextlib.suppress(OSError):
                        os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
                    copier.join(timeout=5)
                    raise EnvCancelled("cancelled while pip was installing")
                copier.join(timeout=0.1)
        returncode = proc.wait()
    if returncode != 0:
        tail = "".join(log.read_text(encoding="utf-8", errors="replace").splitlines(keepends=True)[-15:])
        raise EnvError(f"pip install failed (exit {returncode}):\n{tail}")


def _copy(lines: Iterator[str], out: IO[str], progress: Progress | None) -> None:
    with contextlib.suppress(OSError, ValueError):
        for line in lines:
            out.write(line)
            out.flush()
            if progress is not None and line.lstrip().startswith(_PROGRESS):
                progress(line.strip())


@contextlib.contextmanager
def _build_lock(path: Path, cancelled: Cancelled | None) -> Iterator[None]:
    """The layer's lock; while another job builds the same layer, a cancel still ends the wait."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    def locked() -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if cancelled is not None and cancelled():
                raise EnvCancelled("cancelled while another job built the same environment") from None
            return False

    try:
        poll_until(locked, bool, Backoff.every(0.1))
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def _build(target: Path, build: list[tuple[str, list[str]]], log: Path, progress: Progress | None = None,
           cancelled: Cancelled | None = None) -> None:
    """Create ``target`` once: steps run under its lock, and a .ready marker says it is done."""
    ready = target / ".ready"
    if ready.exists():
        return
    with _build_lock(target.with_name(target.name + ".lock"), cancelled):
        if ready.exists():
            return
        shutil.rmtree(target, ignore_errors=True)
        try:
            for kind, args in build:
                if kind == "venv":
                    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(target)], check=True,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                elif kind == "pip":
                    _pip(Path(args[0]), args[1:], log, progress, cancelled)
            target.mkdir(parents=True, exist_ok=True)
            ready.write_text("ok\n")
        except BaseException:
            shutil.rmtree(target, ignore_errors=True)
            raise


def _package_steps(python: Path, pkg: Path, packages: list[tuple[Path, Staged]],
                   progress: Progress | None) -> list[tuple[str, list[str]]]:
    """The package layer's pip steps. A package whose requirements only its setup.py knows is
    installed with them, into this layer, rather than without them in silence."""
    static = [p for p, staged in packages if staged.static]
    dynamic = [p for p, staged in packages if not staged.static]
    steps = [("pip", [str(python), "--no-deps", "--target", str(pkg), *map(str, static)])] if static else []
    if dynamic:
        if progress is not None and not (pkg / ".ready").exists():
            progress(f"{', '.join(p.name for p in dynamic)} name no requirements but in setup.py: "
                     "installing them with what it requires")
        steps.append(("pip", [str(python), "--target", str(pkg), *map(str, dynamic)]))
    return steps


def ensure(envs_dir: Path, packages: list[Path], log: Path, progress: Progress | None = None,
           cancelled: Cancelled | None = None) -> PythonEnv:
    """The environment for ``packages`` (local files), built if it is not cached yet.

    ``progress`` hears what is being installed: the requirements first, then pip's own lines; when
    ``cancelled`` says so, pip is killed and EnvCancelled raised (the layer being built is removed)."""
    staged = [(p, read_staged(p)) for p in packages]  # each archive read once
    reqs = sorted({r for _, s in staged for r in s.requirements})
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    deps_key = hashlib.sha256("\n".join([version, *reqs]).encode()).hexdigest()[:24]
    pkg_key = hashlib.sha256("\n".join([version, *(s.digest for _, s in staged)]).encode()).hexdigest()[:24]
    deps = envs_dir / f"deps-{deps_key}"
    pkg = envs_dir / f"pkg-{pkg_key}"
    python = deps / "bin" / "python"
    steps: list[tuple[str, list[str]]] = [("venv", [])]
    if reqs:
        steps.append(("pip", [str(python), *reqs]))
    if progress is not None and not (deps / ".ready").exists() and reqs:
        progress(f"installing {len(reqs)} requirement(s): {', '.join(reqs)}")
    _build(deps, steps, log, progress, cancelled)
    if progress is not None and not (pkg / ".ready").exists():
        progress(f"installing the package {', '.join(p.name for p in packages)}")
    _build(pkg, _package_steps(python, pkg, staged, progress), log, progress, cancelled)
    for layer in (deps, pkg):
        mark_used(layer)
    return PythonEnv(python=python, pythonpath=pkg)


USED = ".used"  # touched each time a job uses the environment: `trainjobs jobs prune` reads it


def mark_used(layer: Path) -> None:
    with contextlib.suppress(OSError):  # a read-only or full cache still serves the job
        (layer / USED).touch()


def last_used(layer: Path) -> float:
    """When a job last used this environment (its build time if none has since)."""
    for name in (USED, ".ready"):
        try:
            return (layer / name).stat().st_mtime
        except OSError:
            continue
    return 0.0
