"""Who may own a specs/ folder (``trainjobs:policy.owners``): GitHub owners, checked as GitHub checks them.

A stack file is part of a pull request, and ``trainjobs codeowners`` writes its owners into
``.github/CODEOWNERS``: a value with a newline, a space or a ``#`` would become a rule or a
comment of its own there (``@a\\n* @evil`` makes ``@evil`` owner of every file). So an owner is
one of the three forms GitHub's CODEOWNERS syntax names, with GitHub's own character rules:

* ``@user``: 1 to 39 letters, digits or single hyphens, not starting or ending with a hyphen
  (GitHub's rule for user and organization names);
* ``@org/team``: an organization name as above, then a team slug: letters, digits, ``-`` and
  ``_`` (GitHub makes slugs of those), starting with a letter or digit;
* an email address of a GitHub account: a plain ``local@domain.tld`` (no quotes, spaces, ``#``).

A folder key is ``specs/...`` without whitespace other than a space (written escaped), control
characters, or the characters CODEOWNERS reads as a pattern or a comment (``* ? [ ] \\ #``):
``owners_for`` matches folders as plain prefixes, so CODEOWNERS must read them the same way.

The patterns feed the stack schema (provider.stack.schema); ``owner_problem`` and
``folder_problem`` check the same rules in Python (and the length limits a schema pattern does
not carry), for the stack check and for the CODEOWNERS writer.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from provider.core.problem import Problem
from provider.document.excerpt import printable, quoted
from provider.document.loaded import LoadedDocument
from provider.document.locate import locate

_NAME = r"[A-Za-z0-9](?:-?[A-Za-z0-9])*"  # user or organization: single inner hyphens
_TEAM = r"[A-Za-z0-9][A-Za-z0-9_-]*"
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
_EMAIL = rf"[A-Za-z0-9._%+-]+@{_LABEL}(?:\.{_LABEL})+"
OWNER_PATTERN = rf"^(?:@{_NAME}(?:/{_TEAM})?|{_EMAIL})$"
_PATH = r"[^\x00-\x1f\x7f*?\[\]\\#]*"  # no control characters (tab, newline), no pattern or comment characters
FOLDER_PATTERN = rf"^specs/{_PATH}$"
MAX_NAME = 39  # GitHub user and organization names
MAX_TEAM = 100
MAX_EMAIL = 254

ALLOWED_OWNER = ("a GitHub owner: @user, @org/team or user@example.com (user and organization names: letters, "
                 "digits and single inner hyphens, at most 39; team slugs: letters, digits, - and _)")
ALLOWED_PATH = ("no control characters, tabs or newlines, no leading or trailing space, and none of * ? [ ] \\ # "
                "(CODEOWNERS would read them as a pattern or a comment)")
ALLOWED_FOLDER = f"a folder under specs/ (specs/vision/): {ALLOWED_PATH}"

_OWNER = re.compile(OWNER_PATTERN)
_FOLDER = re.compile(FOLDER_PATTERN)
_PATH_ONLY = re.compile(rf"^{_PATH}$")


def owner_problem(owner: object) -> str | None:
    """Why ``owner`` is not a GitHub owner, or None when it is one."""
    if not isinstance(owner, str) or not _OWNER.match(owner):
        return f"{quoted(str(owner), 80)} is not a GitHub owner"
    if owner.startswith("@"):
        org, _, team = owner[1:].partition("/")
        if len(org) > MAX_NAME:
            return f"{quoted(owner, 80)}: {org[:10]}... is longer than GitHub's {MAX_NAME}-character names"
        if len(team) > MAX_TEAM:
            return f"{quoted(owner, 80)}: the team slug is longer than {MAX_TEAM} characters"
    elif len(owner) > MAX_EMAIL:
        return f"{quoted(owner, 80)} is longer than an email address may be ({MAX_EMAIL} characters)"
    return None


def folder_problem(folder: object) -> str | None:
    """Why ``folder`` cannot be an owned specs/ folder, or None."""
    if not isinstance(folder, str) or not _FOLDER.match(folder) or path_problem(folder) is not None:
        return f"{quoted(str(folder), 80)} is not a specs/ folder CODEOWNERS can name"
    return None


def path_problem(path: str) -> str | None:
    """Why CODEOWNERS cannot name ``path`` (a folder or a stack file) as a plain path, or None."""
    if not path or not _PATH_ONLY.match(path) or path.strip() != path or printable(path) != path:
        return f"{quoted(path, 80)} cannot be written as a CODEOWNERS path"
    return None


def owners_problems(owners: object, filename: str, doc: LoadedDocument | None,
                    key: tuple[str, ...] = ("config", "trainjobs:policy", "owners")) -> list[Problem]:
    """Every folder and owner of ``trainjobs:policy.owners`` that is not allowed, each at its line."""
    if not isinstance(owners, dict):
        return []

    def problem(message: str, path: tuple[object, ...], allowed: str, on_key: bool = False) -> Problem:
        pos = locate(doc, key + path, on_key=on_key) if doc is not None else None
        shown = printable(".".join(str(p) for p in key[1:] + path[:1]) + "".join(f"[{p}]" for p in path[1:]))
        return Problem(file=filename, line=pos[0] if pos else None, column=pos[1] if pos else None,
                       path=shown, message=message, allowed=allowed, rule="stack.owners")

    out: list[Problem] = []
    for folder, names in owners.items():
        why = folder_problem(folder)
        if why is not None:
            out.append(problem(why, (folder,), ALLOWED_FOLDER, on_key=True))
        for i, owner in enumerate(names if isinstance(names, list) else []):
            why = owner_problem(owner)
            if why is not None:
                out.append(problem(why, (folder, i), ALLOWED_OWNER))
    return out


def refuse_invalid(owners: Iterable[str]) -> list[str]:
    """``owners`` sorted, or ValueError naming the first that is not a GitHub owner."""
    listed = sorted(owners)
    for owner in listed:
        why = owner_problem(owner)
        if why is not None:
            raise ValueError(f"{why}; allowed: {ALLOWED_OWNER}")
    return listed
