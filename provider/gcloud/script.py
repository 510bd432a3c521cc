"""A script around its gcloud training command: the commands before and after it that change nothing in the job,
and where in a script of several lines a message points.

Before the training command (tests/gcloud/test_scripts.py holds each against a real bash), besides what sets its
variables and properties (provider.gcloud.prelude, provider.gcloud.properties), a command that only prints or
waits is read (its words are still checked as any others) and named in a note: ``echo``, ``printf``, ``:``,
``true``, ``sleep N``, ``date`` alone. After the training command (after a newline, ``;`` or ``&&``), those
too, and the gcloud commands that only read the job just submitted (and ``rm [-f] FILE``, a config's cleanup): ``gcloud ai-platform jobs stream-logs|describe``,
``gcloud ai custom-jobs stream-logs|describe``, ``gcloud ai hp-tuning-jobs describe``, and ``exit``. Anything else after it (a
second training command, ``gcloud ai-platform jobs cancel``, ``gsutil cp``, ``python ...``) is refused by name.
"""

from __future__ import annotations

import re

from provider.gcloud.local_commands import LOCAL
from provider.gcloud.word_checks import ShellError, shown

# Commands that change nothing in the job: what each does instead.
_QUIET = {"echo": "prints only", "printf": "prints only", ":": "does nothing", "true": "does nothing",
          "sleep": "waits only", "date": "prints the time only"}
_SLEEP = re.compile(r"[0-9]+(\.[0-9]+)?[smhd]?")
# gcloud commands that only read a job (group, verbs)
_READING = {("ai-platform", "jobs"): ("stream-logs", "describe"), ("ai", "custom-jobs"): ("stream-logs", "describe"),
            ("ai", "hp-tuning-jobs"): ("describe",)}
AFTER = ("allowed after the training command: echo, printf, :, true, sleep N, date, exit, rm [-f] FILE, and gcloud "
         "ai-platform jobs "
         "stream-logs|describe, gcloud ai custom-jobs stream-logs|describe, gcloud ai hp-tuning-jobs describe (they "
         "change nothing in the job)")


class Refused(ValueError):
    """A command after the training one that is not read; ``word``: the index of the word to blame."""

    def __init__(self, message: str, word: int) -> None:
        super().__init__(message)
        self.word = word


def position(text: str, at: int) -> tuple[int, int]:
    """The 1-based line and column of the index ``at`` of ``text``."""
    line = text.count("\n", 0, at) + 1
    return line, at - (text.rfind("\n", 0, at) + 1) + 1


def quiet(words: list[str], line: int) -> str | None:
    """The note for a command that only prints or waits (or its refusal), or None if it is no such command."""
    what = _QUIET.get(words[0])
    if what is None:
        return None
    if words[0] == "sleep" and (len(words) != 2 or not _SLEEP.fullmatch(words[1])):
        raise Refused("sleep takes one duration (sleep 10, sleep 1m) here: "
                      f"{shown(' '.join(words))} is not read", min(1, len(words) - 1))
    if words[0] == "date" and len(words) > 1 and not all(w == "-u" or w.startswith("+") for w in words[1:]):
        raise Refused(f"date {shown(words[1])} is not read: date, date -u and date +FORMAT print only", 1)
    return f"line {line}: {words[0]} {what}, nothing of the job: ignored"


