"""Values a command line takes from the environment: which names look secret, and where their values may go.

A converted spec is meant to be committed, so a value read from ``$VAR`` must not land in it
unseen. The rule (README, "Security"; docs/migration.md):

* **A name that looks secret** keeps its value out of everything trainjobs writes or prints. The
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

SECRET_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "PASS", "PWD", "CREDENTIAL",
                "CREDENTIALS", "CREDS", "PRIVATE", "AUTH", "COOKIE", "SIGNATURE", "SALT", "DSN")
_NOT_SECRET = ("PWD", "OLDPWD")  # bash's current and previous folders
_MARKER = re.compile(r"\x00([A-Za-z_][A-Za-z0-9_]*)\x00")
MARK = "\x00"


def looks_secret(name: str) -> bool:
    """Whether a variable's name says its value is a secret (the module docstring's rule)."""
    upper = name.upper()
    if upper in _NOT_SECRET:
        return False
    words = [w.removesuffix("S") if len(w) > 3 and w not in SECRET_WORDS else w for w in upper.split("_") if w]
    return any(w.endswith(secret) for w in words for secret in SECRET_WORDS)


def marker(name: str) -> str:
    """What stands in a word for the value of the secret variable ``name``."""
    return f"{MARK}{name}{MARK}"


def names_in(text: str) -> list[str]:
    """The secret variables whose markers ``text`` holds."""
    return _MARKER.findall(text)


def shown(text: str) -> str:
    """``text`` as it may be printed: each marker shown as ``$NAME``, never a value."""
    return _MARKER.sub(r"$\1", text)


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
