"""Records: the small typed values of trainjobs (the model, the catalog, problems, plans, jobs),
declared as dataclasses are. Every value class of ``provider`` is one (a test keeps it so).

    class Accelerator(Record):
        type: str
        count: int
        at: Where = field(default_factory=dict, compare=False, repr=False)

A ``Record`` subclass has the ``__init__``, ``__eq__``, ``__hash__`` and ``__repr__`` that
``@dataclass(frozen=True)`` would give it, and is frozen the same way; ``class X(Record,
frozen=False)`` is mutable (and unhashable, as a mutable dataclass is). ``replace`` makes a
changed copy. Type checkers read it as a dataclass (``dataclass_transform``).

Why not ``dataclasses``: on Python 3.11 ``@dataclass`` compiles five or six methods with
``exec`` for every class, when its module is imported: about 0.9 ms a class, and importing
``dataclasses`` brings ``inspect``, ``ast`` and ``dis`` (about 13 ms). The ~40 classes one cold
``trainjobs validate`` defines cost more than parsing and checking the spec
(``bench/cold_start_dataclasses.py``, ``bench/RESULTS.md``, cold start). Here making a class compiles
nothing: equality and hash read the fields with one ``operator.attrgetter``, and ``__init__``
is compiled on the class's first instance, so only the classes a run uses pay for it, once.
Making an instance takes about half the time a frozen dataclass's does: its fields go straight
into the instance's dict.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from types import FunctionType
from typing import Any, ClassVar, TypeVar, dataclass_transform, overload

T = TypeVar("T")
R = TypeVar("R", bound="Record")


class FrozenRecordError(AttributeError):
    """A field of a frozen record was assigned or deleted (as dataclasses.FrozenInstanceError)."""


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


class Field:
    """One field of a record: its default (or the factory that makes one), and whether it counts."""

    __slots__ = ("compare", "default", "default_factory", "name", "repr")

    def __init__(self, name: str, default: object = MISSING, default_factory: Callable[[], object] | None = None,
                 compare: bool = True, repr: bool = True) -> None:
        self.name = name
        self.default = default
        self.default_factory = default_factory
        self.compare = compare
        self.repr = repr

    def __repr__(self) -> str:
        return f"Field({self.name!r})"


class _FieldSpec:
    """What ``field()`` declares, until the class is made."""

    __slots__ = ("compare", "default", "default_factory", "repr")

    def __init__(self, default: object, default_factory: Callable[[], object] | None, compare: bool,
                 repr: bool) -> None:
        self.default = default
        self.default_factory = default_factory
        self.compare = compare
        self.repr = repr


@overload
def field(*, default: T, compare: bool = True, repr: bool = True) -> T: ...
@overload
def field(*, default_factory: Callable[[], T], compare: bool = True, repr: bool = True) -> T: ...
@overload
def field(*, compare: bool = True, repr: bool = True) -> Any: ...
def field(*, default: object = MISSING, default_factory: Callable[[], object] | None = None,
          compare: bool = True, repr: bool = True) -> Any:
    """A field's default or default factory, and whether it is compared, hashed and shown."""
    if default is not MISSING and default_factory is not None:
        raise ValueError("a field cannot have both a default and a default_factory")
    return _FieldSpec(default, default_factory, compare, repr)


