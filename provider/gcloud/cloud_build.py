"""A Cloud Build config (cloudbuild.yaml) given to ``trainjobs convert``: its gcloud training step, read as
the command line it runs (then as ``convert --gcloud`` reads any line).

A step runs gcloud with its ``args`` as gcloud's words, no shell between, when its builder is gcloud
(``name`` ``gcr.io/cloud-builders/gcloud`` or ``gcloud-slim`` without an entrypoint, or any image with
``entrypoint: gcloud``); a step with ``entrypoint: bash`` (or ``sh``) and ``args: [-c, SCRIPT]``, or a
``script``, runs that text in bash. Cloud Build first replaces its substitutions in each arg: ``$NAME``
and ``${NAME}`` (``$PROJECT_ID``, ``$BUILD_ID``, ``$COMMIT_SHA``, a user's ``$_NAME``), ``$$`` being a
``$``. Here a substitution is read from the environment, as a ``$NAME`` of a gcloud line is (``export
PROJECT_ID=...`` first; one that is not set is refused by name): an args list becomes the bash line of
its words (each literal piece single-quoted, each substitution ``"${NAME}"``), a script is read with its
``$$`` as ``$``. The config's own ``substitutions:`` are the defaults of the names the environment does not
set (as a build's ``--substitutions`` override them); a name with neither is refused in Cloud Build's terms.
The build's ``options.env`` and the step's ``env`` (``NAME=VALUE`` items, the step's winning) are the step's
environment: a script's ``$NAME`` reads them before the environment of convert, and a ``CLOUDSDK_*`` one (a
gcloud property) is refused by name, as ``export CLOUDSDK_...`` is; a ``secretEnv`` name the script reads is
refused (a secret is never written into a spec). The command runs where convert runs, as the build's
/workspace; a step's ``dir`` is refused by name (run convert from that folder). Exactly one step may submit
a training job.
"""

from __future__ import annotations

import os
import re
import shlex
from typing import Any

from provider.core.errors import UserError

_GCLOUD_BUILDERS = ("gcr.io/cloud-builders/gcloud", "gcr.io/cloud-builders/gcloud-slim")
_SHELLS = ("bash", "sh", "/bin/bash", "/bin/sh")
TRAINING = re.compile(r"(?:^|\s)(?:jobs\s+submit\s+training|custom-jobs\s+create|hp-tuning-jobs\s+create)(?:\s|$)")
_SUBSTITUTION = re.compile(r"\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)|\$([A-Za-z_][A-Za-z0-9_]*)")  # what a line reads of its env
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def is_config(data: Any) -> bool:
    """Whether ``data`` is a Cloud Build config: a mapping whose steps are a list (no spec format has steps)."""
    return isinstance(data, dict) and isinstance(data.get("steps"), list)


def _word(arg: str) -> str:
    """One gcloud word of an args list as bash text: literal pieces quoted, substitutions "${NAME}"."""
    out, last = [], 0
    for m in _SUBSTITUTION.finditer(arg):
        if m.start() > last:
            out.append(shlex.quote(arg[last:m.start()]))
        out.append("'$'" if m.group() == "$$" else f'"${{{m.group(1) or m.group(2)}}}"')
        last = m.end()
    if last < len(arg) or not out:
        out.append(shlex.quote(arg[last:]))
    return "".join(out)


def _words(step: dict[str, Any]) -> list[str]:
    args = step.get("args")
    return [a for a in args if isinstance(a, str)] if isinstance(args, list) else []


def _script(step: dict[str, Any]) -> str | None:
    """The bash script a step runs (its ``script``, or ``bash -c``'s), or None."""
    words = _words(step)
    if isinstance(step.get("script"), str):
        return str(step["script"]).replace("$$", "$")
    if step.get("entrypoint") in _SHELLS and words[:1] == ["-c"] and len(words) >= 2:
        return words[1].replace("$$", "$")
    return None


def _line(step: dict[str, Any]) -> str | None:
    """The bash line a step runs, or None when it runs no gcloud."""
    words, entrypoint = _words(step), step.get("entrypoint")
    if (script := _script(step)) is not None:
        return script
    if entrypoint == "gcloud" or (entrypoint is None and step.get("name") in _GCLOUD_BUILDERS):
        return " ".join(["gcloud", *(_word(w) for w in words)])
    return None


def the_one(labels: list[str], shown: str, system: str, allowed: str) -> int:
    """The index of the one step that submits a training job; UserError naming none or each of several.
    ``allowed`` says what such a step is, with ``{}`` for the three commands (GitHub Actions' reader too)."""
    if not labels:
        kind = "config" if system == "Cloud Build" else "workflow"
        raise UserError(f"{shown}: a {system} {kind} with no step that submits a training job; allowed: "
                        + allowed.format("gcloud ai custom-jobs create, gcloud ai hp-tuning-jobs create or gcloud "
                                         "ai-platform jobs submit training"), exit_code=1)
    if len(labels) > 1:
        raise UserError(f"{shown}: {len(labels)} {system} steps submit a training job ({', '.join(labels)}); give the "
                        "one to convert with --gcloud", exit_code=1)
    return 0


