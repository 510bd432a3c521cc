"""What the round-5 public inputs (corpus.yaml, issue 29) showed, checked without gcloud installed.

The gcloud oracle (test_gcloud_oracle.py) compares each corpus command with what gcloud sends;
these tests hold the three readings it found wrong where gcloud is not installed:
``--service-account`` is checked as gcloud checks it, a ``KEY: null`` in a config is a field not
set (named in a note), and ``--packages`` takes local files, uploaded with the job.
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
