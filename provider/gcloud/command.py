"""The words of a gcloud training command -> a ``GcloudCommand``: which command, its flags, its user args.

Three commands are understood, in every release track:
``gcloud [alpha|beta] ai-platform|ml-engine jobs submit training JOB ... [-- USER_ARGS]``,
``gcloud [alpha|beta] ai custom-jobs create ...`` and ``gcloud [alpha|beta] ai hp-tuning-jobs create ...``. Flags are read as gcloud's argparse reads
them (``--flag VALUE``, ``--flag=VALUE``, ``--no-flag``, a unique prefix is *not* accepted);
an unknown flag is an error with gcloud's did-you-mean; flags that mean nothing to a stored job
(``--async``, ``--stream-logs``, ``--project``, ``--format`` ...) are kept as notes;
``--flags-file`` is read in place (flags_file.py). List and dict values (with gcloud's ``^DELIM^``
escape, and a flags file's lists and mappings handed over as they are) are split as gcloud's
ArgList and ArgDict split them (arg_types.py).
"""

from __future__ import annotations

import enum
import os
import re
from collections.abc import Callable, Mapping

from provider.core.record import Record, field
from provider.gcloud import accelerator_flag, flags_file, properties
from provider.gcloud.arg_types import GcloudError as GcloudError
from provider.gcloud.arg_types import Lexed, items, labels, pairs, project
from provider.gcloud.flags import (
    AI_PLATFORM,
    ALGORITHMS,
    CUSTOM_JOBS,
    HP_TUNING,
    POOL_KEYS,
    SCALE_TIERS,
    Flag,
    Kind,
    table,
)
from provider.gcloud.local_commands import LOCAL


class Generation(enum.Enum):
    AI_PLATFORM = "gcloud ai-platform jobs submit training"
    VERTEX = "gcloud ai custom-jobs create"
    TUNING = "gcloud ai hp-tuning-jobs create"

    @property
    def flags(self) -> tuple[Flag, ...]:
        return {Generation.AI_PLATFORM: AI_PLATFORM, Generation.VERTEX: CUSTOM_JOBS, Generation.TUNING: HP_TUNING}[self]


_COMMANDS = ", ".join(g.value for g in Generation)


class GcloudCommand(Record, frozen=False):
    """A gcloud training command, read: which command, its job id, flag values, user args and notes."""

    generation: Generation
    job_id: str | None = None
    values: dict[str, object] = field(default_factory=dict)
    user_args: list[str] | None = None
    notes: list[str] = field(default_factory=list)
    project: str | None = None  # --project's value: a gcloud setting, not part of the job (it beats core/project)


_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_TRACKS = ("alpha", "beta", "preview")


