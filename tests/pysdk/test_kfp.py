"""A Kubeflow pipeline's training step is named, with the way to convert its job, never read as no job at all.

The sources are cut from public pipelines: Google's train-endpoint-deploy sample, which imports
CustomTrainingJobOp inside the pipeline's function (find_string id 14646356448), and a pipeline that imports it
at the top and chains ``.set_display_name(...)`` (ids 2407680349, 2649984150); names and values shortened.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ..conftest import no_traceback, run_cli

INSIDE = '''import kfp

PROJECT_ID = "acme"


@kfp.dsl.pipeline(name="first-fc-train-endpoint-deploy")
def pipeline(project: str = PROJECT_ID, model_display_name: str = "m"):
    from google_cloud_pipeline_components.v1.custom_job import CustomTrainingJobOp
    from google_cloud_pipeline_components.v1.model import ModelUploadOp

    custom_job_task = CustomTrainingJobOp(
        project=project,
        display_name="model-training",
        worker_pool_specs=[{"containerSpec": {"imageUri": "gcr.io/google-samples/bw-cc-train:latest"},
                            "replicaCount": "1", "machineSpec": {"machineType": "n1-standard-16"}}],
    )
    ModelUploadOp(project=project, display_name=model_display_name)
'''

CHAINED = '''from kfp import dsl
from google_cloud_pipeline_components.v1.custom_job import CustomTrainingJobOp


@dsl.pipeline(name="tokenizer")
def pipeline(region: str = "us-east1"):
    tokenizer = (
        CustomTrainingJobOp(display_name="tokenizer", location=region, worker_pool_specs=[])
        .set_display_name("train the tokenizer")
        .set_caching_options(True)
    )
'''

# A function of the same name from elsewhere is not a pipeline step.
OTHER = '''def CustomTrainingJobOp(**kwargs):
    return kwargs


CustomTrainingJobOp(display_name="x")
'''


@pytest.mark.parametrize(("source", "where"), [(INSIDE, ":11:23 (inside def pipeline at line 7, decorated with "
                                                        "@kfp.dsl.pipeline, which decides when and how it runs)"),
                                               (CHAINED, ":8:9 (inside def pipeline at line 6, decorated with "
                                                         "@dsl.pipeline, which decides when and how it runs)")])
def test_a_pipeline_step_is_named_with_the_way_to_convert_its_job(tmp_path: Path, source: str, where: str) -> None:
    path = tmp_path / "kfp.py"
    path.write_text(source)
    proc = run_cli("convert", str(path))
    no_traceback(proc)
    assert proc.returncode == 1
    assert (f"the script creates no Vertex AI training job itself; it defines Kubeflow pipeline steps that do: "
            f"CustomTrainingJobOp at {path}{where}") in proc.stderr, proc.stderr
    assert "convert its worker_pool_specs (json.dump them to a file: trainjobs convert FILE --region REGION)" \
        in proc.stderr


def test_a_function_named_like_a_step_is_not_one(tmp_path: Path) -> None:
    path = tmp_path / "other.py"
    path.write_text(OTHER)
    proc = run_cli("convert", str(path))
    no_traceback(proc)
    assert proc.returncode == 1
    assert "Kubeflow" not in proc.stderr and "builds no Vertex AI training job" in proc.stderr, proc.stderr


def test_a_notebook_whose_jobs_are_pipeline_steps_names_them(tmp_path: Path) -> None:
    """Google's pipeline notebooks (vertex-ai-samples ``get_started_with_custom_training_pipeline_components``): no SDK
    job and no gcloud command, an aiplatform.init whose bucket comes from gcloud, and the package's older component
    (``gcc_aip.CustomPythonPackageTrainingJobRunOp``) in a pipeline. The steps are named, not "no gcloud command"
    nor the init's bucket (no job of the notebook's own uses it)."""
    import json

    cells = ["import google.cloud.aiplatform as aip\nfrom google_cloud_pipeline_components import aiplatform as gcc_aip\n"
             "from kfp import dsl\nshell_output = !gcloud config list --format 'value(core.project)'\n"
             "PROJECT_ID = shell_output[0]\nBUCKET_URI = f'gs://{PROJECT_ID}-bucket'\n",
             "aip.init(project=PROJECT_ID, staging_bucket=BUCKET_URI)\n",
             "@dsl.pipeline(name='train')\ndef pipeline(project: str = 'acme'):\n"
             "    train = gcc_aip.CustomPythonPackageTrainingJobRunOp(project=project, display_name='t', "
             "python_package_gcs_uri='gs://b/t.tar.gz', python_module_name='trainer.task', "
             "container_uri='us-docker.pkg.dev/vertex-ai/training/tf-cpu.2-12.py310:latest')\n"]
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": c} for c in cells]}))
    proc = run_cli("convert", str(path))
    no_traceback(proc)
    assert proc.returncode == 1
    assert ("the notebook creates no Vertex AI training job itself; it defines Kubeflow pipeline steps that do: "
            "CustomPythonPackageTrainingJobRunOp at ") in proc.stderr, proc.stderr
