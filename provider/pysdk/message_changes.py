"""A field set on a message after it is built (``spec.scheduling = Scheduling(timeout="3600s")``,
``job.job_spec.worker_pool_specs[0].machine_spec.accelerator_count = 2``), read as proto-plus sets it.

The walk (program.py) records each ``root.a[0].b = value`` on the Assigned of ``root`` (``changed``), and the
request's reader (gapic.RequestReader) applies those made before the value is used (``apply``) to the mapping it
reads from the assignment's code. As proto-plus does: a field of the message is set (a message field's missing
message is made empty first, as reading it gives one); a name that is no field of the message is refused (proto-plus
raises AttributeError: Unknown field), and so is a value of the wrong kind (a str for a number or a message: it
raises TypeError); an item of a repeated field past its end raises IndexError. A message given to another
message's constructor is copied there (``CustomJob(job_spec=spec)``): a change to ``spec`` after that is not the
job's, and is not applied to it.

A change the walk does not read (an augmented assignment, ``del``, a method call such as ``.append()``, a field set
through another name, ``pools = job.job_spec.worker_pool_specs``) leaves the value read from code not the value
Python has: the evaluator says where the name was last changed, and a value whose changes do not account for it
is refused (gapic.RequestReader._assigned). A job the SDK's classes build (``aiplatform.CustomJob``) is read from
its arguments: a field set on it after (``job.job_spec.scheduling = ...``) is refused by name.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol, cast

from provider.pysdk.arguments import SdkError
from provider.pysdk.binding import Assigned, Change

if TYPE_CHECKING:
    from provider.pysdk.binding import Reader
    from provider.pysdk.gapic import RequestReader

_JOB_PARTS = ("job_spec", "_gca_resource", "encryption_spec")


def _chain(node: ast.expr) -> tuple[ast.Name | None, list[ast.expr]]:
    """The name a target's attributes and items start from, and each step from it (innermost first)."""
    steps: list[ast.expr] = []
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        steps.insert(0, node)
        node = node.value
    return (node if isinstance(node, ast.Name) else None), steps


class _Built(Protocol):
    """A job the walk found built (program.Job): refused, when converted, with ``failed``."""

    failed: SdkError | None


def changed(stmt: ast.stmt, index: int, reader: Reader, objects: Mapping[str, _Built]) -> None:
    """Record on its name's Assigned each field ``stmt`` sets (``index``: the statement); a change to a job the walk
    found built (``objects``: its jobs by name) makes that job refused, if it is the one converted (a request
    changed, then built again and run, as Google's migration notebooks do, is not)."""
    targets: list[ast.expr] = []
    if isinstance(stmt, (ast.Assign, ast.Delete)):
        targets = list(stmt.targets)
    elif isinstance(stmt, (ast.AugAssign, ast.AnnAssign)):
        targets = [stmt.target]
    elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):  # job.job_spec.worker_pool_specs.append()
        root, steps = _chain(stmt.value.func)
        if root is not None and root.id in objects and any(
                isinstance(s, ast.Attribute) and s.attr in _JOB_PARTS for s in steps):
            _refuse_job(objects[root.id], root, stmt.value, reader)
    for target in targets:
        root, steps = _chain(target)
        if root is None or not steps:
            continue
        if root.id in objects:
            _refuse_job(objects[root.id], root, target, reader)
        assigned = reader.assigned.get(root.id)
        if assigned is None:
            continue
        value = stmt.value if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else None
        assigned.changes.append(Change(target, value, reader, index, reader.scope.get(root.id)))
        _through(assigned, target, index, reader)


def _through(assigned: Assigned, target: ast.expr, index: int, reader: Reader) -> None:
    """``pools = job.job_spec.worker_pool_specs`` then ``pools[0].replica_count = 2``: a change of ``job`` the walk
    does not follow, recorded on job's Assigned as such (value None)."""
    root, steps = _chain(assigned.value)
    alias = reader.assigned.get(root.id) if root is not None and steps else None
    if alias is not None and alias is not assigned:
        alias.changes.append(Change(target, None, reader, index, None))