def _which(words: list[str]) -> tuple[Generation, bool, list[str]]:
    """The command, whether it is the GA track, and the words after the command's name."""
    i = 0
    while i < len(words) and _ASSIGNMENT.match(words[i]):
        name = words[i].partition("=")[0]
        if name.startswith("CLOUDSDK_"):  # gcloud reads its properties from these: --region's CLOUDSDK_AI_REGION...
            raise GcloudError(f"{name}=... before gcloud sets a gcloud property for this command (gcloud reads "
                              "CLOUDSDK_* from its environment), which is not read here; give it as the command's "
                              "flag (--region, --project...)")
        i += 1
    rest = words[i:]
    if not rest or rest[0] != "gcloud":
        prompt = f"it begins with {rest[0]!r}, a shell prompt copied from a document (bash would run a command named " \
            f"{rest[0]!r}): leave the prompt out; " if rest[:2] in (["$", "gcloud"], ["%", "gcloud"]) else ""
        raise GcloudError(f"not a gcloud command: {prompt}the line must start with gcloud ({_COMMANDS})")
    rest = rest[1:]
    # gcloud-wide flags may come before the command group.
    lead: list[str] = []
    while rest and rest[0].startswith("-"):
        lead.append(rest.pop(0))
        if "=" not in lead[-1] and lead[-1] not in ("--quiet", "-q", "--log-http") and rest:
            lead.append(rest.pop(0))
    ga = not (rest and rest[0] in _TRACKS)
    if not ga:
        rest = rest[1:]
    if rest[:4] in (["ai-platform", "jobs", "submit", "training"], ["ml-engine", "jobs", "submit", "training"]):
        return Generation.AI_PLATFORM, ga, lead + rest[4:]
    if rest[:3] == ["ai", "custom-jobs", "create"]:
        return Generation.VERTEX, ga, lead + rest[3:]
    if rest[:3] == ["ai", "hp-tuning-jobs", "create"]:
        return Generation.TUNING, ga, lead + rest[3:]
    shown = " ".join(rest[:next((i for i, w in enumerate(rest[:4]) if w.startswith("-")), 4)])  # its name, no flag
    if (instead := LOCAL.get(tuple(rest[:3]))) is not None:
        raise GcloudError(f"gcloud {shown} runs the trainer on this machine and submits no job, so there is no "
                          f"job to convert; {instead}, and `trainjobs run SPEC` runs it on this machine (the local "
                          "backend) as it would run on Vertex AI")
    raise GcloudError(f"gcloud {shown} is not a training-job command; trainjobs converts {_COMMANDS}")


def _int(flag: str, text: str) -> int:
    """A whole number as Python's int() reads it, gcloud's type for an ArgDict key: ' 3', '+3' and '1_0' too."""
    try:
        return int(text)
    except ValueError:
        raise GcloudError(f"argument {flag}: invalid int value: '{text}'") from None


def _count(flag: Flag, name: str, text: str) -> int:
    """An INT flag's value as gcloud's type reads it (Python's int: ' 3', '+3' and '-1' are numbers): argparse's int
    (hp-tuning-jobs --max-trial-count: a negative count is sent, for Vertex AI to refuse), or, where the flag has a
    minimum, BoundedInt(minimum, unlimited=True) (ml_engine --worker-count: 0 is refused; 'unlimited', which gcloud
    reads as no count, is refused here by name)."""
    if flag.minimum is None:
        return _int(name, text)
    if text == "unlimited":
        raise GcloudError(f"argument {name}: unlimited is no count: gcloud reads {name} unlimited as not given (and "
                          "still asks for the flags that go with it); allowed: a whole number, "
                          f"{flag.minimum} or more")
    try:
        value = int(text)
    except ValueError:
        raise GcloudError(f"argument {name}: Value must be an integer; received: {text}") from None
    if value < flag.minimum:
        raise GcloudError(f"argument {name}: Value must be greater than or equal to {flag.minimum}; received: {text}")
    return value


def _whole(flag: str, value: object) -> int:
    """An int-valued key of a dict flag: text as ``_int`` reads it; a flags file's number or boolean
    built by Python's ``int`` (gcloud's spec type: 2.7 is 2, true is 1)."""
    if isinstance(value, str):
        return _int(flag, value)
    if isinstance(value, bool | int | float):
        return int(value)
    raise GcloudError(f"argument {flag}: invalid ArgDict value: a {type(value).__name__} where a number goes "
                      "(gcloud fails on it); allowed: a whole number")


def _text_of(value: object) -> str:
    # A str-valued key of a dict flag: gcloud's spec type is Python's str (a flags file's true is True).
    return value if isinstance(value, str) else str(value)


def _pool_int(flag: str, key: str, raw: object) -> int:
    # gcloud's spec type is Python's int: it sends a negative value as it is, which Vertex AI refuses.
    value = _whole(flag, raw)
    if value < 0:
        raise GcloudError(f"argument {flag}: {key}={raw}: gcloud sends the negative number as it is, and Vertex AI "
                          f"refuses it (no {key} is negative); allowed: a whole number, 1 or more")
    return value


