"""gcloud's ``--flags-file=YAML_FILE``: flags written as YAML, put back in the command line.

As ``gcloud topic flags-file`` documents: the file is a mapping of flag names to values (or a list
of such mappings, for flags given more than once); a null value is a flag that takes none; a list
is a list flag's items; a mapping is a dict flag's ``KEY=VALUE`` pairs; ``--flags-file`` inside
the file reads more files. Each ``--flags-file`` is replaced by its contents, where it stands, so
the usual precedence applies. Files are read relative to the current directory, regular files of
at most MAX_BYTES, nested at most MAX_DEPTH deep.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

MAX_BYTES = 1 << 20
MAX_DEPTH = 8
FLAG = "--flags-file"


class FlagsFileError(ValueError):
    pass


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _words(name: str, value: Any) -> list[str]:
    if not isinstance(name, str) or not name.startswith("--"):
        raise FlagsFileError(f"{name!r} is not a flag: the keys of a flags file are flag names such as --region")
    if value is None or value is True:
        return [name]
    if value is False:
        return [f"--no-{name[2:]}"]
    if isinstance(value, list):
        return [f"{name}={','.join(_scalar(v) for v in value)}"]
    if isinstance(value, dict):
        return [f"{name}={','.join(f'{k}={_scalar(v)}' for k, v in value.items())}"]
    return [f"{name}={_scalar(value)}"]


def _read(path_text: str, depth: int) -> list[str]:
    if depth >= MAX_DEPTH:
        raise FlagsFileError(f"{FLAG}={path_text}: flags files nested more than {MAX_DEPTH} deep")
    import yaml

    path = Path(path_text)
    try:
        if not path.is_file():
            raise FlagsFileError(f"{FLAG}={path_text}: no such file (it is read relative to the current directory)")
        if path.stat().st_size > MAX_BYTES:
            raise FlagsFileError(f"{FLAG}={path_text}: larger than {MAX_BYTES // 1024} KiB")
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise FlagsFileError(f"{FLAG}={path_text}: cannot be read ({exc})") from None
    except yaml.YAMLError as exc:
        raise FlagsFileError(f"{FLAG}={path_text}: not YAML ({type(exc).__name__})") from None
    groups = data if isinstance(data, list) else [data]
    out: list[str] = []
    for group in groups:
        if not isinstance(group, dict):
            raise FlagsFileError(f"{FLAG}={path_text}: a mapping of flags to values (or a list of such mappings)")
        for name, value in group.items():
            if name == FLAG:
                for nested in value if isinstance(value, list) else [value]:
                    out += _read(_scalar(nested), depth + 1)
            else:
                out += _words(name, value)
    return out


def expand(words: list[str], depth: int = 0) -> list[str]:
    """``words`` with every ``--flags-file FILE`` (or ``--flags-file=FILE``) replaced by its flags."""
    out: list[str] = []
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
            out += _read(value, depth)
            continue
        out.append(word)
    return out
