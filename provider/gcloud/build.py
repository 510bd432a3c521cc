"""A parsed gcloud command -> the TrainingJob document it stands for, flags beside the config.

AI Platform: ``spec.trainingInput`` is the ``--config`` file's ``trainingInput`` verbatim (the
same mapping, so messages point into the config file), and every flag stands beside it in
camelCase with the API's value (``--scale-tier custom`` -> ``scaleTier: CUSTOM``), where
provider/spec/legacy.py lays it over the config as gcloud does. Vertex AI: the ``--config``
CustomJobSpec, with ``--worker-pool-spec`` / ``--args`` / ``--command`` applied as gcloud's
``ConstructCustomJobSpec`` applies them (command_lib/ai/custom_jobs/custom_jobs_util.py); with
``local-package-path`` in the first pool, the native spec that packages that folder
(local_package.py). The config's own mappings go into the document, so config_doc.py can give
problems in them the config file's lines.

The job name is the job id (AI Platform) or the display name (Vertex AI); when it is not a
valid name it is made one, with a note. Relative paths (``--config``, ``--package-path``) are
read from ``cwd``, as gcloud reads them, and must lead inside the repository (provider.gcloud.paths).
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path
from typing import Any

from provider.core.problem import Problem
from provider.core.record import Record, field
from provider.gcloud import config_doc, custom_job, gcs, heredoc, local_package, paths, tuning
from provider.gcloud.command import GcloudCommand, GcloudError, Generation
from provider.gcloud.config_doc import Config, ConfigProblems

_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,127}$")
_KMS_PARTS = {"kmsKeyring": "--kms-keyring", "kmsLocation": "--kms-location", "kmsProject": "--kms-project"}


class Built(Record, frozen=False):
    """The document, the config it embeds (for positions), what the reading noticed, and where it ran."""

    document: dict[str, Any]
    config: Config | None = None
    notes: list[str] = field(default_factory=list)
    cwd: Path = Path(".")


def job_name(raw: str, notes: list[str]) -> str:
    if _NAME.match(raw):
        return raw
    name = re.sub(r"[^A-Za-z0-9_]", "_", raw)
    if not name[:1].isalpha():
        name = "job_" + name
    name = name[:128]
    notes.append(f"{raw!r} is not a valid job name (letters, digits and _, starting with a letter, at most 128): "
                 f"the spec is named {name!r}")
    return name


def _kms(values: dict[str, object]) -> None:
    key = values.get("kmsKey")
    parts = {k: values.pop(k) for k in _KMS_PARTS if k in values}
    if key is None:
        if parts:
            raise GcloudError("--kms-keyring, --kms-location and --kms-project need --kms-key")
        return
    if isinstance(key, str) and not key.startswith("projects/"):
        missing = [flag for k, flag in _KMS_PARTS.items() if k not in parts]
        if missing:
            raise GcloudError(f"--kms-key {key} is not a full key name (projects/.../cryptoKeys/...): "
                              f"give {', '.join(missing)} too")
        values["kmsKey"] = (f"projects/{parts['kmsProject']}/locations/{parts['kmsLocation']}/"
                            f"keyRings/{parts['kmsKeyring']}/cryptoKeys/{key}")


def _region_and_tier(values: dict[str, object]) -> None:
    """What gcloud ai-platform jobs submit training refuses before it reads the config
    (command_lib/ml_engine/jobs_util.py: SubmitTraining, TrainingCustomInputServerConfig.ValidateConfig)."""
    if not values.get("region"):
        raise GcloudError("no --region: gcloud takes the region from --region or its compute/region property, and "
                          "refuses the command when neither is set (\"The required property [region] is not currently "
                          "set\"; a config's trainingInput.region does not count); trainjobs cannot read your gcloud "
                          "configuration: add --region REGION")
    tier = values.get("scaleTier")
    if isinstance(tier, str) and tier.upper() == "CUSTOM" and not values.get("masterMachineType"):
        raise GcloudError("--master-machine-type is required if --scale-tier is CUSTOM: gcloud refuses the command "
                          "without it, even when the config names a masterType (drop --scale-tier and let the "
                          "config's scaleTier: CUSTOM stand, or add --master-machine-type)")


# The fields of AI Platform's Job (ml v1, GoogleCloudMlV1Job), which gcloud reads an ai-platform --config as.
AIP_JOB_FIELDS = frozenset({
    "jobId", "trainingInput", "predictionInput", "explanationInput", "labels", "etag", "createTime", "startTime",
    "endTime", "state", "errorMessage", "trainingOutput", "predictionOutput", "explanationOutput", "jobPosition"})


def _aip_unknown_keys(config: Config) -> None:
    """Refuse a --config key that is no field of the Job, at its line: gcloud keeps a key it does not know and
    sends it beside the trainingInput, and the API refuses the request. Reading past it would drop, in silence,
    all it holds (a misspelled trainingInput: the whole config)."""
    data = config.data
    unknown = [key for key in data if key not in AIP_JOB_FIELDS] if isinstance(data, dict) else []
    if not unknown:
        return
    positions = config.doc.key_positions.get(id(data), {})
    problems = []
    for key in unknown:
        line, column = positions.get(key, (1, 1))
        close = difflib.get_close_matches(str(key), sorted(AIP_JOB_FIELDS), n=1)
        problems.append(Problem(
            file=config.shown, line=line, column=column, rule="gcloud.config-unknown-key",
            message=f"{key}: no field of an AI Platform Job, which --config holds: gcloud sends it as it is, and "
                    f"AI Platform refuses the request (Invalid JSON payload received. Unknown name \"{key}\" at "
                    f"'job': Cannot find field.)" + (f"; did you mean {close[0]!r}?" if close else ""),
            allowed="the Job's fields: trainingInput, labels (jobId: the command's job name)"))
    raise ConfigProblems(problems)


def _aip_job_fields(config: dict[str, Any], job_id: str | None, notes: list[str]) -> None:
    """The Job's fields of a --config beside trainingInput and labels, each named: gcloud sets jobId to the
    command's JOB, and sends the rest as written; none of them is part of the training job trainjobs writes."""
    for key in config:
        if key == "jobId" and config[key] != job_id:
            notes.append(f"jobId {config[key]!r} in the config is replaced by the command's JOB {job_id!r}, as gcloud "
                         "replaces it")
        elif key in ("predictionInput", "explanationInput"):
            notes.append(f"{key} in the config is ignored: it asks for a prediction job, and this command submits "
                         "a training job (its trainingInput)")
        elif key not in ("jobId", "trainingInput", "labels"):
            notes.append(f"{key} in the config is set by the service (output only): ignored")