def _pool(flag: str, value: str | Lexed) -> dict[str, object]:
    out: dict[str, object] = {}
    for key, raw in pairs(flag, value).items():
        kind = POOL_KEYS.get(key) if isinstance(key, str) else None
        if kind is None or not isinstance(key, str):
            raise GcloudError(f"argument {flag}: valid keys are [{', '.join(sorted(POOL_KEYS))}]; received: {key}")
        if kind is int:
            out[key] = _pool_int(flag, key, raw)
        elif kind is list:  # ArgList(custom_delim_char=';'): a flags file's list as it is
            out[key] = items(flag, Lexed(raw) if isinstance(raw, list) else _text_of(raw), ";")
        else:
            out[key] = _text_of(raw)
    return out


def _append(cmd: GcloudCommand, key: str, new: list[object]) -> list[object]:
    prior = cmd.values.get(key)
    return (prior if isinstance(prior, list) else []) + new


def _update(cmd: GcloudCommand, name: str, key: str, new: list[object]) -> list[object]:
    """A repeatable list flag (--args, --command: gcloud's UpdateAction): its items add up, and an item
    already there, from this value or an earlier one, is refused, as gcloud refuses it."""
    out = _append(cmd, key, [])
    for item in new:
        if item in out:
            raise GcloudError(f'argument {name}: "{item}" cannot be specified multiple times (gcloud refuses a '
                              "repeated item of this flag); allowed: each item once")
        out.append(item)
    return out


def _merge(cmd: GcloudCommand, name: str, key: str, items: dict[str, str]) -> dict[str, str]:
    """A repeated dict flag adds up; a key given twice is refused, even with the same value (gcloud's UpdateAction)."""
    prior = cmd.values.get(key)
    merged = dict(prior) if isinstance(prior, dict) else {}
    for k, value in items.items():
        if k in merged:
            raise GcloudError(f'argument {name}: "{k}" cannot be specified multiple times; received: '
                              f"{merged[k]}, {value}")
        merged[k] = value
    return merged


def _single(name: str, value: str | Lexed) -> str:
    if isinstance(value, Lexed):
        raise GcloudError(f"argument {name}: the --flags-file gives it a {value.kind}, but it takes one value; "
                          "allowed: a single value")
    return value


def _choice(flag: Flag, name: str, text: str) -> str:
    # gcloud's enum choices also take the enum's own name (--scale-tier BASIC_GPU, --algorithm GRID_SEARCH).
    text = text.lower().replace("_", "-") if flag.choices in (SCALE_TIERS, ALGORITHMS) else text
    if text not in flag.choices:
        raise GcloudError(f"argument {name}: Invalid choice: '{text}'. Valid choices are "
                          f"[{', '.join(flag.choices)}].")
    return text


def _arg_boolean(name: str, text: str) -> bool:
    """arg_parsers.ArgBoolean(): true/yes and false/no, in any case, in gcloud's words where it is neither."""
    word = text.lower()
    if word in ("true", "yes", "false", "no"):
        return word in ("true", "yes")
    raise GcloudError(f"argument {name}: Invalid flag value [{text}], expected one of [true, yes, false, no]")


# iam_util.GetIamAccountFormatValidator, the type of --service-account in all three commands:
# "overly broad on purpose", an email or a numeric unique id.
_SERVICE_ACCOUNT = re.compile(r"^(.+@.+\..+|[0-9]+)$")


def _text(flag: Flag, name: str, text: str) -> str:
    if flag.key == "serviceAccount" and not _SERVICE_ACCOUNT.match(text):
        raise GcloudError(f"argument {name}: Bad value [{text}]: Not a valid service account identifier. It should be "
                          "either a numeric string representing the unique_id or an email of the form: "
                          "my-iam-account@somedomain.com or my-iam-account@PROJECT_ID.iam.gserviceaccount.com")
    return text