def _refuse_job(job: _Built, root: ast.Name, node: ast.expr, reader: Reader) -> None:
    if job.failed is None:
        job.failed = SdkError(
            reader.at(node), f"{ast.unparse(node)}: a change to the job {root.id} after it is built is not read "
            "(trainjobs reads the job from the arguments it is built with)", f"the value among the arguments that "
            f"build {root.id} (aiplatform.CustomJob(worker_pool_specs=..., base_output_dir=...), or run(timeout=..., "
            "...))")


def applicable(assigned: Assigned, order: int, shared: bool) -> list[Change]:
    """The changes of ``assigned`` made before statement ``order``; SdkError where a change is read too late for the
    value (``shared``: a dict or list put in another, which holds that very one, so that a later change is its too)."""
    if shared and any(change.order >= order for change in assigned.changes):
        late = next(change for change in assigned.changes if change.order >= order)
        raise SdkError(late.reader.at(late.target), f"{ast.unparse(late.target)} is set after the value that holds "
                       "it is built: trainjobs reads a dict holding the client's message classes from its code as "
                       "written before its use", "the field set before the dict is put in the job, or in the dict's code")
    return [change for change in assigned.changes if change.order < order]


def unaccounted(assigned: Assigned, changes: list[Change], now: object) -> str | None:
    """None where ``changes`` are all the changes the evaluator saw of the name up to ``now`` (its Unknown): each
    made where it last said the name was set, and the last where it says so now; else what the walk did not read
    ("" where the name has no change the walk recorded: it is assigned again)."""
    for change in changes:
        if change.value is None:
            how = "through another name" if change.before is None else "by an augmented assignment or del"
            return f"is changed {how} at {change.reader.at(change.target)} ({ast.unparse(change.target)})"
    last = assigned.scope.where_of(assigned.value)
    for change in changes:
        if getattr(change.before, "where", None) != last:
            return _said(change.before)
        last = change.reader.scope.where_of(change.target)
    if getattr(now, "where", None) == last:
        return None
    return _said(now) if changes or " changed " in f" {getattr(now, 'why', '')} " else ""


def _said(value: object) -> str:
    why, where = str(getattr(value, "why", "is changed")), str(getattr(value, "where", ""))
    return f"{why}{'' if where in why else f' ({where})'}, a change trainjobs does not read"


def apply(request: RequestReader, found: object, changes: list[Change], what: str) -> object:
    """``found`` (read from the assignment's code) with ``changes`` made, each read where it is written."""
    outer = request.reader
    try:
        for change in changes:
            assert change.value is not None
            request.reader = change.reader
            _set(request, found, change, what)
    finally:
        request.reader = outer
    return found


def message_name(qualified: str | None) -> str:
    """The API's name of the message class ``qualified`` names (``aiplatform_v1.CustomJobSpec``: CustomJobSpec;
    ``StudySpec.ParameterSpec``), or "?" where the table has none."""
    from provider.spec.formats.vertex.proto_names import messages

    parts = (qualified or "").split(".")
    return next((".".join(parts[-n:]) for n in (2, 1) if ".".join(parts[-n:]) in messages()), "?")


def _fields(message: str) -> dict[str, str]:
    from provider.spec.formats.vertex.keys import snake
    from provider.spec.formats.vertex.proto_names import messages

    return {snake(name): kind for name, kind in messages().get(message, {}).items()}


def _set(request: RequestReader, found: object, change: Change, what: str) -> None:
    _, steps = _chain(change.target)
    node, kind = found, cast(object, request.kinds.get(id(found)))
    shown = ast.unparse(change.target)
    for step in steps[:-1]:
        node, kind = _into(request, node, kind, step, shown, create=True)
    last = steps[-1]
    value = request.value(change.value, f"{what}: {shown}") if change.value is not None else None
    if isinstance(last, ast.Attribute):
        field_kind = _field(request, kind, last, shown)
        _typed(request, value, field_kind, change, shown)
        assert isinstance(node, dict)
        node[last.attr] = value
        if field_kind is not None and field_kind.startswith("message ") and isinstance(value, dict):
            request.kinds[id(value)] = field_kind.split(" ")[1]
        return
    container, key = _item(request, node, kind, last, shown, create=True)
    container[key] = value  # type: ignore[index]
    if isinstance(kind, tuple) and isinstance(value, dict):
        request.kinds[id(value)] = kind[1]


