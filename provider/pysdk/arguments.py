"""One SDK call's arguments as plain values, each with where it was written; what the SDK refuses, refused.

``Call`` is what the mappings (custom_job.py, tuning.py, pipelines.py) read: the call's name,
its place (``train.py:12:7``), every argument bound to its parameter name as the SDK binds it
(positional ones by the signature's order) and each argument's own place. ``SdkError`` is a refusal,
with its place, what is wrong and what is allowed.
"""

from __future__ import annotations

from collections.abc import Mapping

from provider.core.record import Record, field
from provider.document.python_enum import EnumMember


class SdkError(Exception):
    """A refusal: ``where`` (file:line:column), what is wrong, what is allowed."""

    def __init__(self, where: str, what: str, allowed: str = "") -> None:
        self.where, self.what, self.allowed = where, what, allowed
        super().__init__(f"{where}: {what}" + (f"; allowed: {allowed}" if allowed else ""))


class Unread(Record):
    """An argument only named in a note whose value is known only when the code runs: as written, and why."""

    written: str
    why: str
    noun: str = "script"
    given: str | None = None  # what convert's own flag gives in its place (--staging-bucket's bucket)

    def __repr__(self) -> str:
        return f"{self.written} (known only when the {self.noun} runs: {self.why})"


class Call(Record):
    """An SDK call read statically: ``what`` is its name as the script wrote it (aiplatform.CustomJob)."""

    what: str
    where: str
    args: Mapping[str, object] = field(default_factory=dict)
    at: Mapping[str, str] = field(default_factory=dict)
    noun: str = "script"  # how messages name the code the call is in: "script" or "notebook"

    def given(self, name: str) -> bool:
        return name in self.args

    def get(self, name: str, default: object = None) -> object:
        return self.args.get(name, default)

    def place(self, name: str) -> str:
        return self.at.get(name, self.where)

    def text(self, name: str) -> str | None:
        """A str argument (None when not given or None); SdkError for any other type."""
        value = self.args.get(name)
        if value is None or isinstance(value, str):
            return value
        if isinstance(value, Unread):  # known only when the code runs, and only named (a note says so)
            return None
        if isinstance(value, EnumMember):  # accelerator_type=AcceleratorType.NVIDIA_TESLA_T4: the SDK takes the name
            raise SdkError(self.place(name), f"{self.what}({name}=...): {name} is the enum member {value!r}, and the "
                           f"SDK takes a str here: it raises ValueError for a member", f"its name: "
                           f"{name}={value.name!r} (the member's .name)")
        raise SdkError(self.place(name), f"{self.what}({name}={value!r}): {name} is a {type(value).__name__}",
                       "a str")

    def seconds(self, name: str) -> int | None:
        """An int of seconds (the SDK's timeout and max_wait_duration); SdkError for any other type."""
        value = self.args.get(name)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise SdkError(self.place(name), f"{self.what}({name}={value!r}): the SDK sends {name} as "
                           "google.protobuf.Duration(seconds=...)", "a whole number of seconds (int), 0 or more")
        return value

    def flag(self, name: str) -> bool:
        value = self.args.get(name, False)
        if not isinstance(value, bool):
            raise SdkError(self.place(name), f"{self.what}({name}={value!r}): {name} is a "
                           f"{type(value).__name__}", "True or False")
        return value


def merged(calls: list[Call]) -> Call:
    """Several ``aiplatform.init`` calls as the SDK keeps them: each sets only the arguments it gives not None."""
    args: dict[str, object] = {}
    at: dict[str, str] = {}
    for call in calls:
        for name, value in call.args.items():
            if value is not None:
                args[name], at[name] = value, call.place(name)
    return Call("aiplatform.init", calls[-1].where if calls else "", args, at, calls[-1].noun if calls else "script")
