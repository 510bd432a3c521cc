"""trainjobs convert: the native spec for a legacy or Vertex config, which validates the same way."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from provider.submission.request import build_request
from provider.validation.validator import validate_bytes, validate_data

from .conftest import ROOT, no_traceback, run_cli


def _round_trip(path: Path) -> None:
    proc = run_cli("convert", str(path))
    no_traceback(proc)
    assert proc.returncode == 0, proc.stderr
    native = yaml.safe_load(proc.stdout)
    assert native["apiVersion"] == "trainjobs/v1" and "workerPools" in native["spec"]
    original = validate_bytes(path.read_bytes(), str(path)).job
    converted = validate_data(native).job
    assert original is not None and converted is not None
    # The converted spec asks Vertex AI for exactly what the original did.
    assert build_request(converted, "p", package_uris=["gs://b/p.tar.gz"]).body == \
        build_request(original, "p", package_uris=["gs://b/p.tar.gz"]).body


def test_convert_legacy_configs() -> None:
    for name in ("custom_cpu_cluster", "gpu_compute_engine_t4", "gpu_legacy_machine_types", "job_spec_dict"):
        _round_trip(ROOT / "specs" / "seeds" / f"{name}.yaml")


def test_convert_vertex_sdk_worker_pool_specs() -> None:
    _round_trip(ROOT / "specs" / "seeds" / "cassava_multiworker_sdk.yaml")


def test_convert_a_bare_config_yaml_with_gcloud_flags(tmp_path: Path) -> None:
    seed = (ROOT / "tests" / "fixtures" / "seed_configs" / "seed003_example2.yaml").read_text()
    config = tmp_path / "config.yaml"
    config.write_text(seed)
    proc = run_cli("convert", str(config), "--region", "us-east1", "--module-name", "trainer.task",
                   "--package-path", "trainer", "--job-dir", "gs://b/job", "--name", "seed003")
    assert proc.returncode == 0, proc.stderr
    native = yaml.safe_load(proc.stdout)
    assert native["metadata"]["name"] == "seed003"
    assert native["spec"]["workerPools"]["workers"] == {"machineType": "n1-highcpu-16", "replicas": 9}
    assert native["spec"]["scheduling"] == {"maxWaitTime": "3600s", "maxRunningTime": "7200s"}
    assert native["spec"]["application"]["pythonPackage"]["runtimeVersion"] == "2.4"


def test_convert_reports_what_a_bare_config_lacks(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text((ROOT / "tests" / "fixtures" / "seed_configs" / "seed003_example2.yaml").read_text())
    proc = run_cli("convert", str(config), "--region", "us-east1")
    no_traceback(proc)
    assert proc.returncode == 1
    assert "config.yaml:3:3: error: no Python module to run" in proc.stderr


def test_convert_shows_the_request() -> None:
    proc = run_cli("convert", "specs/seeds/cassava_multiworker_sdk.yaml", "--output", "request")
    assert proc.returncode == 0 and '"kind": "CustomJob"' in proc.stdout


SEED001_FLAGS = """gcloud ai-platform jobs submit training $JOB_NAME \\
        --package-path $APP_PACKAGE_PATH \\
        --module-name $MAIN_APP_MODULE \\
        --job-dir $JOB_DIR \\
        --region us-central1 \\
        --runtime-version 2.11 --python-version 3.7 \\
        --scale-tier custom \\
        --master-machine-type n1-highcpu-16 \\
        --master-accelerator count=4,type=nvidia-tesla-t4 \\
        --worker-count 9 \\
        --worker-machine-type n1-highcpu-16 \\
        --worker-accelerator count=4,type=nvidia-tesla-t4 \\
        --parameter-server-count 3 \\
        --parameter-server-machine-type n1-highmem-8 \\
        -- \\
        --user_arg_1 value_1
