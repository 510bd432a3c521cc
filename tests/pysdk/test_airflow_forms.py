"""The forms an Airflow DAG file takes around its training operator, each read as Airflow runs it (constructed DAGs,
not public ones: tests/pysdk/test_airflow.py holds those). Where a DAG converts, the oracle (airflow_oracle.py: the
DAG run with a stand-in airflow) says what its task sends."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .airflow_oracle import dag_request
from .test_corpus import convert

_GROUPED = '''\
from airflow import DAG
from airflow.models import Variable
from airflow.utils.task_group import TaskGroup
from airflow.providers.google.cloud.operators.mlengine import MLEngineStartTrainingJobOperator

CFG = Variable.get("training_config", deserialize_json=True)
default_args = {"project_id": "proj", "region": "europe-west1", "retries": 2}

with DAG("d", default_args=default_args, schedule=None) as dag:
    with TaskGroup("train") as group:
        t = MLEngineStartTrainingJobOperator(
            task_id="train",
            job_id="nightly-train",
            package_uris=["gs://b/p.tar.gz"],
            training_python_module="trainer.task",
            scale_tier="CUSTOM",
            master_type="n1-highmem-8",
            master_config={"acceleratorConfig": {"count": "1", "type": "NVIDIA_TESLA_T4"}},
            runtime_version="2.11",
            python_version="3.7",
            training_args=["--epochs", str(CFG["epochs"])],
            hyperparameters={"goal": "MAXIMIZE", "hyperparameterMetricTag": "acc", "maxTrials": 12,
                             "params": [{"parameterName": "lr", "type": "DOUBLE", "minValue": 0.001,
                                         "maxValue": 0.1}]},
        )
'''

_TASKFLOW = '''\
from airflow.decorators import dag
from airflow.providers.google.cloud.operators.vertex_ai.custom_job import CreateCustomContainerTrainingJobOperator

IMAGE = "europe-docker.pkg.dev/p/r/trainer:1.2"


@dag(schedule=None, catchup=False, default_args={"region": "europe-west4", "project_id": "p"})
def weekly():
    CreateCustomContainerTrainingJobOperator(
        task_id="train",
        display_name="weekly-train",
        container_uri=IMAGE,
        staging_bucket="gs://p-staging",
        replica_count=3,
        machine_type="n1-standard-8",
        accelerator_type="NVIDIA_TESLA_T4",
        accelerator_count=1,
        boot_disk_size_gb=200,
        environment_variables={"MODE": "weekly"},
        args=["--epochs=3"],
        base_output_dir="gs://p-out/weekly",
        labels={"team": "ml"},
    )


weekly()
'''


def _write(tmp_path: Path, text: str, name: str = "dag.py") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_task_group_default_args_and_a_json_variable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``with DAG`` and ``with TaskGroup`` run at import; default_args gives project_id and region; --var gives the
    Variable (deserialize_json: its JSON); the body is converted as the legacy path converts the one the operator
    builds."""
    path = _write(tmp_path, _GROUPED)
    refused = convert(path, "--output", "request")
    assert refused.returncode != 0
    assert "dag.py:21:27: MLEngineStartTrainingJobOperator(training_args=...) cannot be known" in refused.stderr
    assert "convert --var training_config=VALUE" in refused.stderr
    variable = '{"epochs": 5}'
    mine = convert(path, "--output", "request", "--var", f"training_config={variable}")
    assert mine.returncode == 0, mine.stderr
    body = dag_request(path, monkeypatch, variables={"training_config": variable})["mlengine"]
    assert body["jobId"] == "nightly_train" and body["trainingInput"]["region"] == "europe-west1"
    built = _write(tmp_path, json.dumps(body), "body.json")
    theirs = convert(built, "--output", "request")
    assert theirs.returncode == 0, theirs.stderr
    assert json.loads(mine.stdout) == json.loads(theirs.stdout)
    assert "is sent as 'nightly_train'" in mine.stderr


