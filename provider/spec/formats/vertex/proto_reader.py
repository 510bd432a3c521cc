"""How Google's readers take a Vertex AI spec body, field by field (see ``proto_forms.py``).

The part of ``google.cloud.aiplatform.v1`` that trainjobs models (``MESSAGES``), each field's
kind, and the reader that walks a ``CustomJobSpec`` the way the SDK (proto-plus) or gcloud
(protojson) does: ``read_body`` returns the body as that reader takes it and the notes on
what it found. ``proto_forms.read`` imports this module only when a document carries a
Vertex body, so checking a spec of another format does not build these tables.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Any

from provider.catalog import load
from provider.core.record import Record
from provider.spec.formats.vertex.keys import snake
from provider.spec.model import DocPath, Note

_SDK_SOURCE = "the Vertex AI Python SDK, google-cloud-aiplatform 2.7.0 (proto-plus message classes)"
_GCLOUD_SOURCE = "gcloud ai custom-jobs create --config (apitools protojson, Cloud SDK 528.0.0)"


class Style(enum.Enum):
    """Which of Google's readers a spec body is written for."""

    SDK = "the Vertex AI SDK (proto-plus)"  # worker_pool_specs
    GCLOUD = "gcloud's --config loader"  # workerPoolSpecs (also the REST API's JSON)

    @property
    def source(self) -> str:
        return _SDK_SOURCE if self is Style.SDK else _GCLOUD_SOURCE


class Kind(enum.Enum):
    """What a field holds, as the readers tell forms apart."""

    STRING = "a string"
    INT32 = "an integer (int32)"
    INT64 = "an integer (int64)"
    ENUM = "an enum name"
    STRINGS = "a list of strings"
    NUMBERS = "a list of numbers"
    MESSAGE = "one mapping"
    MESSAGES = "a list of mappings"
    OTHER = "other"


class Field(Record):
    """One field of a message: its kind, and the message or enum it names."""

    kind: Kind
    type: str | None = None  # the message of MESSAGE/MESSAGES, the enum of ENUM


_S, _I32, _I64, _STRS = Field(Kind.STRING), Field(Kind.INT32), Field(Kind.INT64), Field(Kind.STRINGS)
_ENV = Field(Kind.MESSAGES, "EnvVar")

