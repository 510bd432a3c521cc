"""A plan for the plan page: ``trainjobs plan --format json`` output, saved or computed on request.

Both go through the one JSON report (provider.gitops.report_json), so the page shows exactly
what ``trainjobs plan --format json`` prints; computing one uses the CLI's own functions
(provider.gitops.load.sides and provider.gitops.plan.make_plan).
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

from provider.core.errors import UserError

Json = dict[str, Any]
KEYS = ("base", "head", "ok", "stacks", "started")
MAX_PLAN_BYTES = 64 * 1024 * 1024  # a plan of thousands of jobs, with their requests, is a few MiB


class PlanError(Exception):
    def __init__(self, message: str, fix: str) -> None:
        super().__init__(message)
        self.message = message
        self.fix = fix


def default_base(root: Path) -> str:
    """The base `trainjobs plan` compares with when not given --base; "" where there is none (no git)."""
    from provider.gitops.git import Git

    try:
        return Git(root).default_base()
    except UserError:
        return ""


def computed_plan(root: Path, base: str | None) -> Json:
    """``base`` None: the default base, as `trainjobs plan` without --base."""
    from provider.gitops import report_json
    from provider.gitops.load import sides
    from provider.gitops.plan import make_plan

    try:
        with sides(root, base) as (base_side, head_side):
            plan = make_plan(base_side, head_side)
    except UserError as exc:
        raise PlanError(exc.message, "give a branch, tag or commit of this repository as the base") from exc
    out = io.StringIO()
    report_json.render(plan, out)
    data: Json = json.loads(out.getvalue())
    return data


def saved_plan(path: Path) -> Json:
    """A file written by ``trainjobs plan --format json > FILE``, read as every file is
    (provider.document.files.read_inside: a regular file, capped; the file named is its own boundary)."""
    from provider.document.files import Refused, read_inside

    fix = "write it with: trainjobs plan --format json > plan.json"
    try:
        data = json.loads(read_inside(path, MAX_PLAN_BYTES, root=Path(os.path.realpath(path)).parent))
    except Refused as exc:
        raise PlanError(f"--plan {path}: {exc.message}", fix) from exc
    except OSError as exc:
        raise PlanError(f"--plan {path}: cannot read it ({exc.strerror})", fix) from exc
    except ValueError as exc:
        raise PlanError(f"--plan {path}: not JSON ({exc})", fix) from exc
    if not isinstance(data, dict) or any(k not in data for k in KEYS):
        raise PlanError(f"--plan {path}: not a plan (it needs the keys {', '.join(KEYS)})", fix)
    return data
