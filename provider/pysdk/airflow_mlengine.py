"""MLEngineStartTrainingJobOperator (and airflow.contrib's MLEngineTrainingOperator) -> the body it sends.

Its execute() builds ``{"jobId": ..., "trainingInput": {"scaleTier": scale_tier, "region": region, ...}}`` with each
other argument that is truthy (package_uris -> packageUris, training_python_module -> pythonModule, training_args ->
args, master_type, master_config, runtime_version, python_version, job_dir, service_account, hyperparameters),
``labels`` at the top level, and sends it with the discovery client (``projects.jobs.create``); the job id is
_normalize_mlengine_job_id's (each run of characters other than letters and digits as "_", "z_" before a leading
digit). That body is what convert reads as an AI Platform request (as ml_client.py's): mapped there, never here.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from provider.pysdk.airflow_args import MLENGINE, job_id
from provider.pysdk.arguments import SdkError, Unread

if TYPE_CHECKING:
    from provider.document.loaded import LoadedDocument
    from provider.pysdk.binding import Reader


def request(what: str, node: ast.Call, reader: Reader, values: dict[str, object], nodes: dict[str, ast.expr],
            notes: list[str]) -> LoadedDocument:
    """The ``projects.jobs.create`` body of the operator ``node``, each key at the argument that gave it."""
    from provider.pysdk.gapic import RequestReader

    positioned = RequestReader(reader, what)
    for name in ("job_id", "region"):
        if name not in values:
            raise SdkError(reader.at(node), f"{what}() lacks {name} (Python raises TypeError: it is required)",
                           "job_id='my_job', region='us-central1'")
    written = values["job_id"]
    if not isinstance(written, (str, Unread)):
        raise SdkError(positioned.reader.at(nodes["job_id"]), f"{what}(job_id={written!r}) is a "
                       f"{type(written).__name__}", "a str: the job's id")
    body: dict[str, object] = {}
    training: dict[str, object] = {}
    places: dict[int, dict[str, tuple[int, int]]] = {id(body): {}, id(training): {}}
    if isinstance(written, str):
        body["jobId"] = job_id(written)
        places[id(body)]["jobId"] = positioned.place(nodes["job_id"])
        if body["jobId"] != written:
            notes.append(f"{what}(job_id={written!r}) at {reader.at(nodes['job_id'])} is sent as {body['jobId']!r}: "
                         "the operator replaces each run of characters other than letters and digits with '_' "
                         "(and puts 'z_' before a leading digit)")
    else:
        notes.append(f"{what}(job_id={written!r}) at {reader.at(nodes['job_id'])} is not written: convert --name names "
                     "the job")
    body["trainingInput"] = training
    places[id(body)]["trainingInput"] = positioned.place(node)
    for name, path in MLENGINE.items():
        if name == "job_id" or name not in values:
            continue
        value = values[name]
        if isinstance(value, (dict, list)):  # its keys and items at the lines they were written
            value = positioned.value(nodes[name], f"{what}({name}=...)")
        if not value and name not in ("region", "scale_tier"):  # execute() sends only what is truthy
            notes.append(f"{what}({name}={value!r}) at {reader.at(nodes[name])} is empty: the operator does not send it")
            continue
        if value is None:  # scaleTier None: JSON null, the field unset
            continue
        into = training if path[0] == "trainingInput" else body
        key = path[-1]
        into[key] = value
        places[id(into)][key] = positioned.place(nodes[name])
    doc = positioned.doc
    doc.data = body
    doc.starts[id(body)] = positioned.place(node)
    doc.starts[id(training)] = positioned.place(node)
    for container, keys in places.items():
        doc.key_positions[container] = dict(keys)
        doc.value_positions[container] = dict(keys)
    if reader.cell:  # a cell's lines are not the notebook file's: its problems are named by field path
        positioned.forget_places()
    return doc