def _config_package_uris(ti: dict[str, Any], values: dict[str, Any], notes: list[str]) -> None:
    """gcloud sets trainingInput.packageUris to what --packages and --package-path give, an empty list without
    them (api_lib/ml_engine/jobs.py BuildTrainingJob): a config's packageUris is never sent. With neither flag,
    a job that runs no container of its own is refused, with gcloud's words."""
    if not ti.get("packageUris") or "packages" in values or "packagePath" in values:
        return  # the flags' packages replace the config's (provider.spec.formats.legacy.application)
    master = ti.get("masterConfig")
    if values.get("masterImageUri") or (isinstance(master, dict) and master.get("imageUri")):
        notes.append("packageUris in the config is not sent: gcloud replaces it with what --packages and "
                     "--package-path give (none here), and the job runs its container")
        return
    raise GcloudError("Non-custom jobs must have packages. (gcloud replaces the config's trainingInput.packageUris "
                      "with what --packages and --package-path give, and neither is given); allowed: --packages "
                      "with the config's gs:// URIs, --package-path, or a container (masterConfig.imageUri)")


def _ai_platform(cmd: GcloudCommand, config: dict[str, Any] | None, built: Built) -> dict[str, Any]:
    if built.config is not None:
        _aip_unknown_keys(built.config)
    values = dict(cmd.values)
    values.pop("config", None)
    _kms(values)
    ti = (config or {}).get("trainingInput")
    spec: dict[str, Any] = {"trainingInput": ti if isinstance(ti, dict) else {}}
    _config_package_uris(spec["trainingInput"], values, built.notes)
    _aip_job_fields(config or {}, cmd.job_id, built.notes)
    if config and "labels" in config and "labels" not in values:
        spec["labels"] = config["labels"]
    if isinstance(values.get("packagePath"), str):  # refused here, not written for validate to refuse
        paths.in_repository(str(values["packagePath"]), built.cwd, "--package-path", "a package folder")
    packages = values.get("packages")
    for package in packages if isinstance(packages, list) else ():  # a local file gcloud uploads must be there
        if isinstance(package, str) and not package.startswith("gs://"):
            paths.in_repository(package, built.cwd, "--packages", "a package file (.whl, .tar.gz, .zip)")
    if isinstance(values.get("jobDir"), str):
        values["jobDir"] = gcs.job_dir(str(values["jobDir"]))
    if isinstance(values.get("stagingBucket"), str):
        values["stagingBucket"] = gcs.staging_bucket(str(values["stagingBucket"]))
    _region_and_tier(values)
    tier = values.pop("scaleTier", None)
    if isinstance(tier, str):
        spec["scaleTier"] = tier.upper().replace("-", "_")
    chief = values.pop("useChiefInTfConfig", None)
    if chief is not None:
        spec["useChiefInTfConfig"] = chief is True  # --use-chief-in-tf-config, read as gcloud's ArgBoolean
    spec.update(values)
    # gcloud sends what follows -- as trainingInput.args; with no --, the config's args stand.
    if cmd.user_args is not None:
        spec["args"] = cmd.user_args
    assert cmd.job_id is not None
    return {"name": job_name(cmd.job_id, built.notes), "spec": spec}


