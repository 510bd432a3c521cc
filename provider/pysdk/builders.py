"""Which of a notebook's cells (or a script) build a Vertex AI SDK training job (or an Airflow DAG's training
operator, provider/pysdk/airflow.py): read without binding any argument, to choose between the readers (the SDK's,
provider/pysdk/program.py, or gcloud's) before either runs."""

from __future__ import annotations

import ast
from collections.abc import Sequence

from provider.pysdk import ml_client
from provider.pysdk.airflow import operator_kind
from provider.pysdk.gapic import named_create
from provider.pysdk.signatures import sdk_class
from provider.spec.formats.vertex import api_enums


def builders(sources: Sequence[tuple[str, str]], skipped: bool = False) -> dict[str, str]:
    """Which sources (a notebook's cells, by label) build an SDK training job, each with its first such call
    ("aiplatform.CustomJob at line 54"): read without binding any argument, to choose between readers;
    ``skipped``: those that build one only in a branch not taken instead (for read to refuse by name)."""
    from provider.document.python_flow import flow

    found: dict[str, str] = {}
    for at in flow(sources, api_enums.member):
        for node in ast.walk(at.stmt) if (at.skipped is not None) == skipped else ():
            if isinstance(node, ast.Call) and at.where.label not in found:
                local = (isinstance(node.func, ast.Attribute) and node.func.attr == "from_local_script"
                         and sdk_class(at.scope.qualified(node.func.value)) == "CustomJob")
                if (local or sdk_class(at.scope.qualified(node.func)) or named_create(node)  # gapic.py, ml_client.py
                        or ml_client.named_create(node) or operator_kind(at.scope.qualified(node.func))):  # airflow.py
                    found[at.where.label] = f"{ast.unparse(node.func)} at line {node.lineno}"
    return found