"""
SEED_ENV = {"JOB_NAME": "seed001_flags", "APP_PACKAGE_PATH": "trainer", "MAIN_APP_MODULE": "trainer.task",
            "JOB_DIR": "gs://my-bucket/jobs/seed001"}


def _trainer(tmp_path: Path) -> None:
    (tmp_path / "trainer").mkdir()
    (tmp_path / "trainer" / "__init__.py").write_text("")


def test_convert_gcloud_seed001_flags_only(tmp_path: Path) -> None:
    _trainer(tmp_path)
    proc = run_cli("convert", "--gcloud", SEED001_FLAGS, cwd=tmp_path, env=SEED_ENV)
    no_traceback(proc)
    assert proc.returncode == 0, proc.stderr
    native = yaml.safe_load(proc.stdout)
    pools = native["spec"]["workerPools"]
    assert native["metadata"]["name"] == "seed001_flags"
    assert pools["chief"] == {"machineType": "n1-highcpu-16", "accelerator": {"type": "NVIDIA_TESLA_T4", "count": 4}}
    assert pools["workers"]["replicas"] == 9 and pools["parameterServers"] == {"machineType": "n1-highmem-8",
                                                                              "replicas": 3}
    assert native["spec"]["args"] == ["--user_arg_1", "value_1"]
    # The converted spec validates on its own and asks for the same request.
    spec = tmp_path / "seed001.yaml"
    proc = run_cli("convert", "--gcloud", SEED001_FLAGS, "--write", str(spec), cwd=tmp_path, env=SEED_ENV)
    assert proc.returncode == 0, proc.stderr
    assert validate_bytes(spec.read_bytes(), str(spec)).job is not None


def test_convert_gcloud_a_flag_wins_over_the_config(tmp_path: Path) -> None:
    _trainer(tmp_path)
    (tmp_path / "config.yaml").write_text(
        (ROOT / "tests" / "fixtures" / "seed_configs" / "seed001_example1.yaml").read_text())
    line = ("gcloud ai-platform jobs submit training j1 --package-path trainer --module-name trainer.task "
            "--job-dir gs://my-bucket/j1 --region us-central1 --config config.yaml --runtime-version 2.11 "
            "--python-version 3.7 --worker-count 2 --master-accelerator count=2,type=nvidia-tesla-t4")
    proc = run_cli("convert", "--gcloud", line, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    pools = yaml.safe_load(proc.stdout)["spec"]["workerPools"]
    assert pools["workers"]["replicas"] == 2
    assert pools["chief"]["accelerator"] == {"type": "NVIDIA_TESLA_T4", "count": 2}  # the flag's, both keys (gcloud needs both)


@pytest.mark.parametrize(("line", "says"), [
    ("gcloud ai-platform jobs submit training $NOT_SET_ANYWHERE --region r", "$NOT_SET_ANYWHERE is not defined"),
    ("gcloud ai-platform jobs submit training j_$(id -u) --region r", "$(...) is command substitution"),
    ("gcloud ai-platform jobs submit training j --scale-teir basic", "did you mean '--scale-tier'?"),
    ("gcloud ai-platform jobs submit training j --master-accelerator count=2",
     "argument --master-accelerator: Key [type] required in dict arg but not provided"),
])
def test_convert_gcloud_refusals_are_one_clear_message(line: str, says: str, tmp_path: Path) -> None:
    proc = run_cli("convert", "--gcloud", line, cwd=tmp_path)
    no_traceback(proc)
    assert proc.returncode == 1
    assert says in proc.stderr and "<gcloud command>" in proc.stderr


def test_a_config_without_scale_tier_is_basic_with_a_warning(tmp_path: Path) -> None:
    config = tmp_path / "hptuning_config.yaml"
    config.write_text((ROOT / "tests" / "gcloud" / "configs" / "hyper.yaml").read_text())
    proc = run_cli("convert", str(config), "--region", "us-east1", "--module-name", "trainer.task",
                   "--package-path", "trainer", "--job-dir", "gs://my-bucket/j")
    no_traceback(proc)
    assert "trainingInput.scaleTier is required" not in proc.stderr + proc.stdout
    assert "scaleTier is not set: read as BASIC" in proc.stderr + proc.stdout


AIP_DESCRIBE = {
    "jobId": "census_20260101", "state": "SUCCEEDED", "createTime": "2026-01-01T00:00:00Z",
    "startTime": "2026-01-01T00:01:00Z", "endTime": "2026-01-01T01:00:00Z", "etag": "abc=",
    "trainingOutput": {"consumedMLUnits": 1.2},
    "trainingInput": {
        "scaleTier": "CUSTOM", "masterType": "n1-highcpu-16",
        "masterConfig": {"acceleratorConfig": {"count": "4", "type": "NVIDIA_TESLA_T4"}},
        "workerType": "n1-highcpu-16", "workerCount": "2",
        "workerConfig": {"acceleratorConfig": {"count": "4", "type": "NVIDIA_TESLA_T4"}},
        "packageUris": ["gs://my-bucket/packages/trainer-0.1.tar.gz"], "pythonModule": "trainer.task",
        "region": "us-central1", "runtimeVersion": "2.11", "pythonVersion": "3.7",
        "jobDir": "gs://my-bucket/census", "enableWebAccess": False, "args": ["--epochs", "3"],
    },
}
VERTEX_DESCRIBE = {
    "name": "projects/123/locations/europe-west4/customJobs/456", "displayName": "cassava multi-worker",
    "state": "JOB_STATE_SUCCEEDED", "createTime": "2026-01-01T00:00:00Z", "updateTime": "2026-01-01T01:00:00Z",
    "labels": {"team": "vision"},
    "jobSpec": {
        "workerPoolSpecs": [
            {"machineSpec": {"machineType": "n1-standard-8", "acceleratorType": "NVIDIA_TESLA_T4",
                             "acceleratorCount": 1},
             "replicaCount": "1", "diskSpec": {"bootDiskType": "pd-ssd", "bootDiskSizeGb": 100},
             "containerSpec": {"imageUri": "us-docker.pkg.dev/p/r/trainer:1", "args": ["--epochs", "3"]}},
            {"machineSpec": {"machineType": "n1-standard-8", "acceleratorType": "NVIDIA_TESLA_T4",
                             "acceleratorCount": 1},
             "replicaCount": "2", "diskSpec": {"bootDiskType": "pd-ssd", "bootDiskSizeGb": 100},
             "containerSpec": {"imageUri": "us-docker.pkg.dev/p/r/trainer:1", "args": ["--epochs", "3"]}},
        ],
    },
}


def test_convert_an_ai_platform_describe_output(tmp_path: Path) -> None:
    path = tmp_path / "job.json"
    path.write_text(json.dumps(AIP_DESCRIBE))
    proc = run_cli("convert", str(path))
    no_traceback(proc)
    assert proc.returncode == 0, proc.stderr
    native = yaml.safe_load(proc.stdout)
    assert native["metadata"]["name"] == "census_20260101"
    assert native["spec"]["workerPools"]["workers"]["replicas"] == 2
    for key in ("state", "createTime", "trainingOutput", "etag"):
        assert f"# note: {key} is set by the service (output only): ignored" in proc.stdout


def test_convert_a_vertex_describe_output(tmp_path: Path) -> None:
    path = tmp_path / "job.json"
    path.write_text(json.dumps(VERTEX_DESCRIBE))
    proc = run_cli("convert", str(path), "--output", "request")
    no_traceback(proc)
    assert proc.returncode == 0, proc.stderr
    req = json.loads(proc.stdout)
    assert req["parent"].endswith("/locations/europe-west4")  # the region comes from the job's name
    assert req["body"]["displayName"] == "cassava multi-worker"
    assert req["body"]["jobSpec"]["workerPoolSpecs"][1]["replicaCount"] in (2, "2")  # int64: JSON writes "2"
    native = yaml.safe_load(run_cli("convert", str(path)).stdout)
    assert native["metadata"]["name"] == "cassava_multi_worker"  # from the display name, made valid
    assert native["spec"]["workerPools"]["workers"]["replicas"] == 2


def test_gcloud_job_fields_reach_the_request() -> None:
    """--network, --enable-web-access, --enable-dashboard-access, --persistent-resource-id and --kms-key
    end up where gcloud puts them: the job spec, and the job's encryptionSpec."""
    from .conftest import run_cli

    vertex = run_cli("convert", "--gcloud", "gcloud ai custom-jobs create --region=us-central1 --display-name=j "
                     "--worker-pool-spec=machine-type=n1-standard-4,replica-count=1,container-image-uri=gcr.io/p/i:1 "
                     "--network=projects/1/global/networks/n --enable-web-access --enable-dashboard-access "
                     "--persistent-resource-id=pr-1 --kms-key=projects/p/locations/us-central1/keyRings/r/cryptoKeys/k",
                     "--output", "request")
    assert vertex.returncode == 0, vertex.stderr
    body = json.loads(vertex.stdout)["body"]
    assert {k: body["jobSpec"][k] for k in ("network", "enableWebAccess", "enableDashboardAccess",
                                             "persistentResourceId")} == {
        "network": "projects/1/global/networks/n", "enableWebAccess": True, "enableDashboardAccess": True,
        "persistentResourceId": "pr-1"}
    assert body["encryptionSpec"] == {"kmsKeyName": "projects/p/locations/us-central1/keyRings/r/cryptoKeys/k"}
    legacy = run_cli("convert", "--gcloud", "gcloud ai-platform jobs submit training j1 --region=us-central1 "
                     "--master-image-uri=gcr.io/p/i --scale-tier=basic --enable-web-access "
                     "--kms-key=projects/p/locations/us-central1/keyRings/r/cryptoKeys/k", "--output", "request")
    assert legacy.returncode == 0, legacy.stderr
    body = json.loads(legacy.stdout)["body"]
    assert body["jobSpec"]["enableWebAccess"] is True
    assert body["encryptionSpec"] == {"kmsKeyName": "projects/p/locations/us-central1/keyRings/r/cryptoKeys/k"}
    assert "does not carry" not in vertex.stderr + legacy.stderr