# The part of google.cloud.aiplatform.v1 that trainjobs models, by camelCase field name.
MESSAGES: dict[str, dict[str, Field]] = {
    "CustomJobSpec": {
        "workerPoolSpecs": Field(Kind.MESSAGES, "WorkerPoolSpec"),
        "scheduling": Field(Kind.MESSAGE, "Scheduling"),
        "baseOutputDirectory": Field(Kind.MESSAGE, "GcsDestination"),
        "serviceAccount": _S,
        "reservedIpRanges": _STRS,
        "models": _STRS,
    },
    "WorkerPoolSpec": {
        "machineSpec": Field(Kind.MESSAGE, "MachineSpec"),
        "replicaCount": _I64,
        "diskSpec": Field(Kind.MESSAGE, "DiskSpec"),
        "containerSpec": Field(Kind.MESSAGE, "ContainerSpec"),
        "pythonPackageSpec": Field(Kind.MESSAGE, "PythonPackageSpec"),
        "nfsMounts": Field(Kind.MESSAGES, "NfsMount"),
        "lustreMounts": Field(Kind.MESSAGES, "LustreMount"),
    },
    "NfsMount": {"server": _S, "path": _S, "mountPoint": _S},
    "LustreMount": {"instanceIp": _S, "volumeHandle": _S, "filesystem": _S, "mountPoint": _S},
    "MachineSpec": {
        "machineType": _S,
        "acceleratorType": Field(Kind.ENUM, "AcceleratorType"),
        "acceleratorCount": _I32,
        "tpuTopology": _S,
        "gpuPartitionSize": _S,
    },
    "DiskSpec": {"bootDiskType": _S, "bootDiskSizeGb": _I32},
    "ContainerSpec": {"imageUri": _S, "command": _STRS, "args": _STRS, "env": _ENV},
    "PythonPackageSpec": {
        "executorImageUri": _S, "packageUris": _STRS, "pythonModule": _S, "args": _STRS, "env": _ENV,
    },
    "EnvVar": {"name": _S, "value": _S},
    "Scheduling": {
        "timeout": _S, "restartJobOnWorkerRestart": Field(Kind.OTHER),
        "strategy": Field(Kind.ENUM, "Scheduling.Strategy"), "maxWaitDuration": _S,
    },
    "GcsDestination": {"outputUriPrefix": _S},
    # A HyperparameterTuningJob's study: only the lists of values, where gcloud reads one value as a one-item list.
    "StudySpec": {"parameters": Field(Kind.MESSAGES, "ParameterSpec")},
    "ParameterSpec": {
        "discreteValueSpec": Field(Kind.MESSAGE, "Numbers"), "categoricalValueSpec": Field(Kind.MESSAGE, "Strings"),
        "conditionalParameterSpecs": Field(Kind.MESSAGES, "ConditionalParameterSpec"),
    },
    "ConditionalParameterSpec": {
        "parameterSpec": Field(Kind.MESSAGE, "ParameterSpec"), "parentDiscreteValues": Field(Kind.MESSAGE, "Numbers"),
        "parentIntValues": Field(Kind.MESSAGE, "Strings"), "parentCategoricalValues": Field(Kind.MESSAGE, "Strings"),
    },
    "Numbers": {"values": Field(Kind.NUMBERS)},  # DiscreteValueSpec, DiscreteValueCondition
    "Strings": {"values": _STRS},  # CategoricalValueSpec, CategoricalValueCondition, IntValueCondition (int64)
}

# Fields whose proto3 default (0, "") the SDK's proto-plus sends as nothing: read as unset. gcloud's
# apitools encodes every field a config assigns, defaults included: its reading keeps them.
_DEFAULT_IS_UNSET = {("DiskSpec", "bootDiskSizeGb"), ("DiskSpec", "bootDiskType"), ("MachineSpec", "tpuTopology"),
                     ("MachineSpec", "gpuPartitionSize")}


def enum_numbers(enum_name: str, reader: str) -> dict[int, str]:
    """Number -> name of ``enum_name`` as ``reader`` ("proto" or "gcloud") numbers it."""
    table: dict[str, int] = load("enum_numbers")["enums"][enum_name][reader]
    return {number: name for name, number in table.items()}


