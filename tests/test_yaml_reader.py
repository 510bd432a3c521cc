"""The YAML reader against libyaml's own loader: the same values, and a true position for each.

The reader builds values from libyaml's events in one loop (provider.document.yaml_loader), so
these tests pin what that loop must keep: every value PyYAML's safe loader reads from a
document both accept, and for every key and value the line and column where it is written.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from provider.document import files, load_text
from provider.document.excerpt import clip
from provider.document.loaded import MAX_BYTES, LoadedDocument
from provider.document.scalars import plain
from provider.document.yaml_loader import read_events

# Values both YAML 1.1 (PyYAML) and 1.2 (the reader) read the same way: words that are no
# keyword, integers without a leading zero, and any text (which safe_dump quotes as needed).
words = st.from_regex(r"[a-z][a-z0-9_.-]{0,12}", fullmatch=True).filter(
    lambda w: w not in {"y", "n", "yes", "no", "on", "off", "true", "false", "null"})
scalars = st.one_of(words, st.integers(min_value=-(10**17), max_value=10**17), st.booleans(), st.none(),
                    st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=12))
documents = st.dictionaries(words, st.recursive(
    scalars, lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(words, inner, max_size=4)),
    max_leaves=25), min_size=1, max_size=6)

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _at(text: str, pos: tuple[int, int]) -> str:
    line, column = pos
    return text.splitlines()[line - 1][column - 1:]


def _check_positions(doc: LoadedDocument, text: str, value: Any) -> None:
    """Every key is written where its position says; so is every scalar value (maybe quoted)."""
    if isinstance(value, dict):
        keys = doc.key_positions[id(value)]
        values = doc.value_positions[id(value)]
        assert list(keys) == list(value) == list(values)
        for key, item in value.items():
            assert _at(text, keys[key]).lstrip("'\"").startswith(key[:1]), (key, keys[key])
            _check_item(doc, text, item, values[key])
    elif isinstance(value, list):
        for item, pos in zip(value, doc.item_positions[id(value)], strict=True):
            _check_item(doc, text, item, pos)


def _check_item(doc: LoadedDocument, text: str, item: Any, pos: tuple[int, int]) -> None:
    if isinstance(item, (dict, list)):
        assert doc.starts[id(item)] == pos
        _check_positions(doc, text, item)
    elif isinstance(item, str) and item and item.isprintable() and item == item.strip():
        written = _at(text, pos)
        assert written.startswith(item[:1]) or written[:1] in "'\"|>", (item, pos, written)
    elif isinstance(item, int) and not isinstance(item, bool):
        assert _at(text, pos).startswith(str(item)), (item, pos)


@pytest.mark.parametrize("read", [load_text, read_events], ids=["as-loaded", "python-reader"])
@SETTINGS
@given(documents, st.sampled_from([False, None, True]))
def test_values_and_positions_match_pyyaml(read: Any, data: dict[str, Any], flow: bool | None) -> None:
    """load_text reads these in C where it is built (provider.document.native); read_events is the Python reader."""
    text = yaml.safe_dump(data, default_flow_style=flow, allow_unicode=True, width=60)
    doc = read(text, "f.yaml")
    # a word YAML 1.1 reads as a boolean (y, Off) is refused, as it should be: not a case for this test
    assume(all(p.rule != "yaml.ambiguous-scalar" for p in doc.problems))
    assert doc.problems == []
    assert doc.data == yaml.load(text, Loader=yaml.CSafeLoader) == data
    _check_positions(doc, text, doc.data)


def test_anchored_containers_count_their_values_and_aliases_share_them() -> None:
    text = "base: &b {x: 1, y: [2, 3]}\ncopy: *b\nlist: [&s one, *s]\n"
    doc = load_text(text, "f.yaml")
    assert doc.problems == []
    assert doc.data == {"base": {"x": 1, "y": [2, 3]}, "copy": {"x": 1, "y": [2, 3]}, "list": ["one", "one"]}
    assert doc.data["copy"] is doc.data["base"]
    assert doc.value_positions[id(doc.data)]["copy"] == (2, 7)


def test_a_duplicate_keys_value_is_read_and_dropped_and_the_rest_kept() -> None:
    doc = load_text("a: {x: 1}\nb: 2\na: [3]\nc: 4\n", "f.yaml")
    assert doc.data == {"a": {"x": 1}, "b": 2, "c": 4}
    assert [(p.line, p.column, p.rule) for p in doc.problems] == [(3, 1, "yaml.duplicate-key")]
    assert doc.value_positions[id(doc.data)] == {"a": (1, 4), "b": (2, 4), "c": (4, 4)}


def test_the_value_limit_counts_alias_expansion_and_stops_at_the_value_that_crosses_it() -> None:
    lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 10)}]" for i in range(4)]
    doc = load_text("\n".join(lines) + "\n", "f.yaml")
    assert doc.data is None
    [problem] = doc.problems
    assert problem.rule == "yaml.size" and problem.line == 5


@pytest.mark.parametrize(("text", "value", "raw"), [
    ("4", 4, "4"), ("0", 0, "0"), ("100", 100, "100"), ("3600s", "3600s", None), ("0.5", 0.5, "0.5"),
    ("--batch_size", "--batch_size", None), ("-3", -3, "-3"), ("1" * 18, int("1" * 18), "1" * 18),
])
def test_plain_numbers_and_dash_words(text: str, value: Any, raw: str | None) -> None:
    assert plain(text) == (value, raw, None)


@pytest.mark.parametrize("text", ["08", "1" * 19, "1e3", "1_000", "1:30", "٣"])
def test_plain_scalars_that_are_not_simple_counts_keep_their_answer(text: str) -> None:
    value, _raw, refusal = plain(text)
    if text == "٣":  # an Arabic-Indic digit: a string, not the number 3
        assert value == text and refusal is None
    else:
        assert refusal is not None


def test_clip_escapes_what_is_not_printable_and_leaves_the_rest() -> None:
    assert clip("n1-standard-4") == "n1-standard-4"
    assert clip("a\x1b[31mb\u202e") == "a\\x1b[31mb\\u202e"
    assert clip("x" * 50) == "x" * 40 + "... (50 characters)"


def test_read_file_reads_a_file_that_grew_after_it_was_looked_at(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_bytes(b"a: 1\n" * 1000)
    real_lstat = os.lstat

    def smaller(path: Any) -> os.stat_result:  # as if the file was 10 bytes when it was looked at
        st = real_lstat(path)
        return os.stat_result((st.st_mode, st.st_ino, st.st_dev, st.st_nlink, st.st_uid, st.st_gid, 10,
                               st.st_atime, st.st_mtime, st.st_ctime))

    monkeypatch.setattr(files.os, "lstat", smaller)
    assert files.read_file(spec, "spec.yaml") == (b"a: 1\n" * 1000, None)
    spec.write_bytes(b"#" * (MAX_BYTES + 500))  # grew past the limit: read one byte past it, no more
    data, problem = files.read_file(spec, "spec.yaml")
    assert problem is None and data is not None and len(data) == MAX_BYTES + 1


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(["", ".", "..", "specs", "a.yaml", "x..y.yml", "/"]), min_size=1, max_size=8))
def test_a_file_outside_the_current_directory_is_named_as_pathlib_names_it(parts: list[str]) -> None:
    """The name in messages of a file outside the current directory is the path as given, as
    ``Path`` writes it; it is made without a Path (a run names thousands of files)."""
    path = "/".join(parts)
    assume(path)
    assert files._as_given(path) == str(Path(path))


def test_spec_files_are_found_and_named_as_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "specs" / "team" / ".hidden").mkdir(parents=True)
    for name in ("specs/b.yaml", "specs/a.yml", "specs/team/c.yaml", "specs/team/.hidden/d.yaml", "specs/e.json"):
        (tmp_path / name).write_text("x: 1\n")
    (tmp_path / "specs" / "link.yaml").symlink_to(tmp_path / "specs" / "b.yaml")
    monkeypatch.chdir(tmp_path)
    found, missing = files.expand(["./specs/", "specs/team/c.yaml", "nowhere.yaml"])
    assert found == ["./specs/a.yml", "./specs/b.yaml", "./specs/link.yaml", "./specs/team/c.yaml",
                     "specs/team/c.yaml"]
    assert [p.file for p in missing] == ["nowhere.yaml"]
    cwd = files.real_path(Path.cwd())
    real_dirs: dict[str, str] = {}
    named = [files.SpecFile.of(p, cwd, real_dirs) for p in found]
    # a symlink is named by where it points, as any message about the file's content is
    assert [s.shown for s in named] == ["specs/a.yml", "specs/b.yaml", "specs/b.yaml", "specs/team/c.yaml",
                                        "specs/team/c.yaml"]
    assert named[2].real == (tmp_path / "specs" / "b.yaml").resolve()  # a symlink: where it points
    outside = files.SpecFile.of(str(tmp_path / "specs" / "." / "a.yml"), cwd / "specs" / "team", real_dirs)
    assert outside.shown == str(tmp_path / "specs" / "a.yml")