def test_a_tuning_body_count_of_0_as_a_string_is_not_given_as_gcloud_reads_it(tmp_path: Path) -> None:
    """maxTrialCount "0" (a quoted count, as hand-written configs and REST bodies write int32) is 0: not given, so
    1 (gcloud's HpTuningJobsClient.Create), said in a warning; "03" and " 4" are the numbers int() reads."""
    from .test_vertex_tuning import HEATMAP_CONFIG

    body = {k: v for k, v in yaml.safe_load(HEATMAP_CONFIG).items() if k not in ("maxTrialCount", "parallelTrialCount")}
    for counts, trials in (({"maxTrialCount": "0", "parallelTrialCount": "0"}, (1, 1)),
                           ({"maxTrialCount": "03", "parallelTrialCount": " 4"}, (3, 4))):
        path = tmp_path / "tune.yaml"
        path.write_text(yaml.safe_dump({"apiVersion": "trainjobs/v1", "kind": "TrainingJob", "metadata": {"name": "t"},
                                        "spec": {"region": "us-central1", "displayName": "t", **body, **counts}}))
        proc = run_cli("convert", str(path), cwd=tmp_path)
        no_traceback(proc)
        assert proc.returncode == 0, proc.stderr
        written = yaml.safe_load(proc.stdout)["spec"]["hyperparameters"]
        assert (written["maxTrials"], written["maxParallelTrials"]) == trials
        zero = [k for k, v in counts.items() if v == "0"]
        for key in zero:
            assert f"# warning: {key} is '0': gcloud reads a count of 0 as not given, so the job runs 1" in proc.stdout
        assert "gcloud reads a count of 0" in proc.stdout if zero else "gcloud reads a count of 0" not in proc.stdout