def after(words: list[str], line: int) -> str:
    """The note for a command after the training one, or Refused."""
    note = quiet(words, line)
    if note is not None:
        return note
    if words[0] == "exit" and len(words) <= 2:  # before the command it would stop the script; after it, only ends it
        return f"line {line}: exit after the training command ends the script only: ignored"
    if words[0] == "rm" and len(words) > 1 and all(w == "-f" or not w.startswith("-") for w in words[1:]):
        return f"line {line}: rm after the training command removes files once the job is submitted: ignored"
    if words[0] == "gcloud":
        rest = [w for w in words[1:] if not w.startswith("-")]
        verbs = _READING.get((rest[0], rest[1]) if len(rest) > 1 else ("", ""), ())
        if len(rest) > 2 and rest[2] in verbs:
            return f"line {line}: gcloud {' '.join(rest[:3])} only reads the job it submitted: ignored"
        said = " ".join(rest[:4])
        if len(rest) > 2 and rest[2] == "cancel":
            raise Refused(f"gcloud {said} after the training command cancels a job: it changes what runs, which a "
                          f"spec cannot say; {AFTER}", 0)
        if {"submit", "create"} & set(rest[:4]):
            raise Refused(f"gcloud {said} is a second training command: a script converts to one job; give each "
                          f"command alone; {AFTER}", 0)
        name = f"gcloud {said}"
    else:
        name = " ".join(words[:2]) if words[0] in ("gsutil", "gcloud", "python", "python3") else words[0]
    raise Refused(f"{shown(name)} after the training command would run as well: it is not part of the job, and "
                  f"not read; {AFTER}", 0)


def local_run(words: list[str], line: int) -> str | None:
    """The note for a gcloud command that runs the trainer on this machine (``gcloud ai-platform local train``),
    before the training command, or None: it submits nothing, so it changes nothing in the job."""
    rest = [w for w in words[1:] if w not in ("alpha", "beta", "preview")][:3] if words[:1] == ["gcloud"] else []
    if tuple(rest) not in LOCAL:
        return None
    return f"line {line}: gcloud {' '.join(rest)} runs the trainer on this machine and submits no job: ignored"


def only_local(words: list[str]) -> str:
    """Why a script whose only gcloud training-like command runs the trainer locally converts to nothing."""
    rest = [w for w in words[1:] if w not in ("alpha", "beta", "preview")][:3]
    return (f"gcloud {' '.join(rest)} runs the trainer on this machine and submits no job, so there is no job to "
            f"convert; {LOCAL[tuple(rest)]}, and `trainjobs run SPEC` runs it on this machine")


# What a command that may come before the gcloud one does, for the refusal that names one that may not.
_BEFORE = {"cd": "changes the folder bash reads the command's relative paths from: run trainjobs convert from that "
                 "folder instead", "pushd": "changes the folder bash reads the command's relative paths from: run "
                 "trainjobs convert from that folder instead", "source": "runs another file's commands, which are "
                 "not read: set its variables in the script itself", ".": "runs another file's commands, which are "
                 "not read: set its variables in the script itself", "exit": "ends the script: the training command "
                 "would never run"}

def before(words: list[str]) -> str:
    """Why a command before the gcloud training one, which is none of those read, is refused."""
    name = " ".join(words[:2]) if words[0] in ("gsutil", "gcloud", "python", "python3", "docker") else words[0]
    what = _BEFORE.get(words[0], "would run first, and trainjobs never runs a command")
    return f"{shown(name)} before the training command {what}"


def located(error: ShellError, text: str) -> ShellError:
    """``error`` at the line and column of ``text`` it names, when ``text`` has several lines."""
    if error.line or "\n" not in text.rstrip("\n"):
        return error
    line, column = position(text, error.column - 1)
    return ShellError(error.message, column, line)


def continued(text: str, newline: int) -> bool:
    """Whether the command that the newline at ``newline`` ends was meant to go on: its line ends with cmd.exe's
    ``^``, or the next line that holds something begins with a flag (a backslash was forgotten)."""
    return text[:newline].rstrip(" \t").endswith("^") or text[newline + 1:].lstrip(" \t\n").startswith("-")


def bang(text: str) -> bool:
    """Whether ``text`` is a notebook's ``!`` line (its first line that is neither blank nor a comment begins with !)."""
    first = next((s for s in text.splitlines() if s.strip() and not s.lstrip().startswith("#")), "")
    return first.lstrip().startswith("!")
