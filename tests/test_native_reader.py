"""The YAML reader's C path (provider/document/_reader.c) against the Python reader.

Whatever document the C path reads, it must give exactly what the Python reader gives: the
same values of the same types, the same position tables, the same raw texts, and no
problem. Everything that needs a word to the user it must leave to the Python reader.
"""

from __future__ import annotations

import contextlib
import gc
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from provider.document import load_text, native
from provider.document.loaded import MAX_DEPTH, MAX_NODES, LoadedDocument
from provider.document.scalars import KEY_WORDS, SPECIAL_WORDS, plain
from provider.document.yaml_loader import read_events

ROOT = Path(__file__).resolve().parents[1]


def _typed(value: Any) -> Any:
    """``value`` with every scalar's type beside it (1, 1.0 and True are equal in Python)."""
    if isinstance(value, dict):
        return {k: _typed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_typed(v) for v in value]
    return (type(value).__name__, value)


def _tables(doc: LoadedDocument) -> dict[str, Any]:
    """The document's position tables and raw texts, keyed by path instead of id()."""
    out: dict[str, Any] = {"starts": {}, "keys": {}, "values": {}, "items": {}, "raw": {}}

    def walk(value: Any, path: tuple[Any, ...]) -> None:
        ident = id(value)
        if isinstance(value, dict):
            out["starts"][path] = doc.starts[ident]
            out["keys"][path] = list(doc.key_positions[ident].items())
            out["values"][path] = list(doc.value_positions[ident].items())
            for key, item in value.items():
                if (ident, key) in doc.raw_plain:
                    out["raw"][path + (key,)] = doc.raw_plain[(ident, key)]
                walk(item, path + (key,))
        elif isinstance(value, list):
            out["starts"][path] = doc.starts[ident]
            out["items"][path] = list(doc.item_positions[ident])
            for index, item in enumerate(value):
                if (ident, index) in doc.raw_plain:
                    out["raw"][path + (index,)] = doc.raw_plain[(ident, index)]
                walk(item, path + (index,))

    walk(doc.data, ())
    counts = {"starts": len(doc.starts), "keys": len(doc.key_positions), "values": len(doc.value_positions),
              "items": len(doc.item_positions), "raw": len(doc.raw_plain)}
    return {"tables": out, "counts": counts}


def _same_as_python(text: str) -> bool:
    """Check the C path against the Python reader on ``text``; False where the C path declined it."""
    fast = native.read(text)
    if fast is None:
        return False
    slow = read_events(text, "f.yaml")
    assert slow.problems == [] and slow.flagged == set()
    assert fast.problems == [] and fast.flagged == set()
    assert _typed(fast.data) == _typed(slow.data)
    assert _tables(fast) == _tables(slow)
    return True


def test_the_dev_install_built_it() -> None:
    """The dev setup builds the C path (libyaml-dev from scripts/system-deps.sh); without it every test
    here would only see declines, so this says so instead of passing quietly."""
    assert native.built(), ("provider.document._reader is not built: install a C compiler and libyaml's "
                            "headers (bash scripts/system-deps.sh), then run bash scripts/setup.sh dev again")


def _repository_yaml() -> list[Path]:
    return sorted(p for pattern in ("*.yaml", "*.yml") for p in ROOT.rglob(pattern)
                  if not {".venv", "node_modules", ".git"} & set(p.relative_to(ROOT).parts) and p.is_file())


def test_every_yaml_file_of_the_repository_reads_the_same() -> None:
    read_in_c = 0
    files = _repository_yaml()
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # hostile fixtures: the decoder refuses them before any reader
        read_in_c += _same_as_python(text)
    assert read_in_c > len(files) // 2  # most of them are common documents the C path takes


def test_the_bench_specs_read_the_same(tmp_path: Path) -> None:
    import sys

    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import validate_bench
    finally:
        sys.path.remove(str(ROOT / "bench"))
    for path in validate_bench.generate(tmp_path, 120):
        assert _same_as_python(path.read_text(encoding="utf-8")), path.name


# What mutations insert: YAML's indicators, keywords, tags, anchors, markers, and text that is not ASCII.
_PIECES = [*":-?[]{},&*!|>'\"#%@` \n\t~.0123456789eEx+_<", "yes", "null", "<<", "!!str ", "&a ", "*a", "---\n",
           "? ", "- ", ": ", "\n  ", "1e3", "0o7", '"\\u00e9"', "\u00e9", "\u2028", "\ufeff"]


def test_mutated_repository_files_read_the_same_or_go_to_the_python_reader() -> None:
    """Byte-level damage to real files (inserted indicators, deleted runs, doubled lines) reaches
    what generated documents never do: explicit keys, flow inside block, comments, anchors in odd
    places, broken indentation. Whatever the C path still takes must read as in Python."""
    import random

    texts = []
    for path in _repository_yaml():
        with contextlib.suppress(UnicodeDecodeError):
            texts.append(path.read_text(encoding="utf-8"))
    rng = random.Random(20261124)
    taken = 0
    for _ in range(1500):
        text = rng.choice(texts)
        for _ in range(rng.randint(1, 4)):
            at = rng.randrange(len(text) + 1)
            roll = rng.random()
            if roll < 0.45:
                text = text[:at] + rng.choice(_PIECES) + text[at:]
            elif roll < 0.75:
                text = text[:at] + text[at + rng.randint(1, 5):]
            else:
                lines = text.splitlines(keepends=True)
                if lines:
                    i = rng.randrange(len(lines))
                    text = "".join(lines[:i] + [lines[i]] + lines[i:])
        taken += _same_as_python(text)
    assert 300 < taken < 1500  # both ways are exercised: many still read in C, many declined