AIP_NO_VERTEX_PLACE = """\
trainingInput:
  scaleTier: BASIC
  region: us-central1
  packageUris: [gs://b/trainer-0.1.tar.gz]
  pythonModule: trainer.task
  runtimeVersion: '2.11'
  pythonVersion: '3.7'
  scheduling: {maxRunningTime: 7200s, priority: PRIORITY}
  hyperparameters:
    goal: MAXIMIZE
    hyperparameterMetricTag: acc
    maxTrials: 4
    enableTrialEarlyStopping: EARLY
    RESUME
    params:
    - {parameterName: lr, type: DOUBLE, minValue: 0.001, maxValue: 0.1, scaleType: UNIT_LOG_SCALE}
"""


@pytest.mark.parametrize("given", [True, False])
def test_ai_platform_fields_vertex_has_no_place_for_are_named_never_dropped(tmp_path: Path, given: bool) -> None:
    """scheduling.priority, hyperparameters.enableTrialEarlyStopping and resumePreviousJobId (ml v1 fields) have
    no Vertex AI field: set, each is named in a warning with what happens instead; at their defaults, nothing."""
    text = AIP_NO_VERTEX_PLACE.replace("PRIORITY", "3" if given else "0").replace("EARLY", str(given).lower())
    text = text.replace("RESUME", "resumePreviousJobId: old_tuning_job" if given else "")
    path = tmp_path / "config.yaml"
    path.write_text(text)
    proc = run_cli("convert", str(path), cwd=tmp_path)
    no_traceback(proc)
    assert proc.returncode == 0, proc.stderr
    said = [
        "# warning: trainingInput.scheduling.priority (3) is not sent to Vertex AI: Vertex AI's Scheduling has no "
        "priority among jobs",
        "# warning: trainingInput.hyperparameters.enableTrialEarlyStopping (true) is not sent to Vertex AI: Vertex AI "
        "stops trials early only with a studySpec stopping spec",
        "# warning: trainingInput.hyperparameters.resumePreviousJobId (\"old_tuning_job\") is not sent to Vertex AI: "
        "a Vertex AI tuning job cannot continue an AI Platform job's study",
    ]
    for line in said:
        assert (line in proc.stdout) is given, proc.stdout
    request = json.loads(run_cli("convert", str(path), "--format", "request", cwd=tmp_path).stdout)["body"]
    assert request["maxTrialCount"] == 4 and request["trialJobSpec"]["scheduling"] == {"timeout": "7200s"}


