"""provider.core.record: a record behaves as the frozen (or plain) dataclass it replaces.

Each behaviour is checked against a dataclass of the same fields: construction (positional,
keyword, defaults, factories), equality, hash, repr, frozenness, replace, pickling and copying.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle
from functools import cached_property
from typing import ClassVar

import pytest
from hypothesis import given
from hypothesis import strategies as st

from provider.core.record import FrozenRecordError, Record, asdict, field, fields, replace


class Pool(Record):
    """A record with every kind of field."""

    machine: str
    count: int = 1
    labels: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default=(), compare=False)
    at: dict[str, int] = field(default_factory=dict, compare=False, repr=False)
    KIND: ClassVar[str] = "pool"

    @cached_property
    def size(self) -> int:
        return self.count * 2


@dataclasses.dataclass(frozen=True)
class PoolDC:
    """The same fields as a frozen dataclass."""

    machine: str
    count: int = 1
    labels: tuple[str, ...] = ()
    notes: tuple[str, ...] = dataclasses.field(default=(), compare=False)
    at: dict[str, int] = dataclasses.field(default_factory=dict, compare=False, repr=False)


class Result(Record, frozen=False):
    """A mutable record."""

    file: str
    problems: list[str] = field(default_factory=list)


values = st.tuples(st.text(max_size=8), st.integers(-3, 3), st.lists(st.text(max_size=3), max_size=2).map(tuple),
                   st.lists(st.text(max_size=3), max_size=2).map(tuple))


@given(values, values)
def test_equality_hash_and_repr_are_a_dataclasses(a: tuple[object, ...], b: tuple[object, ...]) -> None:
    ra, rb, da, db = Pool(*a), Pool(*b), PoolDC(*a), PoolDC(*b)  # type: ignore[arg-type]
    assert (ra == rb) == (da == db)
    assert (ra != rb) == (da != db)
    assert repr(ra) == repr(da).replace("PoolDC(", "Pool(")
    if ra == rb:
        assert hash(ra) == hash(rb)
    assert hash(ra) == hash(da)  # both hash the tuple of the compared fields


def test_fields_out_of_the_comparison_are_not_compared_hashed_or_shown() -> None:
    a = Pool("n1", 2, notes=("x",), at={"machine": 3})
    b = Pool("n1", 2, notes=("y",), at={"machine": 4})
    assert a == b and hash(a) == hash(b)
    assert repr(a) == "Pool(machine='n1', count=2, labels=(), notes=('x',))"
    assert a != Pool("n1", 3) and a != PoolDC("n1", 2) and a != ("n1", 2)


def test_construction_takes_positions_keywords_defaults_and_factories() -> None:
    a = Pool("n1")
    assert (a.machine, a.count, a.labels, a.notes, a.at) == ("n1", 1, (), (), {})
    assert Pool("n1").at is not Pool("n1").at  # a factory makes one for each
    assert Pool(machine="n1", count=3, labels=("a",)).count == 3
    with pytest.raises(TypeError):
        Pool()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Pool("n1", nope=1)  # type: ignore[call-arg]
    assert [f.name for f in fields(Pool)] == ["machine", "count", "labels", "notes", "at"]  # no ClassVar
    assert Pool.__match_args__ == ("machine", "count", "labels", "notes", "at")
    match a:
        case Pool(machine, count):
            assert (machine, count) == ("n1", 1)


def test_a_frozen_record_cannot_change_and_a_mutable_one_can() -> None:
    a = Pool("n1")
    with pytest.raises(FrozenRecordError):
        a.count = 2  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del a.machine
    assert a.size == 2 and a.size == 2  # cached_property still works on a frozen record
    r = Result("f.yaml")
    r.problems.append("p")
    r.file = "g.yaml"
    assert r == Result("g.yaml", ["p"]) and r.problems is not Result("x").problems
    with pytest.raises(TypeError):
        hash(r)  # compared by value and mutable: unhashable, as a dataclass


def test_replace_makes_a_changed_copy() -> None:
    a = Pool("n1", 2, notes=("x",))
    b = replace(a, count=4)
    assert (b.machine, b.count, b.notes) == ("n1", 4, ("x",)) and a.count == 2
    with pytest.raises(TypeError, match="no field 'cuont'"):
        replace(a, cuont=4)


def test_pickle_and_copy_keep_the_values() -> None:
    a = Pool("n1", 2, ("l",), ("n",), {"k": 1})
    for b in (pickle.loads(pickle.dumps(a)), copy.copy(a), copy.deepcopy(a)):
        assert b == a and (b.notes, b.at) == (a.notes, a.at)


def test_declarations_a_dataclass_refuses_are_refused() -> None:
    with pytest.raises(TypeError, match="without a default follows"):
        type("Bad", (Record,), {"__annotations__": {"a": "int", "b": "int"}, "a": 1})
    with pytest.raises(ValueError, match="mutable default"):
        type("Bad", (Record,), {"__annotations__": {"a": "list[int]"}, "a": []})
    with pytest.raises(ValueError, match="both"):
        field(default=1, default_factory=list)  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="a frozen and a mutable record cannot derive from each other"):
        type("Bad", (Pool,), {}, frozen=False)
    with pytest.raises(TypeError, match="a frozen and a mutable record cannot derive from each other"):
        type("Bad", (Result,), {})


def test_a_subclass_adds_its_fields_after_its_bases() -> None:
    class Child(Pool):
        """A pool with a region."""

        region: str = "us-central1"

    c = Child("n1", region="europe-west4")
    assert [f.name for f in fields(c)] == ["machine", "count", "labels", "notes", "at", "region"]
    assert c != Pool("n1") and repr(c).startswith(
        "test_a_subclass_adds_its_fields_after_its_bases.<locals>.Child(machine='n1'")


def test_init_is_compiled_once_on_the_first_instance() -> None:
    class Fresh(Record):
        """A class no one has made an instance of."""

        a: int

    placeholder = Fresh.__init__
    Fresh(1)
    compiled = Fresh.__init__
    assert compiled is not placeholder and compiled.__qualname__.endswith("Fresh.__init__")
    Fresh(2)
    assert Fresh.__init__ is compiled


def test_asdict_turns_records_within_into_dicts_as_dataclasses_does() -> None:
    class Outer(Record):
        """Records in a list, a tuple and a dict."""

        pools: list[Pool]
        pair: tuple[Pool, int]
        by_name: dict[str, Pool]

    @dataclasses.dataclass(frozen=True)
    class OuterDC:
        """The same as dataclasses."""

        pools: list[PoolDC]
        pair: tuple[PoolDC, int]
        by_name: dict[str, PoolDC]

    record = Outer([Pool("a", 2)], (Pool("b"), 3), {"c": Pool("c", labels=("x",))})
    same = OuterDC([PoolDC("a", 2)], (PoolDC("b"), 3), {"c": PoolDC("c", labels=("x",))})
    assert asdict(record) == dataclasses.asdict(same)
    assert asdict(Pool("n1", at={"k": 1}))["at"] == {"k": 1}
