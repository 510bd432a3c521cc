"""gcloud's reading of the two training commands: flags, values, user args, refusals."""

from __future__ import annotations

from pathlib import Path

import pytest

from provider.gcloud.build import build
from provider.gcloud.command import GcloudError, Generation, parse
from provider.gcloud.words import split_words


def _parse(line: str):  # type: ignore[no-untyped-def]
    return parse(split_words(line, {}))


def test_every_track_and_both_spellings_of_the_command() -> None:
    for head in ("gcloud ai-platform", "gcloud ml-engine", "gcloud beta ai-platform", "gcloud alpha ml-engine"):
        cmd = _parse(f"{head} jobs submit training j1 --region us-east1")
        assert cmd.generation is Generation.AI_PLATFORM and cmd.job_id == "j1"
    for head in ("gcloud ai", "gcloud beta ai", "gcloud alpha ai"):
        assert _parse(f"{head} custom-jobs create --display-name d").generation is Generation.VERTEX


def test_flag_values_as_gcloud_reads_them() -> None:
    cmd = _parse("gcloud ai-platform jobs submit training j1 --scale-tier=BASIC_GPU --worker-count 9 "
                 "--master-accelerator count=4,type=nvidia-tesla-t4 --labels a=1,b=2 --packages x.tar.gz,y.whl "
                 "--enable-web-access --async --project p -- --epochs 3")
    assert cmd.values["scaleTier"] == "basic-gpu"
    assert cmd.values["workerCount"] == 9
    assert cmd.values["masterAccelerator"] == {"count": 4, "type": "NVIDIA_TESLA_T4"}
    assert cmd.values["labels"] == {"a": "1", "b": "2"}
    assert cmd.values["packages"] == ["x.tar.gz", "y.whl"]
    assert cmd.values["enableWebAccess"] is True
    assert cmd.user_args == ["--epochs", "3"]
    assert any("--async" in n for n in cmd.notes) and any("--project" in n for n in cmd.notes)


# core/properties.py ProjectValidator, as gcloud 528 words it (a public cheat sheet's --project=PROJECT_ID:
# find_string id 51978328803; the oracle corpus holds it as c9_hp_cheatsheet_project_name)
@pytest.mark.parametrize(("project", "says"), [
    ("PROJECT_ID", "The project property must be set to a valid project ID, not the project name [PROJECT_ID]"),
    ("'My Project'", "not the project name [My Project]"),
    ("my_project", "The project property must be set to a valid project ID, [my_project] is not a valid project ID."),
    ("''", "The project property is set to the empty string, which is invalid."),
])
def test_a_project_gcloud_refuses_is_refused(project: str, says: str) -> None:
    for line in (f"gcloud ai custom-jobs create --display-name d --project={project}",
                 f"gcloud --project {project} ai-platform jobs submit training j1 --region us-east1"):
        with pytest.raises(GcloudError) as refused:
            _parse(line)
        assert says in str(refused.value)


@pytest.mark.parametrize("project", ["my-project", "google.com:my-proj", "123456", "a"])
def test_a_project_id_is_a_note(project: str) -> None:
    cmd = _parse(f"gcloud ai custom-jobs create --display-name d --project {project}")
    assert f"--project={project} is a gcloud setting, not part of the job: ignored" in cmd.notes


def test_repeated_worker_pool_specs_and_args_add_up() -> None:
    cmd = _parse("gcloud ai custom-jobs create --display-name d --region us-central1 "
                 "--worker-pool-spec=machine-type=n1-standard-4,container-image-uri=gcr.io/p/i "
                 "--worker-pool-spec= --worker-pool-spec=machine-type=n1-standard-4,replica-count=2 "
                 "--args=--a,1 --args=--b")
    assert cmd.values["workerPoolSpecs"] == [
        {"machine-type": "n1-standard-4", "container-image-uri": "gcr.io/p/i"}, {},
        {"machine-type": "n1-standard-4", "replica-count": 2}]
    assert cmd.values["args"] == ["--a", "1", "--b"]