def test_container_args_beside_training_input_args_are_refused_as_ai_platform_refuses_them(tmp_path: Path) -> None:
    """ml v1 ReplicaConfig: containerCommand and containerArgs are each mutually exclusive with trainingInput.args
    (job_rules.json aip.container_command_args); trainjobs used to join them in silence."""
    base = ("trainingInput:\n  scaleTier: CUSTOM\n  masterType: n1-standard-4\n  region: us-central1\n"
            "  masterConfig:\n    imageUri: gcr.io/p/trainer:1\n    containerArgs: [--foo]\n")
    path = tmp_path / "config.yaml"
    path.write_text(base + "  args: [--epochs, '3']\n")
    proc = run_cli("convert", str(path), cwd=tmp_path)
    no_traceback(proc)
    assert proc.returncode == 1
    assert "config.yaml:7:20: error: masterConfig.containerArgs and trainingInput.args are both set: AI Platform " \
           "refuses them together" in proc.stderr, proc.stderr
    path.write_text(base)
    proc = run_cli("convert", str(path), "--format", "request", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["body"]["jobSpec"]["workerPoolSpecs"][0]["containerSpec"]["args"] == ["--foo"]


def test_an_ai_platform_trial_count_of_0_is_its_default_one_and_said(tmp_path: Path) -> None:
    """ml v1 HyperparameterSpec: maxTrials and maxParallelTrials default to one; gcloud sends a config's "0" as 0
    (unset), so the job runs one trial at a time, said in a warning; "05" is five, as apitools reads it."""
    path = tmp_path / "config.yaml"
    path.write_text(AIP_NO_VERTEX_PLACE.replace("PRIORITY", "0").replace("EARLY", "false").replace("RESUME", "")
                    .replace("maxTrials: 4", "maxTrials: '0'\n    maxParallelTrials: '05'"))
    proc = run_cli("convert", str(path), cwd=tmp_path)
    no_traceback(proc)
    assert proc.returncode == 0, proc.stderr
    assert "# warning: maxTrials is '0': AI Platform reads a count of 0 as not given (its default, one), so the " \
           "job runs 1" in proc.stdout
    written = yaml.safe_load(proc.stdout)["spec"]["hyperparameters"]
    assert (written["maxTrials"], written["maxParallelTrials"]) == (1, 5)


# Shapes of public REST bodies of projects.locations.customJobs.create, found with the search tool (find_string
# ids 54511118889 and 36510813970; repositories not named): a CustomJob's own fields beside its jobSpec.
REST_CUSTOM_JOB = {
    "displayName": "sm-equivalent-train",
    "jobSpec": {"workerPoolSpecs": [{"machineSpec": {"machineType": "n1-standard-8", "acceleratorType": "NVIDIA_TESLA_T4",
                                                     "acceleratorCount": 1},
                                     "replicaCount": 1, "containerSpec": {"imageUri": "gcr.io/p/trainer:1"}}],
                "baseOutputDirectory": {"outputUriPrefix": "gs://my-bucket/output"}, "enableWebAccess": False,
                "scheduling": {"restartJobOnWorkerRestart": True}},
    "labels": {"team": "ml"},
    "encryptionSpec": {"kmsKeyName": "projects/p/locations/us-central1/keyRings/r/cryptoKeys/k"},
}


def test_a_custom_job_bodys_own_fields_reach_the_request(tmp_path: Path) -> None:
    path = tmp_path / "request.json"
    path.write_text(json.dumps(REST_CUSTOM_JOB))
    proc = run_cli("convert", str(path), "--region", "us-central1", "--output", "request")
    no_traceback(proc)
    assert proc.returncode == 0, proc.stderr
    body = json.loads(proc.stdout)["body"]
    assert body["encryptionSpec"] == REST_CUSTOM_JOB["encryptionSpec"]
    assert body["labels"] == {"team": "ml"} and body["displayName"] == "sm-equivalent-train"
    assert body["jobSpec"]["scheduling"] == {"restartJobOnWorkerRestart": True}


def test_a_field_a_custom_job_does_not_have_is_refused_by_name(tmp_path: Path) -> None:
    """experimentConfig is no CustomJob field (experiment and experimentRun are the jobSpec's): never dropped."""
    path = tmp_path / "request.json"
    path.write_text(json.dumps({**REST_CUSTOM_JOB, "experimentConfig": {"experiment": "exp-1"}}))
    proc = run_cli("convert", str(path), "--region", "us-central1")
    no_traceback(proc)
    assert proc.returncode == 1 and not proc.stdout
    assert "unknown key 'experimentConfig' in spec" in proc.stderr
    assert "did you mean 'experiment' or 'experimentRun'?" in proc.stderr


@pytest.mark.parametrize(("key", "value", "field"), [
    ("serviceAccount", "sa@p.iam.gserviceaccount.com", "serviceAccount"),  # tests/gcloud/rest c7_iq_h200_body
    ("service_account", "sa@p.iam.gserviceaccount.com", "serviceAccount"),
    ("network", "projects/1/global/networks/n", "network"),
    ("workerPoolSpecs", [], "workerPoolSpecs"),
])
def test_a_job_spec_field_beside_the_job_spec_is_refused_at_its_line(tmp_path: Path, key: str, value: object,
                                                                      field: str) -> None:
    """A CustomJob has no serviceAccount (the CustomJobSpec has): the REST API refuses such a body; trainjobs used to
    read it as the jobSpec's own, running a job the body does not describe."""
    path = tmp_path / "request.json"
    path.write_text(json.dumps({**REST_CUSTOM_JOB, key: value}, indent=1))
    proc = run_cli("convert", str(path), "--region", "us-central1", "--output", "request")
    no_traceback(proc)
    assert proc.returncode == 1 and not proc.stdout
    line = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if text.startswith(f' "{key}"'))
    assert f"request.json:{line}:2: {key} is a field of the CustomJobSpec, written beside jobSpec" in proc.stderr
    assert f"write it under jobSpec (as jobSpec.{field})" in proc.stderr


