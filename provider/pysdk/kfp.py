"""Kubeflow pipeline steps that run a Vertex AI training job, named when a file is converted.

``google_cloud_pipeline_components``' ``CustomTrainingJobOp(...)`` (and the tuning and component-wrapping
forms) is a step of a pipeline: the job is created when the pipeline runs, from the pipeline's parameters and
the outputs of earlier steps, and Google Cloud Pipeline Components builds its request, not the file. So
trainjobs does not read it as the file's job: it names each such step, with the way to convert the job's
worker pools (the step's ``worker_pool_specs``, as a file: provider/cli/convert_pools.py).
"""

from __future__ import annotations

import ast

_PACKAGE = "google_cloud_pipeline_components"
STEPS = ("CustomTrainingJobOp", "HyperparameterTuningJobRunOp", "create_custom_training_job_from_component",
         "create_custom_training_job_op_from_component",
         # the package's older aiplatform components (gcc_aip.CustomContainerTrainingJobRunOp) and experimental wrapper
         "CustomContainerTrainingJobRunOp", "CustomPythonPackageTrainingJobRunOp", "run_as_aiplatform_custom_job")
WAY = ("a Kubeflow pipeline's step runs its job when the pipeline runs, from the pipeline's parameters: convert "
       "its worker_pool_specs (json.dump them to a file: trainjobs convert FILE --region REGION), or the "
       "aiplatform.CustomJob / gcloud command that creates the job outside the pipeline")


def step(node: ast.Call, qualified: str | None, source_imports_it: bool) -> str | None:
    """``CustomTrainingJobOp`` when ``node`` calls one of the package's training steps, else None."""
    name = node.func.attr if isinstance(node.func, ast.Attribute) else (
        node.func.id if isinstance(node.func, ast.Name) else None)
    if name not in STEPS:
        return None
    if qualified is not None:  # kfp.v2.google.experimental.run_as_aiplatform_custom_job: kfp's own, before the package
        return name if qualified.startswith((_PACKAGE, "kfp.v2.google.")) else None
    return name if source_imports_it else None  # imported inside the pipeline's function, as Google's samples do


def imports_package(tree: ast.AST) -> bool:
    """Whether the code imports google_cloud_pipeline_components anywhere (a function's body included)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(_PACKAGE):
            return True
        if isinstance(node, ast.Import) and any(alias.name.startswith(_PACKAGE) for alias in node.names):
            return True
    return False


def steps_in(sources: list[tuple[str, str]]) -> bool:
    """Whether code that imports the package (a notebook's cells: (label, text)) calls one of its training steps."""
    from provider.document.python_cells import python_text

    trees = []
    for _, text in sources:
        python = python_text(text)
        try:
            trees.append(ast.parse(python or ""))
        except SyntaxError:
            continue
    imported = any(imports_package(tree) for tree in trees)
    return imported and any(isinstance(node, ast.Call) and step(node, None, True) is not None
                            for tree in trees for node in ast.walk(tree))
