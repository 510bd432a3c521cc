"""Airflow DAGs (Cloud Composer) whose operators launch training: ``convert DAG.py`` sends what the operator's hook sends.

Each fixture under tests/pysdk/airflow/ is a real DAG (its source on its first line, what was adapted below it).
The oracle (airflow_oracle.py) runs the DAG file with a stand-in airflow package whose training operators do what
their hooks do: the Vertex AI ones call the real SDK, whose request is recorded (sdk_oracle.py); MLEngine's builds its
``projects.jobs.create`` body, which convert then reads as a request file (the legacy path), the two compared.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from .airflow_oracle import dag_request
from .sdk_oracle import comparable
from .test_corpus import convert

HERE = Path(__file__).parent / "airflow"
FIXTURES = sorted(HERE.glob("*.py"))

# (fixture, the convert options that pick its training task and give what Airflow would; the same for the oracle)
SDK_CASES = [
    ("hpt_system_example", ["--target", "create_hyperparameter_tuning_job"]),
    ("hpt_system_example", ["--target", "create_hyperparameter_tuning_job_def"]),
    ("speech_two_containers", ["--target", "speech-model-evaluation"]),
    ("speech_two_containers", ["--target", "speech-model-training"]),
    ("custom_jobs_2021", ["--target", "custom_container_task", "--name", "flowers"]),
    ("custom_jobs_2021", ["--target", "python_package_task", "--name", "flowers"]),
]
MLENGINE_CASES = [
    ("example_mlengine_2020", ["--name", "training_job"]),
    ("iris_contrib", []),  # its job_id, the time the DAG is read: the time of the conversion (python_clock)
    ("citibike_two_trainings", ["--target", "tfkeras_training", "--name", "tfkeras", "--var", "gcp_project=onramp",
                                "--var", "gcs_bucket=b", "--var", "gce_region=us-west1", "--var", "gce_zone=us-west1-b"]),
    ("autogluon_taskflow", ["--name", "autogluon"]),
]


def _options(extra: list[str]) -> tuple[str | None, dict[str, str], str | None]:
    target = extra[extra.index("--target") + 1] if "--target" in extra else None
    name = extra[extra.index("--name") + 1] if "--name" in extra else None
    variables = dict(extra[i + 1].split("=", 1) for i, v in enumerate(extra) if v == "--var")
    return target, variables, name


def _as_sent(request: dict[str, Any]) -> dict[str, Any]:
    """The request with its body read into the API's message and written back (proto3 JSON: a 0.0 that one side
    writes out and the other leaves unset is the same message on the wire)."""
    from google.cloud import aiplatform_v1

    message = getattr(aiplatform_v1, request["kind"])
    body = message.to_json(message.from_json(json.dumps(request["body"])), use_integers_for_enums=False,
                           always_print_fields_with_no_presence=False)
    return {**request, "body": json.loads(body)}


def _request(path: Path, extra: list[str]) -> dict[str, Any]:
    done = convert(path, "--output", "request", *extra)
    assert done.returncode == 0, done.stderr
    request: dict[str, Any] = json.loads(done.stdout)
    return request


def test_enough_real_dags() -> None:
    assert len(FIXTURES) >= 10


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_the_source_is_named(path: Path) -> None:
    head = path.read_text(encoding="utf-8").splitlines()[:6]
    assert head[0].startswith("# source: ") and any(line.startswith("# adapted: ") for line in head)


@pytest.mark.parametrize(("stem", "extra"), SDK_CASES, ids=[f"{s}-{i}" for i, (s, _) in enumerate(SDK_CASES)])
def test_vertex_operator_sends_what_the_sdk_sends(stem: str, extra: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    path = HERE / f"{stem}.py"
    target, variables, name = _options(extra)
    theirs = _as_sent(comparable(dag_request(path, monkeypatch, target, variables)))
    mine = _as_sent(comparable(_request(path, extra)))
    if name is not None:  # the DAG's own display name is known only when it runs (a uuid4): --name names the job
        theirs["body"].pop("displayName")
        mine["body"].pop("displayName")
    assert mine["kind"] == theirs["kind"]
    assert mine["parent"] == theirs["parent"]
    assert set(mine["body"]) == set(theirs["body"])
    for field in theirs["body"]:
        assert mine["body"][field] == theirs["body"][field], field


@pytest.mark.parametrize(("stem", "extra"), MLENGINE_CASES, ids=[s for s, _ in MLENGINE_CASES])
def test_mlengine_operator_sends_its_body(stem: str, extra: list[str], monkeypatch: pytest.MonkeyPatch,
                                          tmp_path: Path) -> None:
    """The body MLEngineStartTrainingJobOperator.execute() builds, converted as a request file by convert's own legacy
    reading, is what convert makes of the DAG (its refusals too: the same fields refused)."""
    path = HERE / f"{stem}.py"
    target, variables, name = _options(extra)
    body = dag_request(path, monkeypatch, target, variables)["mlengine"]
    if name is not None:  # a job id known only when the task runs (a template, a uuid, the time): --name names it
        body["jobId"] = name
    body["trainingInput"] = {k: v for k, v in body["trainingInput"].items() if v is not None}
    built = tmp_path / "body.json"
    built.write_text(json.dumps(body), encoding="utf-8")
    theirs = convert(built, "--output", "request")
    mine = convert(path, "--output", "request", *extra)
    assert mine.returncode == theirs.returncode, (mine.stderr, theirs.stderr)
    if theirs.returncode:
        errors = re.compile(r"error: (.*)")
        assert errors.findall(mine.stderr) == errors.findall(theirs.stderr)
        assert errors.findall(mine.stderr)
    else:
        assert json.loads(mine.stdout) == json.loads(theirs.stdout)


REFUSED = [
    ("hpt_system_example", [], "hpt_system_example.py: the DAG has several training tasks: CreateHyperparameterTuningJobOperator "
     "(task_id 'create_hyperparameter_tuning_job') at tests/pysdk/airflow/hpt_system_example.py:70:40"),
    ("hpt_system_example", ["--target", "nope"], "no training task has task_id 'nope'"),
    ("example_mlengine_2020", [], "example_mlengine_2020.py:38:16: MLEngineStartTrainingJobOperator(job_id=...): "
     "'training-job-{{ ts_nodash }}-{{ params.model_name }}' holds the Jinja template {{ ts_nodash }}"),
    ("iris_contrib", [], "iris_contrib.py:21:22: error: spec.trainingInput.packageUris is a string"),
    ("iris_contrib", ["--name", "iris"], "iris_contrib.py:20:16: error: jobId 'iris_20"),  # --name beside the DAG's id
    ("citibike_two_trainings", ["--target", "tfkeras_training", "--name", "tfkeras"],
     "citibike_two_trainings.py:69:16: MLEngineStartTrainingJobOperator(region=...) cannot be known without running the "
     "script: REGION is set from a call to airflow.models.Variable.get()"),
    ("citibike_two_trainings", ["--target", "tfkeras_training", "--name", "tfkeras"],
     "allowed: give the Airflow Variable's value: convert --var gce_region=VALUE"),
    ("custom_jobs_2021", ["--target", "custom_container_task"],
     "custom_jobs_2021.py:53:22: CreateCustomContainerTrainingJobOperator(display_name=...) cannot be known"),
    ("recserve_plugin", ["--name", "recserve"], "recserve_plugin.py:69:19: MLEngineTrainingOperator(training_args=...) "
     "cannot be known without running the script"),
    ("criteo_daily", ["--name", "criteo"], "criteo_daily.py:54:21: mlengine_operator.MLEngineTrainingOperator("
     "training_args=...): ['--base-dir=gs://ml-engine-airflow/criteo', '--event-date={{ execution_date.strftime"),
    ("song_script_training", [], "song_script_training.py:44:18: CreateCustomTrainingJobOperator(display_name=...): "
     "'song_mood_clustering_{{ds}}' holds the Jinja template {{ds}}"),
    ("song_script_training", ["--name", "song"], "song_script_training.py:45:19: CreateCustomTrainingJobOperator("
     "container_uri=...) cannot be known"),
    ("solar_deferrable", ["--name", "solar"], "solar_deferrable.py:90:26: CreateCustomContainerTrainingJobOperator("
     "accelerator_type=None): the SDK raises ValueError"),
    ("solar_deferrable", [], "solar_deferrable.py:83:22: CreateCustomContainerTrainingJobOperator(display_name=...): "
     "'solar-transformer-bilstm-training-{{ ts_nodash.lower() }}' holds the Jinja template"),
    ("notebook_exec_worker_pools", [], "notebook_exec_worker_pools.py:58:27: CreateCustomTrainingJobOperator() takes no "
     "argument 'worker_pool_specs' (Airflow raises AirflowException: Invalid arguments were passed)"),
    ("system_test_python_package_dataset", [], "CreateCustomPythonPackageTrainingJobOperator(dataset_id=...): the "
     "TrainingPipeline exports the dataset's split"),
]


@pytest.mark.parametrize(("stem", "extra", "said"), REFUSED, ids=[f"{s}-{i}" for i, (s, _, _) in enumerate(REFUSED)])
def test_refused_by_name_and_place(stem: str, extra: list[str], said: str) -> None:
    done = convert(HERE / f"{stem}.py", "--output", "request", *extra)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert said in done.stderr, done.stderr


def test_airflow_only_arguments_are_accepted_silently_and_the_rest_noted() -> None:
    done = convert(HERE / "custom_jobs_2021.py", "--target", "custom_container_task", "--name", "flowers")
    assert done.returncode == 0, done.stderr
    assert "task_id" not in done.stdout and "gcp_conn_id" not in done.stdout
    assert "(model_display_name=...) at tests/pysdk/airflow/custom_jobs_2021.py:58:28 is not carried" in done.stdout
    assert "(training_fraction_split=...) at tests/pysdk/airflow/custom_jobs_2021.py:63:33 is not sent" in done.stdout
    assert "(project_id=PROJECT_ID) at tests/pysdk/airflow/custom_jobs_2021.py:67:20 is not written" in done.stdout


def test_a_problem_in_the_spec_points_at_the_dag_line() -> None:
    done = convert(HERE / "iris_contrib.py")
    assert "iris_contrib.py:21:22: error: spec.trainingInput.packageUris is a string" in done.stderr
    assert "iris_contrib.py:20: the time the code runs, written as '20" in done.stderr  # job_id="iris_" + now()


def test_the_sdk_itself_refuses_what_solar_deferrable_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The refusal of accelerator_type=None above is the SDK's own: run() raises ValueError on it."""
    with pytest.raises(ValueError, match="accelerator_type `None` invalid"):
        dag_request(HERE / "solar_deferrable.py", monkeypatch)

