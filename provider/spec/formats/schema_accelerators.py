"""Accelerator compatibility as JSON Schema: the seed 001 table and the Vertex AI table.

Machine types with identical accelerator rules are grouped (so the schema stays small) and
each group becomes one ``if machineType in GROUP then the accelerator fits GROUP`` rule, in
the nested form of the native and AI Platform formats (``accelerator: {type, count}``) or the
flat form of Vertex AI's ``machineSpec`` (``acceleratorType``, ``acceleratorCount``). The
catalog is the only source of the tables.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from provider.catalog import CATALOG
from provider.spec.formats.schema_kit import Schema, count_needs_type, obj
from provider.spec.model import ACCELERATOR_TYPE_UNSPECIFIED

# An accelerator written at its proto3 defaults says "none" (gcloud sends it as written): fine on any machine.
NO_ACCELERATOR_TYPE: Schema = {"const": ACCELERATOR_TYPE_UNSPECIFIED}
NO_ACCELERATOR_COUNT: Schema = {"enum": [0, "0"]}


def accelerator_type(ref: str = "#/$defs/acceleratorType") -> Schema:
    """An accelerator type of the API, or ACCELERATOR_TYPE_UNSPECIFIED (no accelerator; with a count
    above 0, ``count_needs_type`` refuses it by name)."""
    return {"if": NO_ACCELERATOR_TYPE, "else": {"$ref": ref}}


def nested_accelerator(count: Schema, description: str, required: tuple[str, ...] = ()) -> Schema:
    """``{type, count}``: an accelerator and how many, or none at the proto3 defaults
    (``ACCELERATOR_TYPE_UNSPECIFIED``, count 0), as gcloud sends them and the API reads them.
    A count above 0 names its type (``count_needs_type``); a type names a count above 0."""
    return obj(
        {"type": accelerator_type(), "count": count}, required=required, description=description,
        allOf=[count_needs_type("type", "count"), {
            "if": {"required": ["type"], "properties": {"type": {"not": NO_ACCELERATOR_TYPE}}},
            "then": {"required": ["count"], "properties": {"count": {"not": NO_ACCELERATOR_COUNT}},
                     "description": "an accelerator type needs its count: 1 or more (ACCELERATOR_TYPE_UNSPECIFIED, "
                                    "count 0: no accelerator)"}}],
    )


def only_default(default: Schema, description: str) -> Schema:
    """A field the machine cannot take, but for its default, which names no accelerator."""
    return {"description": description, "if": default, "else": False}


def no_topology(label: str) -> Schema:
    """tpuTopology on a machine that is no TPU slice: only its default "" (no topology), as gcloud sends it."""
    return only_default({"const": ""}, f"{label} are not TPU machine types: no tpuTopology")


def nested_none(type_key: str, count_key: str) -> Schema:
    return {"properties": {type_key: NO_ACCELERATOR_TYPE, count_key: NO_ACCELERATOR_COUNT}}


@cache
def groups(table: str) -> list[tuple[list[str], dict[str, list[int]], bool, list[str] | None]]:
    """Machine types grouped by identical accelerator rules, so the schema stays small."""
    names = CATALOG.vertex_machine_names() + [m for m in CATALOG.ai_platform_machine_names() if m not in CATALOG.vertex_machine_names()]
    if table == "ai_platform":
        names = CATALOG.ai_platform_machine_names()
    groups: dict[str, tuple[list[str], dict[str, list[int]], bool, list[str] | None]] = {}
    for name in names:
        counts = CATALOG.counts("ai_platform", name) if table == "ai_platform" else CATALOG.seed_counts(name)
        machine = CATALOG.machine(name)
        requires = bool(machine and machine.requires_accelerator and CATALOG.tpu_topologies(name) is None)
        topologies = CATALOG.tpu_topologies(name)
        key = json.dumps([counts, requires, topologies], sort_keys=True)
        groups.setdefault(key, ([], counts, requires, topologies))[0].append(name)
    return list(groups.values())


def counts_text(counts: dict[str, list[int]]) -> str:
    return "; ".join(f"{acc}: {', '.join(map(str, c))}" for acc, c in sorted(counts.items()))


def nested_rules(table: str, machine_key: str, acc_key: str, type_key: str, count_key: str,
                  int64: bool = False) -> list[Schema]:
    """if machineType in GROUP then the accelerator must fit GROUP (accelerator as an object).

    ``int64``: counts may also be written as the REST API writes int64 values ("4").
    """
    rules: list[Schema] = []
    for machines, counts, requires, topologies in groups(table):
        cond = {"properties": {machine_key: {"enum": machines}}, "required": [machine_key]}
        then: Schema
        label = ", ".join(machines[:4]) + (" ..." if len(machines) > 4 else "")
        if topologies is not None:
            then = {
                "description": f"{label} are TPU machine types: set tpuTopology ({', '.join(topologies)}), no accelerator",
                "properties": {acc_key: only_default(nested_none(type_key, count_key), f"{label} take no accelerator"),
                               "tpuTopology": {"enum": topologies}},
                "required": ["tpuTopology"],
            }
        elif not counts:
            words = f"{label} take no accelerators"
            then = {"description": words, "properties": {
                acc_key: only_default(nested_none(type_key, count_key), words), "tpuTopology": no_topology(label)}}
        else:
            per_type = [
                {
                    "if": {"properties": {type_key: {"const": acc}}, "required": [type_key]},
                    "then": {
                        "properties": {
                            count_key: count_enum(c + [str(x) for x in c] if int64 else c, acc, label, c)
                        }
                    },
                }
                for acc, c in sorted(counts.items())
            ]
            then = {
                "description": f"accelerators for {label}: {counts_text(counts)}",
                "properties": {
                    acc_key: {
                        "properties": {
                            type_key: fitting_types(sorted(counts), label),
                        },
                        "allOf": per_type,
                    },
                    "tpuTopology": no_topology(label),
                },
            }
            if requires:
                then["required"] = [acc_key]
        rules.append({"if": cond, "then": then})
    return rules


def count_enum(allowed: list[Any], acc: str, label: str, counts: list[int]) -> Schema:
    """The counts that fit; checked only on a number, so a count written as a string gets one
    message (its type) in an editor, not two."""
    words = ", ".join(map(str, counts))
    kinds = ["integer", "string"] if any(isinstance(a, str) for a in allowed) else ["integer"]
    return {
        "description": f"{words} x {acc} on {label}",
        "if": {"type": kinds},
        "then": {"enum": allowed, "errorMessage": f"{acc} on {label} comes in counts of {words}"},
    }


def _offered(types: list[str]) -> list[str]:
    """The types still offered on the catalog's date: a retired one (K80, P100) is never named as allowed.
    The catalog's date, not today's, so the generated schema is the same on every run."""
    import datetime as dt

    day = dt.date.fromisoformat(CATALOG.as_of())
    return [t for t in types if t not in CATALOG.accelerators or not CATALOG.accelerators[t].retired(day)]


def fitting_types(types: list[str], label: str) -> Schema:
    """The accelerator types that fit; checked only on a known type, so an unknown one gets one message.
    The enum keeps the retired ones, so the validator's rule names them and their successors."""
    text = ", ".join(_offered(types)) or "none offered today"
    return {"description": f"accelerators that fit {label}: {text}", "if": {"$ref": "#/$defs/acceleratorType"},
            "then": {"enum": types, "errorMessage": f"this accelerator does not fit {label}; these do: {text}"}}


