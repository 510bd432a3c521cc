"""A member of an API enum as Python holds it: ``aiplatform.gapic.AcceleratorType.NVIDIA_TESLA_T4``.

The client's enums are proto-plus enums, ``enum.IntEnum`` subclasses, so a member is its number to Python:
``bool()`` is the number != 0 (a ``*_UNSPECIFIED`` member, number 0, is false), ``str()``, ``format()`` and
an f-string give the number (Python 3.11's IntEnum), ``==`` compares numbers, and ``.name`` and ``.value``
give its name and number. Google's samples lean on all of it (``if TRAIN_GPU:``, ``TRAIN_GPU.name``).

This layer holds only the value's type. Which dotted paths are members, and their numbers, is the API's
(the table generated from the installed client's descriptors, read in provider/spec/formats/vertex/
api_enums.py): the reader that builds a Scope gives it an ``Enums`` lookup.
"""

from __future__ import annotations

from typing import Protocol

__all__ = ["EnumMember", "Enums", "named"]


class EnumMember(int):
    """One member: its number (the int itself), its enum's name (``Scheduling.Strategy``) and its own name."""

    enum: str
    name: str

    def __new__(cls, number: int, enum: str, name: str) -> EnumMember:
        member = super().__new__(cls, number)
        member.enum, member.name = enum, name
        return member

    def __getnewargs__(self) -> tuple[int, str, str]:  # type: ignore[override]
        return int(self), self.enum, self.name

    def __copy__(self) -> EnumMember:
        return self

    def __deepcopy__(self, memo: object) -> EnumMember:
        return self

    def __repr__(self) -> str:
        return f"<{self.enum.rsplit('.', 1)[-1]}.{self.name}: {int(self)}>"

    __str__ = int.__repr__  # IntEnum's, since Python 3.11: the number

    def __format__(self, spec: str) -> str:
        return int(self).__format__(spec)

    def attribute(self, name: str) -> object:
        """``member.name`` or ``member.value``; KeyError for any other attribute."""
        return {"name": self.name, "value": int(self)}[name]


class Enums(Protocol):
    """The lookup a Scope reads an enum member through: the member a dotted import path names, a str saying why
    the path names no member of the enum it names (Python raises AttributeError), or None: not an enum."""

    def __call__(self, dotted: str) -> EnumMember | str | None: ...


def named(value: object) -> object:
    """``value`` with every enum member inside a list, tuple or dict written as its name, as proto-plus reads a
    member given for an enum field (``{"accelerator_type": AcceleratorType.NVIDIA_TESLA_T4}``); a copy."""
    if isinstance(value, EnumMember):
        return value.name
    if isinstance(value, dict):
        return {named(k): named(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(named(v) for v in value)
    return value
