"""Hints for schema refusals whose plain words would not say the way forward.

Where an unknown key belongs: a field written one level off, named with the place that holds it.

A key the schema does not take where it is written is often a field of a neighbour: ``timeout`` beside
``workerPoolSpecs`` is ``scheduling.timeout``; ``acceleratorType`` beside ``machineSpec`` is
``machineSpec.acceleratorType``; ``studySpec`` beside ``jobSpec`` is a HyperparameterTuningJob's, whose
CustomJobSpec is ``trialJobSpec``. The message of an unknown key says so when no close spelling does.

Which accelerators a message may offer: an accelerator-type enum's values less those Vertex AI no longer trains
on (K80; P100 past its end of support; TPU_V4_POD, which no machine type trains on), so that neither the allowed
list nor a "did you mean" offers one (the catalog's Accelerator.offered, which the rules' lists use too).

Which keys exclude each other: a worker pool written with both ``containerSpec`` and ``pythonPackageSpec``
(the API's ``task`` oneof) fits none of the schema's forms only because it holds both; the message says so,
where "does not match any allowed form" would not.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

# A HyperparameterTuningJob's schema, and the fields only it has (a CustomJob has none of them).
_TUNING = "vertexTuningJob"
_TUNING_ONLY = ("studySpec", "maxTrialCount", "parallelTrialCount", "maxFailedTrialCount", "trialJobSpec")


def _resolved(root: dict[str, Any], node: Any) -> Any:
    """A schema node with its ``$ref`` followed (``#/$defs/NAME``) and an array's items taken."""
    for _ in range(4):
        if not isinstance(node, dict):
            return None
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            node = root.get("$defs", {}).get(ref[len("#/$defs/"):])
        elif node.get("type") == "array" and isinstance(node.get("items"), dict):
            node = node["items"]
        else:
            return node
    return None


def _fields(root: dict[str, Any], node: Any) -> dict[str, Any]:
    sub = _resolved(root, node)
    found = sub.get("properties") if isinstance(sub, dict) else None
    return found if isinstance(found, dict) else {}


def misplaced(key: str, siblings: dict[str, Any], root: dict[str, Any]) -> str | None:
    """Where ``key`` belongs, when it is a field of one of ``siblings`` (the keys the object takes) or of a
    HyperparameterTuningJob beside a CustomJob's fields; None when it is neither."""
    holders = [name for name, node in sorted(siblings.items()) if key in _fields(root, node)]
    if holders:
        places = " or ".join(f"{name}.{key}" for name in holders)
        return f"{key} is a field of {' or '.join(holders)}: write it there ({places})"
    tuning = _fields(root, {"$ref": f"#/$defs/{_TUNING}"})
    if key in _TUNING_ONLY and key in tuning and "workerPoolSpecs" in siblings:
        return (f"{key} is a field of a HyperparameterTuningJob, not of a CustomJob: a tuning job writes its "
                "CustomJobSpec as trialJobSpec (not jobSpec), beside studySpec, maxTrialCount and parallelTrialCount")
    return None


def exclusive(branches: list[list[Any]]) -> str | None:
    """Why an object fits none of its forms, where the failures say it plainly: ``it holds A and B, and takes one
    of them, not both`` (each form a ``not: {required: [...]}`` the others' keys break), or ``it lacks A, which
    every form but {} requires`` (a key each non-empty form requires). The form ``{}`` (an empty object, a skipped
    pool: ``maxProperties: 0``) is left out of both."""
    forms = [b for b in branches if not all(type(e.kind).__name__ == "MaxProperties" for e in b)]
    if not forms:
        return None
    if all(type(e.kind).__name__ == "Not" for b in forms for e in b):
        held = sorted({key for b in forms for e in b if isinstance(e.kind.schema, dict)
                       for key in e.kind.schema.get("required", [])})
        if len(held) >= 2:
            return f"it holds {', '.join(held[:-1])} and {held[-1]}, and takes one of them, not both"
    missing = [{e.kind.property for e in b if type(e.kind).__name__ == "Required"} for b in forms]
    common = sorted(set.intersection(*missing))
    if common:
        return f"it lacks {', '.join(common)}, which every form " + ("but {} " if len(forms) < len(branches) else "") + "requires"
    return None


def offered(options: list[Any]) -> list[Any]:
    """``options`` less the accelerators a message must not offer, when they are the AcceleratorType enum's values;
    any other enum as it is."""
    from provider.catalog import CATALOG

    known = CATALOG.accelerators
    if len(options) < 2 or not all(isinstance(o, str) and o in known for o in options):
        return options
    today = dt.date.today()
    return [o for o in options if known[o].offered(today)]


_TYPE_NAMES = {"string": "a string", "integer": "an integer", "number": "a number", "boolean": "true or false",
               "array": "a list", "object": "a mapping", "null": "null"}


def forms(branch_errors: list[Any]) -> str | None:
    """What a value of the wrong form may be, from its alternatives' failures: each type one names, and a string
    of the pattern another sets (``a number, or a string of the form ^-?[0-9.eE+-]+$``)."""
    named: list[str] = []
    for e in branch_errors:
        kind = type(e.kind).__name__
        if kind == "Type":
            types = e.kind.types if isinstance(e.kind.types, list) else [e.kind.types]
            named += [_TYPE_NAMES.get(str(t), str(t)) for t in types]
        elif kind == "Pattern":
            named.append(f"a string of the form {e.kind.pattern}")
    named = list(dict.fromkeys(named))
    return ", or ".join(named) or None


def parent_values(path: tuple[Any, ...], value: Any) -> str | None:
    """A conditional parameter's parentDiscreteValues given words: those match a CATEGORICAL parent's values
    as parentCategoricalValues (parentDiscreteValues holds a DISCRETE parent's numbers)."""
    if isinstance(value, str) and "parentDiscreteValues" in path:
        return ("a CATEGORICAL parent's values are matched with parentCategoricalValues: {values: [...]}; "
                "parentDiscreteValues holds a DISCRETE parent's numbers")
    return None
