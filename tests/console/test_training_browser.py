"""The console's pipelines and models page, in Debian's headless chromium, over a real emulator.

Its own small world: an emulator with a training pipeline that ran (a backing job on the local
backend), one that was cancelled, and a model with two versions uploaded through the real
ModelServiceClient; ``trainjobs console --stack emu`` in a subprocess, whose vertex stack points
at the emulator.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.local.conftest import PROBE, cleanup

from .conftest import BUCKET, LOCATION, PROJECT, start_console, stop_console, wait_until, write_stack

pytestmark = pytest.mark.slow

PARENT = f"projects/{PROJECT}/locations/{LOCATION}"
CUSTOM_TASK = "gs://google-cloud-aiplatform/schema/trainingjob/definition/custom_task_1.0.0.yaml"
EXECUTOR = "us-docker.pkg.dev/vertex-ai/training/sklearn-cpu.1-0:latest"
SERVING = "us-docker.pkg.dev/vertex-ai/prediction/sklearn-cpu.1-0:latest"


def _clients(endpoint: str) -> tuple[Any, Any]:
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import aiplatform_v1

    options = {"api_endpoint": endpoint}
    return (aiplatform_v1.PipelineServiceClient(transport="rest", credentials=AnonymousCredentials(),
                                                client_options=options),
            aiplatform_v1.ModelServiceClient(transport="rest", credentials=AnonymousCredentials(),
                                             client_options=options))


@pytest.fixture(scope="module")
def training_world(tmp_path_factory: pytest.TempPathFactory, env_cache: Path) -> Iterator[dict[str, Any]]:
    from google.cloud import aiplatform_v1

    from provider.emulator.server import Emulator
    from provider.packaging.gcs import GcsStager, gcs_client
    from provider.packaging.stage import stage

    tmp = tmp_path_factory.mktemp("training-console")
    root = tmp / "project"
    root.mkdir()
    env = {**os.environ, "TRAINJOBS_HOME": str(tmp / "home"), "TRAINJOBS_ENV_CACHE": str(env_cache),
           "TRAINJOBS_LOCAL_GPUS": "none", "NO_COLOR": "1", "PYTHONPATH": str(Path(__file__).parents[2])}
    for key in ("TRAINJOBS_STORAGE", "TRAINJOBS_LOCAL_GPU_MODE", "STORAGE_EMULATOR_HOST", "TRAINJOBS_DEBUG"):
        env.pop(key, None)
    emulator = proc = None
    with pytest.MonkeyPatch.context() as mp:
        for key in ("TRAINJOBS_HOME", "TRAINJOBS_ENV_CACHE", "TRAINJOBS_LOCAL_GPUS"):
            mp.setenv(key, env[key])
        for key in ("TRAINJOBS_STORAGE", "TRAINJOBS_LOCAL_GPU_MODE", "STORAGE_EMULATOR_HOST"):
            mp.delenv(key, raising=False)
        try:
            emulator = Emulator(tmp / "emulator").start()
            gcs_client(PROJECT, emulator.endpoint).create_bucket(BUCKET)
            uri = f"gs://{BUCKET}/pkgs/probe-0.1.0.tar.gz"
            stage(PROBE, uri, GcsStager(gcs_client(PROJECT, emulator.endpoint)))
            write_stack(root, "emu", {
                "trainjobs:backend": "vertex", "trainjobs:team": "nlp", "gcp:project": PROJECT,
                "gcp:region": LOCATION, "trainjobs:specs": ["specs/emu/*.yaml"],
                "trainjobs:apiEndpoint": emulator.endpoint})
            pipelines, models = _clients(emulator.endpoint)

            def pipeline(name: str, args: list[str]) -> Any:
                pool = {"machine_spec": {"machine_type": "n1-standard-4"}, "replica_count": 1,
                        "python_package_spec": {"executor_image_uri": EXECUTOR, "package_uris": [uri],
                                                "python_module": "probe.task", "args": args}}
                return pipelines.create_training_pipeline(parent=PARENT, training_pipeline=aiplatform_v1.TrainingPipeline(
                    display_name=name, training_task_definition=CUSTOM_TASK,
                    training_task_inputs={"worker_pool_specs": [pool],
                                          "base_output_directory": {"output_uri_prefix": f"gs://{BUCKET}/out/{name}"}}))

            ran = pipeline("nightly-train", ["--steps", "2", "--step-seconds", "0.05"])
            stopped = pipeline("stopped-train", ["--steps", "100000", "--step-seconds", "0.4"])
            pipelines.cancel_training_pipeline(name=stopped.name)
            for p in (ran, stopped):
                wait_until(lambda p=p: pipelines.get_training_pipeline(name=p.name).state.name in
                           ("PIPELINE_STATE_SUCCEEDED", "PIPELINE_STATE_FAILED", "PIPELINE_STATE_CANCELLED"),
                           300, f"pipeline {p.display_name} to end")
            first = models.upload_model(request={"parent": PARENT, "model_id": "ranker", "model": aiplatform_v1.Model(
                display_name="ranker", artifact_uri=f"gs://{BUCKET}/ranker/1", container_spec={"image_uri": SERVING})}
                ).result(timeout=60)
            models.upload_model(request={"parent": PARENT, "parent_model": first.model, "model": aiplatform_v1.Model(
                display_name="ranker", artifact_uri=f"gs://{BUCKET}/ranker/2", container_spec={"image_uri": SERVING},
                version_aliases=["candidate"])}).result(timeout=60)
            proc, url = start_console(root, env, "--stack", "emu")
            yield {"url": url, "ran": pipelines.get_training_pipeline(name=ran.name),
                   "stopped": pipelines.get_training_pipeline(name=stopped.name)}
        finally:
            if proc is not None:
                stop_console(proc)
            if emulator is not None:
                emulator.stop()
                cleanup(emulator.local)


def test_pipelines_and_models_beside_the_jobs(training_world: dict[str, Any], page: Any) -> None:
    page.goto(training_world["url"])
    page.get_by_role("link", name="Pipelines & models").click()
    page.wait_for_url("**/training")
    ran = page.locator("#pipeline-rows tr", has_text="nightly-train")
    assert ran.locator(".state").inner_text() == "SUCCEEDED"
    assert "ok" in (ran.locator(".state").get_attribute("class") or "")
    assert page.locator("#pipeline-rows tr", has_text="stopped-train").locator(".state").inner_text() == "CANCELLED"
    backing = training_world["ran"].training_task_metadata["backingCustomJob"].rsplit("/", 1)[1]
    ran.get_by_role("link", name=backing).click()  # the backing job's own page, with its logs
    page.wait_for_url(f"**/jobs/emu/{backing}")
    assert "SUCCEEDED" in page.locator("main").inner_text()

    page.get_by_role("link", name="Pipelines & models").click()
    page.wait_for_url("**/training")
    versions = page.locator("#model-rows tr", has_text="ranker")
    assert versions.count() == 2
    texts = sorted(versions.nth(i).inner_text() for i in range(2))
    assert f"gs://{BUCKET}/ranker/1" in texts[0] + texts[1]
    newest = versions.first.inner_text()
    assert "candidate" in newest and f"gs://{BUCKET}/ranker/2" in newest and SERVING in newest
    assert "default" in versions.nth(1).inner_text()
