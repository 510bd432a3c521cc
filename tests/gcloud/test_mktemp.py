"""$(mktemp ...) read as GNU coreutils' mktemp makes its name (provider.gcloud.mktemp), asked of /usr/bin/mktemp:
where it puts the name (the folder), which part it replaces, and what it refuses ("too few X's in template")."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from provider.gcloud import mktemp

GNU = shutil.which("mktemp")
FORMS = ["", "-t", "-q", "-d", "-u", "-t foo.XXXXXX", "foo.XXX", "-t foo.XXXXXX.yaml", "foo.XXXXXX.yaml",
         "--suffix=.yaml", "--suffix=.yaml job.XXXXXX", "-t --suffix=.yaml x.XXXXXX", "-d -t d.XXXXXX", "-dt d.XXX",
         "-p PLACE x.XXX", "--tmpdir=PLACE x.XXX", "--tmpdir x.XXX", "aXXXbar", "aXXbarXXX", "sub/a.XXXX",
         "-t -p PLACE x.XXX", "-p PLACE",
         # refused by GNU mktemp itself
         "foo", "-t foo", "-t foo.XX", "aXXXbarXX", "--suffix=.y aXXX.y", "-t sub/a.XXXX", "-d foo"]


@pytest.mark.skipif(GNU is None, reason="no mktemp")
@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("tmpdir", ["", "TMP"])
def test_the_name_is_where_gnu_mktemp_makes_it(form: str, tmpdir: str, tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "PLACE").mkdir()
    (tmp_path / "TMP").mkdir()
    args = form.replace("PLACE", str(tmp_path / "PLACE")).split()
    env = {"TMPDIR": str(tmp_path / "TMP")} if tmpdir else {}
    done = subprocess.run([GNU, *args], cwd=tmp_path, env={"PATH": "/usr/bin:/bin", **env}, capture_output=True,
                          text=True, timeout=30)
    notes: list[str] = []
    if done.returncode:
        with pytest.raises(mktemp.Refused) as refused:
            mktemp.name(args, "$(mktemp)", env, notes)
        said = re.sub("[‘’]", "'", done.stderr.strip().removeprefix(GNU + ": "))
        assert f'GNU mktemp stops: "{said}"' in str(refused.value), (said, str(refused.value))
        return
    made = mktemp.name(args, "$(mktemp)", env, notes)
    printed = done.stdout.strip()
    pattern = re.escape(made).replace(re.escape(f"{mktemp.TEMP}1"), "[A-Za-z0-9]{3,}")
    assert re.fullmatch(pattern, printed), (made, printed)
    assert ("folder" in notes[0]) == ("d" in "".join(a for a in args if re.fullmatch(r"-[dqut]+", a)))
