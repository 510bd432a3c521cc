"""Typed resource inputs: a record whose fields are a dynamic resource's inputs, and the property map.

Every dynamic resource of trainjobs takes one (JobArgs, the local infrastructure's args, the
PersistentResource's args); the program builds it, ``to_props()`` is what the SDK carries, and the
provider reads its inputs back only through ``from_props()``. A field's property is its name in
camelCase (``job_name`` -> ``jobName``), as the state, the policy pack and ``pulumi stack export``
show it.

Engine values: every number arrives as a float (the engine's Struct has no integers), so
``from_props`` turns whole floats back into ints, except in the fields a class names in
``AS_IS`` (values only compared with their like from the engine, where a copy would cost as much
as the rest of the work). During a preview any input, or anything inside one, may be unknown
(provider.resources.unknowns): those values are kept as they arrive, for the caller to ask
``is_unknown``/``has_unknown``. Outputs and ``__provider`` in a state are ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, TypeVar

from provider.core.record import Record
from provider.stack.policy_inputs import plain

P = TypeVar("P", bound="Props")


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


class Props(Record):
    """A resource's inputs (see the module's docstring). Every field defaults to None: not carried."""

    AS_IS: ClassVar[frozenset[str]] = frozenset()
    _names: ClassVar[tuple[tuple[str, str], ...]] = ()  # (field, property), made once per class
    _fields: ClassVar[dict[str, str]] = {}  # property -> field, made once per class

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._names = tuple((f.name, camel(f.name)) for f in cls.__record_fields__)
        cls._fields = {prop: name for name, prop in cls._names}

    @classmethod
    def prop(cls, field: str) -> str:
        """The property name of ``field``."""
        return camel(field)

    @classmethod
    def props_of(cls, fields: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(camel(f) for f in fields)

    def to_props(self) -> dict[str, Any]:
        """The property map the SDK carries: the fields that are set, by their property names (an
        input left at None is not carried: each costs the SDK the same whatever it holds)."""
        return {prop: value for name, prop in self._names if (value := getattr(self, name)) is not None}

    @classmethod
    def from_props(cls: type[P], props: Mapping[str, Any], as_is: frozenset[str] | None = None) -> P:
        """The args a property map holds (the engine's inputs or a state); a missing key reads as None.
        ``as_is`` (default: the class's AS_IS) names the fields passed without ``plain``."""
        keep = cls.AS_IS if as_is is None else as_is
        fields = cls._fields
        values = {}
        for prop, value in props.items():  # what is carried: a field it lacks keeps its default, None
            name = fields.get(prop)
            if name is not None and value is not None:
                values[name] = value if name in keep else plain(value)
        return cls(**values)
