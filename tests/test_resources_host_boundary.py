"""The provider's host looks a spec folder's repository boundary up once, and again when the tree changes.

TrainingJobProvider.configure (called once by the SDK's host) turns on
provider.document.boundary.watch for the host's process. The script below runs in a process of its
own (the watch lasts for the process): it changes a real tree between lookups (a ``.git`` made and
removed above the spec folder, a ``Pulumi.yaml`` added, a symlinked folder pointed elsewhere) and
checks every answer against a lookup with nothing remembered, and that an unchanged tree is not
looked up again.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = textwrap.dedent("""
    import os, shutil, sys, time
    from pathlib import Path

    from pulumi.dynamic import Config, ConfigureRequest

    from provider.document import boundary
    from provider.resources.training_job import TrainingJobProvider

    tmp = Path(sys.argv[1]).resolve()
    project = tmp / "project"
    team = project / "specs" / "team"
    team.mkdir(parents=True)
    (project / "Pulumi.yaml").write_text("name: p\\n")
    for other in ("other", "third"):
        (tmp / other / "x").mkdir(parents=True)
    (tmp / "other" / ".git").mkdir()
    (tmp / "third" / "Pulumi.yaml").write_text("name: t\\n")
    os.chdir(project)

    assert boundary._watched is None
    TrainingJobProvider().configure(ConfigureRequest(Config({}, "p")))
    assert boundary._watched is not None, "configure watches the boundary"

    lookups = []
    real = boundary._repository_root
    def counted(start):
        lookups.append(start)
        return real(start)
    boundary._repository_root = counted

    def check(start, expected):
        got = boundary.repository_root(start)
        truth = real(start)
        assert got == truth == expected, (start, got, truth, expected)

    def remembered(start, expected):
        # An answer is remembered once every directory its lookup read last changed more than
        # boundary.RACY_NS before it (racy git): the tree was just made, and /tmp above it changes
        # whenever anything on the machine makes a file there. Poll until two calls in a row cost
        # one lookup: an unchanged tree is then not looked up again.
        deadline = time.time() + 120
        while True:
            check(start, expected)
            before = len(lookups)
            check(start, expected)
            if len(lookups) == before:
                return
            assert time.time() < deadline, f"an unchanged tree is looked up on every call: {lookups}"
            time.sleep(0.2)

    rel = Path("specs/team")
    remembered(rel, project)
    remembered(team, project)
    # A directory changed within RACY_NS of a lookup: its answer is not remembered (read as if
    # every change were that recent), since a second change in the same tick could keep its times.
    racy, boundary.RACY_NS = boundary.RACY_NS, 10**18
    (project / "specs" / "new").mkdir()
    before = len(lookups)
    check(rel, project)
    check(rel, project)
    assert len(lookups) == before + 2, lookups
    boundary.RACY_NS = racy

    (project / "specs" / ".git").mkdir()  # a repository made above the spec folder
    check(rel, project / "specs")
    (project / "specs" / ".git").rmdir()
    check(rel, project)
    (team / "Pulumi.yaml").write_text("name: inner\\n")  # a file, not a directory: mtime alone
    check(rel, team)
    (team / "Pulumi.yaml").unlink()
    check(rel, project)

    link = project / "specs" / "linked"
    link.symlink_to(tmp / "other" / "x")
    check(Path("specs/linked"), tmp / "other")
    check(Path("specs/linked"), tmp / "other")
    link.unlink()
    link.symlink_to(tmp / "third" / "x")  # the same name, pointed elsewhere
    check(Path("specs/linked"), tmp / "third")
    shutil.rmtree(tmp / "third" / "x")  # gone: looked up (and answered) as without the watch
    (tmp / "third" / "x").mkdir()
    check(Path("specs/linked"), tmp / "third")
    print("ok", len(lookups))
""")


def test_the_hosts_boundary_lookup_follows_a_changed_tree(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path)], cwd=ROOT, capture_output=True,
                          text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0 and proc.stdout.startswith("ok"), proc.stdout + proc.stderr


def test_without_the_host_every_lookup_reads_the_tree() -> None:
    """Outside the provider's host (validate, the console, the emulator) nothing is watched."""
    from provider.document import boundary

    assert boundary._watched is None
