"""What the round-5 public inputs (corpus.yaml, issue 29) showed, checked without gcloud installed.

The gcloud oracle (test_gcloud_oracle.py) compares each corpus command with what gcloud sends;
these tests hold the three readings it found wrong where gcloud is not installed:
``--service-account`` is checked as gcloud checks it, a ``KEY: null`` in a config is a field not
set (named in a note), and ``--packages`` takes local files, uploaded with the job. Round 9 added: a ``--config`` is read as
YAML 1.1, as gcloud reads it, and an ``accelerator-type`` gcloud does not offer is refused in its words.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from provider.gcloud.build import build
from provider.gcloud.command import GcloudError, parse
from provider.gcloud.words import split_words
from provider.spec.model import PythonPackage
from provider.validation.rules import Context
from provider.validation.validator import check_document


def _repo(tmp_path: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "trainer").mkdir()
    (tmp_path / "trainer" / "__init__.py").write_text("")
    (tmp_path / "trainer" / "task.py").write_text("print('hello')\n")
    return tmp_path


def _build(line: str, cwd: Path):  # type: ignore[no-untyped-def]
    return build(parse(split_words(line, {})), cwd)


@pytest.mark.parametrize("account", ["SERVICE_ACCOUNT", "trainer@localhost", "my-sa"])
def test_a_service_account_that_is_neither_an_email_nor_an_id_is_refused_as_gcloud_refuses_it(account: str) -> None:
    for head in ("gcloud ai custom-jobs create --display-name d --region us-central1 "
                 "--worker-pool-spec=machine-type=n1-standard-4,container-image-uri=gcr.io/p/i",
                 "gcloud ai-platform jobs submit training j --region us-central1 --master-image-uri gcr.io/p/i"):
        with pytest.raises(GcloudError) as refused:
            parse(split_words(f"{head} --service-account={account}", {}))
        assert f"argument --service-account: Bad value [{account}]: Not a valid service account identifier" \
            in str(refused.value)


@pytest.mark.parametrize("account", ["sa@p.iam.gserviceaccount.com", "123456789012"])
def test_an_email_or_a_numeric_id_is_a_service_account(account: str) -> None:
    cmd = parse(split_words("gcloud ai custom-jobs create --display-name d --region us-central1 "
                            "--worker-pool-spec=machine-type=n1-standard-4,container-image-uri=gcr.io/p/i "
                            f"--service-account={account}", {}))
    assert cmd.values["serviceAccount"] == account


def test_a_null_in_a_config_is_a_field_not_set_and_named(tmp_path: Path) -> None:
    work = _repo(tmp_path)
    (work / "hps.yaml").write_text("trainingInput:\n  hyperparameters:\n    goal: MAXIMIZE\n    maxTrials: 4\n"
                                   "    hyperparameterMetricTag: acc\n    resumePreviousJobId: null\n    params:\n"
                                   "    - {parameterName: lr, type: DOUBLE, minValue: 0.1, maxValue: 0.5}\n")
    built = _build("gcloud ai-platform jobs submit training j --package-path trainer --module-name trainer.task "
                   "--region us-central1 --runtime-version 2.4 --python-version 3.7 --job-dir gs://my-bucket/j --config hps.yaml",
                   work)
    assert "resumePreviousJobId" not in built.document["spec"]["trainingInput"]["hyperparameters"]
    assert any("trainingInput.hyperparameters.resumePreviousJobId: null is read as not set" in n for n in built.notes)
    result = check_document(built.document, "<test>", Context())
    assert not [p for p in result.problems if p.is_error], result.problems


def test_local_packages_are_uploaded_with_the_job_and_must_exist(tmp_path: Path) -> None:
    work = _repo(tmp_path)
    (work / "dist").mkdir()
    (work / "dist" / "extra-0.1-py3-none-any.whl").write_bytes(b"PK")
    line = ("gcloud ai-platform jobs submit training j --module-name extra.task --region us-central1 "
            "--runtime-version 2.4 --python-version 3.7 --job-dir gs://my-bucket/j "
            "--packages dist/extra-0.1-py3-none-any.whl,gs://my-bucket/other.tar.gz")
    built = _build(line, work)
    result = check_document(built.document, "<test>", Context())
    assert not [p for p in result.problems if p.is_error], result.problems
    assert result.job is not None and isinstance(result.job.application, PythonPackage)
    assert result.job.application.package_uris == ("gs://my-bucket/other.tar.gz",)
    assert result.job.application.extra_packages == ("dist/extra-0.1-py3-none-any.whl",)
    with pytest.raises(GcloudError) as missing:
        _build(line.replace("extra-0.1", "missing-0.1"), work)
    assert "--packages dist/missing-0.1-py3-none-any.whl" in str(missing.value)


@pytest.mark.parametrize(("pool", "refusal"), [
    ("machine-type=n1-standard-4,executor-image-uri=gcr.io/p/train:1", "Key [python-module] is required."),
    ("machine-type=n1-standard-4,container-image-uri=gcr.io/p/i,python-module=t",
     "Key [python-module] is not allowed together with key [container-image-uri]."),
    ("machine-type=n1-standard-4", "Exactly one of keys [executor-image-uri, container-image-uri] is required."),
    ("container-image-uri=gcr.io/p/i", "Key [machine-type] required in dict arg but not provided."),
    ("machine-type=n1-standard-4,accelerator-count=1,container-image-uri=gcr.io/p/i",
     "Key [accelerator-type] required as [accelerator-count] is specified."),
    ("machine-type=n1-standard-4,container-image-uri=gcr.io/p/i,requirements=pandas",
     "Keys [requirements] are not allowed: Only allow to specify together with `local-package-path`"),
])
def test_worker_pool_specs_gcloud_refuses_are_refused_in_its_words(pool: str, refusal: str, tmp_path: Path) -> None:
    with pytest.raises(GcloudError) as refused:
        _build(f"gcloud ai custom-jobs create --region=us-central1 --display-name=d --worker-pool-spec={pool}", tmp_path)
    assert f"Invalid value for [--worker-pool-spec]: {refusal}" in str(refused.value)


def test_a_custom_job_without_config_or_pools_is_refused(tmp_path: Path) -> None:
    """--python-package-uris alone (a public plan's command): gcloud's argument group needs --config or a pool."""
    with pytest.raises(GcloudError) as refused:
        _build("gcloud ai custom-jobs create --region=us-east1 --display-name=d "
               "--python-package-uris=gs://my-bucket/trainer.tar.gz", tmp_path)
    assert "argument (--config --worker-pool-spec): Must be specified." in str(refused.value)


def test_every_unrecognized_flag_is_named_as_gcloud_names_them() -> None:
    with pytest.raises(GcloudError) as refused:
        parse(split_words("gcloud ai custom-jobs create --region=us-central1 --display-name=d --python-module=t "
                          "--machine-type n1-standard-4 --accelerator-count=1 --args=--x=1", {}))
    assert "unrecognized arguments: --python-module, --machine-type, --accelerator-count;" in str(refused.value)


def test_a_config_is_read_as_gcloud_reads_it_yaml_1_1_each_reading_named(tmp_path: Path) -> None:
    """gcloud loads --config as YAML 1.1 (googlecloudsdk.core.yaml): 1e-5 is a number there, yes a boolean,
    010 octal; the strict reader's YAML 1.1/1.2 refusals do not apply to what gcloud itself reads."""
    work = _repo(tmp_path)
    (work / "hp.yaml").write_text(
        "studySpec:\n  metrics: [{metricId: loss, goal: MINIMIZE}]\n  parameters:\n"
        "  - {parameterId: lr, doubleValueSpec: {minValue: 1e-5, maxValue: 1E-3}, scaleType: UNIT_LOG_SCALE}\n"
        "  - {parameterId: depth, integerValueSpec: {minValue: 010, maxValue: 1_000}}\n"
        "trialJobSpec:\n  enableWebAccess: yes\n  workerPoolSpecs:\n  - machineSpec: {machineType: n1-standard-4}\n"
        "    replicaCount: 1\n    containerSpec: {imageUri: gcr.io/p/i, args: ['08']}\n")
    built = _build("gcloud ai hp-tuning-jobs create --region=us-central1 --display-name=d --config=hp.yaml "
                   "--max-trial-count=2 --parallel-trial-count=1", work)
    spec = built.document["spec"]
    assert spec["studySpec"]["parameters"][0]["doubleValueSpec"] == {"minValue": 1e-05, "maxValue": 0.001}
    assert spec["studySpec"]["parameters"][1]["integerValueSpec"] == {"minValue": 8, "maxValue": 1000}
    assert spec["trialJobSpec"]["enableWebAccess"] is True
    assert spec["trialJobSpec"]["workerPoolSpecs"][0]["containerSpec"]["args"] == ["08"]  # quoted: a string
    readings = [n for n in built.notes if "as gcloud reads its --config (YAML 1.1)" in n]
    assert [n.split(": unquoted ")[1].split(" ")[0] for n in readings] == ["1e-5", "1E-3", "010", "1_000", "yes"]
    assert readings[0].endswith("hp.yaml:4:51: unquoted 1e-5 is read as gcloud reads its --config (YAML 1.1): 1e-05")
    result = check_document(built.document, "<test>", Context())
    assert not [p for p in result.problems if p.is_error], result.problems


def test_an_unreadable_config_is_still_refused_with_its_position(tmp_path: Path) -> None:
    work = _repo(tmp_path)
    (work / "hp.yaml").write_text("studySpec: {metrics: [}\n")
    with pytest.raises(GcloudError) as refused:
        _build("gcloud ai hp-tuning-jobs create --region=us-central1 --display-name=d --config=hp.yaml", work)
    assert "hp.yaml:1:" in str(refused.value)


@pytest.mark.parametrize("pool", [
    "machine-type=n1-standard-8,accelerator-type=nvidia-tesla-t4,accelerator-count=1,container-image-uri=gcr.io/p/i",
    "machine-type=n1-standard-8,accelerator-type=NVIDIA_TESLA_T4X,container-image-uri=gcr.io/p/i",
    "machine-type=n1-standard-8,accelerator-type=nvidia-tesla-t4,executor-image-uri=gcr.io/p/e,"
    "local-package-path=.,python-module=trainer.task",
])
def test_an_accelerator_type_is_taken_as_written_and_one_gcloud_does_not_offer_is_refused(pool: str,
                                                                                          tmp_path: Path) -> None:
    """gcloud compares accelerator-type with its enum's NVIDIA_/TPU_ names as written (validation.py): no case change."""
    work = _repo(tmp_path)
    with pytest.raises(GcloudError) as refused:
        _build(f"gcloud ai custom-jobs create --region=us-central1 --display-name=d --worker-pool-spec={pool}", work)
    written = pool.split("accelerator-type=")[1].split(",")[0]
    assert f"Invalid value for [--worker-pool-spec]: Found invalid value of [accelerator-type]: {written}. " \
           "Available values are [NVIDIA_A100_80GB, " in str(refused.value)
    # gcloud's own list, less the types the catalog says are retired (never offered as allowed)
    assert "TPU_V3, TPU_V5_LITEPOD]. (gcloud's list also holds retired types, left out here)" in str(refused.value)
    assert not any(r in str(refused.value) for r in ("NVIDIA_TESLA_K80", "NVIDIA_TESLA_P100", "TPU_V4_POD"))