def test_a_dag_decorated_function_is_read_where_it_is_called(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from .sdk_oracle import comparable

    path = _write(tmp_path, _TASKFLOW)
    mine = convert(path, "--output", "request")
    assert mine.returncode == 0, mine.stderr
    theirs = comparable(dag_request(path, monkeypatch))
    assert comparable(json.loads(mine.stdout)) == theirs


@pytest.mark.parametrize(("text", "said"), [
    (_TASKFLOW.replace("weekly()\n", ""), "the DAG builds no training operator where it can be read: "
     "CreateCustomContainerTrainingJobOperator at"),
    (_TASKFLOW.replace('        labels={"team": "ml"},', '        location="europe-west4",'),
     "dag.py:22:18: CreateCustomContainerTrainingJobOperator() takes no argument 'location'"),
    (_TASKFLOW.replace('        labels={"team": "ml"},', '        **{"labels": {"team": "ml"}},'),
     "arguments spread from a dict are not read"),
    (_TASKFLOW.replace('default_args={"region": "europe-west4", "project_id": "p"}', ""),
     "CreateCustomContainerTrainingJobOperator() lacks region"),
    (_TASKFLOW.replace('display_name="weekly-train"', 'display_name="weekly-{{ ds }}"'),
     "dag.py:11:22: CreateCustomContainerTrainingJobOperator(display_name=...): 'weekly-{{ ds }}' holds the Jinja "
     "template {{ ds }}, which Airflow renders when the task runs"),
])
def test_refused_forms(tmp_path: Path, text: str, said: str) -> None:
    done = convert(_write(tmp_path, text), "--output", "request")
    assert done.returncode != 0
    assert said in done.stderr, done.stderr


_LOOP = '''\
from airflow import DAG
from airflow.providers.google.cloud.operators.vertex_ai.custom_job import CreateCustomContainerTrainingJobOperator

with DAG("sizes", schedule=None) as dag:
    for size in ["small", "large"]:
        CreateCustomContainerTrainingJobOperator(
            task_id=f"train_{size}",
            project_id="p",
            region="us-central1",
            display_name=f"train-{size}",
            container_uri="gcr.io/p/trainer:1",
            staging_bucket="gs://p-staging",
            args=[f"--size={size}"],
        )
'''


def test_a_loop_of_training_tasks_is_several(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A loop over known items builds one task per item (python_flow follows it): several, each picked by task_id."""
    from .sdk_oracle import comparable

    path = _write(tmp_path, _LOOP)
    done = convert(path, "--output", "request")
    assert done.returncode != 0
    assert ("the DAG has several training tasks: CreateCustomContainerTrainingJobOperator (task_id 'train_small') at "
            f"{path}:6:9; CreateCustomContainerTrainingJobOperator (task_id 'train_large')") in done.stderr, done.stderr
    assert "no training task has task_id 'elsewhere'" in convert(path, "--target", "elsewhere").stderr
    mine = convert(path, "--output", "request", "--target", "train_large")
    assert mine.returncode == 0, mine.stderr
    assert comparable(json.loads(mine.stdout)) == comparable(dag_request(path, monkeypatch, "train_large"))


def test_a_notebook_cell_holding_the_dag(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from .sdk_oracle import comparable

    cells = [{"cell_type": "markdown", "metadata": {}, "source": ["# the DAG"]},
             {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
              "source": _TASKFLOW.splitlines(keepends=True)}]
    notebook = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path = _write(tmp_path, json.dumps(notebook), "dag.ipynb")
    mine = convert(path, "--output", "request")
    assert mine.returncode == 0, mine.stderr
    theirs = comparable(dag_request(_write(tmp_path, _TASKFLOW), monkeypatch))
    assert comparable(json.loads(mine.stdout)) == theirs


def test_a_variable_read_over_several_lines_is_given_by_var(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from .sdk_oracle import comparable

    text = _TASKFLOW.replace('IMAGE = "europe-docker.pkg.dev/p/r/trainer:1.2"',
                             'from airflow.models import Variable\nIMAGE = Variable.get(\n    "training_image",\n)  # the image')
    path = _write(tmp_path, text)
    refused = convert(path, "--output", "request")
    assert "convert --var training_image=VALUE" in refused.stderr, refused.stderr
    image = "europe-docker.pkg.dev/p/r/trainer:1.3"
    mine = convert(path, "--output", "request", "--var", f"training_image={image}")
    assert mine.returncode == 0, mine.stderr
    theirs = comparable(dag_request(path, monkeypatch, variables={"training_image": image}))
    assert comparable(json.loads(mine.stdout)) == theirs
    assert image in mine.stdout


def test_a_template_in_an_argument_airflow_does_not_render_is_sent_as_written(tmp_path: Path,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """args is not among CreateCustomContainerTrainingJobOperator's template_fields: "{{ ds }}" reaches the job."""
    from .sdk_oracle import comparable

    path = _write(tmp_path, _TASKFLOW.replace('"--epochs=3"', '"--date={{ ds }}"'))
    mine = convert(path, "--output", "request")
    assert mine.returncode == 0, mine.stderr
    assert comparable(json.loads(mine.stdout)) == comparable(dag_request(path, monkeypatch))
    assert "--date={{ ds }}" in mine.stdout
    assert ("(args=...) at " f"{path}:20:14 holds {{{{ ds }}}}, which Airflow does not render here") in mine.stderr


def test_an_airflow_variable_in_a_template_is_given_by_var(tmp_path: Path) -> None:
    """MLEngine's job_dir is a template field: "{{ var.value.bucket }}" is the Variable, which --var gives."""
    text = _GROUPED.replace('            job_id="nightly-train",',
                            '            job_id="nightly-train",\n            job_dir="gs://{{ var.value.bucket }}/jobs",')
    path = _write(tmp_path, text)
    refused = convert(path, "--output", "request", "--var", 'training_config={"epochs": 5}')
    assert refused.returncode != 0
    assert ("the Airflow Variable bucket, read when the task runs; allowed: give the Variable's value: convert --var "
            "bucket=VALUE") in refused.stderr, refused.stderr
    done = convert(path, "--var", 'training_config={"epochs": 5}', "--var", "bucket=my-bucket")
    assert done.returncode == 0, done.stderr
    assert "gs://my-bucket/jobs" in done.stdout


def test_a_custom_training_job_operator_packages_its_script(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """CreateCustomTrainingJobOperator's script is packaged as the SDK reader packages CustomTrainingJob's (its
    folder, its module); the rest of the request is the SDK's."""
    from .sdk_oracle import comparable
    from .test_corpus import _packages_set_aside

    folder = tmp_path / "trainer"
    folder.mkdir()
    (folder / "task.py").write_text("print('training')\n", encoding="utf-8")
    text = '''from airflow import DAG
from airflow.providers.google.cloud.operators.vertex_ai.custom_job import CreateCustomTrainingJobOperator

with DAG("script", schedule=None) as dag:
    CreateCustomTrainingJobOperator(
        task_id="train",
        project_id="p",
        region="us-east1",
        display_name="script-train",
        script_path="trainer/task.py",
        container_uri="us-docker.pkg.dev/vertex-ai/training/sklearn-cpu.1-0:latest",
        requirements=["gcsfs==2022.3.0"],
        staging_bucket="gs://p-staging",
        replica_count=2,
        machine_type="n1-standard-8",
        args=["--alpha", "0.1"],
    )
'''
    path = _write(tmp_path, text)
    mine = convert(path, "--output", "request", cwd=tmp_path)  # the script is read from where convert runs
    assert mine.returncode == 0, mine.stderr
    monkeypatch.chdir(tmp_path)
    ours, theirs = comparable(json.loads(mine.stdout)), comparable(dag_request(path, monkeypatch))
    _packages_set_aside(theirs, "aiplatform_custom_trainer_script.task")
    _packages_set_aside(ours, "task")
    assert ours == theirs


def test_a_staging_bucket_known_only_when_airflow_runs_is_given_by_the_flag(tmp_path: Path) -> None:
    text = _TASKFLOW.replace('staging_bucket="gs://p-staging"', 'staging_bucket=f"gs://{config.bucket}"').replace(
        "from airflow.decorators import dag\n", "from airflow.decorators import dag\nimport dags.config as config\n")
    path = _write(tmp_path, text)
    refused = convert(path, "--output", "request")
    assert "(staging_bucket=...) cannot be known" in refused.stderr
    assert "or give the bucket with convert --staging-bucket gs://BUCKET" in refused.stderr
    done = convert(path, "--staging-bucket", "gs://given")
    assert done.returncode == 0, done.stderr
    assert "convert --staging-bucket gs://given is written in its place" in done.stdout


def test_an_operator_imported_from_elsewhere_is_named(tmp_path: Path) -> None:
    """A DAG folder's own operators module (as a hospital-training DAG imports it): read as the provider's operator,
    and said so."""
    text = _TASKFLOW.replace("from airflow.providers.google.cloud.operators.vertex_ai.custom_job import",
                             "from operators import")
    done = convert(_write(tmp_path, text), "--output", "request")
    assert done.returncode == 0, done.stderr
    assert ("dag.py:9:5 is operators.CreateCustomContainerTrainingJobOperator, not apache-airflow-providers-google's: "
            "read as the provider's operator") in done.stderr, done.stderr
