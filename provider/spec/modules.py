"""Which module names ``python -m`` runs: the one home of that rule.

``python -m`` finds a module by its folder and file names, not by identifier rules: Google's own
tuning example runs ``my-trainer.trainer``, and ``my-task.py`` runs as ``python -m my-task``.
Validation checks a spec's module with it (provider.validation.rules.inputs), packaging makes a
flat folder's files modules by it (provider.packaging.sdist), and the gcloud converter refuses a
``script=`` it could not run (provider.gcloud.local_package).
"""

from __future__ import annotations

import re

_MODULE_PART = re.compile(r"[^\W\d][\w-]*")  # as a Python name begins, a hyphen allowed after


def runnable_module(name: str) -> bool:
    """Whether ``python -m NAME`` finds NAME as written: dotted parts of letters, digits, _ or -, each
    beginning as a Python name does (a letter or _)."""
    return bool(name) and all(_MODULE_PART.fullmatch(part) for part in name.split("."))


def module_file(stem: str) -> bool:
    """Whether the file ``STEM.py`` is a module ``python -m STEM`` runs (a dot in it would name a package)."""
    return "." not in stem and runnable_module(stem)
