"""Schema refusals that say the way forward: where a misplaced key belongs, which keys exclude each other.

Real job documents write fields beside the object that holds them: a saved "job specification"
(find_string id 66431519205, LocalTester.save_job_spec: ``timeout`` beside ``workerPoolSpecs`` in
``jobSpec``, and a tuning job's ``studySpec``/``maxTrialCount``/``parallelTrialCount`` beside a CustomJob's
``jobSpec``). The refusal names the key and what the object takes; these tests hold that it also says where
the key belongs (``scheduling.timeout``; a tuning job's ``trialJobSpec``), which a closest-spelling guess
cannot.
"""

from __future__ import annotations

from pathlib import Path

from .conftest import no_traceback, run_cli

FIXTURE = Path(__file__).parent / "fixtures" / "rest_placement" / "disgraphi_job_spec.json"


def test_a_saved_job_spec_is_told_where_its_fields_belong() -> None:
    # fixture: the JSON LocalTester.save_job_spec writes; the pool's fields, which the visible code does not
    # show, given values in the shape the code reads (containerSpec.pythonPackageSpec with packageUris and args)
    proc = run_cli("convert", str(FIXTURE), "--region", "us-central1", "--output", "request")
    no_traceback(proc)
    assert proc.returncode == 1
    assert "disgraphi_job_spec.json:25:5: error: unknown key 'timeout' in spec" in proc.stderr
    assert "timeout is a field of scheduling: write it there (scheduling.timeout)" in proc.stderr
    for key in ("studySpec", "maxTrialCount", "parallelTrialCount"):
        assert (f"{key} is a field of a HyperparameterTuningJob, not of a CustomJob: a tuning job writes its "
                "CustomJobSpec as trialJobSpec (not jobSpec)") in proc.stderr
    # pythonPackageSpec inside containerSpec belongs to no field of containerSpec's: no place is made up
    assert "pythonPackageSpec is a field of" not in proc.stderr


def test_a_pool_field_written_beside_its_holder(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text("workerPoolSpecs:\n"
                      "- machineSpec: {machineType: n1-standard-8}\n"
                      "  acceleratorType: NVIDIA_TESLA_T4\n"
                      "  acceleratorCount: 1\n"
                      "  replicaCount: 1\n"
                      "  containerSpec: {imageUri: gcr.io/p/i:1}\n")
    proc = run_cli("convert", str(config), "--region", "us-central1")
    no_traceback(proc)
    assert proc.returncode == 1
    assert "config.yaml:3:3: error: unknown key 'acceleratorType' in spec.workerPoolSpecs[0]" in proc.stderr
    assert "acceleratorType is a field of machineSpec: write it there (machineSpec.acceleratorType)" in proc.stderr
    assert "acceleratorCount is a field of machineSpec: write it there (machineSpec.acceleratorCount)" in proc.stderr


def test_a_key_no_neighbour_holds_gets_no_place(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text("workerPoolSpecs:\n"
                      "- machineSpec: {machineType: n1-standard-8}\n"
                      "  replicaCount: 1\n"
                      "  containerSpec: {imageUri: gcr.io/p/i:1}\n"
                      "parameterSpec: []\n")
    proc = run_cli("convert", str(config), "--region", "us-central1")
    no_traceback(proc)
    assert "unknown key 'parameterSpec' in spec" in proc.stderr
    assert "is a field of" not in proc.stderr


CONFIGS = Path(__file__).parent / "gcloud" / "configs"


def test_a_pool_with_both_a_container_and_a_package_says_it_holds_both() -> None:
    # a public script's custom_job.yaml (find_string id 40340720258): containerSpec and an executor-only
    # pythonPackageSpec in one pool, read as the file itself (gcloud's reading is the corpus's
    # fincrime_container_and_package case)
    proc = run_cli("convert", str(CONFIGS / "fincrime_two_specs.yaml"), "--region", "asia-south1")
    no_traceback(proc)
    assert proc.returncode == 1
    assert ("spec.workerPoolSpecs[0] does not match any allowed form: it holds containerSpec and pythonPackageSpec, "
            "and takes one of them, not both") in proc.stderr


def test_a_pool_missing_its_machine_is_not_said_to_hold_both(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text("workerPoolSpecs:\n- replicaCount: 1\n  containerSpec: {imageUri: gcr.io/p/i:1}\n")
    proc = run_cli("convert", str(config), "--region", "us-central1")
    no_traceback(proc)
    assert proc.returncode == 1
    assert "it takes one of them" not in proc.stderr
    assert ("spec.workerPoolSpecs[0] does not match any allowed form: it lacks machineSpec, which every form but {} "
            "requires") in proc.stderr


def test_an_unknown_accelerator_is_never_offered_a_retired_one() -> None:
    # a public cheat sheet's TPU tuning job (find_string id 54615165425): TPU_V4 on cloud-tpu-v4-podslice; the
    # enum's closest names include TPU_V4_POD, which no Vertex AI machine type trains on
    proc = run_cli("convert", str(CONFIGS / "tpu_v4_podslice_hpt.yaml"), "--region", "us-central1")
    no_traceback(proc)
    assert "'TPU_V4' is not allowed for acceleratorType" in proc.stderr
    assert "TPU_V4_POD" not in proc.stderr
    assert "did you mean 'TPU_V3' or 'TPU_V2'?" in proc.stderr


def test_a_k80_typo_is_not_offered_the_k80(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text("workerPoolSpecs:\n"
                      "- machineSpec: {machineType: n1-standard-8x, acceleratorType: NVIDIA_TESLA_K8, acceleratorCount: 1}\n"
                      "  replicaCount: 1\n"
                      "  containerSpec: {imageUri: gcr.io/p/i:1}\n")
    proc = run_cli("convert", str(config), "--region", "us-central1")
    no_traceback(proc)
    assert "'NVIDIA_TESLA_K8' is not allowed for acceleratorType" in proc.stderr
    assert "NVIDIA_TESLA_K80" not in proc.stderr
    assert "NVIDIA_TESLA_P100" not in proc.stderr


def test_a_word_in_parent_discrete_values_is_told_what_it_takes_and_where_words_go() -> None:
    # the corpus's sr_skill_conditional_hpt (find_string id 9461379539): gcloud refuses it ("Expected type
    # <class 'float'> for field values, found adam"); the config read alone gets what the field takes and where
    # a categorical parent's values go
    proc = run_cli("convert", str(CONFIGS / "sr_skill_conditional_hpt.yaml"), "--region", "us-central1")
    no_traceback(proc)
    assert proc.returncode == 1
    assert "parentDiscreteValues.values[0] is a string of the wrong form" in proc.stderr
    assert "allowed: a number, or a string of the form" in proc.stderr
    assert "a CATEGORICAL parent's values are matched with parentCategoricalValues" in proc.stderr
