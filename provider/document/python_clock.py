"""The clock a Python launcher reads, read as the time of the conversion (provider.core.clock), as a script's
``$(date +FORMAT)`` is (provider.gcloud.substitution): code that names its job after the time it runs
(``TIMESTAMP = datetime.now().strftime("%Y%m%d%H%M%S")``, ``time.strftime("%Y%m%d-%H%M%S")``,
``int(time.time())``) gets the time trainjobs converts it, and each value of it that reaches the job is named
in a note (provider.document.python_taken), with where the code reads the clock.

What is read, computed by Python's own ``datetime`` and ``time`` on this machine (its time zone, ``TZ``; the
C locale a Python process starts in, so ``%a``/``%b`` are English, as where the code runs unless it calls
``locale.setlocale``):

* the clock: ``datetime.now([tz])``, ``datetime.utcnow()``, ``datetime.today()``, ``date.today()``,
  ``time.time()``, ``time.time_ns()``, ``time.gmtime()``, ``time.localtime()``, ``time.strftime(FMT[, t])``;
* the pure constructors: ``datetime(...)``, ``date(...)``, ``timedelta(...)``, ``timezone(...)``,
  ``timezone.utc``, ``zoneinfo.ZoneInfo(name)``, ``fromisoformat``, ``fromtimestamp``, ``strptime``;
* a value's ``strftime``, ``isoformat``, ``timestamp``, ``date``, ``replace``, ``astimezone`` and its fields
  (``year`` ... ``microsecond``); ``+``/``-`` with a ``timedelta``, and an f-string's ``{now:%Y%m%d}``, are
  Python's own operators on these values.

A value that is not a str or a number (a datetime itself) is not a job field's value: the reader that puts it
in a job refuses it by its type, as the SDK does.
"""

from __future__ import annotations

import ast
import datetime
import time
import zoneinfo
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from provider.core import clock
from provider.document import python_taken

if TYPE_CHECKING:
    from provider.document.python_values import Scope

TYPES = (datetime.date, datetime.time, datetime.timedelta, datetime.tzinfo, time.struct_time)
MODULES = ("datetime.", "time.", "zoneinfo.")  # the import paths call() may read
NOT_CLOCK = object()  # what call() and method() give for a call they do not read

_PURE: dict[str, Callable[..., Any]] = {
    "datetime.datetime": datetime.datetime, "datetime.date": datetime.date, "datetime.timedelta": datetime.timedelta,
    "datetime.timezone": datetime.timezone, "zoneinfo.ZoneInfo": zoneinfo.ZoneInfo,
    "datetime.datetime.fromisoformat": datetime.datetime.fromisoformat,
    "datetime.date.fromisoformat": datetime.date.fromisoformat,
    "datetime.datetime.fromtimestamp": datetime.datetime.fromtimestamp,
    "datetime.datetime.strptime": datetime.datetime.strptime,
}
CONSTANTS = {"datetime.timezone.utc": datetime.UTC, "datetime.UTC": datetime.UTC}
_FIELDS = frozenset({"year", "month", "day", "hour", "minute", "second", "microsecond", "tzinfo", "days",
                     "seconds", "microseconds", "tm_year", "tm_mon", "tm_mday", "tm_hour", "tm_min", "tm_sec"})
_METHODS = frozenset({"strftime", "isoformat", "timestamp", "date", "replace", "astimezone", "total_seconds"})


def call(scope: Scope, node: ast.Call, dotted: str, args: list[Any], kwargs: dict[str, Any]) -> object:
    """The value of the call of ``dotted`` (an import path), recording a reading of the clock in ``scope``; or
    NOT_CLOCK."""
    if dotted in _PURE:
        return _PURE[dotted](*args, **kwargs)
    now = clock.now()
    reading: dict[str, Callable[[], Any]] = {
        "datetime.datetime.now": lambda: datetime.datetime.fromtimestamp(now, *args, **kwargs),
        "datetime.datetime.utcnow": lambda: datetime.datetime.fromtimestamp(now, datetime.UTC).replace(
            tzinfo=None),
        "datetime.datetime.today": lambda: datetime.datetime.fromtimestamp(now),
        "datetime.date.today": lambda: datetime.date.fromtimestamp(now),
        "time.time": lambda: now, "time.time_ns": lambda: int(now * 1e9),
        "time.gmtime": lambda: time.gmtime(*(args or [now])),
        "time.localtime": lambda: time.localtime(*(args or [now])),
        "time.strftime": lambda: time.strftime(args[0], *(args[1:] or [time.localtime(now)])),
    }
    if dotted not in reading or (kwargs and dotted != "datetime.datetime.now"):
        return NOT_CLOCK
    value = reading[dotted]()
    if isinstance(value, (str, int, float)):
        _record(scope, node, value)
    return value


def method(scope: Scope, node: ast.Call, receiver: Any, name: str, args: list[Any], kwargs: dict[str, Any]) -> object:
    """``receiver.name(*args, **kwargs)`` of a date, time or timedelta (one formatted or made a number is recorded
    in ``scope``); or NOT_CLOCK."""
    if name not in _METHODS or not hasattr(receiver, name):
        return NOT_CLOCK
    value = getattr(receiver, name)(*args, **kwargs)
    if isinstance(value, (str, int, float)):
        _record(scope, node, value)
    return value


def attribute(receiver: Any, name: str) -> object:
    """A field of a date, time, timedelta or struct_time (``now.year``); or NOT_CLOCK."""
    return getattr(receiver, name) if name in _FIELDS and hasattr(receiver, name) else NOT_CLOCK


def formatted(scope: Scope, node: ast.AST, value: Any, text: str) -> str:
    """``text``, an f-string's ``{value:spec}``: recorded where ``value`` is a date or time (``{now:%Y%m%d}``)."""
    if isinstance(value, TYPES):
        _record(scope, node, text)
    return text


def _record(scope: Scope, node: ast.AST, value: str | int | float) -> None:
    text = value if isinstance(value, str) else str(int(value))  # int(time.time()): the digits written
    scope.taken().append(python_taken.taken(scope.where_of(node), node, text, f"the time the code runs, written as "
                                                                                f"{text!r}, the time of the conversion"))
