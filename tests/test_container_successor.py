"""The containers rule's ``successor``: the newest served container of the same framework and
accelerator, from an order built once per table (issue 31 part 2), never another table's."""

from __future__ import annotations

import datetime as dt
from typing import Any

from provider.validation.rules.containers import successor

TODAY = dt.date(2026, 1, 1)


def _table(end_of_217: str | None) -> dict[str, Any]:
    return {
        "tf-cpu.2-15.py310": {"framework": "tensorflow", "accelerator": "cpu", "version": "2.15",
                              "end_of_availability": "2025-06-01"},
        "tf-cpu.2-17.py310": {"framework": "tensorflow", "accelerator": "cpu", "version": "2.17",
                              "end_of_availability": end_of_217},
        "tf-cpu.2-9.py310": {"framework": "tensorflow", "accelerator": "cpu", "version": "2.9"},
        "tf-gpu.2-17.py310": {"framework": "tensorflow", "accelerator": "gpu", "version": "2.17"},
    }


def test_the_newest_served_by_version_not_by_name() -> None:
    table = _table(None)
    assert successor(table, "tf-cpu.2-15.py310", TODAY) == "tf-cpu.2-17.py310"  # 2.17 > 2.9 by number
    assert successor(table, "tf-gpu.2-17.py310", TODAY) == "tf-gpu.2-17.py310"  # its own, still served


def test_served_through_its_last_day_and_not_after() -> None:
    table = _table("2026-01-01")
    assert successor(table, "tf-cpu.2-15.py310", TODAY) == "tf-cpu.2-17.py310"
    assert successor(table, "tf-cpu.2-15.py310", TODAY + dt.timedelta(days=1)) == "tf-cpu.2-9.py310"


def test_each_table_answers_for_itself() -> None:
    served, retired = _table(None), _table("2025-01-01")
    for _ in range(2):  # asked again: the order kept for one table is never another's
        assert successor(served, "tf-cpu.2-15.py310", TODAY) == "tf-cpu.2-17.py310"
        assert successor(retired, "tf-cpu.2-15.py310", TODAY) == "tf-cpu.2-9.py310"


def test_none_when_none_of_its_kind_is_served() -> None:
    table = {"pytorch-gpu.1-13.py310": {"framework": "pytorch", "accelerator": "gpu", "version": "1.13",
                                        "end_of_availability": "2024-01-01"}}
    assert successor(table, "pytorch-gpu.1-13.py310", TODAY) is None
