"""How a tabular dataset's rows are split into training, validation and test, as Vertex AI's v1
REST reference has InputDataConfig's (and ExportDataConfig's) splits:

* ``fractionSplit``: the rows shuffled (seeded by the dataset ID, so a split is repeatable), then
  cut by the fractions (default 0.8 / 0.1 / 0.1).
* ``predefinedSplit`` ``key``: a column whose value is ``training``, ``validation`` or ``test``
  puts each row in that set; a row with another value (or none) is left out, as Vertex AI does.
* ``timestampSplit`` ``key`` and fractions: rows ordered by the column's RFC 3339 time, the
  earliest for training, then validation, the latest for test; rows whose time does not parse
  are left out, and times without a zone are refused (RFC 3339 has one).
* ``stratifiedSplit`` ``key`` and fractions: each value of the (categorical) column is cut by
  the fractions on its own, so every set keeps the column's distribution.
* ``filterSplit`` filters data items, which only image, text and video datasets have: refused by
  name, as it is for a tabular dataset on Vertex AI.

A split's fractions must be non-negative and sum to 1 (absent: the default); its key must be
one of the CSV header's columns.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import datetime
from typing import Any

from provider.emulator.errors import ApiError, FieldViolation, invalid

Json = dict[str, Any]
Rows = list[list[str]]
DEFAULT_SPLIT = (0.8, 0.1, 0.1)
SPLITS = ("training", "validation", "test")


def _violation(field: str, description: str) -> ApiError:
    return invalid(f"List of found errors:\t1.Field: {field}; Message: {description}\t",
                   (FieldViolation(field, description),))


def _snake(name: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in name)


def fractions(split: Json | None, at: str) -> tuple[float, float, float]:
    values = tuple(float((split or {}).get(f"{k}Fraction", 0.0)) for k in SPLITS)
    if not any(values):
        return DEFAULT_SPLIT
    if any(v < 0 for v in values) or not 0.999 <= sum(values) <= 1.001:
        raise _violation(at, f"The fractions {', '.join(str(v) for v in values)} must be non-negative and sum to 1.")
    return values[0], values[1], values[2]


def _cut(rows: Rows, parts: tuple[float, float, float]) -> tuple[Rows, Rows, Rows]:
    first = round(parts[0] * len(rows))
    second = first + round(parts[1] * len(rows))
    return rows[:first], rows[first:second], rows[second:]


def _column(header: list[str], split: Json, at: str) -> int:
    key = str(split.get("key") or "")
    if not key:
        raise _violation(f"{at}.key", "Required field is not set: the name of one of the dataset's columns.")
    if key not in header:
        raise _violation(f"{at}.key", f"{key!r} is not a column of the dataset; its columns are "
                                      f"{', '.join(header)}.")
    return header.index(key)


def _time(text: str) -> datetime | None:
    try:
        return datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        return None


Parts = tuple[Rows, Rows, Rows]


def _predefined(split: Json, header: list[str], rows: Rows, seed: str, where: str) -> Parts:
    column = _column(header, split, where)

    def chosen(name: str) -> Rows:
        return [r for r in rows if len(r) > column and r[column] == name]
    return chosen("training"), chosen("validation"), chosen("test")


def _fraction(split: Json, header: list[str], rows: Rows, seed: str, where: str) -> Parts:
    shuffled = list(rows)
    random.Random(seed).shuffle(shuffled)
    return _cut(shuffled, fractions(split, where))


def _timestamp(split: Json, header: list[str], rows: Rows, seed: str, where: str) -> Parts:
    parts = fractions(split, where)
    column = _column(header, split, where)
    timed = [(t, i, r) for i, r in enumerate(rows) if len(r) > column and (t := _time(r[column])) is not None]
    if any(t.tzinfo is None for t, _, _ in timed):
        raise _violation(f"{where}.key", f"The column {header[column]!r} holds times without a time zone; "
                                         "they must be RFC 3339 (2026-01-31T12:00:00Z).")
    return _cut([r for _, _, r in sorted(timed, key=lambda x: (x[0], x[1]))], parts)


def _stratified(split: Json, header: list[str], rows: Rows, seed: str, where: str) -> Parts:
    parts = fractions(split, where)
    column = _column(header, split, where)
    groups: dict[str, Rows] = {}
    for row in rows:
        if len(row) > column:
            groups.setdefault(row[column], []).append(row)
    out: Parts = ([], [], [])
    for value in sorted(groups):
        members = list(groups[value])
        random.Random(f"{seed}/{value}").shuffle(members)
        for target, part in zip(out, _cut(members, parts), strict=True):
            target.extend(part)
    return out


def _filter(split: Json, header: list[str], rows: Rows, seed: str, where: str) -> Parts:
    raise ApiError("UNIMPLEMENTED", "input_data_config.filter_split is not emulated: it filters data items, "
                                    "which image, text and video datasets have and a tabular dataset does not. "
                                    "Use fraction_split, predefined_split, timestamp_split or stratified_split.")


_SPLITTERS: dict[str, Callable[[Json, list[str], Rows, str, str], Parts]] = {
    "fractionSplit": _fraction, "filterSplit": _filter, "predefinedSplit": _predefined,
    "timestampSplit": _timestamp, "stratifiedSplit": _stratified}


def split_rows(config: Json, header: list[str], rows: Rows, seed: str, at: str) -> Parts:
    """The (training, validation, test) rows the config's split gives; 400 for a bad split, 501 for filterSplit."""
    given = [k for k in _SPLITTERS if k in config]
    if len(given) > 1:
        raise _violation(at, f"Only one split can be given; this one has {', '.join(_snake(k) for k in given)}.")
    kind = given[0] if given else "fractionSplit"
    return _SPLITTERS[kind](config.get(kind) or {}, header, rows, seed, f"{at}.{_snake(kind)}")