# How each kind of flag turns its text into the value kept under its key.
_READERS: dict[Kind, Callable[[Flag, str, str | Lexed, GcloudCommand], object]] = {
    Kind.VALUE: lambda f, n, t, c: _text(f, n, _single(n, t)),
    Kind.KMS_PART: lambda f, n, t, c: _single(n, t),
    Kind.INT: lambda f, n, t, c: _count(f, n, _single(n, t)),
    Kind.LIST: lambda f, n, t, c: items(n, t),
    Kind.APPEND_LIST: lambda f, n, t, c: _update(c, n, f.key, items(n, t)),
    Kind.DICT: lambda f, n, t, c: _merge(c, n, f.key, labels(n, t)),
    Kind.ACCELERATOR: lambda f, n, t, c: accelerator_flag.read(n, t),
    Kind.POOL: lambda f, n, t, c: _append(c, f.key, [_pool(n, t)]),
    Kind.CHOICE: lambda f, n, t, c: _choice(f, n, _single(n, t)),
    Kind.ARG_BOOLEAN: lambda f, n, t, c: _arg_boolean(n, _single(n, t)),
}


def _value(flag: Flag, name: str, text: str | Lexed, cmd: GcloudCommand) -> None:
    if flag.kind is Kind.NOTE:
        if name == "--project":
            project(_single(name, text))
            cmd.project = _single(name, text)
        cmd.notes.append(f"{name}={_single(name, text)} is a gcloud setting, not part of the job: ignored")
        return
    cmd.values[flag.key] = _READERS[flag.kind](flag, name, text, cmd)


def _unknown(name: str, flags: dict[str, Flag], generation: Generation, others: tuple[str, ...] = ()) -> GcloudError:
    if any(f.name == name and f.pre_ga for f in generation.flags):  # gcloud's own words for a beta-only flag
        beta = generation.value.replace("gcloud ", "gcloud beta ", 1)
        return GcloudError(f"unrecognized arguments: {name} ({name} flag is available in one or more alternate "
                           f"release tracks. Try: {beta} {name})", name)
    from provider.core.suggest import close_matches

    close = close_matches(name, flags, n=1)
    hint = f" (did you mean '{close[0]}'?)" if close else ""
    more = "".join(f", {other}" for other in dict.fromkeys(others) if other != name)  # gcloud lists them all
    return GcloudError(f"unrecognized arguments: {name}{hint}{more}; see the flags in {generation.value} --help", name)


def _known(name: str, flags: dict[str, Flag]) -> Flag | None:
    if name in flags:
        return flags[name]
    if name.startswith("--no-") and f"--{name[5:]}" in flags and flags[f"--{name[5:]}"].kind in (Kind.BOOL, Kind.NOTE_BOOL):
        return flags[f"--{name[5:]}"]
    return None


def _flag(word: str, flags: dict[str, Flag], generation: Generation,
          after: list[str | Lexed]) -> tuple[Flag, str, bool | None, str | None]:
    """The flag a word names, the name as written, its --no- value, and an inline =VALUE."""
    name, eq, inline = word.partition("=")
    value = inline if eq else None
    flag = _known(name, flags)
    if flag is not None:
        return flag, name, (False if name not in flags else None), value
    words = after[:after.index("--")] if "--" in after else after
    others = tuple(w.partition("=")[0] for w in words
                   if isinstance(w, str) and w.startswith("--") and _known(w.partition("=")[0], flags) is None)
    raise _unknown(name, flags, generation, others)


def _switch(cmd: GcloudCommand, flag: Flag, name: str, negated: bool | None, inline: str | None) -> None:
    """A flag that takes no value: --flag / --no-flag (a note for gcloud-wide switches)."""
    if inline is not None:
        raise GcloudError(f"argument {name}: ignored explicit argument '{inline}'")
    if flag.kind is Kind.BOOL:
        cmd.values[flag.key] = negated is None
    else:
        cmd.notes.append(f"{name} is a gcloud setting, not part of the job: ignored")


def _takes_next(rest: list[str | Lexed], i: int) -> bool:
    """Whether the word at ``i`` can be a flag's value (argparse: not another --flag)."""
    if i >= len(rest):
        return False
    word = rest[i]
    return isinstance(word, Lexed) or not (word.startswith("--") and word != "--" and len(word) > 2)


