"""What a command substitution (``$(...)`` or backticks) of a script stands for, where it can be known without
running anything; any other is refused by name (trainjobs never runs commands).

Scripts that submit a training job name it after the time they run and build paths from gcloud's project:

* ``$(date [-u] [+FORMAT])``: the time the script runs, so the time of the conversion, formatted as GNU ``date``
  formats it (``-u``: in UTC, else in this machine's time zone, ``TZ``); a note names the value written.
  Only the conversions that do not depend on a locale's own formats, and not GNU date's own ``%N``, ``%q``,
  ``%:z``; ``date`` without ``+FORMAT`` prints in the locale's format, and is refused.
* ``$(gcloud config get-value PROPERTY)``, ``$(gcloud config get PROPERTY)`` and ``$(gcloud config list
  PROPERTY --format 'value(PROPERTY)')`` for ``project``, ``compute/region`` and ``ai/region``: what gcloud
  prints (surface/config/get.py: the value, or nothing when unset): the ``CLOUDSDK_SECTION_NAME`` environment
  variable, which gcloud reads first (tests/gcloud/test_scripts.py asks the real gcloud), else the value a ``gcloud
  config set`` earlier in the script gave (provider.gcloud.properties), else refused: the configuration of the
  machine that runs the script is not known here.
* ``$(pwd)`` (``pwd -L``, bash's builtin): the folder the script runs from, as ``$PWD`` reads it (the ``PWD`` of the
  environment, else the folder trainjobs convert runs from, which is where relative paths are read from too).

A ``2>/dev/null`` that ends the substituted command changes nothing in what it prints, and is dropped. The words
of the substituted command are read as any others (provider.gcloud.words), as one simple command.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from pathlib import Path

from provider.core import clock
from provider.core.gcloud_config import ENVIRONMENT, printed_property
from provider.gcloud import mktemp
from provider.gcloud.word_checks import shown

# One conversion of GNU date's FORMAT: %, optional flag, width, E/O modifier, the conversion (or :z, ::z, :::z).
_SPEC = re.compile(r"%([-_0^#]?)([0-9]*)([EO]?)(:{0,3}z|.?)", re.DOTALL)
_CONVERSIONS = set("aAbBCdDeFgGhHIjklmMnpPRsStTuUVwWyYzZ%")
_LOCALE = set("cxXr")  # the locale's own formats: what bash prints depends on its LC_TIME
_STDERR = re.compile(r"[ \t]+2>[ \t]*/dev/null[ \t]*$")
# The substitutions read, said in the refusal of any other (the line's own allowed: list follows it).
READ = ("of command substitutions only $(date [-u] [+FORMAT]) (the time of the conversion) and $(gcloud config "
        "get-value|get|list PROPERTY) of project, compute/region and ai/region (from gcloud config set earlier in the "
        "script, or CLOUDSDK_CORE_PROJECT, CLOUDSDK_COMPUTE_REGION, CLOUDSDK_AI_REGION in the environment) are read, "
        "and $(mktemp) for the file a here-document writes (cat > \"$(mktemp)\" <<EOF), and $(pwd) (the folder the script "
        "runs from, $PWD)")

TEMP = mktemp.TEMP  # in each name a $(mktemp) stands for (provider.gcloud.mktemp)


class Refused(ValueError):
    """A substitution whose output is not known here; ``at``: where in the line to blame (an index)."""

    def __init__(self, message: str, at: int) -> None:
        super().__init__(message)
        self.at = at


def dollar(line: str, at: int) -> tuple[str, int, int]:
    """The ``$(...)`` at ``at``: the command inside (a trailing 2>/dev/null dropped), where it begins, and the index
    after its ``)``; Refused when it is never closed."""
    depth, k = 1, at + 2
    while k < len(line):
        c = line[k]
        if c == "\\":
            k += 1
        elif c == "'":
            k = line.find("'", k + 1)
            if k < 0:
                break
        elif c == '"':
            k += 1
            while k < len(line) and line[k] != '"':
                k += 2 if line[k] == "\\" else 1
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return _STDERR.sub("", line[at + 2: k]), at + 2, k + 1
        k += 1
    raise Refused("this $( is never closed (no ))", at)


def backticked(line: str, at: int) -> tuple[str, int, int]:
    """The backticked command at ``at`` as bash reads it (``\\```, ``\\\\`` and ``\\$`` stand for `, \\ and $), where
    it begins, and the index after its closing backtick; Refused when it is never closed. Escapes make the text
    shorter: positions inside it are then those of the unescaped text."""
    text, k = "", at + 1
    while k < len(line):
        c = line[k]
        if c == "\\" and line[k + 1: k + 2] in ("`", "\\", "$"):
            text, k = text + line[k + 1], k + 2
            continue
        if c == "`":
            return _STDERR.sub("", text), at + 1, k + 1
        text, k = text + c, k + 1
    raise Refused("this backtick is never closed: a backtick begins a command substitution", at)


def _date(args: list[str], now: float, written: str) -> str:
    """``date``'s output for its words after ``date``."""
    utc = "-u" in args or "--utc" in args or "--universal" in args
    formats = [a for a in args if a.startswith("+")]
    other = [a for a in args if not a.startswith("+") and a not in ("-u", "--utc", "--universal")]
    if other or len(formats) != 1:
        why = (f"date {shown(other[0])} is not read" if other else
               "date without +FORMAT prints the time in its locale's own format, which is not known here")
        raise Refused(f"{written}: {why}; write $(date +FORMAT) or $(date -u +FORMAT)", 0)
    tm = time.gmtime(now) if utc else time.localtime(now)
    out = []
    for piece in re.split(r"(%[-_0^#]?[0-9]*[EO]?(?::{0,3}z|.?))", formats[0][1:], flags=re.DOTALL):
        spec = _SPEC.fullmatch(piece) if piece.startswith("%") else None
        if spec is None:
            out.append(piece)
            continue
        conversion = spec.group(4)
        if conversion in _LOCALE:
            raise Refused(f"date's %{conversion} prints the locale's own format, which is not known here; write the "
                          "parts (%Y-%m-%d %H:%M:%S)", 0)
        if conversion not in _CONVERSIONS:
            raise Refused(f"date's {shown(piece)} is not read (GNU date's %N, %q and %:z are not either); allowed: "
                          f"%{' %'.join(sorted(_CONVERSIONS - {'%'}))} and %%", 0)
        if conversion == "s":
            out.append(str(int(now)))
        elif conversion == "Z" and utc:
            out.append("UTC")
        else:
            out.append(time.strftime(piece, tm))
    return "".join(out)




