"""The setuptools hook of ``pyproject.toml``: a built package carries the committed JSON Schemas.

``schemas/`` (the spec and stack schemas, and the spec schema narrowed to each format's body)
is copied into the package as ``provider/schemas/``, so an installed trainjobs loads them as a
checkout does (``provider/validation/schema_check.py``), instead of generating the spec schema
from the catalog at every start. ``schemas/`` stays the one source; MANIFEST.in puts it in the
sdist, which the wheel is built from.

It also builds ``provider.document._reader``, the YAML reader's common path in C
(provider/document/native.py says why), where a C compiler and libyaml's headers are; it is
optional: without them the build goes on and the Python reader reads every document.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_py import build_py

SCHEMAS = Path(__file__).resolve().parent / "schemas"


class BuildWithSchemas(build_py):
    """build_py, then schemas/ into the built package."""

    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / "provider" / "schemas"
        for source in sorted(SCHEMAS.rglob("*.schema.json")):
            copy = target / source.relative_to(SCHEMAS)
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, copy)


READER = Extension("provider.document._reader", ["provider/document/_reader.c"], libraries=["yaml"], optional=True)

setup(cmdclass={"build_py": BuildWithSchemas}, ext_modules=[READER])
