"""trainjobs as a package: built with PEP 517 ``build`` (sdist, then the wheel from it), offline.

The wheel carries the committed schemas (``setup.py`` copies ``schemas/`` into the package), so
an installed trainjobs checks a spec against the very files a checkout has, without generating
the schema from the catalog at each start (issue 13: the cold start of a regular install). It
also carries the YAML reader's C path, built from provider/document/_reader.c, and the source is
in the sdist.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from .conftest import ROOT

WHEELHOUSE = ROOT / ".venv" / "wheelhouse"
SCHEMAS = sorted(p.relative_to(ROOT / "schemas").as_posix() for p in (ROOT / "schemas").rglob("*.schema.json"))


@pytest.mark.slow
def test_the_built_package_carries_the_schemas_and_an_install_loads_them(tmp_path: Path) -> None:
    env = {**os.environ, "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(WHEELHOUSE), "PYTHONDONTWRITEBYTECODE": "1"}
    subprocess.run([sys.executable, "-m", "build", "--outdir", str(tmp_path / "dist"), str(ROOT)],
                   env=env, check=True, capture_output=True, timeout=600)
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    (sdist,) = (tmp_path / "dist").glob("*.tar.gz")
    with tarfile.open(sdist) as t:
        assert any(n.endswith("/provider/document/_reader.c") for n in t.getnames())
    with zipfile.ZipFile(wheel) as z:
        assert [n for n in z.namelist() if n.startswith("provider/document/_reader.") and n.endswith(".so")]
        assert "provider/document/_reader.c" not in z.namelist()
        packaged = sorted(n.removeprefix("provider/schemas/") for n in z.namelist() if n.startswith("provider/schemas/"))
        assert packaged == SCHEMAS
        for name in SCHEMAS:
            assert z.read(f"provider/schemas/{name}") == (ROOT / "schemas" / name).read_bytes()

    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps",
                    "--target", str(target), str(wheel)], env=env, check=True, capture_output=True, timeout=600)
    spec = tmp_path / "one.yaml"
    spec.write_text("apiVersion: trainjobs/v1\nkind: TrainingJob\nmetadata: {name: installed}\nspec:\n"
                    "  region: us-central1\n  workerPools:\n    chief: {machineType: n1-standard-4}\n"
                    "  application:\n    container: {image: us-docker.pkg.dev/my-project/trainers/t:1}\n")
    code = ("import sys\n"
            "from provider.document import native\n"
            "from provider.validation import schema_check\n"
            "from provider.cli import main\n"
            "code = main(['validate', sys.argv[1], '--stacks', 'none'])\n"
            "print('SCHEMAS', schema_check._SCHEMA_DIR, schema_check.schema_for.cache_info().misses, code)\n"
            "print('NATIVE', native._reader.__file__ if native.built() else None)\n")
    installed = {**env, "PYTHONPATH": str(target)}
    proc = subprocess.run([sys.executable, "-c", code, str(spec)], cwd=tmp_path, env=installed,
                          capture_output=True, text=True, timeout=300)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("SCHEMAS")), "")
    # the package's own files, the body's alone (the whole schema not even read), and the spec valid
    assert line == f"SCHEMAS {target / 'provider' / 'schemas'} 0 0", proc.stdout[-2000:] + proc.stderr[-2000:]
    native = next((ln for ln in proc.stdout.splitlines() if ln.startswith("NATIVE")), "")
    assert native.startswith(f"NATIVE {target / 'provider' / 'document' / '_reader.'}"), native  # the wheel's own
    proc = subprocess.run([sys.executable, "-m", "provider", "schema"], cwd=tmp_path, env=installed,
                          capture_output=True, text=True, timeout=300)
    assert json.loads(proc.stdout) == json.loads((ROOT / "schemas" / "trainingjob.schema.json").read_text())


@pytest.mark.slow
def test_a_build_without_a_c_compiler_goes_on_and_reads_yaml_in_python(tmp_path: Path) -> None:
    """The C reader is optional: where it cannot be compiled, the wheel is built without it, and the
    installed trainjobs reads every document with the Python reader (the same messages)."""
    env = {**os.environ, "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(WHEELHOUSE), "PYTHONDONTWRITEBYTECODE": "1"}
    subprocess.run([sys.executable, "-m", "build", "--sdist", "--outdir", str(tmp_path / "dist"), str(ROOT)],
                   env=env, check=True, capture_output=True, timeout=600)
    (sdist,) = (tmp_path / "dist").glob("*.tar.gz")
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--disable-pip-version-check",
                            "--wheel-dir", str(tmp_path / "wheels"), "--verbose", str(sdist)],
                           env={**env, "CC": "/bin/false"}, capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    assert 'building extension "provider.document._reader" failed' in built.stdout + built.stderr
    (wheel,) = (tmp_path / "wheels").glob("*.whl")
    with zipfile.ZipFile(wheel) as z:
        assert not [n for n in z.namelist() if n.startswith("provider/document/_reader.") and n.endswith(".so")]
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps",
                    "--target", str(target), str(wheel)], env=env, check=True, capture_output=True, timeout=600)
    spec = tmp_path / "twice.yaml"
    spec.write_text("apiVersion: trainjobs/v1\nkind: TrainingJob\nmetadata: {name: a, name: b}\nspec: {}\n")
    code = ("import sys\n"
            "from provider.document import native\n"
            "from provider.cli import main\n"
            "print('NATIVE', native.built())\n"
            "sys.exit(main(['validate', sys.argv[1], '--stacks', 'none']))\n")
    proc = subprocess.run([sys.executable, "-c", code, str(spec)], cwd=tmp_path, env={**env, "PYTHONPATH": str(target)},
                          capture_output=True, text=True, timeout=300)
    assert "NATIVE False" in proc.stdout, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert proc.returncode == 1 and "duplicate key 'name'" in proc.stdout + proc.stderr, proc.stdout + proc.stderr
