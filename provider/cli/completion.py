"""Shell completion for bash, zsh and fish: ``trainjobs completion SHELL`` prints the script.

Built on argcomplete (a well-kept library that the major shells' completion systems call back
into): the shell runs ``trainjobs`` with ``_ARGCOMPLETE`` set, and ``main()`` hands the parser to
:func:`complete` before parsing anything. So commands, options and their choices always match the
real parser, and the values that depend on where you are come from here:

* spec files (``validate``, ``convert``, ``run``): ``*.yaml``/``*.yml`` files and directories;
* ``--stack``: the stacks of ``stacks/Pulumi.<stack>.yaml`` in the current directory;
* a job (``status``, ``logs``, ``cancel``): the local jobs' ids, newest first, and their names;
* ``--base``: git branches and tags; directories for ``--cwd``, ``--state-dir`` and the like;
* ``gpus``: the accelerators, machine types (``--machine-type``) and regions (``--region``) of the catalog.

Nothing here reaches the network or imports a cloud SDK: a tab press must be instant.
"""

from __future__ import annotations

import argparse
import subprocess
from collections.abc import Callable, Iterable
from pathlib import Path

SHELLS = ("bash", "zsh", "fish")
SPEC_SUFFIXES = (".yaml", ".yml")
# At most this many jobs are offered (the newest): completion reads one small file per job.
MAX_JOBS = 200

Completer = Callable[..., Iterable[str]]


def spec_files(prefix: str, **_: object) -> Iterable[str]:
    """YAML files and directories under the typed prefix (argcomplete's own file completer)."""
    from argcomplete.completers import FilesCompleter

    return FilesCompleter(allowednames=[s.lstrip(".") for s in SPEC_SUFFIXES], directories=True)(prefix)


def stacks(prefix: str, **_: object) -> list[str]:
    """Stack names from ``stacks/Pulumi.<name>.yaml`` (or .yml) in the current directory."""
    names = []
    for path in sorted(Path("stacks").glob("Pulumi.*.y*ml")):
        if path.suffix in SPEC_SUFFIXES:
            names.append(path.name[len("Pulumi."):-len(path.suffix)])
    return [n for n in names if n.startswith(prefix)]


def jobs(prefix: str, **_: object) -> list[str]:
    """Local job ids (newest first), then the job names they ran."""
    from provider.backends.local.paths import default_home
    from provider.backends.local.store import JobStore

    store = JobStore(default_home())
    try:
        ids = store.ids()[:MAX_JOBS]
    except OSError:
        return []
    names: list[str] = []
    for job_id in ids:
        try:
            record = store.record(job_id) or {}
        except (OSError, ValueError, KeyError):
            continue
        name = record.get("name") if isinstance(record, dict) else None
        if isinstance(name, str) and name not in names:
            names.append(name)
    return [c for c in [*ids, *names] if c.startswith(prefix)]


def git_refs(prefix: str, **_: object) -> list[str]:
    """Branches (local and remote) and tags of the repository around the current directory."""
    try:
        out = subprocess.run(["git", "for-each-ref", "--format=%(refname:short)", "refs/heads", "refs/remotes",
                              "refs/tags"], capture_output=True, text=True, timeout=5, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return [ref for ref in out.split() if ref.startswith(prefix)]


def accelerators(prefix: str, **_: object) -> list[str]:
    """What ``trainjobs gpus`` takes: the short names of the accelerators Vertex AI offers (A100, L4 ...)."""
    import datetime as dt

    from provider.catalog import CATALOG

    today = dt.date.today()
    names = sorted({a.display.replace(" ", "-") for a in CATALOG.accelerators.values() if not a.retired(today)})
    return [n for n in names if n.lower().startswith(prefix.lower())]


def machine_types(prefix: str, **_: object) -> list[str]:
    """Machine types Vertex AI trains on (the catalog's)."""
    from provider.catalog import CATALOG

    return [m for m in sorted(CATALOG.vertex_machine_names()) if m.startswith(prefix)]


def regions(prefix: str, **_: object) -> list[str]:
    """Regions where Vertex AI offers custom training (the catalog's)."""
    from provider.catalog import CATALOG

    return [r.name for r in sorted(CATALOG.regions.values(), key=lambda r: r.name)
            if r.vertex_training and r.name.startswith(prefix)]


def directories(prefix: str, **_: object) -> Iterable[str]:
    from argcomplete.completers import DirectoriesCompleter

    return DirectoriesCompleter()(prefix)


# The argument's dest -> what completes it. Options without a value (flags) are never completed.
BY_DEST: dict[str, Completer] = {
    "paths": spec_files, "file": spec_files, "spec": spec_files,
    "stack": stacks, "job": jobs, "base": git_refs,
    "cwd": directories, "state_dir": directories, "storage": directories, "stacks": directories,
    "accelerator": accelerators, "machine_type": machine_types, "region": regions,
}


def attach(parser: argparse.ArgumentParser) -> None:
    """Give every argument of every command the completer its dest calls for."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                attach(sub)
        elif action.nargs != 0 and action.choices is None and action.dest in BY_DEST:
            action.completer = BY_DEST[action.dest]  # type: ignore[attr-defined]


def complete(parser: argparse.ArgumentParser) -> None:
    """Answer the shell's completion request and exit (argcomplete does nothing without one)."""
    import argcomplete

    attach(parser)
    argcomplete.autocomplete(parser, always_complete_options=False)


def script(shell: str) -> str:
    """The completion script to source in ``shell`` (what ``trainjobs completion SHELL`` prints)."""
    import argcomplete

    script: str = argcomplete.shellcode(["trainjobs"], shell=shell)  # type: ignore[attr-defined]
    return script


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("completion", help="print the shell completion script for bash, zsh or fish",
                       description="Print a completion script. bash: eval \"$(trainjobs completion bash)\" in "
                       "~/.bashrc; zsh: eval \"$(trainjobs completion zsh)\" in ~/.zshrc (after compinit); "
                       "fish: trainjobs completion fish > ~/.config/fish/completions/trainjobs.fish")
    p.add_argument("shell", choices=SHELLS, help="the shell")
    p.set_defaults(_target="provider.cli.completion:run")


def run(args: argparse.Namespace) -> int:
    print(script(args.shell))
    return 0