@pytest.mark.parametrize(("line", "says"), [
    ("gcloud ai-platform jobs submit training j --scale-teir basic", "unrecognized arguments: --scale-teir (did you mean '--scale-tier'?)"),
    ("gcloud ai-platform jobs submit training j --scale-tier huge", "argument --scale-tier: Invalid choice: 'huge'"),
    ("gcloud ai-platform jobs submit training j --module-name", "argument --module-name: expected one argument"),
    # gcloud's BoundedInt(1): its words, and 0 refused (corpus c7_worker_count_*)
    ("gcloud ai-platform jobs submit training j --worker-count x", "argument --worker-count: Value must be an integer; "
                                                                  "received: x"),
    ("gcloud ai-platform jobs submit training j --worker-count 0", "argument --worker-count: Value must be greater "
                                                                  "than or equal to 1; received: 0"),
    ("gcloud ai-platform jobs submit training j --parameter-server-count -2", "argument --parameter-server-count: "
                                                                             "Value must be greater than or equal to 1"),
    ("gcloud ai hp-tuning-jobs create --max-trial-count 2.5", "argument --max-trial-count: invalid int value: '2.5'"),
    ("gcloud ai custom-jobs create --display-name d --worker-pool-spec=machine-type=m,replica-count=2.5",
     "argument --worker-pool-spec: invalid int value: '2.5'"),
    ("gcloud ai-platform jobs submit training j --use-chief-in-tf-config maybe",
     "argument --use-chief-in-tf-config: Invalid flag value [maybe], expected one of [true, yes, false, no]"),
    ("gcloud ai-platform jobs submit training j --master-accelerator cnt=4", "valid keys are [count, type]"),
    ("gcloud ai-platform jobs submit training --region r", "argument JOB: Must be specified"),
    ("gcloud ai custom-jobs create --display-name d --worker-pool-spec=custom-image-uri=x", "received: custom-image-uri"),
    ("gcloud ai custom-jobs create --display-name d -- --epochs 3", "takes the trainer's arguments in --args"),
    ("gcloud ai-platform jobs describe j", "is not a training-job command"),
    # commands that run the trainer here: each names the submit command to convert instead (gcloud's own
    # surface/ai_platform/local/train.py and surface/ai/custom_jobs/local_run.py submit nothing)
    ("gcloud ai-platform local train --package-path trainer --module-name trainer.task -- --epochs 3",
     "gcloud ai-platform local train runs the trainer on this machine and submits no job, so there is no job to "
     "convert; convert the gcloud ai-platform jobs submit training command for the same trainer"),
    ("gcloud beta ml-engine local train --module-name t", "convert the gcloud ai-platform jobs submit training command"),
    ("gcloud ai custom-jobs local-run --executor-image-uri=x --script=t.py",
     "convert the gcloud ai custom-jobs create command for the same trainer"),
    ("gcloud ai-platform local predict --model-dir m", "gcloud ai-platform local predict is not a training-job command"),
    # the command named without its flags (corpus c7_iq_ai_platform_custom_jobs)
    ("gcloud ai-platform custom-jobs create --region=us-central1 --config=c.json",
     "gcloud ai-platform custom-jobs create is not a training-job command"),
    ("python train.py", "not a gcloud command"),
    # a property for gcloud alone (CLOUDSDK_AI_REGION is --region's default): never dropped in silence
    ("CLOUDSDK_AI_REGION=europe-west4 gcloud ai custom-jobs create --display-name d "
     "--worker-pool-spec=machine-type=n1-standard-4,container-image-uri=gcr.io/p/i", "CLOUDSDK_AI_REGION=... before gcloud"),
])
def test_what_gcloud_refuses_is_refused(line: str, says: str) -> None:
    with pytest.raises(GcloudError) as exc:
        _parse(line)
    assert says in str(exc.value)


def test_the_job_name_is_made_valid_with_a_note(tmp_path: Path) -> None:
    built = build(_parse("gcloud ai custom-jobs create --display-name 'my job-1' --region us-central1 "
                         "--worker-pool-spec=machine-type=n1-standard-4,container-image-uri=gcr.io/p/i"), tmp_path)
    assert built.document["metadata"]["name"] == "my_job_1"
    assert built.document["spec"]["displayName"] == "my job-1"
    assert any("'my job-1' is not a valid job name" in n for n in built.notes)


def test_job_dir_and_buckets_as_gcloud_checks_them(tmp_path: Path) -> None:
    built = build(_parse("gcloud ai-platform jobs submit training j --job-dir gs://my-bucket --region r"), tmp_path)
    assert built.document["spec"]["jobDir"] == "gs://my-bucket/"
    with pytest.raises(GcloudError, match=r"Invalid bucket name \[b\]"):
        build(_parse("gcloud ai-platform jobs submit training j --job-dir gs://b/x --region r"), tmp_path)
    with pytest.raises(GcloudError, match="not a Cloud Storage path"):
        build(_parse("gcloud ai-platform jobs submit training j --job-dir /tmp/x --region r"), tmp_path)


def test_kms_key_from_its_parts(tmp_path: Path) -> None:
    built = build(_parse("gcloud ai-platform jobs submit training j --region us-central1 --kms-key k --kms-keyring r "
                         "--kms-location l --kms-project p"), tmp_path)
    assert built.document["spec"]["kmsKey"] == "projects/p/locations/l/keyRings/r/cryptoKeys/k"
    with pytest.raises(GcloudError, match="give --kms-keyring"):
        build(_parse("gcloud ai-platform jobs submit training j --kms-key k"), tmp_path)


