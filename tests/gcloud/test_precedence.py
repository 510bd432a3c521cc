"""How flags meet ``--config`` in ``convert --gcloud``, without gcloud: the notes, the refusals, and a way forward.

test_flag_table.py checks the requests against gcloud itself; this file checks what the user
reads: each flag gcloud leaves unapplied is named with the fix, each refusal names what was
written, and a local package without a bucket gets one from ``--staging-bucket`` or ``--stack``
(run as a user runs ``trainjobs convert``, in a real git repository).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from provider.gcloud.build import build
from provider.gcloud.command import GcloudError, Generation, parse
from provider.gcloud.words import split_words
from provider.validation.rules import Context
from provider.validation.validator import check_document

from ..conftest import ROOT, no_traceback, run_cli

IMAGE = "us-docker.pkg.dev/vertex-ai/training/pytorch-gpu.2-4.py310:latest"
TUNING = """\
displayName: old
studySpec:
  metrics: [{metricId: loss, goal: MINIMIZE}]
  parameters: [{parameterId: lr, doubleValueSpec: {minValue: 0.001, maxValue: 0.1}}]
trialJobSpec:
  enableWebAccess: true
  workerPoolSpecs:
  - machineSpec: {machineType: n1-standard-4}
    replicaCount: 1
    containerSpec: {imageUri: gcr.io/p/c:1}
"""
LOCAL = ("gcloud ai custom-jobs create --region=us-central1 --display-name=local-pkg "
         f"--worker-pool-spec=machine-type=n1-standard-4,executor-image-uri={IMAGE},"
         "python-module=trainer.task,local-package-path=.")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True, timeout=60)
    (root / "trainer").mkdir()
    (root / "trainer" / "__init__.py").write_text("")
    (root / "trainer" / "task.py").write_text("print('hi')\n")
    return root


def _build(line: str, cwd: Path, bucket: str | None = None):  # type: ignore[no-untyped-def]
    return build(parse(split_words(line, {})), cwd, bucket)


def test_a_tuning_command_lays_its_flags_over_the_config_and_names_what_it_replaced(repo: Path) -> None:
    (repo / "tune.yaml").write_text(TUNING)
    cmd = parse(split_words("gcloud beta ai hp-tuning-jobs create --region=us-east1 --display-name=new "
                            "--config=tune.yaml --max-trial-count=0 --parallel-trial-count=2 --algorithm=GRID_SEARCH "
                            "--no-enable-web-access --labels=team=a", {}))
    assert cmd.generation is Generation.TUNING
    built = build(cmd, repo)
    spec = built.document["spec"]
    assert (spec["displayName"], spec["maxTrialCount"], spec["parallelTrialCount"]) == ("new", 1, 2)
    assert spec["studySpec"]["algorithm"] == "GRID_SEARCH" and spec["labels"] == {"team": "a"}
    assert spec["trialJobSpec"]["enableWebAccess"] is True and spec["region"] == "us-east1"
    notes = "\n".join(built.notes)
    assert "--display-name replaces the config's displayName ('old' -> 'new')" in notes
    assert "--max-trial-count=0 is not applied: gcloud reads 0 as not given" in notes
    assert "--no-enable-web-access is not applied" in notes and "Remove enableWebAccess" in notes


@pytest.mark.parametrize(("line", "message"), [
    ("gcloud ai hp-tuning-jobs create --region=us-central1 --display-name=t", "argument --config: Must be specified."),
    ("gcloud ai hp-tuning-jobs create --region=us-central1 --config=tune.yaml", "argument --display-name: Must be"),
    ("gcloud ai hp-tuning-jobs create --display-name=t --config=tune.yaml --algorithm=bayes",
     "argument --algorithm: Invalid choice: 'bayes'"),
    ("gcloud ai hp-tuning-jobs create --display-name=t --config=tune.yaml --worker-pool-spec=x",
     "unrecognized arguments: --worker-pool-spec"),
    ("gcloud ai hp-tuning-jobs create --display-name=t --config=tune.yaml -- --lr=1", "unrecognized arguments: --"),
])
def test_a_tuning_command_gcloud_refuses_is_refused_naming_the_flag(repo: Path, line: str, message: str) -> None:
    (repo / "tune.yaml").write_text(TUNING)
    with pytest.raises(GcloudError, match=message.replace("(", r"\(").replace("[", r"\[")):
        _build(line, repo)


def test_custom_job_flags_gcloud_leaves_unapplied_are_named_with_the_fix(repo: Path) -> None:
    (repo / "job.yaml").write_text(f"""\
