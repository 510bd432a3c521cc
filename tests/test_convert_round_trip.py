"""One answer everywhere: the spec ``trainjobs convert`` writes gets from ``trainjobs validate`` the verdict its input
got in convert, and builds the same Vertex AI request.

Every input of every corpus that converts (the gcloud corpus's commands, read as the gcloud oracle reads them
without running gcloud; the REST corpus's bodies; gcloud --config files; scripts, Makefiles, notebooks; the samples
corpus; the SDK corpora; the specs of specs/) is converted in-process, and the text convert prints is read back
as ``trainjobs validate`` reads a file written beside the input:

- it validates with no error, with the warnings (by rule) convert gave the input;
- ``build_request`` of it equals ``build_request`` of the job convert built (after convert_images' replacement of
  a retired image), and a package folder it names is the input's, relative to the written file;
- converted again, it is itself: convert of a native spec is identity.

A difference convert makes on purpose is named with its reason: a warning on the input's form that the written spec
no longer holds (FORM_WARNINGS, said in the written spec's header), the input's format and the AI Platform names its
machines were read from (_model), a retired image written as its successor (convert_images.py, said in a note). An
input convert refuses is named in REFUSED with what the refusal says.
"""

from __future__ import annotations

import contextlib
import io
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

import provider.cli.convert as convert_cli
from provider.cli import main
from provider.cli.convert_form import spec_text
from provider.validation.rules import Context
from provider.validation.validator import check_document, validate_bytes

from .conftest import ROOT

GCLOUD = ROOT / "tests" / "gcloud"


@dataclass
class Converted:
    """What one convert built: the job (after convert_images), its problems, the document it wrote, the text it
    printed, and the folder the written spec's paths are relative to."""

    job: Any = None
    problems: list[Any] = field(default_factory=list)
    document: dict[str, Any] | None = None
    text: str = ""
    base: Path = ROOT
    refused: str = ""
    bucket: str | None = None


@contextlib.contextmanager
def _recording(monkeypatch: pytest.MonkeyPatch) -> Iterator[Converted]:
    """convert's own path, in-process: what its ``emit`` was given and what ``converted`` returned."""
    seen = Converted()
    real_emit, real_converted = convert_cli.emit, convert_cli.converted

    def emit(result: Any, shown: str, base: Path, args: Any, notes: list[str]) -> int:
        seen.base = Path(base).resolve()
        return real_emit(result, shown, base, args, notes)

    def converted(result: Any, notes: list[str], request: bool = False) -> Any:
        job, problems, document = real_converted(result, notes, request)
        seen.job, seen.problems, seen.document = job, problems, document
        return job, problems, document

    monkeypatch.setattr(convert_cli, "emit", emit)
    monkeypatch.setattr(convert_cli, "converted", converted)
    yield seen


def convert_file(monkeypatch: pytest.MonkeyPatch, cwd: Path, *argv: str, env: dict[str, str] | None = None) -> Converted:
    """``trainjobs convert ARGV`` run in ``cwd``, in this process."""
    for key, value in (env or {}).items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(cwd)
    out, err = io.StringIO(), io.StringIO()
    with _recording(monkeypatch) as seen, contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(["convert", *argv])
        except SystemExit as exc:
            code = int(exc.code or 0)
    written = argv[argv.index("--write") + 1] if "--write" in argv else None
    seen.text = (cwd / written).read_text() if written and code == 0 else out.getvalue()
    if code != 0 or seen.document is None:
        seen.refused = err.getvalue() or f"exit code {code}"
    return seen


def _rules(problems: list[Any], severity: str) -> list[str]:
    return sorted(p.rule for p in problems if p.severity.value == severity)


def _messages(problems: list[Any]) -> list[str]:
    return [f"{p.rule}: {p.message}" for p in problems if p.is_error]


def _source(job: Any, base: Path) -> Path | None:
    """The folder the job packages or builds, from the folder its spec is in."""
    build = getattr(job.application, "build", None)
    path = build.context if build is not None else getattr(job.application, "source_path", None)
    return (base / path).resolve() if path else None


def _model(job: Any) -> Any:
    """The job as the written spec can say it: the input's format, and the AI Platform names a pool's machine was
    read from (a scale tier, a legacy machine name: each named in a note), are not part of the job that runs."""
    from provider.core.record import replace
    from provider.spec.model import SourceFormat

    def param(p: Any) -> Any:  # AI Platform's scaleType NONE is no scale: written as none (no request sends it)
        return replace(p, scale=None if p.scale == "NONE" else p.scale,
                       conditions=tuple(replace(c, param=param(c.param)) for c in p.conditions))

    pools = tuple(replace(p, legacy_machine_type=None, scale_tier=None) for p in job.pools)
    hp = job.hyperparameters
    if hp is not None:
        hp = replace(hp, params=tuple(param(p) for p in hp.params))
    sched = job.scheduling  # which of maxWaitDuration and maxWaitTime: only where a max wait is written
    if sched.max_wait_seconds is None:
        sched = replace(sched, max_wait_is_vertex=False)
    return replace(job, source_format=SourceFormat.NATIVE, pools=pools, hyperparameters=hp, scheduling=sched)


