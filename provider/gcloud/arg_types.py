"""gcloud's list and dict flag values, read as calliope/arg_parsers.py's ArgList and ArgDict read them.

A list flag's text is split on commas, or on the delimiter a leading ``^X^`` names (``gcloud topic
escaping``): ``--args=^:^--lr=0.1:--layers=a,b`` is ``['--lr=0.1', '--layers=a,b']``. As ArgList
does it: the escape needs a second ``^`` (``^a,b`` is the items ``^a`` and ``b``); the delimiter is
all the text between the two (``^::^a:b::c`` is ``['a:b', 'c']``); an empty one (``^^a``) is
gcloud's "Invalid delimeter" (its spelling); one trailing delimiter is dropped and empty items are
kept (``a,,b,`` is ``['a', '', 'b']``). A dict flag splits the same way, then each item at its first
``=``: an empty item or one that starts with ``=`` is "Invalid flag value", one without ``=`` is
"Bad syntax for dict arg"; a key given twice in one value keeps the last. ``--labels`` keys and
values pass labels_util's checks (lower-case letters, digits, ``-``, ``_``; at most 63).

A ``--flags-file`` list or mapping is not text: calliope/cli.py hands it to the flag as it is
(``Lexed``): ArgList keeps a list's items whole (commas, ``^`` and all), ArgDict reads a
mapping's values unconverted, and each flag's value type then applies to them.
"""

from __future__ import annotations

import re

from provider.core.record import Record

ESCAPING = ("Please see `gcloud topic flags-file` or `gcloud topic escaping` for information on providing "
            "list or dictionary flag values with special characters.")


class GcloudError(ValueError):
    """The command is not one gcloud would accept (the message says what gcloud would say); ``flag``: the flag it
    names, where a message can say where that flag is written."""

    def __init__(self, message: str, flag: str | None = None) -> None:
        super().__init__(message)
        self.flag = flag


class Lexed(Record):
    """A flags file's list or mapping, handed to its flag as it is, not as text (cli.py's separate_value_arg)."""

    value: list[object] | dict[object, object]

    @property
    def kind(self) -> str:
        return "list" if isinstance(self.value, list) else "mapping"


def _not_a(name: str, value: Lexed, wanted: str) -> GcloudError:
    # ArgList / ArgDict's words for a value of the other shape; the flags file's text is not shown.
    shape = "list" if value.kind == "list" else "dict"
    return GcloudError(f"argument {name}: Invalid type [{shape}] for flag value (a {value.kind} in the --flags-file); "
                       f"allowed: {wanted}")


def items(name: str, value: str | Lexed, delim: str = ",") -> list[object]:
    """ArgList: a flags file's list as it is; text split on ``delim`` or on a leading ``^X^``'s X."""
    if isinstance(value, Lexed):
        if isinstance(value.value, list):
            return list(value.value)
        raise _not_a(name, value, "a list of items")
    text = value
    if text.startswith("^") and "^" in text[1:]:
        delim, text = text[1:].split("^", 1)
        if not delim:
            raise GcloudError(f"argument {name}: Invalid delimeter. {ESCAPING}")
    if not text:
        return []
    if not text.endswith(delim):
        text += delim
    return list(text.split(delim)[:-1])


_KEY_OP_VALUE = re.compile(r"([^=]+)(=?)(.*)", re.DOTALL)


def pairs(name: str, value: str | Lexed) -> dict[object, object]:
    """ArgDict's keys and values, in order: a flags file's mapping as it is (values unconverted), text
    split as ``items`` splits it, each item at its first ``=``."""
    if isinstance(value, Lexed):
        if not isinstance(value.value, dict):
            raise _not_a(name, value, "a mapping of KEY: VALUE")
        for key, item in value.value.items():
            if item is None:
                raise _bad_syntax(name, key)
        return dict(value.value)
    raw: dict[object, object] = {}
    for item in items(name, value):
        match = _KEY_OP_VALUE.match(str(item))
        if match is None:
            raise GcloudError(f"argument {name}: Invalid flag value [{item}] (an empty KEY=VALUE item, or one "
                              f"with no key); allowed: KEY=VALUE items. {ESCAPING}")
        key, op, text = match.groups()
        if not op:
            raise _bad_syntax(name, key)
        raw[key] = text
    return raw


def _bad_syntax(name: str, key: object) -> GcloudError:
    # ArgDict: a key with no =VALUE (or a null value in a flags file)
    return GcloudError(f"argument {name}: Bad syntax for dict arg: [{key}]. {ESCAPING} (expected KEY=VALUE,...)")


_KEY_ERROR = ("Only hyphens (-), underscores (_), lowercase characters, and numbers are allowed. Keys must start with "
              "a lowercase character. International characters are allowed. Key length must not exceed 63 characters.")
_VALUE_ERROR = ("Only hyphens (-), underscores (_), lowercase characters, and numbers are allowed. International "
                "characters are allowed.")


def _lower(c: str) -> bool:
    return c.isalpha() and (c.islower() or not c.isupper())


def _label_value(text: str) -> bool:
    return len(text) <= 63 and all(c in "_-" or c.isdigit() or _lower(c) for c in text)


def labels(name: str, value: str | Lexed) -> dict[str, str]:
    """``--labels``: ArgDict with labels_util's key and value checks (command_lib/util/args/labels_util.py)."""
    from provider.gcloud.secrets import MARK

    out: dict[str, str] = {}
    for key, item in pairs(name, value).items():
        text = str(key)
        if MARK in text or (isinstance(item, str) and MARK in item):  # a secret's stand-in: secrets.py refuses it by name
            out[text] = str(item)
            continue
        if not (text and _lower(text[0]) and _label_value(text)):
            raise GcloudError(f"argument {name}: Bad value [{text}]: {_KEY_ERROR}")
        if not isinstance(item, str):  # labels_util's check takes text: gcloud fails on a number or boolean
            raise GcloudError(f"argument {name}: invalid ArgDict value: the value of {text} is "
                              f"{type(item).__name__}, not text (gcloud fails on it); allowed: text; quote it "
                              "in the --flags-file")
        if not _label_value(item):
            raise GcloudError(f"argument {name}: Bad value [{item}]: {_VALUE_ERROR}")
        out[text] = item
    return out


# core/properties.py _VALID_PROJECT_REGEX: an optional domain (google.com:), then a project id; no project number.
_PROJECT_ID = re.compile(r"^(?:(?:[-a-z0-9]{1,63}\.)*(?:[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?):)?"
                         r"(?:[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?)$")


def project(text: str) -> None:
    """GcloudError, in gcloud's words, for a --project value its core/project property refuses (ProjectValidator):
    gcloud stops before it sends anything. A name (``PROJECT_ID``, ``My Project``) is not an id."""
    if _PROJECT_ID.match(text):
        return
    if text == "":
        raise GcloudError("The project property is set to the empty string, which is invalid.")
    if re.match(r"[-0-9A-Z]", text) or any(c in text for c in " !\"'"):  # _LooksLikeAProjectName
        raise GcloudError(f"The project property must be set to a valid project ID, not the project name [{text}]; "
                          "allowed: a project id (lower-case letters, digits and -)")
    raise GcloudError(f"The project property must be set to a valid project ID, [{text}] is not a valid project ID.")
