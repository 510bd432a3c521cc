"""A Check whose verdict the olds already hold: an unchanged job of a deployed stack (issue 31).

For a resource the state already holds, the engine sends Check the inputs it stored last time
(what this provider's Check returned then) beside the program's new ones
(pkg/resource/deploy/step_generator.go: ``Olds: oldInputs, News: inputs``). A ``pulumi
preview`` of a team's stack of 1,000 jobs, where a pull request changed three specs, would
otherwise check 997 unchanged specs again.

The verdict of a Check is a function of the news, the code and data that judge them (this
package, the catalog, the schemas), the day (a container's end of availability) and, for a spec
that names local paths, the files there. So a Check that passed records a stamp among its
checked inputs, the ``checked`` property: the day and a digest of the judging code and data,
only for a spec that names no local path (a package path, a build context, an extra package:
their files can change under the same inputs, so those are always checked again). A later Check
answers with the olds' request and stamp, without judging again, only when the olds carry the
stamp this process would write and every other input the news carry is equal to the olds'.
Anything else (a changed spec, stack setting or quota, an unknown during a preview, a new day,
another version of trainjobs, a state written before stamps) is checked in full, as before.

The stamp is not an input of the job: Diff never reads it (provider.resources.job_diff).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from provider.resources.job_args import JobArgs

STAMP = JobArgs.prop("checked")
REQUEST = JobArgs.prop("request")
_SKIP_DIRS = frozenset({"__pycache__"})
_SKIP_SUFFIXES = (".pyc", ".pyo")


@cache
def judge_digest() -> str:
    """A digest of what judges a spec: every file of the provider package and of the schemas it
    reads (computed once per process, a few milliseconds)."""
    from provider.validation.schema_check import schema_dir

    package = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256()
    for top in (package, schema_dir()):
        for folder, dirs, files in sorted(os.walk(top)):
            dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS)
            for name in sorted(files):
                if name.endswith(_SKIP_SUFFIXES):
                    continue
                path = Path(folder, name)
                digest.update(f"{path.relative_to(top)}\0".encode())
                digest.update(path.read_bytes())
                digest.update(b"\0")
    return digest.hexdigest()[:20]


def stamp() -> str:
    """The stamp a Check that passed today, with this code, records."""
    return f"{dt.date.today().isoformat()} {judge_digest()}"


def carried(olds: Mapping[str, Any], news: Mapping[str, Any]) -> dict[str, Any] | None:
    """The checked inputs the olds already hold for ``news``, or None when the news must be checked."""
    if not olds or olds.get(STAMP) is None or REQUEST not in olds:
        return None
    computed = (STAMP,) if REQUEST in news else (STAMP, REQUEST)
    if STAMP in news or len(olds) != len(news) + len(computed):
        return None
    for key, value in news.items():
        if key not in olds or olds[key] != value:  # an unknown (the SDK's) equals nothing stored
            return None
    if olds[STAMP] != stamp():
        return None
    return {**news, **{key: olds[key] for key in computed}}


__all__ = ["REQUEST", "STAMP", "carried", "judge_digest", "stamp"]
