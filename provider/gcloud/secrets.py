"""Values a command line takes from the environment: which names look secret, and where their values may go.

A converted spec is meant to be committed, so a value read from ``$VAR`` must not land in it
unseen. The rule (README, "Security"; docs/migration.md):

* **A name that looks secret** (provider.core.secret_names) keeps its value out of everything trainjobs writes or prints. The
  name is cut into words at ``_`` (``GITHUB_API_TOKEN`` -> GITHUB, API, TOKEN); it looks secret when
  one word is, or ends with, one of SECRET_WORDS (``APIKEY``, ``DB_PASSWD``, ``OAUTH``), in any
  case. ``PWD`` and ``OLDPWD`` alone are bash's folders, not passwords. While the line is read
  (provider.gcloud.words), such a variable becomes a marker (``\\0NAME\\0``: no word bash makes
  can hold a NUL) instead of its value. The trainer's own arguments that hold one (the args after
  ``--``, ``--args``, ``--command``) are left out with a note that names them and gives the
  stack setting that hands the job the value in its environment instead
  (``trainjobs:secretEnv.NAME``, which the local backend and the Vertex AI request both carry,
  the value kept secret: README, "Secrets"). Anywhere else (a label, an image, a path...) the
  command is refused: a secret has no place in a spec field.
* **Any other variable** is read as bash reads it, and a note lists each one with its value, so
  whoever commits the spec sees what came from the environment.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from provider.gcloud.command import GcloudError

if TYPE_CHECKING:
    from provider.gcloud.command import GcloudCommand

# A marker as the command's reading may have changed it (--scale-tier lowers it and turns _ into -).
_MARKER = re.compile(r"\x00([A-Za-z0-9_-]+)\x00")
MARK = "\x00"


def marker(name: str) -> str:
    """What stands in a word for the value of the secret variable ``name``."""
    return f"{MARK}{name}{MARK}"


def names_in(text: str) -> list[str]:
    """The secret variables whose markers ``text`` holds."""
    return [m.replace("-", "_") for m in _MARKER.findall(text)]


def shown(text: str, names: tuple[str, ...] | list[str] = ()) -> str:
    """``text`` as it may be printed: each marker shown as ``$NAME`` (as ``names`` spell it), never a value."""
    spelled = {n.upper(): n for n in names}

    def name(m: re.Match[str]) -> str:
        found = m.group(1).replace("-", "_")
        return "$" + spelled.get(found.upper(), found)

    return _MARKER.sub(name, text)


def stack_setting(name: str) -> str:
    """The command that gives every job of a stack the secret ``name`` in its environment."""
    return f"pulumi config set --secret --path 'trainjobs:secretEnv.{name}' VALUE"


def without_secrets(args: list[str]) -> tuple[list[str], list[str]]:
    """The trainer's args without the words that hold a secret, and those words as shown.

    ``--token=$API_TOKEN`` goes alone; ``--token $API_TOKEN`` goes with the option before it (an
    option with no ``=`` whose value is the secret), so the trainer never reads ``--token`` with
    the next argument as its value.
    """
    kept: list[str] = []
    left_out: list[str] = []
    for word in args:
        if MARK not in word:
            kept.append(word)
            continue
        if not word.startswith("-") and kept and kept[-1].startswith("-") and "=" not in kept[-1]:
            left_out.append(f"{kept.pop()} {shown(word)}")
        else:
            left_out.append(shown(word))
    return kept, left_out


def note(names: list[str], left_out: list[str]) -> str:
    """The note for trainer args left out because they held the secret variables ``names``."""
    settings = "; ".join(stack_setting(n) for n in names)
    words = ", ".join(repr(w) for w in left_out)
    return (f"the trainer's args {words} are left out: {', '.join('$' + n for n in names)} looks secret by its name, "
            f"and a secret is never written into a spec. Give it to the job from the stack instead ({settings}): "
            "every job of the stack gets it in its environment, where the trainer reads it "
            f"(os.environ[{names[0]!r}])")


def _strings(value: object) -> Iterator[str]:
    """Every string in a flag's value (a text, a list, a mapping's keys and values)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(k)
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def _names(value: object) -> list[str]:
    return sorted({n for text in _strings(value) for n in names_in(text)})


def take_out(cmd: GcloudCommand) -> list[str]:
    """The trainer's args of ``cmd`` without secrets (notes saying what was left out and what to do
    instead); GcloudError when a secret stands anywhere else, which would be written into the spec."""
    from provider.gcloud.flags import AI_PLATFORM, CUSTOM_JOBS

    notes: list[str] = []
    lists = [("user_args", cmd.user_args)] + [(key, cmd.values.get(key)) for key in ("args", "command")]
    for key, words in lists:
        if not isinstance(words, list) or not _names(words):
            continue
        kept, left_out = without_secrets([str(w) for w in words])
        if key == "user_args":
            cmd.user_args = kept
        else:
            cmd.values[key] = kept
        notes.append(note(_names(words), left_out))
    flag_of = {f.key: f.name for f in (*AI_PLATFORM, *CUSTOM_JOBS) if f.key}
    for key, value in cmd.values.items():
        names = _names(value)
        if names:
            raise GcloudError(f"{flag_of.get(key, key)} takes its value from {', '.join('$' + n for n in names)}, "
                              "whose name looks secret: a secret is never written into a spec; allowed: the value "
                              "written out if it is not a secret, or a secret given to the job in its environment: "
                              f"{stack_setting(names[0])}")
    if cmd.job_id is not None and MARK in cmd.job_id:
        raise GcloudError(f"the job id {shown(cmd.job_id)} comes from a variable whose name looks secret; "
                          "allowed: the job id written out")
    return notes
