"""Job states have one owner: the catalog's states.json (with its sources) and vertex/states.py's table."""

from __future__ import annotations

import json
from pathlib import Path

from provider.backends.base import JobState
from provider.backends.vertex import states
from provider.catalog import load
from provider.emulator import filters

ROOT = Path(__file__).resolve().parents[2]


def test_the_vertex_states_are_the_catalogs_in_number_order() -> None:
    numbers = load("states")["vertex"]
    assert tuple(sorted(numbers, key=numbers.__getitem__)) == states.VERTEX_STATE_NAMES
    assert [numbers[n] for n in states.VERTEX_STATE_NAMES] == list(range(12))


def test_the_catalog_states_come_from_the_reference_with_its_sources() -> None:
    reference = json.loads((ROOT / "tools/catalog/reference/job_states.json").read_text())
    assert {e["name"]: e["number"] for e in reference["vertex_ai"]["enum"]} == load("states")["vertex"]
    assert reference["sources"]


def test_every_vertex_state_is_mapped_and_the_terminal_ones_end_a_job() -> None:
    assert set(states.STATE_TABLE) == set(states.VERTEX_STATE_NAMES)
    assert states.VERTEX_TERMINAL
    for name in states.VERTEX_TERMINAL:
        assert states.STATE_TABLE[name].terminal, name
    for state in JobState:
        assert states.to_job_state(states.to_vertex(state)) is state


def test_the_emulators_list_filter_takes_its_states_from_the_one_table() -> None:
    assert filters._STATES == states.VERTEX_STATE_NAMES + states.PIPELINE_STATE_NAMES