def test_a_legacy_machine_name_is_said_with_what_it_became(tmp_path: Path) -> None:
    """The converted spec names only the Compute Engine type: the name the user wrote is in a note,
    as a comment in YAML and on stderr beside JSON (issue 29: each message names what the user wrote)."""
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump({"trainingInput": {
        "scaleTier": "CUSTOM", "masterType": "complex_model_m", "workerType": "complex_model_l", "workerCount": 2,
        "packageUris": ["gs://b/trainer-0.1.tar.gz"], "pythonModule": "trainer.task", "region": "us-central1",
        "masterConfig": {"imageUri": "us-docker.pkg.dev/p/r/trainer:1"}}}))
    proc = run_cli("convert", str(path))
    no_traceback(proc)
    assert proc.returncode == 0, proc.stderr
    native = yaml.safe_load(proc.stdout)
    chief, workers = native["spec"]["workerPools"]["chief"], native["spec"]["workerPools"]["workers"]
    assert f"# note: the chief pool's legacy machine type complex_model_m is written as machineType " \
           f"{chief['machineType']}" in proc.stdout
    assert f"# note: the workers pool's legacy machine type complex_model_l is written as machineType " \
           f"{workers['machineType']}" in proc.stdout
    proc = run_cli("convert", str(path), "--format", "request")
    assert proc.returncode == 0, proc.stderr
    assert "legacy machine type complex_model_m is written as machineType" in proc.stderr
    assert "complex_model" not in proc.stdout  # the request holds what Vertex AI runs


def test_ai_platform_hyperparameter_numbers_written_as_strings_are_numbers(tmp_path: Path) -> None:
    """ml v1 ParameterSpec's minValue, maxValue and discreteValues are doubles: gcloud's apitools reads a config's
    '0.001' as 0.001, as the REST API's JSON reader does (corpus c7_aip_*_as_strings); trainjobs refused them."""
    path = tmp_path / "config.yaml"
    path.write_text("trainingInput:\n  scaleTier: BASIC\n  region: us-central1\n  masterConfig: {imageUri: gcr.io/p/t:1}\n"
                    "  hyperparameters:\n    goal: MAXIMIZE\n    hyperparameterMetricTag: acc\n    maxTrials: 4\n"
                    "    params:\n    - {parameterName: lr, type: DOUBLE, minValue: '0.001', maxValue: '0.1'}\n"
                    "    - {parameterName: bs, type: DISCRETE, discreteValues: ['16', '32']}\n")
    proc = run_cli("convert", str(path), "--format", "request", cwd=tmp_path)
    no_traceback(proc)
    assert proc.returncode == 0, proc.stderr
    parameters = json.loads(proc.stdout)["body"]["studySpec"]["parameters"]
    assert parameters[0]["doubleValueSpec"] == {"minValue": 0.001, "maxValue": 0.1}
    assert parameters[1]["discreteValueSpec"] == {"values": [16.0, 32.0]}
    path.write_text(path.read_text().replace("'0.001'", "'small'"))
    proc = run_cli("convert", str(path), cwd=tmp_path)
    assert proc.returncode == 1 and "minValue" in proc.stderr, proc.stderr


@pytest.mark.parametrize(("worker", "command", "args", "warned"), [
    ({"imageUri": "gcr.io/p/worker:1"}, None, None, "containerCommand or containerArgs"),
    ({"containerArgs": ["--role", "worker"]}, None, ["--role", "worker"], "containerCommand:"),
    ({"imageUri": "gcr.io/p/worker:1", "containerCommand": ["sh"], "containerArgs": ["-c", "w"]}, ["sh"], ["-c", "w"],
     None),
    ({}, ["python", "train.py"], ["--role", "chief"], None),  # no container config of its own: the master's
])
def test_an_ai_platform_replica_takes_only_the_masters_image(tmp_path: Path, worker: dict[str, object],
                                                             command: list[str] | None, args: list[str] | None,
                                                             warned: str | None) -> None:
    """A ReplicaConfig's containerCommand and containerArgs are its own (none: the image's ENTRYPOINT and CMD);
    only imageUri falls back to masterConfig's. A worker with a container config of its own does not run the
    master's command or arguments, and the user is told so by name."""
    ti: dict[str, object] = {
        "region": "us-central1", "scaleTier": "CUSTOM", "masterType": "n1-standard-8",
        "workerType": "n1-standard-8", "workerCount": 2,
        "masterConfig": {"imageUri": "gcr.io/p/master:1", "containerCommand": ["python", "train.py"],
                         "containerArgs": ["--role", "chief"]},
    }
    if worker:
        ti["workerConfig"] = worker
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"trainingInput": ti}))
    proc = run_cli("convert", str(path), "--output", "request")
    no_traceback(proc)
    assert proc.returncode == 0, proc.stderr
    pools = json.loads(proc.stdout)["body"]["jobSpec"]["workerPoolSpecs"]
    assert pools[0]["containerSpec"]["command"] == ["python", "train.py"]
    spec = pools[1]["containerSpec"]
    assert spec["imageUri"] == worker.get("imageUri", "gcr.io/p/master:1")
    assert (spec.get("command"), spec.get("args")) == (command, args)
    notes = [line for line in proc.stderr.splitlines() if "workerConfig sets no" in line]
    assert bool(notes) == (warned is not None) and (warned is None or warned in notes[0]), proc.stderr


def _messages(result: object, severity: str) -> list[str]:
    return sorted(p.message for p in result.problems if p.severity.value == severity)  # type: ignore[attr-defined]


