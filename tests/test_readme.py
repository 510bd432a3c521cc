"""The README and docs/ are executable: every block runs as written in a fresh clone, or says why not.

The clone is this checkout's files (tracked, and untracked ones git does not ignore) committed in a
new repository with an ``origin/main``, as ``git clone`` gives. It borrows this checkout's installed
environment: its ``.venv`` links to this one's interpreter and packages, and carries the stamps that
tell scripts/setup.sh the install is done (what setup.sh installs is tested by CI's own fresh clone);
``PYTHONPATH`` points ``trainjobs`` at the clone's code. HOME, the local backend's home and gcloud's
config are the test's own. ``trainjobs`` is not on PATH until a block puts it there, as for a user.

Each page's blocks run in order in one bash (README.md first: its set-up comes first); each docs page
starts after the README's set-up, with ``source .venv/bin/activate``. What each block is comes from
tests/docblocks.py (a marker above the fence, or its language). A failure names the block.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import time
import tomllib
from pathlib import Path

import pytest
import yaml

from tests.docblocks import Block, BlockError, blocks, pages, tree_paths

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow
_PAGE_TIMEOUT = 1200  # seconds; the README's page trains a job


def _files(root: Path) -> list[str]:
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=root,
                         capture_output=True, check=True).stdout.decode()
    return [p for p in out.split("\0") if p and (root / p).is_file() and not (root / p).is_symlink()]


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=readme", "-c", "user.email=readme@example.com", *args], cwd=cwd,
                   check=True, capture_output=True)


def _borrow_venv(clone: Path) -> None:
    venv = clone / ".venv"
    venv.mkdir()
    shutil.copy(ROOT / ".venv" / "pyvenv.cfg", venv / "pyvenv.cfg")
    for part in ("bin", "lib", "include"):
        if (ROOT / ".venv" / part).exists():
            (venv / part).symlink_to(ROOT / ".venv" / part)
    # Every extra is installed there (the dev extra holds them all): stamps for each, so that a
    # block's `bash scripts/setup.sh EXTRA` finds it done instead of installing into the borrowed .venv.
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    for name in ("runtime", *extras):
        (venv / f".trainjobs-installed-{name}").touch()


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not (ROOT / ".venv" / "bin" / "trainjobs").exists():
        pytest.fail("the README test needs this checkout's .venv (bash scripts/setup.sh dev)")
    base = tmp_path_factory.mktemp("readme")
    clone = base / "trainjobs"
    for rel in _files(ROOT):
        target = clone / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, target)
    for built in (ROOT / "provider" / "document").glob("_reader*.so"):  # setup.sh's build of the C reader
        shutil.copy2(built, clone / "provider" / "document" / built.name)
    _git(clone, "init", "-q", "-b", "main")
    _git(clone, "commit", "-q", "--allow-empty", "-m", "the start of history")  # so HEAD~1 exists
    _git(clone, "add", "-A")
    _git(clone, "commit", "-q", "-m", "the README test's clone")
    _git(clone, "update-ref", "refs/remotes/origin/main", "HEAD")
    _borrow_venv(clone)
    for d in ("home", "trainjobs-home", "gcloud"):
        (base / d).mkdir()
    return clone


def _env(clone: Path) -> dict[str, str]:
    base = clone.parent
    venv_bin = str(ROOT / ".venv" / "bin")
    path = os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep)
                           if p and Path(p).resolve() != Path(venv_bin).resolve())
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TRAINJOBS_", "VIRTUAL_ENV", "PYTEST_"))}
    env.update(PATH=path, HOME=str(base / "home"), TRAINJOBS_HOME=str(base / "trainjobs-home"),
               CLOUDSDK_CONFIG=str(base / "gcloud"), PYTHONPATH=str(clone), NO_COLOR="1", TERM="dumb")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _console_commands(block: Block) -> list[tuple[str, list[str]]]:
    """The ``$ `` commands of a console block, each with the lines shown after it."""
    out: list[tuple[str, list[str]]] = []
    for line in block.text.splitlines():
        if line.startswith("$ "):
            out.append((line[2:], []))
        elif out:
            out[-1][1].append(line)
    return out


def _matches(shown: list[str], printed: str) -> str | None:
    """None when the lines shown appear in order in what was printed (``...`` stands for any lines,
    and a line ending in ``...`` for any end of line); else the first line that did not."""
    got = [line.rstrip() for line in printed.splitlines()]
    at = 0
    for want in (w.rstrip() for w in shown):
        if want in ("...", ""):
            continue
        prefix = want[:-3].rstrip() if want.endswith("...") else None
        while at < len(got) and not (got[at].startswith(prefix) if prefix is not None else got[at] == want):
            at += 1
        if at == len(got):
            return want
        at += 1
    return None


def _script(page: list[Block], work: Path, ports: dict[str, str], activate: bool) -> str:
    lines = ["set -eo pipefail", "trap 'echo \"@@failed at $BLOCK (exit $?)\" >&2' ERR", "__bg=()",
             "__stop() { for p in \"${__bg[@]}\"; do kill -TERM -- \"-$p\" 2>/dev/null || kill \"$p\" 2>/dev/null "
             "|| true; done; }", "trap __stop EXIT"]
    if activate:
        lines.append("source .venv/bin/activate")
    for n, block in enumerate(page):
        text = block.text
        for old, new in ports.items():
            text = text.replace(old, new)
        lines.append(f"BLOCK={shlex.quote(block.where)}; echo \"@@ $BLOCK\" >&2")
        if block.kind == "run" and block.lang == "python":
            source = work / f"block{n}.py"
            source.write_text(text)
            lines.append(f".venv/bin/python {shlex.quote(str(source))}")
        elif block.kind == "run":
            lines.append(text)
        elif block.kind == "background":
            port = ports[block.args]
            log = work / f"background{n}.log"
            pids = shlex.quote(str(work / "background.pids"))
            lines += [f"set -m; ( {text.strip()}\n) > {shlex.quote(str(log))} 2>&1 & __bg+=($!); set +m; "
                      f"echo $! >> {pids}",
                      f"for i in $(seq 1 600); do (exec 3<>/dev/tcp/127.0.0.1/{port}) 2>/dev/null && break; "
                      f"kill -0 \"${{__bg[-1]}}\" 2>/dev/null || {{ cat {shlex.quote(str(log))} >&2; false; }}; "
                      "sleep 0.2; done"]
        elif block.kind == "console":
            for i, (command, _) in enumerate(_console_commands(block)):
                out = shlex.quote(str(work / f"console{n}-{i}.out"))
                lines.append(f"{{ {command}\n}} > {out} 2>&1 || true")
        elif block.kind in ("spec", "file"):  # written when the page reaches it, as a reader would
            target = shlex.quote(block.args)
            lines.append(f"mkdir -p \"$(dirname {target})\" && cat > {target} <<'__README_BLOCK__'\n"
                         f"{block.text}__README_BLOCK__")
            if block.kind == "spec":
                lines.append(f".venv/bin/trainjobs validate {target}")
    return "\n".join(lines) + "\n"


def _run_page(clone: Path, rel: Path, activate: bool) -> None:
    page = blocks(clone, rel)
    work = clone.parent / f"work-{rel.stem}"
    work.mkdir(exist_ok=True)
    ports = {b.args: str(_free_port()) for b in page if b.kind == "background"}
    script = work / "page.sh"
    script.write_text(_script(page, work, ports, activate))
    proc = subprocess.Popen(["bash", str(script)], cwd=clone, env=_env(clone), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    try:
        output, _ = proc.communicate(timeout=_PAGE_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        output, _ = proc.communicate()
        pytest.fail(f"{rel}: the page's blocks ran past {_PAGE_TIMEOUT} s:\n{output.decode()[-4000:]}")
    finally:
        _reap(proc.pid)
        pids = work / "background.pids"
        for pid in pids.read_text().split() if pids.exists() else ():
            _reap(int(pid))
    text = output.decode(errors="replace")
    assert proc.returncode == 0, f"{rel}: a block failed:\n{text[-6000:]}"
    for n, block in enumerate(page):
        if block.kind != "console":
            continue
        for i, (command, shown) in enumerate(_console_commands(block)):
            printed = (work / f"console{n}-{i}.out").read_text(errors="replace")
            missing = _matches(shown, printed)
            assert missing is None, (f"{block.where}: `{command}` did not print the line shown\n  {missing!r}\n"
                                     f"it printed:\n{printed[-3000:]}")


def _reap(pgid: int) -> None:
    """End whatever the page left in its process group (servers, a job's replicas)."""
    try:
        os.killpg(pgid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.2)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, signal.SIGKILL)


