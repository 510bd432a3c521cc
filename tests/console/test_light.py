"""The console is an optional extra: the validate path never loads it or its web stack."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT


def test_validate_never_imports_the_console_or_its_framework() -> None:
    code = (
        "import sys\n"
        "from provider.cli import main\n"
        "rc = main(['validate', 'specs', '--format', 'json'])\n"
        "web = sorted(m for m in sys.modules if m.split('.')[0] in ('starlette', 'uvicorn', 'jinja2', 'multipart',"
        " 'python_multipart') or m.startswith('provider.console'))\n"
        "print('WEB', web)\n"
        "sys.exit(rc)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "WEB []" in proc.stdout


def test_without_the_extra_the_command_says_how_to_install_it() -> None:
    code = (
        "import sys\n"
        "sys.modules['uvicorn'] = None  # as if trainjobs[console] were not installed\n"
        "from provider.cli import main\n"
        "sys.exit(main(['console']))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.startswith("trainjobs: trainjobs console needs the web console's framework and server")
    assert "the 'console' extra, and it is not installed (uvicorn not found); install it with: " in proc.stderr
    assert "Traceback" not in proc.stderr


def test_every_template_compiles() -> None:
    from provider.console.app import HERE, templates

    names = sorted(p.name for p in (HERE / "templates").glob("*.html"))
    assert "job.html" in names
    for name in names:
        templates.env.get_template(name)