@pytest.mark.parametrize("training_input, machine", [
    ("scaleTier: STANDARD_1", "n1-highcpu-8"),  # the tier's chief and workers
    ("scaleTier: CUSTOM\n  masterType: complex_model_s\n  workerType: complex_model_s\n  workerCount: 2", "n1-highcpu-8"),
])
def test_a_legacy_machine_no_native_pool_takes_keeps_ai_platform_form(tmp_path: Path, training_input: str,
                                                                       machine: str) -> None:
    """AI Platform's STANDARD_1 and complex_model_s run n1-highcpu-8, which Vertex AI does not offer for training:
    a native pool's machineType refuses it. The written spec keeps AI Platform's form, so validate gives it the
    verdict the input had (valid, with the same warnings) and it builds the same request."""
    config = tmp_path / "config.yaml"
    config.write_text(f"trainingInput:\n  {training_input}\n  region: us-central1\n"
                      "  masterConfig: {imageUri: gcr.io/p/i}\nlabels: {team: a}\n")
    proc = run_cli("convert", str(config))
    no_traceback(proc)
    assert proc.returncode == 0, proc.stderr
    written = yaml.safe_load(proc.stdout)
    assert "trainingInput" in written["spec"] and "workerPools" not in written["spec"]
    assert f"runs {machine}, a machine type a native spec's machineType does not take" in proc.stdout
    assert "is written as machineType" not in proc.stdout  # it is not: the legacy name stays
    wrapped = {"apiVersion": "trainjobs/v1", "kind": "TrainingJob", "metadata": {"name": "config"},
               "spec": yaml.safe_load(config.read_text())}
    original, converted = validate_data(wrapped), validate_data(written)
    assert original.job is not None and converted.job is not None
    assert _messages(converted, "error") == _messages(original, "error") == []
    assert _messages(converted, "warning") == _messages(original, "warning") != []
    assert build_request(converted.job, "p").body == build_request(original.job, "p").body