class _Reader:
    def __init__(self, style: Style) -> None:
        self.style = style
        self.notes: list[Note] = []

    def key(self, camel: str) -> str:
        return snake(camel) if self.style is Style.SDK else camel

    def note(self, message: str, path: DocPath, rule: str, allowed: str | None = None, error: bool = False) -> None:
        self.notes.append(Note(message, path, f"vertex.form.{rule}", self.style.source, allowed, error))

    def refuse(self, path: DocPath, key: str, value: Any, kind: Kind, example: str) -> Any:
        got = "a list" if isinstance(value, list) else "a mapping" if isinstance(value, dict) else repr(value)
        self.note(f"{key} is {got}, but {self.style.value} takes {kind.value} here and refuses it",
                  path, "shape", allowed=example, error=True)
        return value

    # -- messages --------------------------------------------------------------------------

    def message(self, name: str, value: dict[str, Any], path: DocPath) -> dict[str, Any]:
        fields = {self.key(camel): (camel, f) for camel, f in MESSAGES[name].items()}
        out: dict[str, Any] = {}
        for key, item in value.items():
            if item is None:  # null is unset, for every field, in both readers
                continue
            if key not in fields:
                out[key] = item  # not modelled here: the schema says what is allowed
                continue
            camel, f = fields[key]
            if (self.style is Style.SDK and (name, camel) in _DEFAULT_IS_UNSET and item in (0, "")
                    and not isinstance(item, bool)):
                continue
            out[key] = _READ[f.kind](self, f, key, item, path + (key,))
        if name == "MachineSpec" and self.style is Style.SDK:
            self._no_accelerator(out)
        return out

    def _no_accelerator(self, spec: dict[str, Any]) -> None:
        """0 accelerators with no type (or ACCELERATOR_TYPE_UNSPECIFIED) is no accelerator, which proto-plus
        sends as nothing."""
        type_key, count_key = self.key("acceleratorType"), self.key("acceleratorCount")
        unspecified = spec.get(type_key, "ACCELERATOR_TYPE_UNSPECIFIED") == "ACCELERATOR_TYPE_UNSPECIFIED"
        count = spec.get(count_key, 0)
        if unspecified and count == 0 and not isinstance(count, bool):
            spec.pop(type_key, None)
            spec.pop(count_key, None)

    # -- one field, by kind ------------------------------------------------------------------

    def scalar(self, f: Field, key: str, value: Any, path: DocPath) -> Any:
        if isinstance(value, (list, dict)):
            first = value[0] if isinstance(value, list) and len(value) == 1 else "VALUE"
            return self.refuse(path, key, value, f.kind, f"one value: {key}: {first}")
        if isinstance(value, str) and f.kind in (Kind.INT32, Kind.INT64):
            return self._count_text(f, key, value, path)
        if isinstance(value, int) and not isinstance(value, bool) and f.kind is Kind.ENUM and f.type:
            return self._enum_number(f.type, key, value, path)
        return value

    def _count_text(self, f: Field, key: str, value: str, path: DocPath) -> Any:
        digits = value.strip().isdigit()
        if digits and (f.kind is Kind.INT64 or self.style is Style.GCLOUD):
            # int64 is a string in the REST JSON; protojson also reads int32 with int(value).
            return int(value) if f.kind is Kind.INT32 else value
        example = f"{key}: {int(value)}" if digits else f"{key}: an integer, e.g. {key}: 1"
        self.note(f"{key} is the string {value!r}, but {self.style.value} takes {f.kind.value} here and "
                  f"refuses a string", path, "count", allowed=example, error=True)
        return value

    def _enum_number(self, enum_name: str, key: str, number: int, path: DocPath) -> Any:
        proto = enum_numbers(enum_name, "proto")
        names = ", ".join(sorted(set(proto.values())))
        name = proto.get(number)
        if self.style is Style.GCLOUD:
            gcloud_name = enum_numbers(enum_name, "gcloud").get(number)
            if name != gcloud_name:
                self.note(f"{key}: {number} is {name or 'no value'} in the REST API but {gcloud_name or 'no value'} "
                          f"to gcloud --config, which numbers {enum_name} differently", path, "enum_number",
                          allowed=f"the name: one of {names}", error=True)
                return number
        if name is None:
            self.note(f"{key}: {number} is not a number of {enum_name}", path, "enum_number",
                      allowed=f"the name: one of {names}", error=True)
            return number
        self.note(f"{number} is {name}: {self.style.value} reads the number {number} of {enum_name} as {name}",
                  path, "enum_number", allowed=f"the name: {key}: {name}")
        return name

    def strings(self, f: Field, key: str, value: Any, path: DocPath) -> Any:
        if isinstance(value, list):
            return value
        if isinstance(value, dict):
            return self.refuse(path, key, value, f.kind, f"a list: {key}: [...]")
        if self.style is Style.GCLOUD:
            return self._one_item(key, value, path)
        if not isinstance(value, str):
            return self.refuse(path, key, value, f.kind, f"a list: {key}: [{value!r}]")
        return self._characters(key, value, path)

    def _one_item(self, key: str, value: Any, path: DocPath) -> list[Any]:
        if key == "command" and isinstance(value, str) and len(value.split()) > 1:
            self.note(f"gcloud reads command: {value!r} as a one-item list: the container runs the program named "
                      f"{value!r}, spaces included (no shell splits it)", path, "single_value",
                      allowed=f"a list, one item per word: command: {value.split()}")
        else:
            self.note(f"gcloud reads {key}: {value!r} as the one-item list [{value!r}]; the REST API itself takes "
                      "only a list", path, "single_value", allowed=f"a list: {key}: [{value!r}]")
        return [value]

    def _characters(self, key: str, value: str, path: DocPath) -> Any:
        chars = list(value)
        shown = ", ".join(repr(c) for c in chars[:4]) + (", ..." if len(chars) > 4 else "")
        read = f"{self.style.value} reads {key}: {value!r} as the list of its {len(chars)} characters"
        if key == "package_uris":
            self.note(f"{read} ({shown}), which are not package URIs", path, "string_as_list",
                      allowed=f"a list of gs:// URIs: {key}: [{value!r}]", error=True)
            return value
        words = f"command: {value.split()}" if key == "command" else f"{key}: [{value!r}]"
        if key == "command":
            runs = (f"the container runs the program {chars[0]!r}" +
                    (f" with the arguments {', '.join(repr(c) for c in chars[1:4])}{', ...' if len(chars) > 4 else ''}"
                     if len(chars) > 1 else ""))
        else:
            runs = f"the program gets {len(chars)} one-character arguments ({shown})"
        self.note(f"{read}: {runs}", path, "string_as_list", allowed=f"a list: {words}")
        return chars

    def one(self, f: Field, key: str, value: Any, path: DocPath) -> Any:
        if isinstance(value, dict) and f.type:
            return self.message(f.type, value, path)
        if isinstance(value, list):
            return self.refuse(path, key, value, f.kind, f"one mapping: {key}: {{...}}")
        return value

    def many(self, f: Field, key: str, value: Any, path: DocPath) -> Any:
        assert f.type is not None
        if isinstance(value, dict):
            if self.style is Style.SDK:
                return self.refuse(path, key, value, f.kind, f"a list: {key}: [{{...}}]")
            self.note(f"gcloud reads {key} written as one mapping as a one-item list; the REST API itself takes "
                      "only a list", path, "single_value", allowed=f"a list: {key}: [{{...}}]")
            return [self.message(f.type, value, path)]
        if not isinstance(value, list):
            return value
        out: list[Any] = []
        for index, item in enumerate(value):
            if item is None:
                skipped = " ({} keeps the place of a skipped pool)" if f.type == "WorkerPoolSpec" else ""
                self.note(f"{key}[{index}] is null, which {self.style.value} refuses in a list", path + (index,),
                          "shape", allowed=f"a mapping{skipped}", error=True)
                out.append(item)
            else:
                out.append(self.message(f.type, item, path + (index,)) if isinstance(item, dict) else item)
        return out


_READ: dict[Kind, Callable[[_Reader, Field, str, Any, DocPath], Any]] = {
    Kind.STRING: _Reader.scalar,
    Kind.INT32: _Reader.scalar,
    Kind.INT64: _Reader.scalar,
    Kind.ENUM: _Reader.scalar,
    Kind.STRINGS: _Reader.strings,
    Kind.NUMBERS: _Reader.strings,
    Kind.MESSAGE: _Reader.one,
    Kind.MESSAGES: _Reader.many,
    Kind.OTHER: lambda reader, f, key, value, path: value,
}


def read_body(spec: dict[str, Any], style: Style, path: DocPath = ("spec",),
              message: str = "CustomJobSpec") -> tuple[dict[str, Any], tuple[Note, ...]]:
    """A ``CustomJobSpec`` body (or another of ``MESSAGES``; a copy) as the reader of ``style`` takes it, and the
    notes on it."""
    reader = _Reader(style)
    body = reader.message(message, spec, path)
    return body, tuple(reader.notes)
