"""What ``trainjobs convert train.py`` refuses: each case says where (file:line:column), what and what is allowed;
never a traceback. The expected words are each file's ``# expect:`` lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from .test_corpus import convert

REFUSED = sorted((Path(__file__).parent / "refused").glob("*.py"))


def _expected(path: Path) -> list[str]:
    return [line.removeprefix("# expect: ") for line in path.read_text(encoding="utf-8").splitlines()
            if line.startswith("# expect: ")]


@pytest.mark.parametrize("path", REFUSED, ids=[p.stem for p in REFUSED])
def test_refused_with_its_place_and_reason(path: Path) -> None:
    done = convert(path.relative_to(path.parent), "--output", "request", cwd=path.parent)
    assert done.returncode != 0 and done.stdout == ""
    assert "Traceback" not in done.stderr
    expected = _expected(path)
    assert expected
    for words in expected:
        assert words in done.stderr, (words, done.stderr)
