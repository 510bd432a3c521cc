"""What ``trainjobs convert`` writes is a spec ``trainjobs validate`` accepts (one answer everywhere).

The spec convert writes (provider.submission.emit.to_native) is checked against the spec's schema before it is
written: an error there the conversion did not give is the conversion's (a legacy scale tier's machine type Vertex AI
does not offer for training is a warning in the trainingInput it came from, and the spec's schema refuses it), said
with the conversion's own problems, and nothing is written.
"""

from __future__ import annotations

import sys
from typing import Any

from provider.core.problem import Problem
from provider.validation.report import reporter
from provider.validation.rules import Context
from provider.validation.validator import validate_data


def refused(native: dict[str, Any], shown: str, ctx: Context, problems: list[Problem]) -> bool:
    """One answer everywhere: the spec convert writes is checked against the spec's schema as ``trainjobs validate``
    checks it; an error there that the conversion did not give (a legacy machine type Vertex AI does not offer for
    training, which the trainingInput it came from only warns of) is the conversion's: the spec is not written.
    (Local paths are checked where the spec is written and run, not here.)"""
    said = {p.message for p in problems}
    written = validate_data(native, f"{shown} (as the spec convert writes)", ctx)
    errors = [p for p in written.problems if p.is_error and p.rule == "schema" and p.message not in said]
    if not errors:
        return False
    print(f"{shown}: error: the spec converted from it would be refused by trainjobs validate, so it is not written "
          "(--output request writes the request as it is read, with its warnings):", file=sys.stderr)
    reporter("text", sys.stderr).report([*problems, *errors], 1, 1, sys.stderr)
    return True
