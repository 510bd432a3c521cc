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

import re
from pathlib import Path
from typing import Any

from provider.core.record import Record, field
from provider.gcloud import config_doc, gcs, local_package, paths
from provider.gcloud.command import GcloudCommand, GcloudError, Generation
from provider.gcloud.config_doc import Config

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


def _ai_platform(cmd: GcloudCommand, config: dict[str, Any] | None, built: Built) -> dict[str, Any]:
    values = dict(cmd.values)
    values.pop("config", None)
    _kms(values)
    ti = (config or {}).get("trainingInput")
    spec: dict[str, Any] = {"trainingInput": ti if isinstance(ti, dict) else {}}
    if config and "labels" in config and "labels" not in values:
        spec["labels"] = config["labels"]
    if isinstance(values.get("packagePath"), str):  # refused here, not written for validate to refuse
        paths.in_repository(str(values["packagePath"]), built.cwd, "--package-path", "a package folder")
    if isinstance(values.get("jobDir"), str):
        values["jobDir"] = gcs.job_dir(str(values["jobDir"]))
    if isinstance(values.get("stagingBucket"), str):
        values["stagingBucket"] = gcs.staging_bucket(str(values["stagingBucket"]))
    tier = values.pop("scaleTier", None)
    if isinstance(tier, str):
        spec["scaleTier"] = tier.upper().replace("-", "_")
    chief = values.pop("useChiefInTfConfig", None)
    if chief is not None:
        spec["useChiefInTfConfig"] = chief == "true"
    spec.update(values)
    # gcloud sends what follows -- as trainingInput.args; with no --, the config's args stand.
    if cmd.user_args is not None:
        spec["args"] = cmd.user_args
    assert cmd.job_id is not None
    return {"name": job_name(cmd.job_id, built.notes), "spec": spec}


def _pool(raw: dict[str, object], uris: object) -> dict[str, Any]:
    if not raw:
        return {}
    machine: dict[str, Any] = {"machineType": raw.get("machine-type")}
    if raw.get("accelerator-type"):
        machine["acceleratorType"] = str(raw["accelerator-type"]).upper().replace("-", "_")
        machine["acceleratorCount"] = raw.get("accelerator-count", 1)
    pool: dict[str, Any] = {"machineSpec": machine, "replicaCount": raw.get("replica-count", 1)}
    if raw.get("container-image-uri"):
        pool["containerSpec"] = {"imageUri": raw["container-image-uri"]}
    elif uris or raw.get("executor-image-uri") or raw.get("python-module"):
        pool["pythonPackageSpec"] = {"executorImageUri": raw.get("executor-image-uri"),
                                     "packageUris": uris or [], "pythonModule": raw.get("python-module")}
    return pool


def _args_and_command(spec: dict[str, Any], args: object, command: object) -> None:
    """--args go to every pool's container or package, --command to its container (gcloud's ConstructCustomJobSpec)."""
    for pool in spec.get("workerPoolSpecs") or []:
        for key, value in (("args", args), ("command", command)):
            targets = ("containerSpec", "pythonPackageSpec") if key == "args" else ("containerSpec",)
            for target in targets:
                if value and isinstance(pool, dict) and isinstance(pool.get(target), dict):
                    pool[target][key] = value


def _vertex(cmd: GcloudCommand, config: dict[str, Any] | None, built: Built) -> dict[str, Any]:
    values = dict(cmd.values)
    values.pop("config", None)
    _kms(values)
    for key in ("enableWebAccess", "enableDashboardAccess"):
        if values.get(key) is False:
            values.pop(key)  # gcloud sets these only when true
    display = values.get("displayName", (config or {}).get("displayName"))
    if not isinstance(display, str) or not display:
        raise GcloudError("argument --display-name: Must be specified.")
    if local_package.wants(values.get("workerPoolSpecs")):
        values.pop("displayName", None)
        return {"name": job_name(display, built.notes), "displayName": display,
                "spec": local_package.document(values, config, built.cwd, built.notes)}
    # The config's own mapping (not a copy), so problems in it point at its lines.
    spec: dict[str, Any] = config if config is not None else {}
    pools = values.pop("workerPoolSpecs", None)
    uris = values.pop("pythonPackageUris", None)
    if isinstance(pools, list):
        spec["workerPoolSpecs"] = [_pool(p, uris) for p in pools]
    _args_and_command(spec, values.pop("args", None), values.pop("command", None))
    spec.update(values)
    return {"name": job_name(display, built.notes), "spec": spec}


def build(cmd: GcloudCommand, cwd: Path) -> Built:
    """The TrainingJob document of a parsed command; GcloudError for what gcloud would refuse."""
    built = Built(document={}, notes=list(cmd.notes), cwd=cwd)
    config_value = cmd.values.get("config")
    config: dict[str, Any] | None = None
    if isinstance(config_value, str):
        where = paths.in_repository(config_value, cwd, "--config", "a file")
        built.config = config_doc.read(where)  # ConfigProblems when it cannot be read
        config = built.config.data
    make = _ai_platform if cmd.generation is Generation.AI_PLATFORM else _vertex
    made = make(cmd, config, built)
    metadata = {"name": made["name"], **({"displayName": made["displayName"]} if "displayName" in made else {})}
    built.document = {"apiVersion": "trainjobs/v1", "kind": "TrainingJob", "metadata": metadata,
                      "spec": made["spec"]}
    return built