def test_every_block_says_what_it_is() -> None:
    for rel in pages(ROOT):
        try:
            found = blocks(ROOT, rel)
        except BlockError as exc:
            pytest.fail(str(exc))
        assert found or rel.name != "README.md"


def test_every_path_a_tree_names_exists() -> None:
    named = [(b, p) for rel in pages(ROOT) for b in blocks(ROOT, rel) if b.kind == "tree" for p in tree_paths(b)]
    assert len(named) > 20
    missing = [f"{b.where}: {p}" for b, p in named if not (ROOT / p).exists()]
    assert not missing, "the folder tree names what is not there:\n" + "\n".join(missing)


def test_the_marker_rules_catch_an_unmarked_block(tmp_path: Path) -> None:
    (tmp_path / "page.md").write_text("text\n\n```yaml\na: 1\n```\n")
    with pytest.raises(BlockError, match=r"page.md:3: a ```yaml block with no readme marker"):
        blocks(tmp_path, Path("page.md"))
    (tmp_path / "page.md").write_text("<!-- readme: needs pulumi -->\n```bash\ntrainjobs validate\n```\n")
    with pytest.raises(BlockError, match="names none of"):
        blocks(tmp_path, Path("page.md"))


def test_console_blocks_compare_in_order() -> None:
    assert _matches(["a", "...", "c"], "a\nb\nc\n") is None
    assert _matches(["c", "a"], "a\nb\nc\n") == "a"
    assert _matches(["L4  1 ..."], "L4  1  g2-standard-4\n") is None