def _request(job: Any) -> dict[str, Any]:
    from provider.submission.request import build_request

    built = getattr(job.application, "build", None)  # a container built from source: its pushed image stands in
    return build_request(job, "PROJECT", image_uri="IMAGE" if built else None).body


def check_round_trip(case: str, seen: Converted) -> None:
    if case in REFUSED:  # convert refuses it, by name: not a round-trip case
        assert seen.document is None and REFUSED[case] in seen.refused, seen.refused or seen.text
        return
    assert seen.document is not None, f"convert refuses it: {seen.refused}"
    if case in BREAKS:  # a break whose home is outside what convert writes: still there (when fixed, remove it)
        written = validate_bytes(seen.text.encode(), str(seen.base / "written.yaml"), Context(spec_dir=seen.base))
        assert any(BREAKS[case][0] in m for m in _messages(written.problems)), _messages(written.problems)
        return
    assert seen.text.strip(), "convert printed nothing"
    written = validate_bytes(seen.text.encode(), str(seen.base / "written.yaml"),
                             Context(spec_dir=seen.base, staging_bucket=seen.bucket))
    assert _messages(written.problems) == [], f"the written spec is refused: {_messages(written.problems)}\n{seen.text}"
    assert written.job is not None
    from provider.cli.convert_form import dump_json  # convert --output json: the same spec, as JSON

    as_json = validate_bytes(dump_json(seen.document).encode(), str(seen.base / "written.json"),
                             Context(spec_dir=seen.base, staging_bucket=seen.bucket))
    assert _messages(as_json.problems) == [] and as_json.job == written.job, _messages(as_json.problems)
    ours = _rules(written.problems, "warning")
    theirs = _rules(seen.problems, "warning")
    lost = [r for r in theirs if r not in ours]
    assert [r for r in ours if r not in theirs] == [], f"new warnings: written {ours}, input {theirs}\n{seen.text}"
    assert [r for r in lost if r not in FORM_WARNINGS] == [], f"warnings lost: {lost}\n{seen.text}"
    for p in seen.problems:  # one the written spec no longer draws is said in its header
        if p.rule in lost:
            assert f"# warning: {p.message}" in seen.text, p.message
    assert _request(written.job) == _request(seen.job), f"requests differ\n{seen.text}"
    assert _source(written.job, seen.base) == _source(seen.job, seen.base)
    # what reaches no request (a local run's max wait, the team ...) is kept too
    assert _model(written.job) == _model(seen.job), f"the written spec reads as another job\n{seen.text}"
    # the reverse door: the written spec converted again is itself
    notes: list[str] = []
    again = check_document(yaml.safe_load(seen.text), "written.yaml", Context(staging_bucket=seen.bucket))
    _, _, document = convert_cli.converted(again, notes)
    assert document == seen.document, f"convert of the written spec differs:\n{yaml.safe_dump(document)}"


# case id -> (what validate of the written spec says, why, and the fix it needs): a break convert cannot mend alone
BREAKS: dict[str, tuple[str, str]] = {}

# A warning on how the input is written, or on a field it holds that the request does not carry: convert resolves
# the form (or leaves the field out) and writes the warning in the written spec's header, so validate of the written
# spec, which holds neither, does not draw it again.
FORM_WARNINGS = {
    "aip.scaleTier.mapping": "a scale tier is written as the machines it was read as (the tier's mapping unverified)",
    "aip.scaleTier.default": "no scaleTier read as BASIC: written as BASIC's machine",
    "aip.hyperparameters": "an AI Platform tuning field with no Vertex AI place (enableTrialEarlyStopping, "
                           "resumePreviousJobId): not sent, so not written",
    "aip.scheduling.priority": "scheduling.priority has no Vertex AI place: not sent, so not written",
    "aip.useChiefInTfConfig": "AI Platform's master/chief naming of TF_CONFIG: a native spec has no master",
    "aip.runtime_or_image": "runtimeVersion beside masterConfig.imageUri: the image runs, the written spec names it alone",
    "aip.container_command_args": "an AI Platform replica that runs its image's own ENTRYPOINT (no containerCommand): "
                                  "written with its empty command and args, what it runs",
    "aip.form.null": "a null read as not set: not written",
    "vertex.form.single_value": "a single value where the REST API takes a list: written as the list",
    "vertex.form.string_as_list": "a string the SDK reads as the list of its characters: written as that list, "
                                  "what runs (the header says why)",
    "vertex.form.enum_number": "an enum written as its number: written as its name",
    "vx.tpu.single_pool": "AI Platform's TPU workers written as Vertex AI's one TPU pool",
    "vx.hpt.trial_display_name": "the SDK's trial display_name, which it does not send: not written",
    "vx.hpt.output_only": "a tuning job's output-only field: not sent, so not written",
    "vx.hpt.unknown_scale": "an SDK scale the SDK sends as unspecified: written without scaleType, as sent",
}