def _tuple_of(names: tuple[str, ...]) -> Callable[[object], tuple[object, ...]]:
    """A function giving the values of ``names`` as a tuple (attrgetter gives a bare value for one)."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return lambda obj: ()


def _frozen_setattr(self: Record, name: str, value: object) -> None:
    raise FrozenRecordError(f"cannot assign to field {name!r}")


def _frozen_delattr(self: Record, name: str) -> None:
    raise FrozenRecordError(f"cannot delete field {name!r}")


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
class Record:
    """The base of every record (see the module's docstring)."""

    __record_fields__: ClassVar[tuple[Field, ...]] = ()
    __record_frozen__: ClassVar[bool] = True
    _values: ClassVar[staticmethod[[object], tuple[object, ...]]]  # the compared fields' values

    def __init_subclass__(cls, *, frozen: bool = True, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        parents = [b for b in cls.__bases__ if issubclass(b, Record) and b is not Record]
        if any(p.__record_frozen__ != frozen for p in parents):  # as dataclasses refuse it
            raise TypeError(f"{cls.__qualname__}: a frozen and a mutable record cannot derive from each other")
        fields = {f.name: f for f in cls.__record_fields__}
        own = cls.__dict__.get("__annotations__", {})  # noqa: RUF063 - not inspect: this module avoids its import
        for name, annotation in own.items():
            if str(annotation).startswith(("ClassVar", "typing.ClassVar")):
                continue
            fields[name] = _field_of(cls, name)
        defaulted = False
        for f in fields.values():
            has_default = f.default is not MISSING or f.default_factory is not None
            if defaulted and not has_default:
                raise TypeError(f"{cls.__qualname__}: field {f.name!r} without a default follows one with a default")
            defaulted = defaulted or has_default
        cls.__record_fields__ = tuple(fields.values())
        cls.__record_frozen__ = frozen
        cls._values = staticmethod(_tuple_of(tuple(f.name for f in cls.__record_fields__ if f.compare)))
        methods: dict[str, object] = {"__match_args__": tuple(fields)}
        if "__init__" not in cls.__dict__:
            methods["__init__"] = _compile_init
        if frozen:
            methods.update(__setattr__=_frozen_setattr, __delattr__=_frozen_delattr)
        elif "__hash__" not in cls.__dict__:
            methods["__hash__"] = None  # mutable and compared by value: unhashable, as a dataclass
        for name, method in methods.items():
            setattr(cls, name, method)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values(self) == self._values(other)

    def __hash__(self) -> int:
        return hash(self._values(self))

    def __repr__(self) -> str:
        shown = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in self.__record_fields__ if f.repr)
        return f"{self.__class__.__qualname__}({shown})"


def _field_of(cls: type, name: str) -> Field:
    """The field ``name`` declares, its ``field()`` (if any) replaced on the class by its default."""
    declared = cls.__dict__.get(name, MISSING)
    if not isinstance(declared, _FieldSpec):
        _no_mutable_default(cls, name, declared)
        return Field(name, declared)
    if declared.default is MISSING:
        delattr(cls, name)
    else:
        _no_mutable_default(cls, name, declared.default)
        setattr(cls, name, declared.default)
    return Field(name, declared.default, declared.default_factory, declared.compare, declared.repr)


def _no_mutable_default(cls: type, name: str, default: object) -> None:
    if isinstance(default, (list, dict, set)):
        raise ValueError(f"{cls.__qualname__}.{name}: a mutable default is shared by every instance; "
                         "use field(default_factory=...)")


def _compile_init(self: Record, *args: object, **kwargs: object) -> None:
    """The first instance of a class: compile its ``__init__``, put it on the class, and run it."""
    cls = type(self)
    namespace: dict[str, object] = {"MISSING": MISSING}
    params, body = [], []
    store = "_d[{name!r}] = {value}" if cls.__record_frozen__ else "self.{name} = {value}"
    for f in cls.__record_fields__:
        value = f.name
        if f.default_factory is not None:
            namespace[f"_factory_{f.name}"] = f.default_factory
            params.append(f"{f.name}=MISSING")
            value = f"_factory_{f.name}() if {f.name} is MISSING else {f.name}"
        elif f.default is not MISSING:
            namespace[f"_default_{f.name}"] = f.default
            params.append(f"{f.name}=_default_{f.name}")
        else:
            params.append(f.name)
        body.append(store.format(name=f.name, value=value))
    if cls.__record_frozen__:
        body.insert(0, "_d = self.__dict__")
    source = f"def __init__(self, {', '.join(params)}):\n    " + "\n    ".join(body or ["pass"])
    exec(source, namespace)  # made from the class's own field names, nothing else
    init = namespace["__init__"]
    assert isinstance(init, FunctionType)
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    setattr(cls, "__init__", init)  # noqa: B010 - mypy refuses an assignment to a method
    init(self, *args, **kwargs)


def replace(record: R, **changes: object) -> R:
    """A copy of ``record`` with ``changes`` (as dataclasses.replace)."""
    for name in changes:
        if not any(f.name == name for f in record.__record_fields__):
            raise TypeError(f"{type(record).__qualname__} has no field {name!r}")
    values = {f.name: getattr(record, f.name) for f in record.__record_fields__}
    values.update(changes)
    return type(record)(**values)


def fields(record: Record | type[Record]) -> tuple[Field, ...]:
    """The fields of a record or record class, in order."""
    return record.__record_fields__


def asdict(record: Record) -> dict[str, Any]:
    """The fields of ``record`` as a dict, records within it (also in lists, tuples and dicts)
    as dicts too (as dataclasses.asdict; other values are not copied)."""
    return {f.name: _plain(getattr(record, f.name)) for f in record.__record_fields__}


def _plain(value: object) -> Any:
    if isinstance(value, Record):
        return asdict(value)
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # a NamedTuple: its fields by position
        return type(value)(*[_plain(v) for v in value])
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(v) for v in value)
    if isinstance(value, dict):
        return type(value)((_plain(k), _plain(v)) for k, v in value.items())
    return value