enableWebAccess: true
workerPoolSpecs:
- machineSpec: {{machineType: n1-standard-4}}
  replicaCount: 1
  pythonPackageSpec: {{executorImageUri: "{IMAGE}", packageUris: [gs://b/old.tar.gz], pythonModule: trainer.task}}
""")
    built = _build("gcloud ai custom-jobs create --region=us-central1 --display-name=j --config=job.yaml "
                   "--python-package-uris=gs://b/new.tar.gz --no-enable-web-access --command=python --args=--x", repo)
    spec = built.document["spec"]
    package = spec["workerPoolSpecs"][0]["pythonPackageSpec"]
    assert package["packageUris"] == ["gs://b/old.tar.gz"] and package["args"] == ["--x"] and "command" not in package
    assert spec["enableWebAccess"] is True
    notes = "\n".join(built.notes)
    assert "--python-package-uris is not applied" in notes and "pythonPackageSpec.packageUris" in notes
    assert "--no-enable-web-access is not applied" in notes
    assert "--command for workerPoolSpecs[0] is not applied" in notes


def test_a_snake_case_config_keeps_its_pools_and_refuses_flag_pools(repo: Path) -> None:
    (repo / "job.yaml").write_text("worker_pool_specs:\n- machine_spec: {machine_type: n1-standard-4}\n"
                                   "  replica_count: 1\n  container_spec: {image_uri: gcr.io/p/c:1, args: [--old]}\n")
    head = "gcloud ai custom-jobs create --region=us-central1 --display-name=j --config=job.yaml "
    built = _build(head + "--args=--new --service-account=sa@p.iam.gserviceaccount.com", repo)
    spec = built.document["spec"]
    assert spec["worker_pool_specs"][0]["container_spec"]["args"] == ["--old"]
    assert spec["service_account"] == "sa@p.iam.gserviceaccount.com" and spec["display_name"] == "j"
    assert any(n.startswith("--args is not applied") for n in built.notes)
    result = check_document(built.document, "<t>", Context())
    assert not [p for p in result.problems if p.is_error], result.problems
    with pytest.raises(GcloudError, match="--worker-pool-spec cannot go with a --config in snake_case"):
        _build(head + "--worker-pool-spec=machine-type=n1-standard-4,container-image-uri=gcr.io/p/c:1", repo)


def test_a_package_pool_after_a_container_pool_is_refused_by_name() -> None:
    spec = {"region": "us-central1", "workerPoolSpecs": [
        {"machineSpec": {"machineType": "n1-standard-4"}, "containerSpec": {"imageUri": "gcr.io/p/c:1"}},
        {"machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": 2,
         "pythonPackageSpec": {"executorImageUri": IMAGE, "packageUris": ["gs://b/p.tar.gz"], "pythonModule": "t.m"}}]}
    result = check_document({"apiVersion": "trainjobs/v1", "kind": "TrainingJob", "metadata": {"name": "j"},
                             "spec": spec}, "<t>", Context())
    errors = [p for p in result.problems if p.is_error]
    assert [p.path for p in errors] == ["spec.workerPoolSpecs[1].pythonPackageSpec"], errors
    assert "cannot be carried" in errors[0].message


def test_tpu_tf_version_is_refused_by_name_with_the_fix() -> None:
    ti = {"scaleTier": "CUSTOM", "region": "us-central1", "masterType": "n1-standard-8",
          "masterConfig": {"imageUri": "gcr.io/p/tpu:1"}, "workerType": "cloud_tpu", "workerCount": 1,
          "workerConfig": {"imageUri": "gcr.io/p/tpu:1", "tpuTfVersion": "1.15",
                           "acceleratorConfig": {"type": "TPU_V2", "count": 8}}}
    result = check_document({"apiVersion": "trainjobs/v1", "kind": "TrainingJob", "metadata": {"name": "j"},
                             "spec": {"trainingInput": ti}}, "<t>", Context())
    errors = [p for p in result.problems if p.rule == "aip.tpuTfVersion"]
    assert len(errors) == 1 and errors[0].is_error
    assert errors[0].path == "spec.trainingInput.workerConfig.tpuTfVersion"
    assert "workerConfig.tpuTfVersion ('1.15'; gcloud --tpu-tf-version) has no Vertex AI field" in errors[0].message
    assert errors[0].allowed is not None and "remove tpuTfVersion" in errors[0].allowed


def test_a_local_package_without_a_bucket_names_the_options(repo: Path) -> None:
    proc = run_cli("convert", "--gcloud", LOCAL, cwd=repo)
    no_traceback(proc)
    assert proc.returncode == 1 and proc.stdout == ""
    assert "--staging-bucket gs://BUCKET" in proc.stderr and "--stack NAME" in proc.stderr


def test_staging_bucket_is_written_into_the_spec(repo: Path) -> None:
    proc = run_cli("convert", "--gcloud", LOCAL, "--staging-bucket", "gs://team-bucket", "--write", "job.yaml",
                   cwd=repo)
    no_traceback(proc)
    assert proc.returncode == 0, proc.stderr
    spec = yaml.safe_load((repo / "job.yaml").read_text())["spec"]
    assert spec["stagingBucket"] == "gs://team-bucket"
    assert spec["application"]["pythonPackage"]["module"] == "trainer.task"
    checked = run_cli("validate", "job.yaml", cwd=repo)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    bad = run_cli("convert", "--gcloud", LOCAL, "--staging-bucket", "gs://team-bucket/path", cwd=repo)
    assert bad.returncode == 1 and "Must be a valid Google Cloud Storage bucket" in bad.stderr


def test_stack_gives_its_team_bucket(repo: Path) -> None:
    (repo / "stacks").mkdir()
    shutil.copy(ROOT / "stacks" / "Pulumi.vision-dev.yaml", repo / "stacks" / "Pulumi.vision-dev.yaml")
    proc = run_cli("convert", "--gcloud", LOCAL, "--stack", "vision-dev", cwd=repo)
    no_traceback(proc)
    assert proc.returncode == 0, proc.stderr
    assert "stagingBucket" not in yaml.safe_load(proc.stdout)["spec"]
    assert "checked as stack vision-dev runs it: the package goes to its team bucket gs://" in proc.stdout
    missing = run_cli("convert", "--gcloud", LOCAL, "--stack", "prod", cwd=repo)
    assert missing.returncode == 1 and "--stack prod: no such stack" in missing.stderr
    assert "allowed: vision-dev" in missing.stderr


_VERTEX = ("gcloud ai custom-jobs create --region=us-central1 --display-name=x "
           "--worker-pool-spec=machine-type=n1-standard-4,container-image-uri=gcr.io/p/t")
_INPUTS = {  # each kind of convert input: how it is given
    "config": ["config.yaml"], "gcloud": ["--gcloud", _VERTEX], "script": ["train.sh"],
    "cloudbuild": ["cloudbuild.yaml"], "python": ["train.py"],
}
_OPTIONS = {"--cell": "2", "--staging-bucket": "gs://bkt", "--stack": "nope", "--name": "n", "--region": "us-east1",
            "--module-name": "m.t", "--package-path": "t", "--job-dir": "gs://bkt/d"}
_TAKEN = {"config": {"--name", "--region", "--module-name", "--package-path", "--job-dir"},
          "gcloud": {"--staging-bucket", "--stack"}, "script": {"--staging-bucket", "--stack"},
          "cloudbuild": {"--staging-bucket", "--stack"}, "python": {"--name"}}


@pytest.mark.parametrize("kind", list(_INPUTS))
def test_an_option_the_input_does_not_read_is_refused_never_dropped(kind: str, repo: Path) -> None:
    """Each convert option that goes only with some inputs is refused by name with every other input (it used to
    be dropped in silence: --region or --name beside --gcloud changed nothing)."""
    (repo / "config.yaml").write_text("trainingInput: {scaleTier: BASIC}\n")
    (repo / "train.sh").write_text(_VERTEX + "\n")
    (repo / "cloudbuild.yaml").write_text("steps:\n- name: gcr.io/cloud-builders/gcloud\n  args: [" +
                                          ", ".join(f"'{w}'" for w in _VERTEX.split()[1:]) + "]\n")
    (repo / "train.py").write_text("from google.cloud import aiplatform\n")
    for option, value in _OPTIONS.items():
        proc = run_cli("convert", *_INPUTS[kind], option, value, cwd=repo)
        no_traceback(proc)
        refused = f"{option} goes with" in proc.stderr
        assert refused is (option not in _TAKEN[kind]), (kind, option, proc.stderr)
        if refused:
            assert proc.returncode == 2, proc.stderr


def test_a_beta_only_flag_is_refused_in_the_ga_track_as_gcloud_refuses_it() -> None:
    line = "gcloud {}ai-platform jobs submit training j --region=us-central1 --master-image-uri=gcr.io/p/i:1 " \
           "--scale-tier=basic_tpu --tpu-tf-version=2.11"
    with pytest.raises(GcloudError, match="--tpu-tf-version flag is available in one or more alternate release"):
        parse(split_words(line.format(""), {}))
    assert parse(split_words(line.format("beta "), {})).values["tpuTfVersion"] == "2.11"


def test_labels_given_twice_add_up_and_a_key_given_twice_is_refused() -> None:
    head = "gcloud ai custom-jobs create --display-name=t --labels=team=vision "
    assert parse(split_words(head + "--labels=env=dev", {})).values["labels"] == {"team": "vision", "env": "dev"}
    with pytest.raises(GcloudError, match='argument --labels: "team" cannot be specified multiple times; received: '
                                          "vision, vision"):
        parse(split_words(head + "--labels=team=vision", {}))
