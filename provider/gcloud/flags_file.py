"""gcloud's ``--flags-file=YAML_FILE``: flags written as YAML, put back in the command line.

As ``gcloud topic flags-file`` documents: the file is a mapping of flag names to values (or a list
of such mappings, for flags given more than once); a null value is a flag that takes none; a list
is a list flag's items, kept whole; a mapping is a dict flag's keys and values, unconverted (both handed
to the flag as they are, as gcloud hands them: arg_types.py); ``--flags-file`` inside
the file reads more files. Each ``--flags-file`` is replaced by its contents, where it stands, so
the usual precedence applies. Files are read relative to the current directory and, as
``--config`` is, only inside the repository: regular files of at most 1 MiB, no symlink out, no
FIFO or device (provider.gcloud.paths), read by the strict YAML reader, its plain scalars then
given gcloud's flags-file values (flags_yaml.py: YAML 1.2, not the 1.1 of --config); nested at most MAX_DEPTH
deep. An error names the file, the line and what is wrong, never what the file holds.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from provider.gcloud.arg_types import Lexed

MAX_DEPTH = 8
FLAG = "--flags-file"


class FlagsFileError(ValueError):
    pass


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _words(name: str, value: Any) -> list[str | Lexed]:
    # gcloud (calliope/cli.py) puts a null or boolean value on the command line as the bare flag:
    # ``--enable-web-access: false`` sets the flag, as gcloud 528 sends it (_read names it in a note)
    if value is None or isinstance(value, bool):
        return [name]
    # a list or a mapping is handed to the flag as it is, not as text (cli.py's separate_value_arg): a list's
    # items stay whole, commas and all; a mapping's values reach the flag's types unconverted (arg_types.py)
    if isinstance(value, list):
        # gcloud hands a list to the flag's parser as it is, items not made text: a number, boolean
        # or null item fails there (custom-jobs --args: "Expected type <class 'str'> for field args")
        for i, item in enumerate(value):
            if not isinstance(item, str):
                raise FlagsFileError(f"{name}: item {i + 1} of its list is {type(item).__name__}, not text: gcloud "
                                     "fails on it (it passes a flags file's list items as they are, unconverted); "
                                     "allowed: text items; quote it")
        return [name, Lexed(value)]
    if isinstance(value, dict):
        return [name, Lexed(value)]
    return [f"{name}={_scalar(value)}"]


def _load(path_text: str, notes: list[str]) -> tuple[Any, str, dict[int, dict[str, tuple[int, int]]]]:
    """The flags file's data and its name as shown: inside the repository, read safely, its YAML
    read by the strict reader (bounded, no alias bombs), each plain scalar then given the value
    gcloud's flags-file loader gives it (flags_yaml.py), each changed reading named in ``notes``.
    A problem is said by line, column and kind, never by quoting the file: it may not be a flags
    file at all."""
    from provider.document import load_text
    from provider.document.text import decode
    from provider.gcloud import flags_yaml, paths
    from provider.gcloud.command import GcloudError
    from provider.gcloud.config_doc import UnreadableAt, reread, unquoted_dates

    try:
        raw, shown = paths.read(path_text, Path.cwd(), FLAG)
    except GcloudError as exc:
        raise FlagsFileError(str(exc)) from None
    text, problems = decode(raw, shown)
    doc = load_text(text, shown) if text is not None else None
    if doc is not None:
        try:
            problems = reread(doc, shown, flags_yaml.read, "a --flags-file (YAML 1.2, Python's int and float)", notes)
        except UnreadableAt as exc:
            raise FlagsFileError(f"{FLAG}={path_text}: {exc}: an unquoted number gcloud cannot read in a flags file "
                                 "(its loader fails on 0x, 0o and 0b prefixes, .inf and .nan; the file's text is not "
                                 "shown); quote it for a string, or write the number in decimal") from None
    # a flag name that is a date is no flag: gcloud says so (unrecognized arguments), as _read does
    groups = tuple(doc.data if isinstance(doc.data, list) else [doc.data]) if doc is not None else ()
    dates = unquoted_dates(doc, raw, groups) if doc is not None and not problems else []
    if dates:
        date = dates[0]
        raise FlagsFileError(f"{FLAG}={path_text}: {shown}:{date.line}:{date.column}: an unquoted date"
                             f"{' as a key' if date.key else ''}, which gcloud's flags-file loader reads as a "
                             "timestamp and then crashes on (the file's text is not shown); quote it for the string")
    if problems or doc is None:
        first = problems[0] if problems else None
        where = f"{shown}:{first.line}:{first.column}" if first is not None and first.line else shown
        kind = (first.rule or "yaml") if first is not None else "yaml"
        raise FlagsFileError(f"{FLAG}={path_text}: {where}: not a flags file ({kind}; the file's text is not shown); "
                             "allowed: YAML flag names to values, as gcloud topic flags-file documents")
    return doc.data, shown, doc.key_positions


def _read(path_text: str, depth: int, notes: list[str]) -> list[str | Lexed]:
    if depth >= MAX_DEPTH:
        raise FlagsFileError(f"{FLAG}={path_text}: flags files nested more than {MAX_DEPTH} deep")
    data, shown, keys_at = _load(path_text, notes)
    groups = data if isinstance(data, list) else [data]
    out: list[str | Lexed] = []
    for k, group in enumerate(groups):
        if not isinstance(group, dict):
            raise FlagsFileError(f"{FLAG}={path_text}: a mapping of flags to values (or a list of such mappings)")
        for n, (name, value) in enumerate(group.items()):
            if not isinstance(name, str) or not name.startswith("--"):
                at = keys_at.get(id(group), {}).get(name)
                where = f"at {shown}:{at[0]}:{at[1]}; " if at else ""
                raise FlagsFileError(f"{FLAG}={path_text}: key {n + 1} of mapping {k + 1} in {shown} is not a flag "
                                     f"({where}gcloud refuses it as an unrecognized argument; its text is not shown); allowed: flag names such as --region")
            if name == FLAG:
                for nested in value if isinstance(value, list) else [value]:
                    out += _read(_scalar(nested), depth + 1, notes)
            else:
                if value is False:
                    notes.append(f"{shown}: {name}: false is read as gcloud reads a flags file: the bare flag {name}, "
                                 "which sets it (gcloud sends it so); remove the line to leave the flag unset")
                try:
                    out += _words(name, value)
                except FlagsFileError as exc:
                    raise FlagsFileError(f"{FLAG}={path_text}: {shown}: {exc}") from None
    return out


def expand(words: list[str], notes: list[str] | None = None) -> list[str | Lexed]:
    """``words`` with every ``--flags-file FILE`` (or ``--flags-file=FILE``) replaced by its flags;
    a value read otherwise than the strict reader reads it (flags_yaml.py) is named in ``notes``."""
    notes = [] if notes is None else notes
    out: list[str | Lexed] = []
    i = 0
    while i < len(words):
        word = words[i]
        i += 1
        if word == "--":
            out += words[i - 1:]
            break
        if word == FLAG or word.startswith(FLAG + "="):
            _, eq, value = word.partition("=")
            if not eq:
                if i >= len(words):
                    raise FlagsFileError(f"argument {FLAG}: expected one argument")
                value = words[i]
                i += 1
            out += _read(value, 0, notes)
            continue
        out.append(word)
    return out