def _pwd(args: list[str], said: str, env: Mapping[str, str], cwd: Path | None,
         notes: list[str]) -> tuple[str, str | None]:
    """What bash's ``pwd [-L]`` prints: ``$PWD`` (the environment's, which bash keeps), else the folder the script is
    read from; ``-P`` (symbolic links resolved) and anything else is refused."""
    if args not in ([], ["-L"]):
        raise Refused(f"{said}: pwd {' '.join(shown(a) for a in args)} is not read; allowed: $(pwd) or $(pwd -L), the "
                      "folder the script runs from ($PWD)", 0)
    if "PWD" in env:
        notes.append(f"{said} is the folder the script runs from: {env['PWD']!r}, from $PWD")
        return env["PWD"], "PWD"
    if cwd is None:
        raise Refused(f"{said} prints the folder the script runs from, which is not known here; write the path", 0)
    notes.append(f"{said} is the folder the script runs from: {str(cwd)!r}, where trainjobs convert runs")
    return str(cwd), None


def creates(words: list[str]) -> bool:
    """Whether ``words`` are a training command (gcloud [alpha|beta] ai custom-jobs|hp-tuning-jobs create, gcloud
    ai-platform|ml-engine jobs submit training), by its group and verb, flags before them aside."""
    rest = [w for w in words[1:] if not w.startswith("-") and w not in ("alpha", "beta")] if words[:1] == ["gcloud"] else []
    return rest[:3] in (["ai", "custom-jobs", "create"], ["ai", "hp-tuning-jobs", "create"]) or rest[:4] in (
        ["ai-platform", "jobs", "submit", "training"], ["ml-engine", "jobs", "submit", "training"])


def value(words: list[str], written: str, properties: Mapping[str, str], env: Mapping[str, str],
          notes: list[str], cwd: Path | None = None) -> tuple[str, str | None]:
    """What the substituted command ``words`` (``written`` so) prints (trailing newlines dropped, as bash drops them), with a note
    added to ``notes``, and the environment variable it was read from (None if none); Refused."""
    if words[:1] == ["date"]:
        text = _date(words[1:], clock.now(), shown(written))
        notes.append(f"{written} is the time the script runs: written as {text!r}, the time of the conversion")
        return text, None
    if words[:1] == ["mktemp"]:
        try:
            return mktemp.name(words[1:], shown(written), env, notes), None
        except mktemp.Refused as exc:
            raise Refused(str(exc), 0) from None
    if words[:1] == ["pwd"]:
        return _pwd(words[1:], shown(written), env, cwd, notes)
    if words[:2] == ["gcloud", "config"] and (name := printed_property(words[2:])) is not None:
        said = shown(written)
        variable = ENVIRONMENT[name]
        if variable in env:  # gcloud reads it before its configuration, even one the script just set
            notes.append(f"{said}: {env[variable]!r}, from ${variable} (gcloud reads the property from it first)")
            return env[variable], variable
        if name in properties:
            notes.append(f"{said}: {properties[name]!r}, from gcloud config set {name} earlier in the script")
            return properties[name], None
        raise Refused(f"{said} prints the {name} property of the gcloud configuration of the machine that runs the "
                      f"script, which is not known here; give it: export {variable}=VALUE (gcloud reads it too), or "
                      f"gcloud config set {name.removeprefix('core/')} VALUE earlier in the script", 0)
    how = "backticks are" if written.startswith("`") else "$(...) is"
    raise Refused(f"{shown(written)}: {how} command substitution: trainjobs never runs commands, and {READ}; put the "
                  "value in a variable of the environment instead", 0)