def test_a_legacy_machine_vertex_offers_is_written_natively(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text("trainingInput:\n  scaleTier: CUSTOM\n  masterType: complex_model_m\n  region: us-central1\n"
                      "  masterConfig: {imageUri: gcr.io/p/i}\n")
    proc = run_cli("convert", str(config))
    assert proc.returncode == 0, proc.stderr
    written = yaml.safe_load(proc.stdout)
    assert written["spec"]["workerPools"]["chief"] == {"machineType": "n1-highcpu-16"}
    assert validate_data(written).ok


def test_an_sdk_staging_bucket_with_a_path_round_trips(tmp_path: Path) -> None:
    """aiplatform.init(staging_bucket='gs://b/staging/run1'): the SDK takes a path, and so does the written spec's
    stagingBucket (packages are staged under it); the output directory is the SDK's, under the same path."""
    (tmp_path / ".git").mkdir()
    script = tmp_path / "train.py"
    script.write_text(
        "from google.cloud import aiplatform\n"
        "aiplatform.init(project='p', location='us-central1', staging_bucket='gs://my-bucket/staging/run1')\n"
        "job = aiplatform.CustomJob(display_name='j', worker_pool_specs=[{'machine_spec': {'machine_type': "
        "'n1-standard-4'}, 'replica_count': 1, 'container_spec': {'image_uri': 'gcr.io/p/i'}}])\n"
        "job.run()\n")
    proc = run_cli("convert", str(script))
    no_traceback(proc)
    assert proc.returncode == 0, proc.stderr
    written = yaml.safe_load(proc.stdout)
    assert written["spec"]["stagingBucket"] == "gs://my-bucket/staging/run1"
    assert written["spec"]["baseOutputDirectory"] == "gs://my-bucket/staging/run1/aiplatform-custom-job-j"
    result = validate_data(written)
    assert result.ok, [p.message for p in result.problems]
    from provider.packaging import staging_base
    assert result.job is not None and staging_base(result.job) == "gs://my-bucket/staging/run1/trainjobs"


_MERGED = """workerPoolSpecs:
  - &chief
    machineSpec:
      machineType: n1-standard-4
    replicaCount: 1
    containerSpec:
      imageUri: gcr.io/p/i
      args: [--lr, '0.001']
  - <<: *chief
    replicaCount: 2
"""


def test_a_config_file_alone_is_read_as_its_config_flag_reads_it(tmp_path: Path) -> None:
    """`convert job.yaml` and `convert --gcloud "... --config job.yaml"` read one file one way: gcloud's (YAML 1.1:
    a merge key merges), each reading named."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "job.yaml").write_text(_MERGED)
    alone = run_cli("convert", "job.yaml", "--region", "us-central1", "--output", "request", cwd=tmp_path)
    flag = run_cli("convert", "--gcloud", "gcloud ai custom-jobs create --region us-central1 --display-name job "
                   "--config job.yaml", "--output", "request", cwd=tmp_path)
    no_traceback(alone)
    no_traceback(flag)
    assert (alone.returncode, flag.returncode) == (flag.returncode, flag.returncode)
    assert "the merge key << is read as gcloud reads it" in alone.stderr
    if flag.returncode == 0:
        assert json.loads(alone.stdout)["body"]["jobSpec"] == json.loads(flag.stdout)["body"]["jobSpec"]
        pools = json.loads(alone.stdout)["body"]["jobSpec"]["workerPoolSpecs"]
        assert [p["replicaCount"] for p in pools] == ["1", "2"] and pools[1]["containerSpec"]["imageUri"] == "gcr.io/p/i"
    else:  # both refuse it, for the same reason, at the same line
        assert [ln for ln in alone.stderr.splitlines() if "error:" in ln] == \
            [ln for ln in flag.stderr.splitlines() if "error:" in ln]


def test_a_spec_keeps_refusing_a_merge_key(tmp_path: Path) -> None:
    """A trainjobs spec is read by YAML 1.2 tools too (editors, the Pulumi program): << stays refused there."""
    spec = tmp_path / "spec.yaml"
    spec.write_text("apiVersion: trainjobs/v1\nkind: TrainingJob\nmetadata: {name: s}\nspec:\n  region: us-central1\n"
                    "  workerPools:\n    chief: &c {machineType: n1-standard-4}\n    workers:\n      <<: *c\n"
                    "      replicas: 2\n  application: {container: {image: gcr.io/p/i}}\n")
    proc = run_cli("convert", str(spec))
    assert proc.returncode == 1 and "the merge key << is a YAML 1.1 construct" in proc.stderr


def test_a_missing_region_is_said_once_with_where_it_comes_from(tmp_path: Path) -> None:
    """The schema's "missing the required key 'region'" and the rule's "the job has no region" were two errors for
    one cause; the rule's, which says where a region comes from (convert's --region too), is the one kept."""
    config = tmp_path / "job.yaml"
    config.write_text("workerPoolSpecs:\n- machineSpec: {machineType: n1-standard-4}\n  replicaCount: 1\n"
                      "  containerSpec: {imageUri: gcr.io/p/i}\n")
    proc = run_cli("convert", str(config))
    no_traceback(proc)
    assert proc.returncode == 1
    errors = [ln for ln in proc.stderr.splitlines() if ": error: " in ln]
    assert errors == [f"{config}:1:1: error: the job has no region"], proc.stderr
    assert "trainjobs convert FILE --region REGION" in proc.stderr
    native = {"apiVersion": "trainjobs/v1", "kind": "TrainingJob", "metadata": {"name": "n"},
              "spec": {"workerPools": {"chief": {"machineType": "n1-standard-4"}},
                       "application": {"container": {"image": "gcr.io/p/i"}}}}
    assert [p.message for p in validate_data(native).problems if p.is_error] == ["the job has no region"]
    # a missing key no rule is made to say keeps the schema's words
    del native["spec"]["application"]
    native["spec"]["region"] = "us-central1"
    assert any("missing the required key 'application'" in p.message for p in validate_data(native).problems)


def test_a_json_spec_holds_json_numbers_in_validate_as_in_convert(tmp_path: Path) -> None:
    """`1e-05` in a JSON file is JSON's number to every reader of JSON: validate took it as YAML 1.1's string and refused
    the very file convert took (json_numbers.as_json, one reading for both); in a YAML spec it stays refused."""
    import yaml

    spec = yaml.safe_load((ROOT / "specs" / "vision" / "hptune_container.yaml").read_text())
    text = json.dumps(spec, indent=2).replace('"min": 0.0001', '"min": 1e-05')
    assert '"min": 1e-05' in text
    as_json = validate_bytes(text.encode(), "hptune.json")
    assert as_json.ok and as_json.job is not None, [p.message for p in as_json.problems]
    assert as_json.job.hyperparameters is not None and as_json.job.hyperparameters.params[0].min == 1e-05
    as_yaml = validate_bytes(yaml.safe_dump(spec, sort_keys=False).replace("min: 0.0001", "min: 1e-05").encode(),
                             "hptune.yaml")
    assert any("unquoted 1e-05 is ambiguous" in p.message for p in as_yaml.problems)


def test_an_int64_tuning_bound_is_sent_exactly() -> None:
    """maxValue '1234567890123456789' (int64, as REST writes it) was read as a double and sent as
    1234567890123456768; it is kept exact, and the written spec holds it as a string of digits."""
    body = ROOT / "tests" / "fixtures" / "round_trip" / "tuning_job_int64_bound_19_digits.json"
    proc = run_cli("convert", str(body), "--region", "us-central1", "--output", "request")
    assert proc.returncode == 0, proc.stderr
    spec = json.loads(proc.stdout)["body"]["studySpec"]["parameters"][1]["integerValueSpec"]
    assert spec == {"minValue": "1", "maxValue": "1234567890123456789"}
    written = yaml.safe_load(run_cli("convert", str(body), "--region", "us-central1").stdout)
    layers = written["spec"]["hyperparameters"]["params"][1]
    assert (layers["min"], layers["max"]) == (1, "1234567890123456789")
    assert validate_data(written).ok