def _field(request: RequestReader, kind: object, step: ast.Attribute, shown: str) -> str | None:
    """The kind of field ``step.attr`` of the message ``kind`` names (None: a message whose fields are not known)."""
    if kind == "?":
        return None
    if not isinstance(kind, str) or kind == "map":
        held = "list" if isinstance(kind, tuple) else "dict"
        raise SdkError(request.reader.at(step), f"{shown}: {ast.unparse(step.value)} is a {held}, not a message: "
                       f"Python raises AttributeError ({held} has no attribute {step.attr!r})",
                       f"{ast.unparse(step.value)}[{step.attr!r}] for a dict's key, or a message's own field")
    fields = _fields(kind)
    if step.attr not in fields:
        raise SdkError(request.reader.at(step), f"{shown}: Unknown field for {kind}: {step.attr} (proto-plus raises "
                       "AttributeError when it is set)", f"the fields of {kind}: {', '.join(fields)}")
    return fields[step.attr]


def _into(request: RequestReader, node: object, kind: object, step: ast.expr, shown: str,
          create: bool) -> tuple[object, object]:
    """The value one step inside ``node`` (of ``kind``: a message's name, "?" for one not known, ("messages", NAME)
    for a repeated message field, "map", or None for a plain dict or list), and its kind."""
    if isinstance(step, ast.Attribute):
        field_kind = _field(request, kind, step, shown)
        assert isinstance(node, dict)
        head, _, inner = (field_kind or "message ?").partition(" ")
        if head not in ("message", "messages", "map", "list"):
            raise SdkError(request.reader.at(step), f"{shown}: {ast.unparse(step)} is a {head}, not a message: "
                           "Python raises AttributeError", f"{ast.unparse(step)} = VALUE")
        child = node.setdefault(step.attr, {} if head in ("message", "map") else [])
        return child, (inner.split(" ")[0] if head == "message" else ("messages", inner.split(" ")[0])
                       if head == "messages" else "map" if head == "map" else None)
    container, key = _item(request, node, kind, step, shown, create=False)
    child = container[key]  # type: ignore[index]
    return child, kind[1] if isinstance(kind, tuple) else request.kinds.get(id(child))


def _item(request: RequestReader, node: object, kind: object, step: ast.expr, shown: str,
          create: bool) -> tuple[object, object]:
    """The container and key of ``node[KEY]``, as Python reads it (IndexError, KeyError, TypeError refused)."""
    assert isinstance(step, ast.Subscript)
    key = request.reader.value(step.slice, f"{shown}: the key")
    where = request.reader.at(step)
    if isinstance(kind, str) and kind != "map":
        raise SdkError(where, f"{shown}: {ast.unparse(step.value)} is a {kind} message: Python raises TypeError (it "
                       "is not subscriptable)", f"{ast.unparse(step.value)}.FIELD")
    if isinstance(node, list):
        if not isinstance(key, int) or isinstance(key, bool) or not -len(node) <= key < len(node):
            raise SdkError(where, f"{shown}: [{key!r}] is not an item of {ast.unparse(step.value)} ({len(node)} "
                           "items): Python raises IndexError", f"an index below {len(node)}")
        return node, key
    if isinstance(node, dict) and (create or key in node):
        return node, key
    raise SdkError(where, f"{shown}: {ast.unparse(step.value)} has no key {key!r}: Python raises KeyError",
                   f"a key it holds: {', '.join(map(repr, node)) if isinstance(node, dict) else '-'}")


def _typed(request: RequestReader, value: object, kind: str | None, change: Change, shown: str) -> None:
    """Refuse a value proto-plus does not take for a field of ``kind`` (TypeError)."""
    if kind is None or value is None:
        return
    head = kind.split(" ")[0]
    wrong = ((head == "message" and not isinstance(value, dict))
             or (head == "string" and not isinstance(value, str))
             or (head in ("number", "bool") and isinstance(value, (str, dict, list)))
             or (head == "messages" and not isinstance(value, (list, tuple)))
             or (head == "map" and not isinstance(value, dict)))
    if wrong:
        assert change.value is not None
        raise SdkError(request.reader.at(change.value), f"{shown} = {ast.unparse(change.value)}: a "
                       f"{type(value).__name__} for a field that takes a {head.replace('messages', 'list of messages')}"
                       " (proto-plus raises TypeError)", f"a {head} value" if head != "message"
                       else "the message's class, or a dict of its fields")