def command_line(data: dict[str, Any], shown: str) -> tuple[str, str]:
    """The config's one step that submits a training job, named (``steps[1] (id 'Train')``), and the command line it
    runs; UserError when there is not one."""
    found = []
    for i, step in enumerate(data["steps"]):
        line = _line(step) if isinstance(step, dict) else None
        if line is not None and TRAINING.search(line):
            label = f"steps[{i}]" + (f" (id {step['id']!r})" if "id" in step else "")
            found.append((label, step, line))
    label, step, line = found[the_one([f[0] for f in found], shown, "Cloud Build", "a step that runs {} (the gcloud "
                                      "builder's args, or bash -c)")]
    if "dir" in step:
        raise UserError(f"{shown}: {label} runs in dir {step['dir']!r} of the build's workspace: run trainjobs convert "
                        "from that folder, with the step's command as --gcloud", exit_code=1)
    where = f"{shown} {label}"
    env = _environment(data, step, line, where)
    return label, _defaults(data, step, env + line, where)


def _environment(data: dict[str, Any], step: dict[str, Any], line: str, where: str) -> str:
    """The step's environment as ``export NAME=VALUE && `` before its line: the build's ``options.env``, then the
    step's ``env`` over it (``NAME=VALUE`` each, substitutions in the value as in args); a name of the step's or the
    build's ``secretEnv`` that the line reads is refused (a secret is never written into a spec)."""
    given = data.get("options")
    options: dict[str, Any] = given if isinstance(given, dict) else {}
    secret = [str(n) for level in (options, step) for n in (level.get("secretEnv") or [])]
    # gcloud reads CLOUDSDK_* (its properties) from its environment; a script reads its $NAMEs, the args (no shell) none
    read = {name for item in _items(options, step) if (name := str(item).partition("=")[0]).startswith("CLOUDSDK_")}
    if _script(step) is not None:
        read |= {m.group(1) or m.group(2) for m in _VARIABLE.finditer(line)}
    for name in secret:
        if name in read:
            raise UserError(f"{where}: ${name} is a Cloud Build secretEnv value, never written into a spec; allowed: "
                            "give the trainer the secret through the stack's trainjobs:secretEnv setting, and write the "
                            "rest of the command without it", exit_code=1)
    values: dict[str, str] = {}
    for origin, level in (("options.env", options), ("env", step)):
        for item in _items(level):
            name, equals, value = str(item).partition("=")
            if not equals or not _NAME.fullmatch(name):
                raise UserError(f"{where}: {origin} item {str(item)!r} is not NAME=VALUE; allowed: a list of "
                                "NAME=VALUE strings, as Cloud Build reads it", exit_code=1)
            values[name] = value
    return "".join(f"export {name}={_word(value)} && " for name, value in values.items() if name in read)


def _items(*levels: Any) -> list[Any]:
    """The ``env`` items of the build's options and the step, in that order."""
    return [item for level in levels if isinstance(level, dict) for item in (level.get("env") or [])]


def _defaults(data: dict[str, Any], step: dict[str, Any], line: str, where: str) -> str:
    """The line with the config's ``substitutions:`` as the defaults of the names it uses that the environment does
    not set (``export _NAME="${_NAME:-value}" &&`` before it); a used name with neither value is refused."""
    given = data.get("substitutions")
    defaults = {str(k): v for k, v in given.items()} if isinstance(given, dict) else {}
    used = [] if isinstance(step.get("script"), str) else [  # a script reads its environment (no substitution)
        m.group(1) or m.group(2) for a in step.get("args") or [] if isinstance(a, str) for m in _SUBSTITUTION.finditer(a)
        if m.group() != "$$"]
    exports = []
    for name in dict.fromkeys(used):
        if name in os.environ:
            continue
        value = defaults.get(name)
        if value is None or isinstance(value, (dict, list)):
            raise UserError(
                f"{where}: ${name} is a Cloud Build substitution with no value here (the config's substitutions: "
                f"gives none and the environment does not set it); allowed: a default in the config's substitutions:, "
                f"or export {name}=... before trainjobs convert (Cloud Build's own, such as $PROJECT_ID, are set "
                "when a build runs)", exit_code=1)
        text = str(value).lower() if isinstance(value, bool) else str(value)
        exports.append(f'export {name}="${{{name}:-{_in_double_quotes(text)}}}" && ')
    return "".join(exports) + line


def _in_double_quotes(text: str) -> str:
    """``text`` as the word of a double-quoted ``${NAME:-word}``: backslash, $, ` and " escaped, kept as written."""
    return re.sub(r'([\\$`"])', r"\\\1", text)