# case id -> what convert's refusal says: an input of a corpus that convert refuses (each corpus's own test says
# why: an invalid sample, a --config file that is not a whole job, a notebook with several jobs ...)
REFUSED: dict[str, str] = {
    # configs of the gcloud corpus whose command gives what they lack (the module, the package) or which gcloud
    # and trainjobs refuse alike: alone, each is refused for it
    'configs/sw_aip_job_labels': 'no Python module to run: set trainingInput.pythonModule or moduleName',
    'configs/sw_bpe_custom_job_config': "unknown key 'reduction_server_replica_count' in spec.workerPoolSpecs[0]",
    'configs/sw_landuse_flat': 'nvidia-tesla-t4 is not an accelerator type Vertex AI knows',
    'configs/sw_landuse_jobspec': 'nvidia-tesla-t4 is not an accelerator type Vertex AI knows',
    'configs/sw_mini_mnist_cloud': 'no Python module to run: set trainingInput.pythonModule or moduleName',
    'configs/sw_spheres_config': 'no Python module to run: set trainingInput.pythonModule or moduleName',
    'rest/c10_airflow_batch_prediction_job': 'an AI Platform batch prediction job (predictionInput), not a training',
    'rest/c10_gapic_job_name_in_training_input': "unknown key 'jobName' in spec.trainingInput",
    'rest/c10_kfp_od_lowercase_p100': 'nvidia-tesla-p100 is not an accelerator type Vertex AI knows',
    'rest/c10_luminoth_eval_nested_args': 'spec.trainingInput.args[0] is a list, expected a string',
    'rest/c10_luminoth_train_basic_gpu': "runtimeVersion '1.9' without pythonVersion means Python 2.7 (AI",
    'rest/c10_lyrical_hyphen_k80': 'NVIDIA-TESLA-K80 is not an accelerator type Vertex AI knows',
    'rest/c10_master_image_uri_flag_as_key': "unknown key 'master-image-uri' in spec.trainingInput",
    'rest/c10_p4_config_trailing_comma': 'no Python module to run: set trainingInput.pythonModule or moduleName',
    'rest/c10_simplejob_api_runtime_1_7': "runtimeVersion '1.7' without pythonVersion means Python 2.7 (AI",
    'rest/c10_tfx_master_config_machine_type': "unknown key 'machineType' in spec.trainingInput.masterConfig",
    'rest/c10_vulnhunter_hpt_grid_over_doubles': 'GRID_SEARCH cannot search the DOUBLE parameter(s) dropout_rate,',
    'rest/c19_gcloud_help_hpt_float_bounds': 'minValue is 1.0, not an integer',
    'rest/c19_gourmetgram_placeholder_image': "the image 'TRAIN_IMAGE_PLACEHOLDER' looks like an unfilled",
    'rest/c19_scene_change_bracket_placeholder': 'the image',
    'rest/c7_experiment_config_body': "unknown key 'experimentConfig' in spec",
    'rest/c7_iq_h200_body': 'serviceAccount is a field of the CustomJobSpec, written beside',
    'rest/cloud_function_aip_body': "the output directory 'gs://keras-ai-XXX': the bucket 'keras-ai-XXX'",
    'rest/docs_tensorboard_response': "'SERVICE_ACCOUNT' is not a valid serviceAccount",
    'rest/docs_tuning_response': "unknown key 'ALGORITHM' in spec.studySpec",
    'rest/globoplay_get_job_succeeded': "runtimeVersion '1.0' without pythonVersion means Python 2.7 (AI",
    'rest/rapids_ax_cpuonly_config': "the image 'gcr.io/[YOUR PROJECT",
    'rest/rapids_bare_training_input': 'not a spec and not a config: its top level holds scaleTier,',
    'rest/tfcloud_tpu_request': "workerConfig.tpuTfVersion ('2.3'; gcloud --tpu-tf-version) has no",
    'rest/sr_globo_ml_engine_expected': "'REGION' is not allowed for region",
    'configs/sr_flight_hptuning': 'no Python module to run: set trainingInput.pythonModule or moduleName',
    'configs/sr_flowers_cpu_book': "the bucket '{BUCKET}' has characters a bucket name cannot hold",
    'configs/sr_skill_conditional_hpt': 'parentDiscreteValues.values[0] is a string of the wrong form',
    'configs/breakout_basic_gpu': 'no Python module to run: set trainingInput.pythonModule or moduleName',
    'configs/c5_recipe_tpu_v6e_cloud_tpu': 'TPU_V6E cannot be attached to cloud-tpu',
    'configs/c6_acartro_hyper_flat': "unknown key 'goal' in spec.trainingInput",
    'configs/c6_alepadel_duplicate_discrete': 'no Python module to run: set trainingInput.pythonModule or moduleName',
    'configs/c6_chillpill_hps': 'no Python module to run: set trainingInput.pythonModule or moduleName',
    'configs/c6_daniel_isidro_categorical': 'no Python module to run: set trainingInput.pythonModule or moduleName',
    'configs/c6_esther_categorical': 'no Python module to run: set trainingInput.pythonModule or moduleName',
    'configs/c6_iht_kschool_hyper': 'no Python module to run: set trainingInput.pythonModule or moduleName',
    'configs/c6_iht_ml_in_prod_hyper': 'no Python module to run: set trainingInput.pythonModule or moduleName',
    'configs/c6_iht_training_config': "'SOME_SERVICE_ACCOUNT' is not a valid serviceAccount",
    'configs/c6_iht_training_config_ht': 'spec.studySpec.parameters[0] needs one of: categoricalValueSpec,',
    'configs/c6_imiled_hyper': 'no Python module to run: set trainingInput.pythonModule or moduleName',
    'configs/c6_kubric_colmap_hypertune': 'no Python module to run: set trainingInput.pythonModule or moduleName',
    'configs/c6_magicheron_misspelled_hyper': 'not a spec and not a config: expected a TrainingJob envelope, a',
    'configs/c6_pvemoral_misspelled_fields': "unknown key 'hyperparameterMetrigTag' in",
    'configs/c6_stocks_no_trial_job': "spec is missing the required key 'trialJobSpec'",
    'configs/c7_iq_training_request': 'serviceAccount is a field of the CustomJobSpec, written beside',
    'configs/c9_gcs_package_config': "runtimeVersion '2.10' is not an AI Platform runtime version",
    'configs/c9_hp_cheatsheet': "'LOG_SCALE' is not allowed for scaleType",
    'configs/c9_owl_config': 'no Python module to run: set trainingInput.pythonModule or moduleName',
    'configs/chief_config_fix': 'no Python module to run: set trainingInput.pythonModule or moduleName',
    'configs/complex_model_m_hp': 'no Python module to run: set trainingInput.pythonModule or moduleName',
    'configs/custom_t4': 'no Python module to run: set trainingInput.pythonModule or moduleName',
    'configs/dropout_standard_gpu': 'no Python module to run: set trainingInput.pythonModule or moduleName',
    'configs/fincrime_two_specs': 'spec.workerPoolSpecs[0].pythonPackageSpec is missing the required key',
    'configs/flags_ai_platform': 'the top level of the file is a list, not a mapping',
    'configs/flags_vertex': 'not a spec and not a config: expected a TrainingJob envelope, a',
    'configs/fraud_complex_model_m_gpu_hp': 'no Python module to run: set trainingInput.pythonModule or moduleName',
    'configs/hps_generated': 'no Python module to run: set trainingInput.pythonModule or moduleName',
    'configs/hyper': 'no Python module to run: set trainingInput.pythonModule or moduleName',
    'configs/iris_hpt_misplaced': "'n1-standard-2' is not allowed for machineType",
    'configs/iris_sklearn_categorical': 'no Python module to run: set trainingInput.pythonModule or moduleName',
    'configs/more_flags': 'not a spec and not a config: expected a TrainingJob envelope, a',
    'configs/premium_tuning': 'no Python module to run: set trainingInput.pythonModule or moduleName',
    'configs/pytorch_cpu_container_hptuning': 'no Python module to run: set trainingInput.pythonModule or moduleName',
    'configs/pytorch_hptuning': 'no Python module to run: set trainingInput.pythonModule or moduleName',
    'configs/pytorch_tpu_caip': "workerConfig.tpuTfVersion ('1.15'; gcloud --tpu-tf-version) has no",
    'configs/taqi_l4': 'NVIDIA_TESLA_L4 is not an accelerator type Vertex AI knows',
    'configs/tpu': 'no Python module to run: set trainingInput.pythonModule or moduleName',
    'configs/tpu_quota_runtime_float': "'cloud_tpu_v3' is not allowed for workerType",
    'notebooks/babyweight_vertex_bash.ipynb': '3 commands submit a training job (cell 6, line 29; cell 7, line 48;',
    'configs/bert_hpt_study_only': "spec is missing the required key 'trialJobSpec'",
    'configs/tpu_v4_podslice_hpt': "'cloud-tpu-v4-podslice' is not allowed for machineType",
    'airflow/iris_contrib': 'spec.trainingInput.packageUris is a string, expected a list',
    'airflow/citibike_two_trainings': 'spec.trainingInput.packageUris is a string, expected a list',
    'airflow/autogluon_taskflow': "pythonVersion '3.9' was never offered by AI Platform Training",
    'notebooks/config.yaml': 'the job has no region',
    'notebooks/custom_job_spec.yaml': 'the job has no region',
    'notebooks/persistent_resource_cli.ipynb': '2 commands submit a training job (cell 10, line 2; cell 11, line 4);',
    'notebooks/taxifare_sdk.ipynb': 'the notebook launches several jobs: aiplatform.CustomJob at',
    'notebooks/time_series_ai_platform.ipynb': '$TRAIN_DIR is read from the environment the notebook sets, and its',
    'notebooks/xgboost_dask_custom_job.ipynb': 'the notebook submits a training job with gcloud (cell 6) and builds',
    'samples/kfp_lm_a100_on_n1': 'NVIDIA_TESLA_A100 cannot be attached to n1-standard-4',
    'samples/rest_h200_on_a3_highgpu': 'NVIDIA_H200 is not an accelerator type Vertex AI knows',
    'samples/rest_hpt_grid_over_double': 'GRID_SEARCH cannot search the DOUBLE parameter(s) learning_rate',
    'samples/srch_custom_job_args_service_account_kwargs': "unknown key 'args' in spec",
    'samples/srch_custom_job_enable_spot_kwarg': "unknown key 'enable_spot' in spec",
    'samples/srch_gapic_fishing_gpu_count_string': "accelerator_count is the string '1', but the Vertex AI SDK",
    'samples/srch_gapic_llamafactory_enum_member_env': 'environment variable WORLD_SIZE is set by the training service on',
    'samples/srch_hpt_distributed_random_search_proto_name': "'RANDOM_SEARCH' is not allowed for search_algorithm",
    'samples/srch_hpt_guide_discrete_without_scale': 'spec.parameter_spec.batch_size.hpt.DiscreteParameterSpec is missing',
    'samples/srch_hpt_sdk_grid_over_double': 'GRID_SEARCH cannot search the DOUBLE parameter(s) learning_rate and',
    'samples/srch_kfp_alphafold_nfs_camel_mount_point': 'spec.worker_pool_specs[0].nfs_mounts[0] is missing the required key',
    'samples/srch_kfp_hpt_pool_level_env': "unknown key 'env' in spec.worker_pool_specs[0]",
    'samples/srch_local_script_v100_asia_south1': 'NVIDIA_TESLA_V100 is not offered for training in asia-south1',
    'samples/srch_ps_strategy_two_chiefs_gcr_image_labels': 'the chief pool has 2 replicas',
    'pysdk/notebooks/pytorch_gcs_script_training': "script_path 'trainer/task.py' is not a file (read from the current",
    'pysdk/notebooks/taxifare_sdk_known': 'the notebook launches several jobs: aiplatform.CustomJob at',
}


