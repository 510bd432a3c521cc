"""Every spec in tests/negative/ is refused, with the message its header expects.

Header lines of each file:
    # expect: TEXT      a problem whose message, allowed text or hint contains TEXT (one or more)
    # line: N           the first expected problem is reported on line N
    # target: vertex    validate as a spec of a vertex stack
"""

from __future__ import annotations

from pathlib import Path

import pytest

from provider.validation.rules import Context, Target
from provider.validation.validator import validate_bytes

from .conftest import no_traceback, run_cli

NEGATIVE = Path(__file__).parent / "negative"
CASES = sorted(NEGATIVE.glob("*.yaml"))


def expectations(path: Path) -> tuple[list[str], int | None, Target]:
    expects, line, target = [], None, Target.ANY
    for raw in path.read_text(encoding="utf-8").splitlines():
        if raw.startswith("# expect: "):
            expects.append(raw[len("# expect: "):])
        elif raw.startswith("# line: "):
            line = int(raw[len("# line: "):])
        elif raw.startswith("# target: "):
            target = Target(raw[len("# target: "):])
    return expects, line, target


def test_corpus_is_large_enough() -> None:
    assert len(CASES) >= 40


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_negative_spec(path: Path) -> None:
    expects, line, target = expectations(path)
    assert expects, f"{path.name} has no '# expect:' line"
    result = validate_bytes(path.read_bytes(), path.name, Context(target=target))
    errors = [p for p in result.problems if p.is_error]
    assert errors, f"{path.name} was accepted"
    texts = [f"{p.message} | {p.allowed} | {p.hint}" for p in result.problems]
    for expected in expects:
        matching = [p for p in result.problems if expected in f"{p.message} | {p.allowed} | {p.hint}"]
        assert matching, f"{path.name}: no problem mentions {expected!r}; got:\n" + "\n".join(texts)
    if line is not None:
        first = next(p for p in result.problems if expects[0] in f"{p.message} | {p.allowed} | {p.hint}")
        assert first.line == line, f"{path.name}: reported at line {first.line}, expected {line}"
    for p in errors:
        assert p.file == path.name and p.message


def test_negative_corpus_through_the_cli() -> None:
    """The command reports every file, exits 1, and never shows a traceback."""
    proc = run_cli("validate", str(NEGATIVE), "--stacks", str(NEGATIVE / "no-stacks"))
    no_traceback(proc)
    assert proc.returncode == 1, proc.stdout
    assert f"{len(CASES)} specs checked: 0 valid, {len(CASES)} invalid" in proc.stdout
