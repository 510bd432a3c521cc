"""``$(mktemp ...)``: the name of a new file (or folder, ``-d``) the script makes when it runs, read as GNU coreutils'
mktemp makes it, for a here-document to write (provider.gcloud.heredoc): the name itself may reach no job
(provider.gcloud.sequence checks it), only the file, by --config.

What GNU mktemp does (tests/gcloud/test_mktemp.py asks /usr/bin/mktemp): without a TEMPLATE, ``tmp.XXXXXXXXXX`` in
``$TMPDIR`` (else /tmp); a TEMPLATE's last run of at least 3 X's is replaced (what follows the last X is kept as its
suffix; with ``--suffix=SUFFIX`` the TEMPLATE must end in X), and fewer X's are refused ("too few X's in template");
the TEMPLATE is a name relative to the folder the script runs in, but with ``-t`` (in ``$TMPDIR``, else ``-p DIR``,
else /tmp; a ``/`` in it is refused) or ``-p DIR`` / ``--tmpdir[=DIR]`` (in DIR, else ``$TMPDIR``, else /tmp).
``-d`` makes a folder, ``-q`` and ``-u`` change nothing in the name. Anything else is refused by name.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from provider.gcloud.word_checks import shown

TEMP = "trainjobs-mktemp"  # in each name a $(mktemp) stands for
READ = ("mktemp [-d] [-q] [-u] [-t] [-p DIR|--tmpdir[=DIR]] [--suffix=SUFFIX] [TEMPLATE] are read, for a file a "
        "here-document writes")
_FLAGS = {"-d": "d", "--directory": "d", "-q": "", "--quiet": "", "-u": "", "--dry-run": "", "-t": "t"}


class Refused(ValueError):
    """A mktemp that is not read, or that GNU mktemp refuses."""


def name(args: list[str], said: str, env: Mapping[str, str], notes: list[str]) -> str:
    """The stand-in for the name ``mktemp ARGS`` (``said`` so) prints, with a note added to ``notes``; Refused."""
    flags, folder, suffix, template = _options(args, said)
    where, template = _folder(flags, folder, template, said, env)
    head, tail = (template, suffix) if suffix is not None else _split(template)
    if suffix is not None and not template.endswith("X"):
        raise Refused(f'{said}: GNU mktemp stops: "with --suffix, template \'{template}\' must end in X"')
    run = len(head) - len(head.rstrip("X"))
    if run < 3:
        raise Refused(f'{said}: GNU mktemp stops: "too few X\'s in template \'{template}\'" (the script\'s '
                      "variable would be empty, and what uses it fails): write at least 3 X's (mktemp -t NAME.XXXXXX)")
    count = sum(TEMP in note for note in notes)
    made = f"{where}/" if where else ""
    made = f"{made.replace('//', '/')}{head[:-run]}{TEMP}{count + 1}{tail}"
    what = "folder" if "d" in flags else "file"
    notes.append(f"{said} makes a new {what}'s name when the script runs: read as {made}, for the here-document that "
                 "writes it (the name itself reaches no job)")
    return made


def _options(args: list[str], said: str) -> tuple[str, str | None, str | None, str | None]:
    """mktemp's options: its flags (d, t), -p/--tmpdir's folder ("": --tmpdir alone), --suffix, the TEMPLATE."""
    flags, folder, suffix, template, k = "", None, None, None, 0
    while k < len(args):
        arg, k = args[k], k + 1
        if arg in _FLAGS or re.fullmatch(r"-[dqut]+", arg):
            flags += _FLAGS.get(arg, arg[1:].replace("q", "").replace("u", ""))
        elif arg == "-p" and k < len(args):
            folder, k = args[k], k + 1
        elif arg == "--tmpdir" or arg.startswith("--tmpdir="):
            folder = arg.partition("=")[2]
        elif arg.startswith("--suffix="):
            suffix = arg.removeprefix("--suffix=")
        elif arg.startswith("-") or template is not None:
            raise Refused(f"{said}: mktemp {shown(arg)} is not read: {READ}")
        else:
            template = arg
    return flags, folder, suffix, template


def _folder(flags: str, folder: str | None, template: str | None, said: str,
            env: Mapping[str, str]) -> tuple[str, str]:
    """Where mktemp makes the name ("": the folder the script runs in), and the template."""
    tmp = env.get("TMPDIR") or "/tmp"
    if template is None:
        return folder or tmp, "tmp.XXXXXXXXXX"
    if "t" in flags:
        if "/" in template:
            raise Refused(f'{said}: GNU mktemp stops: "invalid template, \'{template}\', contains directory separator" '
                          "(-t puts the name in $TMPDIR or /tmp): write mktemp -t NAME.XXXXXX")
        return env.get("TMPDIR") or folder or "/tmp", template
    return (folder or tmp) if folder is not None else "", template


def _split(template: str) -> tuple[str, str]:
    """The template up to its last X, and what follows (GNU mktemp's suffix without --suffix)."""
    last = template.rfind("X")
    return template[:last + 1], template[last + 1:]
