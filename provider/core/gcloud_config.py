"""The properties of gcloud's configuration that a training command reads, and the commands that print one: one
table for every reader (a script's ``$(gcloud config get-value project)``: provider.gcloud.substitution; a
notebook's ``shell_output = !gcloud config list --format 'value(core.project)'``: provider.document.python_shell;
``gcloud config set``: provider.gcloud.properties).

Each property read gives a value of the job's command (a project, a region); gcloud reads it from its variable of
the environment (``CLOUDSDK_SECTION_NAME``) before its configuration, and a flag of the command wins over both.
"""

from __future__ import annotations

import re

ENVIRONMENT = {"core/project": "CLOUDSDK_CORE_PROJECT", "compute/region": "CLOUDSDK_COMPUTE_REGION",
               "ai/region": "CLOUDSDK_AI_REGION"}
_VALUE = re.compile(r"--format=value\(([a-z_]+(?:[./][a-z_]+)?)\)")


def full_name(name: str) -> str:
    """A property's full name: gcloud reads a name without a section as one of core (project: core/project)."""
    return name if "/" in name else f"core/{name}"


def printed_property(args: list[str]) -> str | None:
    """The full name of the property in ENVIRONMENT that ``gcloud config ARGS`` prints the value of (``get-value
    NAME``, ``get NAME``, ``list [NAME] --format 'value(SECTION.NAME)'``: surface/config), or None."""
    if args[:1] in (["get-value"], ["get"]) and len(args) == 2:
        name = args[1]
    elif args[:1] == ["list"]:
        rest = args[1:]
        if rest[:1] == ["--format"] and len(rest) > 1:
            rest = [f"--format={rest[1]}", *rest[2:]]
        elif rest[1:2] == ["--format"] and len(rest) > 2:
            rest = [rest[0], f"--format={rest[2]}"]
        fmt = next((w for w in rest if w.startswith("--format=")), None)
        named = [w for w in rest if not w.startswith("--format=")]
        if fmt is None or len(named) > 1 or len(rest) != len(named) + 1:
            return None
        key = _VALUE.fullmatch(fmt)
        if key is None:
            return None
        name = key.group(1).replace(".", "/")
        if named and full_name(named[0]) != full_name(name):
            return None
    else:
        return None
    full = full_name(name)
    return full if full in ENVIRONMENT else None