def test_readme_runs_as_written(clone: Path) -> None:
    _run_page(clone, Path("README.md"), activate=False)


@pytest.mark.parametrize("page", [p.name for p in pages(ROOT) if p.parent.name == "docs"])
def test_docs_run_as_written(clone: Path, page: str) -> None:
    _run_page(clone, Path("docs") / page, activate=True)


def test_stack_config_fragments_are_valid(clone: Path, tmp_path: Path) -> None:
    base = yaml.safe_load((ROOT / "stacks" / "Pulumi.vision-dev.yaml").read_text())
    checked = 0
    for rel in pages(ROOT):
        for block in blocks(ROOT, rel):
            if block.kind != "stack-config":
                continue
            fragment = yaml.safe_load(textwrap.dedent(block.text))
            fragment = fragment.get("config", fragment)  # a fragment may show the `config:` it sits in
            # The stack's config with the fragment in it, holding no spec: the fragment's own check
            stack = {**base, "config": {**base.get("config", {}), "trainjobs:specs": ["specs/none/*.yaml"],
                                        **fragment}}
            target = clone / "stacks" / f"Pulumi.readme-{checked}.yaml"
            target.write_text(yaml.safe_dump(stack))
            try:
                result = subprocess.run([str(clone / ".venv" / "bin" / "trainjobs"), "validate", str(target)],
                                        cwd=clone, env=_env(clone), capture_output=True, text=True, timeout=300)
            finally:
                target.unlink()
            assert result.returncode == 0, f"{block.where}: the fragment does not validate:\n{result.stdout}{result.stderr}"
            checked += 1
    assert checked, "no stack-config block found: the marker or the docs changed"


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))