def _read_flags(cmd: GcloudCommand, rest: list[str | Lexed], flags: dict[str, Flag]) -> list[str]:
    """Every flag into ``cmd`` (user args after ``--`` too); the positional words left."""
    positional: list[str] = []
    i = 0
    while i < len(rest):
        word = rest[i]
        i += 1
        if isinstance(word, Lexed):  # after a flag that takes no value
            raise GcloudError(f"argument {rest[i - 2]}: the --flags-file gives it a {word.kind}, but it takes no "
                              "value; allowed: null (or true) for the bare flag")
        if word == "--":
            cmd.user_args = [str(w) for w in rest[i:]]
            break
        if not word.startswith("-") or word == "-":
            positional.append(word)
            continue
        flag, name, negated, inline = _flag(word, flags, cmd.generation, rest[i:])
        if flag.kind in (Kind.BOOL, Kind.NOTE_BOOL):
            _switch(cmd, flag, name, negated, inline)
            continue
        value: str | Lexed | None = inline
        if value is None:
            if not _takes_next(rest, i):
                raise GcloudError(f"argument {name}: expected one argument")
            value = rest[i]
            i += 1
        _value(flag, name, value, cmd)
    return positional


def display_name(values: dict[str, object]) -> str:
    """--display-name of a Vertex AI command, taken from ``values``: gcloud requires the flag, yet takes it empty
    (sent as displayName "" by custom-jobs, left out by hp-tuning-jobs), which Vertex AI refuses."""
    display = values.pop("displayName", None)
    if display is None:
        raise GcloudError("argument --display-name: Must be specified.")
    if not isinstance(display, str) or not display:
        raise GcloudError(f"argument --display-name: {display!r} is empty: gcloud sends the job with no display name "
                          "(custom-jobs: displayName \"\"; hp-tuning-jobs: none), and Vertex AI requires one; allowed: "
                          "a name of 1 to 128 characters")
    return display


def _positional(cmd: GcloudCommand, positional: list[str]) -> None:
    """The job id (AI Platform); any other positional word is refused, as gcloud refuses it."""
    if cmd.generation is Generation.AI_PLATFORM:
        if not positional:
            raise GcloudError("argument JOB: Must be specified. (the job id comes right after "
                              "gcloud ai-platform jobs submit training)")
        cmd.job_id = positional[0]
        positional = positional[1:]
    if positional:
        raise GcloudError(f"unrecognized arguments: {' '.join(positional)} (user args for the trainer go after --)")
    if cmd.generation is Generation.VERTEX and cmd.user_args is not None:
        raise GcloudError("unrecognized arguments: -- (gcloud ai custom-jobs create takes the trainer's "
                          "arguments in --args=ARG,...)")
    if cmd.generation is Generation.TUNING and cmd.user_args is not None:
        raise GcloudError("unrecognized arguments: -- (gcloud ai hp-tuning-jobs create takes the trainer's "
                          "arguments in the config's trialJobSpec)")


def parse(words: list[str], props: Mapping[str, str] | None = None) -> GcloudCommand:
    """The command's flags and user args, with the gcloud properties set before it (``Line.properties``: where
    the command's flag is absent, as gcloud reads them); GcloudError for what gcloud itself would refuse."""
    generation, ga, rest = _which(words)
    cmd = GcloudCommand(generation)
    try:
        expanded = flags_file.expand(rest, cmd.notes)
    except flags_file.FlagsFileError as exc:
        raise GcloudError(str(exc)) from None
    positional = _read_flags(cmd, expanded, table(generation.flags, ga))
    _positional(cmd, positional)
    read = properties.environment(props or {}, os.environ, cmd.notes)  # CLOUDSDK_* first, as gcloud reads them
    properties.apply(generation is not Generation.AI_PLATFORM, cmd.values, cmd.notes, read, cmd.project is not None)
    return cmd