def _vertex(cmd: GcloudCommand, config: dict[str, Any] | None, built: Built) -> dict[str, Any]:
    values = dict(cmd.values)
    values.pop("config", None)
    _kms(values)
    local = local_package.wants(values.get("workerPoolSpecs"))
    if built.config is not None:
        if not values.get("workerPoolSpecs"):  # gcloud checks the config's pools only when no flag replaces them
            custom_job.config_pools(built.config)
        custom_job.job_fields(built.config)
    display, spec = custom_job.document(values, config, built.cwd, built.notes)
    return {"name": job_name(display, built.notes), **({"displayName": display} if local else {}), "spec": spec}


def _tuning(cmd: GcloudCommand, config: dict[str, Any] | None, built: Built) -> dict[str, Any]:
    values = dict(cmd.values)
    _kms(values)
    body = tuning.document(cmd.generation, values, config, built.notes)
    return {"name": job_name(str(body["displayName"]), built.notes), "spec": body}


_MAKERS = {Generation.AI_PLATFORM: _ai_platform, Generation.VERTEX: _vertex, Generation.TUNING: _tuning}


def _bucket(generation: Generation, values: dict[str, object], bucket: str | None, notes: list[str]) -> None:
    """``trainjobs convert --staging-bucket``: the bucket the spec names, unless the command named its own."""
    if bucket is None:
        return
    bucket = gcs.staging_bucket(bucket)
    if generation is Generation.TUNING:
        raise GcloudError("trainjobs convert --staging-bucket: a tuning job uploads nothing (its trials run the config's images and "
                          "packageUris); leave it out")
    own = values.get("stagingBucket")
    if own is not None and gcs.staging_bucket(str(own)) != bucket:
        notes.append(f"--staging-bucket {bucket} (of trainjobs convert) is not written: the command names its own, {own}")
        return
    values["stagingBucket"] = bucket


def build(cmd: GcloudCommand, cwd: Path, staging_bucket: str | None = None,
          heres: tuple[heredoc.Here, ...] = ()) -> Built:
    """The TrainingJob document of a parsed command; GcloudError for what gcloud would refuse.

    ``staging_bucket`` (``trainjobs convert --staging-bucket``) is written into the spec as
    ``stagingBucket``: where trainjobs uploads a package that gcloud builds into an image. ``heres``: the files
    here-documents of the script wrote before the command (provider.gcloud.heredoc), read for its --config.
    """
    built = Built(document={}, notes=list(cmd.notes), cwd=cwd)
    _bucket(cmd.generation, cmd.values, staging_bucket, built.notes)
    config_value = cmd.values.get("config")
    config: dict[str, Any] | None = None
    if isinstance(config_value, str):
        here = heredoc.find(heres, cwd / config_value)
        where = cwd / config_value if here else paths.in_repository(config_value, cwd, "--config", "a file")
        built.config = config_doc.read(where, here)  # ConfigProblems when it cannot be read
        config = built.config.data
        built.notes.extend(built.config.readings)
        config_doc.unset_nulls(built.config, built.notes)
    made = _MAKERS[cmd.generation](cmd, config, built)
    metadata = {"name": made["name"], **({"displayName": made["displayName"]} if "displayName" in made else {})}
    built.document = {"apiVersion": "trainjobs/v1", "kind": "TrainingJob", "metadata": metadata,
                      "spec": made["spec"]}
    return built
