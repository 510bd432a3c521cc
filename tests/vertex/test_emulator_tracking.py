"""TensorBoard and experiments on the emulator (provider/emulator/nested*.py, tensorboard_data.py,
metadata_links.py), through the real google-cloud-aiplatform: its high-level classes
(``aiplatform.Tensorboard*``, ``aiplatform.init(experiment=...)``, ``start_run``, ``log_*``) and its
gapic TensorboardServiceClient and MetadataServiceClient over REST.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest

from provider.emulator.server import Emulator
from tests.vertex.conftest import (
    CURVES,
    JOB_TIMEOUT,
    LOCATION,
    PARENT,
    PROJECT,
    TRACKED_ACCOUNT,
    Emulators,
    run_curves_job,
)

pytestmark = pytest.mark.slow


def _clients(emulator: Emulator) -> tuple[Any, Any]:
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import aiplatform_v1

    options = {"api_endpoint": emulator.endpoint}
    return (aiplatform_v1.TensorboardServiceClient(transport="rest", credentials=AnonymousCredentials(),
                                                   client_options=options),
            aiplatform_v1.MetadataServiceClient(transport="rest", credentials=AnonymousCredentials(),
                                                client_options=options))


def names(method: Any, parent: str, where: str) -> list[str]:
    """The names a gapic list method answers for a filter, every page read."""
    return [r.name for r in method(request={"parent": parent, "filter": where})]


@pytest.fixture
def sdk(emulator: Emulator) -> Iterator[Any]:
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import aiplatform
    from google.cloud.aiplatform import initializer
    from google.cloud.aiplatform.metadata import metadata

    aiplatform.init(project=PROJECT, location=LOCATION, api_endpoint=emulator.endpoint, api_transport="rest",
                    credentials=AnonymousCredentials())
    yield aiplatform
    metadata._experiment_tracker.__init__()  # type: ignore[misc]  # reset() keeps the global tensorboard
    initializer.global_config.__init__()  # type: ignore[misc]  # forget the endpoint for later tests


def test_tensorboard_resources_and_scalars_through_the_sdk(sdk: Any, emulator: Emulator) -> None:
    tb = sdk.Tensorboard.create(display_name="curves", labels={"team": "vision"})
    assert tb.resource_name.startswith(f"{PARENT}/tensorboards/")
    assert sdk.Tensorboard(tb.resource_name).display_name == "curves"
    exp = sdk.TensorboardExperiment.create(tensorboard_experiment_id="exp-1", tensorboard_name=tb.resource_name,
                                           display_name="first")
    run = sdk.TensorboardRun.create(tensorboard_run_id="run-1", tensorboard_experiment_name=exp.resource_name)
    for tag in ("loss", "accuracy"):
        run.create_tensorboard_time_series(display_name=tag)
    for step, (loss, acc) in enumerate([(0.9, 0.2), (0.5, 0.6), (0.25, 0.8)], 1):
        run.write_tensorboard_scalar_data({"loss": loss, "accuracy": acc}, step=step)

    data = run.read_time_series_data()  # tensorboards:batchRead
    assert [(p.step, round(p.scalar.value, 6)) for p in data["loss"].values] == [(1, 0.9), (2, 0.5), (3, 0.25)]
    assert [round(p.scalar.value, 6) for p in data["accuracy"].values] == [0.2, 0.6, 0.8]
    series = sdk.TensorboardTimeSeries.list(tensorboard_run_name=run.resource_name)
    assert sorted(s.display_name for s in series) == ["accuracy", "loss"]
    assert {s.display_name: s.gca_resource.metadata.max_step for s in series} == {"loss": 3, "accuracy": 3}
    assert [r.resource_name for r in sdk.TensorboardRun.list(tensorboard_experiment_name=exp.resource_name)] == \
        [run.resource_name]
    assert [t.resource_name for t in sdk.Tensorboard.list(filter='display_name="curves"')] == [tb.resource_name]
    assert sdk.Tensorboard.list(filter='display_name="other"') == []

    tb.delete()  # an operation; everything below it goes too
    from google.api_core.exceptions import NotFound

    with pytest.raises(NotFound, match="does not exist"):
        sdk.TensorboardRun(run.resource_name)


def test_gapic_tensorboard_service_write_read_batch_and_errors(emulator: Emulator) -> None:
    from google.api_core.exceptions import BadRequest, Conflict, NotFound
    from google.cloud import aiplatform_v1 as v1

    tbs, _ = _clients(emulator)
    tb = tbs.create_tensorboard(parent=PARENT, tensorboard=v1.Tensorboard(display_name="gapic")).result(timeout=60)
    exp = tbs.create_tensorboard_experiment(parent=tb.name, tensorboard_experiment=v1.TensorboardExperiment(),
                                            tensorboard_experiment_id="e")
    runs = tbs.batch_create_tensorboard_runs(parent=exp.name, requests=[
        v1.CreateTensorboardRunRequest(parent=exp.name, tensorboard_run=v1.TensorboardRun(display_name=n),
                                       tensorboard_run_id=n) for n in ("train", "eval")]).tensorboard_runs
    assert [r.name.rsplit("/", 1)[1] for r in runs] == ["train", "eval"]
    scalar = v1.TensorboardTimeSeries.ValueType.SCALAR
    made = tbs.batch_create_tensorboard_time_series(parent=exp.name, requests=[
        v1.CreateTensorboardTimeSeriesRequest(parent=r.name, tensorboard_time_series=v1.TensorboardTimeSeries(
            display_name="loss", value_type=scalar)) for r in runs]).tensorboard_time_series
    assert [m.name.split("/runs/")[1].split("/")[0] for m in made] == ["train", "eval"]
    with pytest.raises(Conflict, match="'loss' already exists"):
        tbs.create_tensorboard_time_series(parent=runs[0].name, tensorboard_time_series=v1.TensorboardTimeSeries(
            display_name="loss", value_type=scalar))
    with pytest.raises(BadRequest, match="tensorboard_run_id"):
        tbs.create_tensorboard_run(parent=exp.name, tensorboard_run=v1.TensorboardRun(display_name="x"),
                                   tensorboard_run_id="Not_Valid")

    def points(n: int, base: float) -> list[Any]:
        return [v1.TimeSeriesDataPoint(step=s, scalar=v1.Scalar(value=base + s)) for s in range(n)]

    tbs.write_tensorboard_experiment_data(tensorboard_experiment=exp.name, write_run_data_requests=[
        v1.WriteTensorboardRunDataRequest(tensorboard_run=r.name, time_series_data=[v1.TimeSeriesData(
            tensorboard_time_series_id=m.name.rsplit("/", 1)[1], value_type=scalar, values=points(5, base))])
        for r, m, base in zip(runs, made, (0.0, 100.0), strict=True)])
    read = tbs.read_tensorboard_time_series_data(request={"tensorboard_time_series": made[1].name,
                                                         "max_data_points": 2})
    assert [(p.step, p.scalar.value) for p in read.time_series_data.values] == [(0, 100.0), (4, 104.0)]
    both = tbs.batch_read_tensorboard_time_series_data(request={"tensorboard": tb.name,
                                                               "time_series": [m.name for m in made]})
    assert [[p.scalar.value for p in d.values] for d in both.time_series_data] == \
        [[0.0, 1.0, 2.0, 3.0, 4.0], [100.0, 101.0, 102.0, 103.0, 104.0]]
    with pytest.raises(NotFound, match="timeSeries/404 does not exist"):
        tbs.write_tensorboard_run_data(tensorboard_run=runs[0].name, time_series_data=[v1.TimeSeriesData(
            tensorboard_time_series_id="404", value_type=scalar, values=points(1, 0.0))])

    updated = tbs.update_tensorboard_run(tensorboard_run=v1.TensorboardRun(name=runs[0].name, description="d"),
                                         update_mask={"paths": ["description"]})
    assert (updated.description, updated.display_name) == ("d", "train")
    tbs.delete_tensorboard_run(name=runs[1].name).result(timeout=60)
    assert [r.name for r in tbs.list_tensorboard_runs(parent=exp.name)] == [runs[0].name]


def test_listing_pages_past_deleted_resources(emulator: Emulator) -> None:
    from google.cloud import aiplatform_v1 as v1

    tbs, _ = _clients(emulator)
    tb = tbs.create_tensorboard(parent=PARENT, tensorboard=v1.Tensorboard(display_name="pages")).result(timeout=60)
    made = [tbs.create_tensorboard_experiment(parent=tb.name, tensorboard_experiment=v1.TensorboardExperiment(),
                                              tensorboard_experiment_id=f"e{i}").name for i in range(7)]
    first = tbs.list_tensorboard_experiments(request={"parent": tb.name, "page_size": 3})
    page = next(iter(first.pages))
    assert [e.name for e in page.tensorboard_experiments] == made[:3]
    for name in made[1:5]:  # deleted while the client pages: the next page starts after the last one returned
        tbs.delete_tensorboard_experiment(name=name).result(timeout=60)
    rest = tbs.list_tensorboard_experiments(request={"parent": tb.name, "page_size": 3,
                                                     "page_token": page.next_page_token})
    assert [e.name for e in rest] == made[5:]


def test_experiment_tracking_end_to_end(sdk: Any, emulator: Emulator) -> None:
    tb = sdk.Tensorboard.create(display_name="backing")
    sdk.init(experiment="sweep", experiment_tensorboard=tb)
    for run_name, lr, acc, losses in (("run-a", 0.1, 0.9, [0.5, 0.2]), ("run-b", 0.01, 0.7, [0.6])):
        sdk.start_run(run_name)
        sdk.log_params({"lr": lr, "optimizer": "adam"})
        sdk.log_metrics({"accuracy": acc})
        for step, loss in enumerate(losses, 1):
            sdk.log_time_series_metrics({"loss": loss}, step=step)
        sdk.end_run()

    run = sdk.ExperimentRun("run-a", experiment="sweep")
    assert run.get_params() == {"lr": 0.1, "optimizer": "adam"}
    assert run.get_metrics() == {"accuracy": 0.9}
    assert run.get_state() == "COMPLETE"
    assert sorted(r.name for r in sdk.ExperimentRun.list(experiment="sweep")) == ["run-a", "run-b"]
    backing = run._backing_tensorboard_run.resource
    data = backing.read_time_series_data()
    assert [round(p.scalar.value, 6) for p in data["loss"].values] == [0.5, 0.2]

    # The experiment as a table (pandas, the vertex extra's): a row per run, its params and metrics.
    frame = sdk.get_experiment_df("sweep").set_index("run_name")
    assert sorted(frame.index) == ["run-a", "run-b"]
    assert frame.loc["run-a", "param.lr"] == 0.1 and frame.loc["run-b", "param.optimizer"] == "adam"
    assert frame.loc["run-a", "metric.accuracy"] == 0.9 and frame.loc["run-b", "metric.accuracy"] == 0.7
    assert frame.loc["run-a", "state"] == "COMPLETE"

    # The metadata behind it, through the gapic client: the experiment context and its child runs.
    _, md = _clients(emulator)
    store = f"{PARENT}/metadataStores/default"
    children = names(md.list_contexts, store, f'parent_contexts:"{store}/contexts/sweep"')
    assert sorted(c.rsplit("/", 1)[1] for c in children) == ["sweep-run-a", "sweep-run-b"]
    runs = names(md.list_contexts, store, 'schema_title="system.ExperimentRun" AND display_name="run-a"')
    assert runs == [f"{store}/contexts/sweep-run-a"]
    # The run's backing TensorBoard run is an artifact of the run's context (the SDK finds it so).
    lineage = md.query_context_lineage_subgraph(context=f"{store}/contexts/sweep-run-a")
    assert [a.schema_title for a in lineage.artifacts] == ["google.VertexTensorboardRun"]
    assert names(md.list_artifacts, store, f'in_context("{store}/contexts/sweep-run-b")') != \
        [a.name for a in lineage.artifacts]


def test_metadata_gapic_artifacts_executions_and_filters(emulator: Emulator) -> None:
    from google.api_core.exceptions import BadRequest, NotFound
    from google.cloud import aiplatform_v1 as v1

    _, md = _clients(emulator)
    store = md.create_metadata_store(parent=PARENT, metadata_store=v1.MetadataStore(),
                                     metadata_store_id="default").result(timeout=60)
    assert md.get_metadata_store(name=store.name).name == f"{PARENT}/metadataStores/default"
    ctx = md.create_context(parent=store.name, context=v1.Context(display_name="c", schema_title="system.Run"),
                            context_id="ctx")
    art = md.create_artifact(parent=store.name, artifact=v1.Artifact(
        display_name="model", schema_title="system.Model", uri="gs://b/model", metadata={"a": 1, "b": "x"}))
    other = md.create_artifact(parent=store.name, artifact=v1.Artifact(display_name="data",
                                                                       schema_title="system.Dataset"))
    exe = md.create_execution(parent=store.name, execution=v1.Execution(display_name="train",
                                                                        schema_title="system.Run"))
    md.add_context_artifacts_and_executions(context=ctx.name, artifacts=[art.name], executions=[exe.name])
    md.add_execution_events(execution=exe.name, events=[
        v1.Event(artifact=other.name, type_=v1.Event.Type.INPUT),
        v1.Event(artifact=art.name, type_=v1.Event.Type.OUTPUT)])

    patched = md.update_artifact(artifact=v1.Artifact(name=art.name, metadata={"b": "y", "c": 2}),
                                 update_mask={"paths": ["metadata"]})
    assert dict(patched.metadata) == {"a": 1.0, "b": "y", "c": 2.0}  # merged key by key
    assert names(md.list_artifacts, store.name, f'in_context("{ctx.name}")') == [art.name]
    assert names(md.list_artifacts, store.name, 'uri="gs://b/model"') == [art.name]
    assert names(md.list_artifacts, store.name, 'NOT schema_title="system.Model"') == [other.name]
    lineage = md.query_context_lineage_subgraph(context=ctx.name)
    assert sorted(a.name for a in lineage.artifacts) == sorted([art.name, other.name])
    assert [e.name for e in lineage.executions] == [exe.name]
    assert sorted((e.artifact, e.type_.name) for e in lineage.events) == sorted([(other.name, "INPUT"),
                                                                                 (art.name, "OUTPUT")])
    io = md.query_execution_inputs_and_outputs(execution=exe.name)
    assert sorted(a.name for a in io.artifacts) == sorted([art.name, other.name])

    child = md.create_context(parent=store.name, context=v1.Context(display_name="child"), context_id="child")
    md.add_context_children(context=ctx.name, child_contexts=[child.name])
    assert list(md.get_context(name=child.name).parent_contexts) == [ctx.name]
    with pytest.raises(BadRequest, match="cycle"):
        md.add_context_children(context=child.name, child_contexts=[ctx.name])
    with pytest.raises(BadRequest, match="Invalid filter"):
        names(md.list_artifacts, store.name, 'schema_title="x" AND (')
    md.delete_context(name=child.name).result(timeout=60)
    with pytest.raises(NotFound):
        md.get_context(name=child.name)


def test_everything_survives_a_restart(emulators: Emulators) -> None:
    from google.cloud import aiplatform_v1 as v1

    emulator = emulators.start()
    tbs, md = _clients(emulator)
    tb = tbs.create_tensorboard(parent=PARENT, tensorboard=v1.Tensorboard(display_name="kept")).result(timeout=60)
    exp = tbs.create_tensorboard_experiment(parent=tb.name, tensorboard_experiment=v1.TensorboardExperiment(),
                                            tensorboard_experiment_id="e")
    run = tbs.create_tensorboard_run(parent=exp.name, tensorboard_run=v1.TensorboardRun(display_name="r"),
                                     tensorboard_run_id="r")
    ts = tbs.create_tensorboard_time_series(parent=run.name, tensorboard_time_series=v1.TensorboardTimeSeries(
        display_name="loss", value_type=v1.TensorboardTimeSeries.ValueType.SCALAR))
    tbs.write_tensorboard_run_data(tensorboard_run=run.name, time_series_data=[v1.TimeSeriesData(
        tensorboard_time_series_id=ts.name.rsplit("/", 1)[1], value_type=ts.value_type,
        values=[v1.TimeSeriesDataPoint(step=7, scalar=v1.Scalar(value=0.5))])])
    store = md.create_metadata_store(parent=PARENT, metadata_store=v1.MetadataStore(),
                                     metadata_store_id="default").result(timeout=60)
    ctx = md.create_context(parent=store.name, context=v1.Context(metadata={"k": "v"}), context_id="c")
    emulators.stop(emulator)

    again = emulators.start()
    tbs, md = _clients(again)
    assert tbs.get_tensorboard(name=tb.name).display_name == "kept"
    assert [t.name for t in tbs.list_tensorboard_time_series(parent=run.name)] == [ts.name]
    read = tbs.read_tensorboard_time_series_data(tensorboard_time_series=ts.name)
    assert [(p.step, p.scalar.value) for p in read.time_series_data.values] == [(7, 0.5)]
    assert dict(md.get_context(name=ctx.name).metadata) == {"k": "v"}


def test_unknown_paths_and_parameters_are_refused_by_name(emulator: Emulator) -> None:
    import urllib.request
    from urllib.error import HTTPError

    def call(method: str, path: str) -> tuple[int, dict[str, Any]]:
        request = urllib.request.Request(emulator.endpoint + path, method=method, data=b"{}" if method != "GET"
                                         else None, headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request) as answer:
                return answer.status, json.loads(answer.read())
        except HTTPError as exc:
            return exc.code, json.loads(exc.read())

    code, body = call("GET", f"/v1/{PARENT}/tensorboards/1/widgets")
    assert code == 404 and "serves no 'widgets' collection" in body["error"]["message"]
    code, body = call("GET", f"/v1/{PARENT}/tensorboards?colour=red")
    assert code == 400 and "Unknown name \"colour\"" in body["error"]["message"]
    code, body = call("GET", f"/v1/{PARENT}/tensorboards/404")
    assert code == 404 and body["error"]["status"] == "NOT_FOUND"
    code, body = call("POST", f"/v1/{PARENT}/tensorboards/404/experiments?tensorboardExperimentId=e")
    assert code == 404 and "Tensorboard" in body["error"]["message"]


EXECUTOR = "us-docker.pkg.dev/vertex-ai/training/sklearn-cpu.1-0:latest"
CUSTOM_TASK = "gs://google-cloud-aiplatform/schema/trainingjob/definition/custom_task_1.0.0.yaml"


def test_a_jobs_tensorboard_logs_become_its_tensorboards_curves(emulator: Emulator, client: Any) -> None:
    from google.api_core.exceptions import NotFound
    from google.cloud import aiplatform_v1 as v1

    pytest.importorskip("tensorboard", reason="reading event files needs the tensorboard extra")
    tbs, _ = _clients(emulator)
    tb = tbs.create_tensorboard(parent=PARENT, tensorboard=v1.Tensorboard(display_name="jobs")).result(timeout=60)
    with pytest.raises(NotFound, match=r"named in job_spec\.tensorboard does not exist"):
        run_curves_job(emulator, client, "no_board", {"tensorboard": f"{PARENT}/tensorboards/404"})
    job = run_curves_job(emulator, client, "curves", {"tensorboard": tb.name})
    job_id = job.name.rsplit("/", 1)[1]

    # In the emulated storage, where Vertex AI puts AIP_TENSORBOARD_LOG_DIR: baseOutputDirectory/logs/.
    output = job.job_spec.base_output_directory.output_uri_prefix
    assert list((emulator.storage_root / output[len("gs://"):] / "logs" / "train").glob("events.out.tfevents.*"))
    experiment = f"{tb.name}/experiments/{job_id}"
    runs = {r.display_name: r.name for r in tbs.list_tensorboard_runs(parent=experiment)}
    assert sorted(runs) == ["eval", "train"]
    series = {s.display_name: s.name for s in tbs.list_tensorboard_time_series(parent=runs["train"])}
    assert sorted(series) == ["accuracy", "loss"]
    loss = tbs.read_tensorboard_time_series_data(tensorboard_time_series=series["loss"]).time_series_data
    assert [(p.step, round(p.scalar.value, 4)) for p in loss.values] == [(0, 1.0), (1, 0.5), (2, 0.3333)]
    client.get_custom_job(name=job.name)  # read again: nothing is uploaded twice
    again = tbs.read_tensorboard_time_series_data(tensorboard_time_series=series["loss"]).time_series_data
    assert len(again.values) == 3


def test_a_job_run_in_an_experiment_run_is_logged_there(sdk: Any, emulator: Emulator, client: Any) -> None:
    sdk.init(experiment="with-jobs")
    run = sdk.start_run("run-1")
    sdk.end_run()
    store = f"{PARENT}/metadataStores/default/contexts"
    job = run_curves_job(emulator, client, "in_a_run", {"experiment": f"{store}/with-jobs",
                                                   "experimentRun": f"{store}/with-jobs-run-1"})
    logged = sdk.ExperimentRun("run-1", experiment="with-jobs")._metadata_node.metadata["_custom_jobs"]
    assert [j["custom_job_resource_name"] for j in logged] == [job.name]
    assert run.resource_name == f"{store}/with-jobs-run-1"


def test_custom_job_run_with_an_experiment_run_through_the_sdk(sdk: Any, emulator: Emulator,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from google.cloud.aiplatform import jobs

    from provider.packaging.gcs import GcsStager, gcs_client
    from provider.packaging.stage import stage

    monkeypatch.setattr(jobs, "_JOB_WAIT_TIME", 0.2)  # CustomJob.run() polls every 5 s; the job takes about one
    uri = "gs://test-bucket/packages/curves.tar.gz"
    stage(CURVES, uri, GcsStager(gcs_client(PROJECT, emulator.endpoint)))
    sdk.init(experiment="sdk-jobs", staging_bucket="gs://test-bucket")
    sdk.start_run("first")
    sdk.end_run()
    specs = [{"replica_count": 1, "machine_spec": {"machine_type": "n1-standard-4"},
              "python_package_spec": {"executor_image_uri": "us-docker.pkg.dev/vertex-ai/training/pytorch-xla.2-4"
                                                            ".py310:latest",
                                      "package_uris": [uri], "python_module": "curves.task"}}]
    job = sdk.CustomJob(display_name="in-a-run", worker_pool_specs=specs)
    job.run(experiment="sdk-jobs", experiment_run="first", service_account=TRACKED_ACCOUNT)
    assert job.state.name == "JOB_STATE_SUCCEEDED"
    run = sdk.ExperimentRun("first", experiment="sdk-jobs")
    assert [j["custom_job_resource_name"] for j in run._metadata_node.metadata["_custom_jobs"]] == [job.resource_name]
    assert run.get_state() == "COMPLETE"  # CustomJob.run() ends the run once the job has


def _pipeline(emulator: Emulator, name: str, fields: dict[str, Any]) -> Any:
    """A custom-task pipeline of the curves trainer with ``fields`` in its inputs, read until it ends."""
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import aiplatform_v1 as v1

    from provider.packaging.gcs import GcsStager, gcs_client
    from provider.packaging.stage import stage
    from tests.vertex.conftest import BUCKET

    uri = f"gs://{BUCKET}/pkgs/curves-0.1.tar.gz"
    stage(CURVES, uri, GcsStager(gcs_client(PROJECT, emulator.endpoint)))
    pipelines = v1.PipelineServiceClient(transport="rest", credentials=AnonymousCredentials(),
                                         client_options={"api_endpoint": emulator.endpoint})
    inputs = {"workerPoolSpecs": [{"machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": 1,
                                   "pythonPackageSpec": {"executorImageUri": EXECUTOR, "packageUris": [uri],
                                                         "pythonModule": "curves.task"}}],
              "baseOutputDirectory": {"outputUriPrefix": f"gs://{BUCKET}/pipeline-out"},
              "serviceAccount": TRACKED_ACCOUNT, **fields}
    pipeline = pipelines.create_training_pipeline(parent=PARENT, training_pipeline=v1.TrainingPipeline(
        display_name=name, training_task_definition=CUSTOM_TASK, training_task_inputs=inputs))
    deadline = time.monotonic() + JOB_TIMEOUT
    while pipeline.state.name not in ("PIPELINE_STATE_SUCCEEDED", "PIPELINE_STATE_FAILED") \
            and time.monotonic() < deadline:
        time.sleep(0.2)
        pipeline = pipelines.get_training_pipeline(name=pipeline.name)
    assert pipeline.state.name == "PIPELINE_STATE_SUCCEEDED", pipeline.error
    return pipeline


def test_a_training_pipelines_tensorboard_logs_become_curves(emulator: Emulator) -> None:
    """A custom-task pipeline naming a TensorBoard: its backing job's trainer gets AIP_TENSORBOARD_LOG_DIR,
    and reading the pipeline uploads what it wrote there, as reading a CustomJob does."""
    from google.cloud import aiplatform_v1 as v1

    pytest.importorskip("tensorboard", reason="reading event files needs the tensorboard extra")
    tbs, _ = _clients(emulator)
    tb = tbs.create_tensorboard(parent=PARENT, tensorboard=v1.Tensorboard(display_name="pipelines")).result(timeout=60)
    pipeline = _pipeline(emulator, "curves", {"tensorboard": tb.name})
    job_id = pipeline.training_task_metadata["backingCustomJob"].rsplit("/", 1)[1]
    runs = {r.display_name: r.name for r in tbs.list_tensorboard_runs(parent=f"{tb.name}/experiments/{job_id}")}
    assert sorted(runs) == ["eval", "train"]
    series = {s.display_name: s.name for s in tbs.list_tensorboard_time_series(parent=runs["train"])}
    loss = tbs.read_tensorboard_time_series_data(tensorboard_time_series=series["loss"]).time_series_data
    assert [(p.step, round(p.scalar.value, 4)) for p in loss.values] == [(0, 1.0), (1, 0.5), (2, 0.3333)]


def test_a_training_pipeline_in_an_experiment_gets_a_run(sdk: Any, emulator: Emulator, client: Any) -> None:
    """A custom-task pipeline whose inputs name an experiment and no run: its backing job gets the run
    the emulator makes for a job (named by the job's ID), which ends when the pipeline is read ended."""
    sdk.init(experiment="piped")
    store = f"{PARENT}/metadataStores/default/contexts"
    pipeline = _pipeline(emulator, "in-an-experiment", {"experiment": f"{store}/piped"})
    backing = pipeline.training_task_metadata["backingCustomJob"]
    job_id = backing.rsplit("/", 1)[1]
    run = sdk.ExperimentRun(job_id, experiment="piped")
    assert run.get_state() == "COMPLETE"  # the pipeline was read: the job is never read itself before here
    assert client.get_custom_job(name=backing).job_spec.experiment_run == f"{store}/piped-{job_id}"
    assert [j["custom_job_resource_name"] for j in run._metadata_node.metadata["_custom_jobs"]] == [backing]


def test_a_run_that_cannot_be_named_refuses_the_job(emulator: Emulator, client: Any) -> None:
    """The run made for a job is the context {experiment}-{job ID}: past the 128 characters of a context
    ID, the job is refused by name, and nothing is created or started."""
    from google.api_core.exceptions import BadRequest
    from google.cloud import aiplatform_v1 as v1

    _, md = _clients(emulator)
    store = md.create_metadata_store(parent=PARENT, metadata_store=v1.MetadataStore(),
                                     metadata_store_id="default").result(timeout=60)
    experiment = md.create_context(parent=store.name, context_id="e" * 110, context=v1.Context(
        display_name="e" * 110, schema_title="system.Experiment"))
    with pytest.raises(BadRequest, match=r"not a valid context ID.*name the run yourself"):
        run_curves_job(emulator, client, "long", {"experiment": experiment.name})
    assert list(client.list_custom_jobs(parent=PARENT)) == []
    assert [c.name for c in md.list_contexts(parent=store.name)] == [experiment.name]