words = st.from_regex(r"[A-Za-z0-9_.+~-]{1,10}", fullmatch=True)
scalars = st.one_of(
    words, st.sampled_from(sorted(SPECIAL_WORDS | {"<<", "1e3", "0x1F", "0o17", "08", "1_000", "1:30", ".inf", "-.5",
                                                   "+12", "12.", "1.5e+3", "0.1", "-0", "00"})),
    st.integers(min_value=-(10**20), max_value=10**20), st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(), st.none(), st.text(max_size=8))
documents = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                          st.dictionaries(st.one_of(words, st.text(max_size=4)), inner,
                                                                          max_size=4)),
                         max_leaves=30)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents, st.sampled_from([False, None, True]), st.sampled_from(["", "'", '"']))
def test_random_documents_read_the_same_or_go_to_the_python_reader(data: Any, flow: bool | None, style: str) -> None:
    """Whatever PyYAML writes (plain, quoted, flow or block; YAML 1.1 words and numbers among them):
    the C path reads it as the Python reader does, or leaves it to it."""
    text = yaml.safe_dump({"spec": data}, default_flow_style=flow, default_style=style or None, allow_unicode=True,
                          width=50)
    _same_as_python(text)


@pytest.mark.parametrize("text", [
    "a: 1\na: 2\n",  # a duplicate key
    "~: 1\n",  # a null key
    "'null': 1\n",  # a key the Python reader looks at (quoted: kept there, with no problem)
    "<<: {a: 1}\n",  # the merge key
    "a: !!str 1\n",  # a tag
    "a: !!map {b: 1}\n",
    "a: &x 1\nb: *x\n",  # an anchor and an alias
    "a: yes\n",  # a YAML 1.1 trap
    "a: 1e3\n",
    "a: .inf\n",
    "a: 1234567890123456789012\n",  # too large
    "a: 1\n---\nb: 2\n",  # two documents
    "a: [\n",  # a syntax error
    "a:\tb: c\n",
    "just a value\n",  # not a mapping or sequence
    "",  # empty
    "# only a comment\n",
    "? [a]\n: 1\n",  # a container as a key
    "a: " + "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1) + "\n",  # too deep
    "a: [" + ", ".join(["1"] * (MAX_NODES + 1)) + "]\n",  # too many values
])
def test_what_needs_a_word_is_left_to_the_python_reader(text: str) -> None:
    assert native.built()
    assert native.read(text) is None
    load_text(text, "f.yaml")  # and the Python reader reads it (its own tests check what it says)


def test_text_that_is_not_utf8_is_left_to_the_python_reader() -> None:
    """A lone surrogate cannot be encoded (provider.document.text's decoding never gives one)."""
    assert native.built()
    assert native.read("a: \udc80\n") is None


def test_the_python_reader_reads_everything_where_it_is_not_built(monkeypatch: pytest.MonkeyPatch) -> None:
    text = next((ROOT / "specs").glob("**/*.yaml")).read_text(encoding="utf-8")
    monkeypatch.setattr(native, "_reader", None)
    assert native.read(text) is None
    assert _typed(load_text(text, "f.yaml").data) == _typed(yaml.load(text, Loader=yaml.CSafeLoader))


def _call(text: str, plain_fn: Any = plain) -> Any:
    from provider.document import _reader

    return _reader.read(text.encode(), plain_fn, SPECIAL_WORDS, native._NUMERIC_START, KEY_WORDS, MAX_DEPTH, MAX_NODES)


def test_an_error_inside_is_a_decline_and_an_interrupt_is_raised() -> None:
    assert native.built()

    def broken(text: str) -> Any:
        raise ValueError(text)

    def interrupted(text: str) -> Any:
        raise KeyboardInterrupt

    assert _call("a: 1\n") is not None
    assert _call("a: 1\n", broken) is None  # the Python reader meets the error itself
    assert _call("a: 1\n", lambda text: "not a triple") is None
    with pytest.raises(KeyboardInterrupt):
        _call("a: [x, 1]\n", interrupted)
    with pytest.raises(TypeError):  # the arguments are checked
        from provider.document import _reader

        _reader.read(b"a: 1\n", plain, set(SPECIAL_WORDS), "0", KEY_WORDS, MAX_DEPTH, MAX_NODES)


@pytest.mark.parametrize("text", [
    "a: {b: [1, x, {c: 2.5}], d: 'q'}\n",  # read whole
    "a: {b: [1, x, {c: 2.5}], d: yes}\n",  # declined deep inside, with containers open
    "a: {b: [1, x, {c: 2.5}]\n",  # a syntax error with containers open
    "a: {b: [1, x, {c: 2.5}], b: 1}\n",  # a duplicate key with containers open
])
def test_reading_many_times_keeps_no_memory(text: str) -> None:
    """Every object the C path makes is freed, on every way out (a leak would grow with the runs)."""
    assert native.built()
    for _ in range(200):
        _call(text)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(5000):
            _call(text)
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown < 20_000, f"{grown} bytes kept after 5,000 reads"