def machine_type_schema(names: list[str]) -> Schema:
    """A machine type, with what an editor shows: each type's shape on hover and in completion,
    and a short message for a name it does not know (``trainjobs validate`` names the closest)."""
    def shape(name: str) -> str:
        m = CATALOG.machine(name)
        if m is None or m.vcpus is None:
            return name
        memory = f"{m.memory_gb:g} GB" if m.memory_gb is not None else "memory unknown"
        fits = sorted({acc for acc, counts in CATALOG.seed_counts(name).items() if counts}) if not \
            CATALOG.tpu_topologies(name) else ["TPU slice"]
        return f"{m.vcpus:g} vCPUs, {memory}" + (f"; accelerators: {', '.join(fits)}" if fits else "")

    return {
        "enum": names,
        "description": "a machine type Vertex AI offers for training",
        "markdownDescription": "A Compute Engine machine type Vertex AI offers for training, such as "
        "`n1-standard-4`, `n1-highcpu-16` with GPUs attached, or `a2-highgpu-1g` (A100 built in).",
        "markdownEnumDescriptions": [shape(n) for n in names],
        "errorMessage": "not a machine type Vertex AI offers for training (such as n1-standard-4, e2-standard-8, "
        "a2-highgpu-1g); run trainjobs validate for the closest name",
    }


def flat_rules(machine_key: str, type_key: str, count_key: str, topology_key: str) -> list[Schema]:
    """The same rules for Vertex's flat machineSpec {machineType, acceleratorType, acceleratorCount}."""
    rules: list[Schema] = []
    for machines, counts, requires, topologies in groups("vertex"):
        cond = {"properties": {machine_key: {"enum": machines}}, "required": [machine_key]}
        label = ", ".join(machines[:4]) + (" ..." if len(machines) > 4 else "")
        then: Schema
        if topologies is not None:
            then = {
                "description": f"{label} are TPU machine types: set {topology_key} ({', '.join(topologies)})",
                "properties": {topology_key: {"enum": topologies}},
                "required": [topology_key],
            }
        elif not counts:
            words = f"{label} take no accelerators"
            then = {
                "description": words,
                "properties": {type_key: only_default(NO_ACCELERATOR_TYPE, words),
                               count_key: only_default(NO_ACCELERATOR_COUNT, words),
                               topology_key: no_topology(label)},
            }
        else:
            then = {
                "description": f"accelerators for {label}: {counts_text(counts)}",
                "properties": {
                    type_key: fitting_types(sorted(counts), label),
                    topology_key: no_topology(label),
                },
                "allOf": [
                    {
                        "if": {"properties": {type_key: {"const": acc}}, "required": [type_key]},
                        "then": {
                            "properties": {count_key: count_enum(c, acc, label, c)},
                            "required": [count_key],
                        },
                    }
                    for acc, c in sorted(counts.items())
                ],
            }
            if requires:
                then["required"] = [type_key]
        rules.append({"if": cond, "then": then})
    return rules