def test_a_flags_file_is_read_in_place_and_its_mistakes_are_one_message(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "f.yaml").write_text("--region: us-central1\n--display-name: x\n--enable-web-access:\n"
                                     "--worker-pool-spec: {machine-type: n1-standard-4, container-image-uri: gcr.io/p/i}\n")
    cmd = parse(["gcloud", "ai", "custom-jobs", "create", "--flags-file=f.yaml"])
    assert cmd.values["enableWebAccess"] is True
    with pytest.raises(GcloudError, match=r"missing\.yaml: does not exist"):
        parse(["gcloud", "ai", "custom-jobs", "create", "--flags-file", "missing.yaml"])
    (tmp_path / "bad.yaml").write_text("region: us-central1\n")
    with pytest.raises(GcloudError, match=r"key 1 of mapping 1 in bad\.yaml is not a flag"):
        parse(["gcloud", "ai", "custom-jobs", "create", "--flags-file=bad.yaml"])
    (tmp_path / "loop.yaml").write_text("--flags-file: loop.yaml\n")
    with pytest.raises(GcloudError, match="nested more than 8 deep"):
        parse(["gcloud", "ai", "custom-jobs", "create", "--flags-file=loop.yaml"])


@pytest.mark.parametrize("line", [
    "gcloud ai custom-jobs create --region us-central1 --display-name= "
    "--worker-pool-spec=machine-type=n1-standard-4,container-image-uri=gcr.io/p/i",
    "gcloud ai hp-tuning-jobs create --region us-central1 --display-name '' --config c.yaml",
])
def test_an_empty_display_name_is_refused_for_what_it_is(line: str, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """gcloud takes --display-name= (the flag is given) and sends a job Vertex AI refuses; trainjobs used to say
    gcloud's words for a missing flag (corpus c7_empty_display_name_*)."""
    (tmp_path / ".git").mkdir()  # a repository: --config is read from inside it
    (tmp_path / "c.yaml").write_text("studySpec: {}\n")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(GcloudError) as exc:
        build(_parse(line), tmp_path)
    assert "argument --display-name: '' is empty: gcloud sends the job with no display name" in str(exc.value)
    assert "Must be specified" not in str(exc.value)


@pytest.mark.parametrize(("word", "chief"), [("yes", True), ("TRUE", True), ("No", False), ("false", False)])
def test_use_chief_in_tf_config_is_read_as_gcloud_reads_a_boolean(word: str, chief: bool, tmp_path: Path) -> None:
    """--use-chief-in-tf-config is an ArgBoolean: yes and no too, in any case (corpus c7_use_chief_yes); trainjobs
    took only true and false, and refused yes with words gcloud never says."""
    built = build(_parse(f"gcloud ai-platform jobs submit training j --region us-central1 --master-image-uri "
                         f"gcr.io/p/i:1 --use-chief-in-tf-config {word}"), tmp_path)
    assert built.document["spec"]["useChiefInTfConfig"] is chief


def test_a_pool_count_is_read_as_pythons_int_reads_it(tmp_path: Path) -> None:
    """gcloud's ArgDict types replica-count and accelerator-count with Python's int: +2 and 0_1 are numbers (corpus
    c7_pool_replica_count_signed); trainjobs took digits alone."""
    built = build(_parse("gcloud ai custom-jobs create --region us-central1 --display-name d --worker-pool-spec="
                         "machine-type=n1-standard-4,accelerator-type=NVIDIA_TESLA_T4,accelerator-count=0_1,"
                         "container-image-uri=gcr.io/p/i --worker-pool-spec=machine-type=n1-standard-4,replica-count=+2,"
                         "container-image-uri=gcr.io/p/i"), tmp_path)
    pools = built.document["spec"]["workerPoolSpecs"]
    assert pools[0]["machineSpec"]["acceleratorCount"] == 1 and pools[1]["replicaCount"] == 2


@pytest.mark.parametrize(("flags", "refused"), [
    ("", True),  # gcloud sends trainingInput.packageUris = [] (api_lib/ml_engine/jobs.py BuildTrainingJob)
    ("--packages gs://my-bucket/other-0.2.tar.gz", False),
    ("--master-image-uri gcr.io/p/trainer --scale-tier custom --master-machine-type n1-standard-4", False),
])
def test_a_configs_package_uris_are_replaced_as_gcloud_replaces_them(flags: str, refused: bool, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A public config.yaml names its package only by trainingInput.packageUris (find_string id 23440705819; the
    oracle corpus holds it as c9_gcs_package_config_*): gcloud replaces it with what --packages and --package-path
    give, so with neither it refuses a job that runs no container of its own."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "c.yaml").write_text("trainingInput:\n  pythonModule: trainer.task\n"
                                     "  packageUris: ['gs://my-bucket/trainer.tar.gz']\n")
    monkeypatch.chdir(tmp_path)
    cmd = _parse(f"gcloud ai-platform jobs submit training j1 --region us-central1 --config c.yaml {flags}")
    if refused:
        with pytest.raises(GcloudError, match=r"^Non-custom jobs must have packages\. \(gcloud replaces"):
            build(cmd, tmp_path)
        return
    built = build(cmd, tmp_path)
    assert ("packageUris in the config is not sent" in " ".join(built.notes)) is ("image" in flags)