# --- the gcloud corpus: each command read as the gcloud oracle reads it (without running gcloud) -------------

GCLOUD_CORPUS: list[dict[str, Any]] = yaml.safe_load((GCLOUD / "corpus.yaml").read_text())
CONVERTED = [e for e in GCLOUD_CORPUS if not (e.get("refused") or e.get("not_converted") or e.get("invalid"))]


def _work(entry: dict[str, Any], base: Path) -> Path:
    """The entry's folder as the oracle's _run_all sets it up (./trainer, its files and sources), without gcloud."""
    from .gcloud.test_gcloud_oracle import work_folder

    return work_folder(entry, base)


@pytest.fixture(scope="module")
def gcloud_base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("round-trip")
    (base / ".git").mkdir()  # a repository: a command's package folder is inside it
    return base


@pytest.mark.parametrize("entry", CONVERTED, ids=[e["id"] for e in CONVERTED])
def test_gcloud_command(entry: dict[str, Any], gcloud_base: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from provider.gcloud.command import GcloudError
    from provider.gcloud.words import ShellError

    from .gcloud.test_gcloud_oracle import _convert

    work = _work(entry, gcloud_base)
    try:
        document, _, notes = _convert(entry, work)
    except (GcloudError, ShellError) as exc:
        pytest.skip(f"convert refuses it: {exc}")
    # a local package is staged: the oracle gives it gcloud's bucket, as convert --staging-bucket does
    bucket = "gs://oracle-bucket" if "local-package-path" in entry["command"] else None
    result = check_document(document, entry["id"], Context(staging_bucket=bucket))
    seen = Converted(base=work, bucket=bucket, refused=str(_messages(result.problems)))
    notes = list(notes)
    job, problems, written = convert_cli.converted(result, notes)
    seen.job, seen.problems, seen.document = job, problems, written
    if written is not None:
        seen.text = spec_text(result, job, problems, written, entry["id"], work, notes)
    check_round_trip(entry["id"], seen)


# --- files convert reads -------------------------------------------------------------------------------------

REST: list[dict[str, Any]] = yaml.safe_load((GCLOUD / "rest_corpus.yaml").read_text())


def _rest_cases() -> list[tuple[str, Path, list[str]]]:
    from .gcloud.test_rest_oracle import _region

    cases = []
    for entry in REST:
        if entry.get("refused") or entry.get("invalid") or entry.get("not_read"):
            continue
        path = GCLOUD / "rest" / entry["file"]
        data = yaml.safe_load(path.read_text())
        named = isinstance(data, dict) and (bool(data.get("name")) or bool((data.get("trainingInput") or {}).get("region")))
        region = [] if named or not isinstance(data, dict) else ["--region", _region(entry, data)]
        cases.append((f"rest/{entry['id']}", path, [*region, *entry.get("convert_flags", [])]))
    return cases


def _files() -> list[tuple[str, Path, list[str]]]:
    cases = _rest_cases()
    named = {c[1] for c in cases}
    for path in sorted((GCLOUD / "rest").iterdir()):
        if path not in named and path.suffix in (".json", ".yaml"):
            cases.append((f"rest/{path.stem}", path, ["--region", "us-central1"]))
    for path in sorted((GCLOUD / "configs").glob("*.yaml")):
        cases.append((f"configs/{path.stem}", path, ["--region", "us-central1"]))
    for path in sorted((GCLOUD / "notebooks").iterdir()):  # scripts and Makefiles: in a repository of their own, below
        if path.suffix in (".ipynb", ".yaml"):
            cases.append((f"notebooks/{path.name}", path, []))
    for path in sorted((ROOT / "tests" / "samples" / "corpus").glob("*.yaml")):
        cases.append((f"samples/{path.stem}", path, []))
    for folder in ("corpus", "ml_client", "notebooks", "gapic/corpus"):  # airflow/: with its options, below  # local_script/: trainers, not launchers
        for path in sorted((ROOT / "tests" / "pysdk" / folder).glob("*")):
            if path.suffix in (".py", ".ipynb"):
                cases.append((f"pysdk/{folder}/{path.stem}", path, []))
    for cell in ("4", "6"):  # a notebook that launches two jobs: each cell's
        path = ROOT / "tests" / "pysdk" / "notebooks" / "taxifare_sdk_known.ipynb"
        cases.append((f"pysdk/notebooks/taxifare_sdk_known_cell{cell}", path, ["--cell", cell]))
    for path in sorted((ROOT / "specs").glob("*/*.yaml")):
        cases.append((f"specs/{path.parent.name}/{path.stem}", path, []))
    for path in sorted((ROOT / "tests" / "fixtures" / "round_trip").iterdir()):  # README.md there says why
        if path.suffix != ".md":
            cases.append((f"round_trip/{path.stem}", path, ["--region", "us-central1"] if path.suffix == ".json" else []))
    return cases


FILES = _files()


@pytest.mark.parametrize("case, path, flags", FILES, ids=[c[0] for c in FILES])
def test_file(case: str, path: Path, flags: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    if case.startswith("pysdk/"):  # a launcher's script_path is read from where it runs: the repository's root
        seen = convert_file(monkeypatch, ROOT, str(path.relative_to(ROOT)), *flags)
    else:
        seen = convert_file(monkeypatch, path.parent, path.name, *flags)
    check_round_trip(case, seen)


@pytest.mark.parametrize("name", ["navigation_controller.sh", "rapids_a100.sh", "iris_training.sh"])
def test_script(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A public script, in a repository with the package it names (as tests/gcloud/test_scripts.py converts it)."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "iris_training").mkdir()
    (tmp_path / "iris_training" / "__init__.py").write_text("")
    (tmp_path / "iris_training" / "train.py").write_text("")
    shutil.copy(GCLOUD / "scripts" / name, tmp_path / name)
    env = {"CLOUDSDK_CORE_PROJECT": "env-project", "CLOUDSDK_COMPUTE_REGION": "europe-west4"}
    check_round_trip(f"scripts/{name}", convert_file(monkeypatch, tmp_path, name, env=env))


def _pipelines() -> list[tuple[str, dict[str, str], dict[str, str]]]:
    """Cloud Build configs and GitHub Actions workflows of their own tests: (id, files, environment)."""
    from .gcloud import test_cloud_build as cb
    from .gcloud import test_github_actions as gha

    weekly = gha.PIPELINE.replace("--config=", "--display-name=weekly-retrain --config=")
    return [("cloud_build/bikeshare", {"cloudbuild.yaml": cb.BIKESHARE}, {}),
            ("cloud_build/gpu", {"cloudbuild.yaml": cb.GPU}, cb.CLOUD_BUILD),
            ("github_actions/pipeline", {"train.yml": weekly, "training_config.yaml": gha.CONFIG}, {}),
            ("github_actions/expressions", {"train.yml": gha.EXPRESSIONS}, gha.RUNNER)]


@pytest.mark.parametrize(("case", "files", "env"), _pipelines(), ids=[c[0] for c in _pipelines()])
def test_pipeline_step(case: str, files: dict[str, str], env: dict[str, str], tmp_path: Path,
                       monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".git").mkdir()
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    check_round_trip(case, convert_file(monkeypatch, tmp_path, next(iter(files)), env=env))


def _dags() -> list[tuple[str, list[str]]]:
    from .pysdk.test_airflow import MLENGINE_CASES, SDK_CASES

    return [*SDK_CASES, *MLENGINE_CASES]


@pytest.mark.parametrize(("stem", "options"), _dags(), ids=[f"{s}-{i}" for i, (s, _) in enumerate(_dags())])
def test_airflow_dag(stem: str, options: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """An Airflow DAG's training task, with the options tests/pysdk/test_airflow.py converts it with."""
    path = ROOT / "tests" / "pysdk" / "airflow" / f"{stem}.py"
    check_round_trip(f"airflow/{stem}", convert_file(monkeypatch, ROOT, str(path.relative_to(ROOT)), *options))


def _makefiles() -> list[Any]:
    from .gcloud.test_makefile import CORPUS as MAKEFILES

    return MAKEFILES


@pytest.mark.parametrize(("name", "target", "variables", "env"), _makefiles(), ids=[c[0] for c in _makefiles()])
def test_makefile(name: str, target: str | None, variables: dict[str, str], env: dict[str, str], tmp_path: Path,
                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A public Makefile, its target and variables as tests/gcloud/test_makefile.py converts it."""
    from .gcloud.test_makefile import _corpus_repo

    repo = _corpus_repo(name, tmp_path)
    options = [*(["--target", target] if target else []), *(f"--var={k}={v}" for k, v in variables.items())]
    full = {"TZ": "UTC", "CLOUDSDK_CONFIG": str(tmp_path / "gcloud"), **env}
    check_round_trip(f"makefiles/{name}", convert_file(monkeypatch, repo, "Makefile", *options, env=full))


def _differences(a: Any, b: Any, where: str = "") -> list[tuple[str, Any, Any]]:
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in {**a, **b} for d in _differences(a.get(k), b.get(k), f"{where}.{k}")]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True)) for d in _differences(x, y, f"{where}[{i}]")]
    return [] if a == b and type(a) is type(b) else [(where, a, b)]


def _successor(text: str, old: Any, new: Any) -> bool:
    """convert wrote a retired prebuilt image as its successor, and its header says so (convert_images.py)."""
    def name(image: Any) -> str:
        return str(image).rsplit("/", 1)[-1].split(":")[0]

    return f"the input's prebuilt container {name(old)} reached its end" in text and f"the spec runs {name(new)}" in text


NATIVE = [c for c in FILES if c[0].startswith("specs/") and "workerPools" in yaml.safe_load(c[1].read_text())["spec"]]


@pytest.mark.parametrize("case, path, flags", NATIVE, ids=[c[0] for c in NATIVE])
def test_a_native_spec_converts_to_itself(case: str, path: Path, flags: list[str],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The reverse door: convert of a native spec writes the same spec back (but for a retired image, written as
    its successor with a note)."""
    data = yaml.safe_load(path.read_text())
    seen = convert_file(monkeypatch, path.parent, path.name, *flags)
    assert seen.document is not None, seen.refused
    differ = [d for d in _differences(data, seen.document) if not _successor(seen.text, d[1], d[2])]
    assert differ == [], seen.text


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository with a package (trainer/) and a bare config in a folder of its own (jobs/)."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "trainer").mkdir()
    (tmp_path / "trainer" / "__init__.py").write_text("")
    (tmp_path / "trainer" / "task.py").write_text("print('hello')\n")
    (tmp_path / "jobs").mkdir()
    (tmp_path / "jobs" / "config.yaml").write_text(
        "trainingInput:\n  scaleTier: CUSTOM\n  masterType: n1-standard-8\n  region: us-central1\n"
        "  runtimeVersion: '2.11'\n  pythonVersion: '3.7'\n")
    # STANDARD_1 runs n1-highcpu-8, which no native pool takes: written in AI Platform's form (convert_form.py)
    (tmp_path / "trainer" / "Dockerfile").write_text("FROM python:3.11\n")
    (tmp_path / "jobs" / "built.yaml").write_text(
        "apiVersion: trainjobs/v1\nkind: TrainingJob\nmetadata: {name: built}\nspec:\n  region: us-central1\n"
        "  workerPools: {chief: {machineType: n1-standard-8}}\n"
        "  application: {container: {build: {context: ../trainer, dockerfile: Dockerfile}}}\n")
    (tmp_path / "jobs" / "standard_1.yaml").write_text(
        "trainingInput:\n  scaleTier: STANDARD_1\n  region: us-central1\n  runtimeVersion: '2.11'\n"
        "  pythonVersion: '3.7'\n")
    (tmp_path / "out").mkdir()
    return tmp_path


@pytest.mark.parametrize("config", ["config", "standard_1", "built"])
@pytest.mark.parametrize("write", [None, "out/job.yaml", "job.yaml", "jobs/job.yaml"])
def test_a_package_path_is_the_same_folder_from_the_written_spec(repo: Path, write: str | None, config: str,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """convert jobs/config.yaml --package-path trainer, run from the repository's root: gcloud reads --package-path
    from where it runs (repo/trainer); the written spec names that folder relative to where it is written (jobs/,
    beside its input, or where --write puts it), so validate and packaging of it read the same folder; so does a
    native spec's build context."""
    flags = [] if config == "built" else ["--package-path", "trainer", "--module-name", "trainer.task",
                                          "--job-dir", "gs://bkt/j"]
    seen = convert_file(monkeypatch, repo, f"jobs/{config}.yaml", *flags, *(["--write", write] if write else []))
    assert _source(seen.job, seen.base) == (repo / "trainer").resolve()
    assert seen.base == (repo / (write or "jobs/config.yaml")).parent.resolve()
    assert ("trainingInput" in seen.text) == (config == "standard_1")
    check_round_trip("package_path", seen)


def test_the_corpora_are_round_tripped() -> None:
    """Most inputs convert; every refusal names a case that is run."""
    assert len(CONVERTED) > 180 and len(FILES) - len(REFUSED) > 180, (len(CONVERTED), len(FILES), len(REFUSED))
    assert set(REFUSED) | set(BREAKS) <= {c[0] for c in FILES} | {f"airflow/{stem}" for stem, _ in _dags()}



TRICKY = ["y", "N", "yes", "Off", "true", "null", "~", "", "1e5", "+1E-3", "1_000", "0b101", "0x1F", "0o17", "012",
          "1:30", ".5", "1.", ".inf", "=", "<<", "- a", "a: b", "#x", "x #y", " lead", "trail ", "%x", "@x", "!x",
          "&a", "*a", "|", "'q'", '"dq"', "{a}", "[a]", "? x", "---", "...", "a\nb", "00", "12345678901234567890",
          "2026-01-01", "\u00e9t\u00e9", "\x85", "a\x85b", "\u2028", "x " * 80]


@pytest.mark.parametrize("value", TRICKY, ids=[ascii(v)[:20] for v in TRICKY])
def test_the_written_yaml_reads_back_every_string(value: str) -> None:
    """A string of the written spec, as a value, a key and an item, reads back through trainjobs's strict reader as
    the same string, with no refusal (YAML 1.1's words and numbers are quoted; a NEL is escaped)."""
    from provider.cli.convert_form import dump
    from provider.document import read_mapping

    document = {"value": value, value or "empty": [value]}
    read, problems = read_mapping(dump(document).encode(), "written.yaml", "a spec")
    assert read is not None and [p.message for p in problems if p.is_error] == []
    assert read.data == document
