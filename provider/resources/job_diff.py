"""TrainingJob.diff(): what ``pulumi preview`` and ``pulumi up`` do to a job, unknowns included.

Jobs are immutable. A change to where the job lives (backend, parent, kind, endpoint, local
home) or to what it runs (the request minus its labels) replaces it; a desired state of
CANCELLED cancels it (an update); a cancelled job set running again is replaced; anything else
(wait policy, description, labels, retention) is no change.

During a preview an input may be unknown (provider.resources.unknowns). The answer stays
exact where it can and conservative where it cannot: an unknown that may change something
that forces a replacement is a replace of that property (so the preview shows the replace
``pulumi up`` may do), an unknown desired state may cancel (an update), and an unknown in a
property that never forces one (labels, wait, description) changes nothing. The provider never
answers DIFF_UNKNOWN: the engine turns that into its own comparison of the inputs, which can
only give an update, never a replace (pkg/resource/deploy/step_generator.go, diffResource),
and would hide a replacement from the preview.

Replace order: a stack's ``trainjobs:replace`` (the ``replace`` input) is ``deleteFirst``
(the default: the old job is cancelled before the new one starts, so a replace never holds
more GPUs than the stack's quota) or ``createFirst``. The answer carries it as the diff's
deleteBeforeReplace, which the engine honours unless the resource option overrides it
(step_generator.go: ``deleteBeforeReplace := diff.DeleteBeforeReplace``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pulumi.dynamic import DiffResult

from provider.resources.job_args import JobArgs
from provider.resources.unknowns import has_unknown, is_unknown

# Where the job lives: a change here is another job (fields of JobArgs; WHERE: their properties).
WHERE_FIELDS = ("backend", "parent", "request_kind", "api_endpoint", "local_home", "local_storage")
WHERE = JobArgs.props_of(WHERE_FIELDS)
DELETE_FIRST = "deleteFirst"
CREATE_FIRST = "createFirst"
REPLACE_ORDERS = (DELETE_FIRST, CREATE_FIRST)
# Diff compares the olds and the news as the engine sent both (whole floats alike on both sides):
# nothing is converted or copied.
_AS_IS = frozenset(f.name for f in JobArgs.__record_fields__)


def delete_first(args: JobArgs) -> bool:
    """The stack's replace order; unknown or unset is the safe one for GPU quotas."""
    return args.replace != CREATE_FIRST


def _request_replaces(old: JobArgs, new: JobArgs) -> bool:
    from provider.resources.job_request import decode
    from provider.submission.diffing import Action, diff, run_body

    # Equal canonical JSON (provider.resources.job_request.encode) is the same request: no decoding.
    # The olds are a state, all known: an unknown (the SDK's Unknown) equals nothing there.
    if old.request == new.request:
        return False
    before, after = decode(old.request), decode(new.request)  # a map in a state written before
    if before == after:
        return False
    if not isinstance(after, Mapping) or not isinstance(before, Mapping):
        return True  # unknown as a whole (or no request before): what runs may change
    if has_unknown(run_body(dict(after))):
        return True  # an unknown image, account, ... in what runs
    judged = diff({"parent": old.parent, **before}, {"parent": old.parent, **after})
    return judged.action is Action.REPLACE


def _desired(old: JobArgs, new: JobArgs) -> tuple[bool, bool]:
    """(cancels, replaces) for the desired state."""
    was_cancelled = old.desired_state == "CANCELLED"
    desired = new.desired_state
    if is_unknown(desired):
        return not was_cancelled, was_cancelled  # it may become CANCELLED, or leave it
    cancels = desired == "CANCELLED" and not was_cancelled
    return cancels, was_cancelled and desired != "CANCELLED"  # a cancelled job cannot resume


def job_diff(olds: Mapping[str, Any], news: Mapping[str, Any]) -> DiffResult:
    """The diff of two sets of the resource's properties, as the engine sends them (the olds known,
    the news maybe not)."""
    old, new = JobArgs.from_props(olds, _AS_IS), JobArgs.from_props(news, _AS_IS)
    replaces = [JobArgs.prop(k) for k in WHERE_FIELDS
                if is_unknown(getattr(new, k)) or getattr(old, k) != getattr(new, k)]
    if _request_replaces(old, new):
        replaces.append("request")
    cancels, rerun = _desired(old, new)
    if rerun:
        replaces.append("desiredState")
    if replaces:
        return DiffResult(changes=True, replaces=sorted(set(replaces)), delete_before_replace=delete_first(new))
    return DiffResult(changes=cancels, replaces=[], delete_before_replace=False)
