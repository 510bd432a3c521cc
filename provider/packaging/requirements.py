"""A ``requirements.txt`` read as ``install_requires``: one PEP 508 requirement per line.

gcloud's image for ``local-package-path`` runs ``pip install -r requirements.txt``; trainjobs
carries the same lines into the setup.py it writes, so they are installed wherever the package
is installed (the local backend's environment, Vertex AI's ``pip install`` of the sdist).
``install_requires`` takes requirements only: blank lines and comments are skipped, a line
continued with a backslash is joined, and anything else pip would read as an option (``-r``,
``-e``, ``--index-url``, a bare path or URL) is a PackageError naming the file, the line and
what is allowed.
"""

from __future__ import annotations

from pathlib import Path

from provider.packaging.files import PackageError, declares_its_build, is_flat, project_dir, read_regular

_ALLOWED = ("allowed: one requirement per line (a name with extras, version specifiers and markers, or "
            "name @ URL), as install_requires takes them; or a setup.py or pyproject.toml of your own that "
            "declares the dependencies")


def _logical_lines(text: str) -> list[tuple[int, str]]:
    """(line number, text) with comments removed and backslash continuations joined, as pip reads them."""
    out: list[tuple[int, str]] = []
    pending: tuple[int, str] | None = None
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw
        if line.lstrip().startswith("#"):
            line = ""
        elif " #" in line or "\t#" in line:  # pip: a comment starts at # after whitespace
            line = line[: min(i for i in (line.find(" #"), line.find("\t#")) if i >= 0)]
        if pending is not None:
            start, head = pending
            pending, line, number = None, head + line, start
        if line.endswith("\\"):
            pending = (number, line[:-1])
            continue
        if line.strip():
            out.append((number, line.strip()))
    if pending is not None and pending[1].strip():
        out.append((pending[0], pending[1].strip()))
    return out


def requirement_problem(line: str) -> str | None:
    """What is wrong with one requirement as install_requires takes it (None: nothing), without
    where it is: ``'-r x' is a pip option, ...`` or ``'x y' is not a requirement (...)``."""
    from packaging.requirements import InvalidRequirement, Requirement  # lazy: only a build needs it

    if line.startswith("-"):
        return f"{line!r} is a pip option, which install_requires cannot carry"
    try:
        Requirement(line)
    except InvalidRequirement as exc:
        return f"{line!r} is not a requirement ({exc})"
    return None


def requirement_lines(text: str, shown: str) -> list[str]:
    """The requirements of a requirements.txt's ``text`` (``shown`` names it in messages), in order."""
    found: list[str] = []
    for number, line in _logical_lines(text):
        problem = requirement_problem(line)
        if problem is not None:
            raise PackageError(f"{shown}:{number}: {problem}; {_ALLOWED}")
        found.append(line)
    return found


def project_requirements(package_dir: Path) -> list[str]:
    """What the setup.py trainjobs writes for ``package_dir`` takes as install_requires.

    The ``requirements.txt`` of its project (files.project_dir), when the project does not
    describe its own build (files.declares_its_build: a setup.py or pyproject.toml declares its
    dependencies itself); PackageError naming the file and line for a line install_requires
    cannot take.
    """
    if not is_flat(package_dir) or declares_its_build(package_dir):
        return []  # a package folder is built as gcloud's --package-path builds it: no requirements.txt
    file = project_dir(package_dir) / "requirements.txt"
    if not file.is_file():
        return []
    return requirement_lines(read_regular(file).decode("utf-8", "replace"), str(file))
