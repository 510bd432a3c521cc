"""``gcloud ai custom-jobs create``: the ``--config`` CustomJobSpec with the flags laid over it, as gcloud lays them.

gcloud reads the config into a CustomJobSpec, then (surface/ai/custom_jobs/create.py and
command_lib/ai/custom_jobs/custom_jobs_util.py ``ConstructCustomJobSpec``):

- ``--display-name`` (required), ``--labels`` and ``--kms-key`` belong to the CustomJob around the
  spec, ``--region`` is where it runs;
- ``--network``, ``--service-account`` and ``--persistent-resource-id`` replace the config's field;
  ``--enable-web-access`` / ``--enable-dashboard-access`` set it only when on (``--no-...`` leaves
  the config's ``true``: a note says so);
- ``--worker-pool-spec`` (repeated) replaces the config's ``workerPoolSpecs`` whole, each pool
  built from its keys; ``--python-package-uris`` fills only the package pools the flag builds
  (with a config's own pools, or a container pool, it is not applied: a note says so);
- ``--args`` replaces ``args`` of every pool's ``containerSpec`` and ``pythonPackageSpec``,
  ``--command`` replaces ``command`` of every ``containerSpec`` (a package pool has no command: a
  note names each pool it cannot reach).

A config in the Python SDK's snake_case (``worker_pool_specs``) is not read by gcloud's parser: its
pools are sent as written, so ``--args``, ``--command`` and ``--worker-pool-spec`` never reach
them (a note for the first two; the last is refused, since the request would hold the pools
twice). The other flags are written in the config's spelling.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from provider.core.problem import Problem
from provider.gcloud import local_package, pool_checks
from provider.gcloud.command import GcloudError, display_name
from provider.gcloud.config_doc import Config, ConfigProblems
from provider.gcloud.precedence import not_applied, replaced
from provider.spec.formats.vertex.keys import is_snake_case, snake

# flag key -> the flag, for the CustomJobSpec fields a flag replaces
_REPLACES = {"network": "--network", "serviceAccount": "--service-account",
             "persistentResourceId": "--persistent-resource-id"}
# flag key -> the flag, for the CustomJob's own fields (beside the spec in a trainjobs spec)
_AROUND = {"displayName": "--display-name", "labels": "--labels", "kmsKey": "--kms-key", "region": "--region",
           "stagingBucket": "trainjobs convert --staging-bucket"}
_SWITCHES = {"enableWebAccess": "--enable-web-access", "enableDashboardAccess": "--enable-dashboard-access"}

# The CustomJob's own fields, none of them a CustomJobSpec's (google/cloud/aiplatform_v1/types/custom_job.py;
# tests/gcloud/test_whole_job_config.py holds this against the installed descriptors), and the way to give each.
JOB_ONLY = {
    "jobSpec": "", "displayName": "give it as --display-name (gcloud requires that flag)",
    "labels": "give them as --labels KEY=VALUE,...", "encryptionSpec": "give its kmsKeyName as --kms-key",
    **{k: "drop it: Vertex AI sets it (it is output of gcloud ai custom-jobs describe)" for k in (
        "name", "state", "createTime", "startTime", "endTime", "updateTime", "error", "webAccessUris",
        "satisfiesPzs", "satisfiesPzi")},
}
_WHOLE = ("the file is a whole CustomJob (jobSpec and the job's own fields), but gcloud ai custom-jobs create "
          "--config reads a CustomJobSpec; write the content of jobSpec as the config (workerPoolSpecs ... at the "
          "top) and give displayName as --display-name, or convert the file itself with trainjobs convert FILE, "
          "which reads a whole CustomJob")


def _pool(raw: dict[str, object], uris: object) -> dict[str, Any]:
    """One ``--worker-pool-spec`` as a WorkerPoolSpec (custom_jobs_util.py ``_ConstructSingleWorkerPoolSpec``)."""
    if not raw:
        return {}
    machine: dict[str, Any] = {"machineType": raw.get("machine-type")}
    if raw.get("accelerator-type"):
        machine["acceleratorType"] = raw["accelerator-type"]  # as written: pool_checks refuses what gcloud refuses
        machine["acceleratorCount"] = raw.get("accelerator-count", 1)
    pool: dict[str, Any] = {"machineSpec": machine, "replicaCount": raw.get("replica-count", 1)}
    if raw.get("container-image-uri"):
        pool["containerSpec"] = {"imageUri": raw["container-image-uri"]}
    elif uris or raw.get("executor-image-uri") or raw.get("python-module"):
        pool["pythonPackageSpec"] = {"executorImageUri": raw.get("executor-image-uri"),
                                     "packageUris": uris or [], "pythonModule": raw.get("python-module")}
    return pool


def _count(pools: object) -> str:
    n = len(pools) if isinstance(pools, list) else 1
    return f"{n} pool{'s' if n != 1 else ''}"


def _pools(spec: dict[str, Any], values: dict[str, object], notes: list[str]) -> None:
    pools = values.pop("workerPoolSpecs", None)
    uris = values.pop("pythonPackageUris", None)
    if isinstance(pools, list):
        if spec.get("workerPoolSpecs"):
            notes.append(f"--worker-pool-spec replaces the config's workerPoolSpecs ({_count(spec['workerPoolSpecs'])}) "
                         "whole, as gcloud does")
        spec["workerPoolSpecs"] = [_pool(p, uris) for p in pools]
        if uris and not any("pythonPackageSpec" in p for p in spec["workerPoolSpecs"]):
            not_applied(notes, "--python-package-uris", "gcloud gives the URIs only to the pools --worker-pool-spec "
                        "builds without container-image-uri, and there is none", "Remove it, or give a pool "
                        "executor-image-uri and python-module.")
    elif uris:
        not_applied(notes, "--python-package-uris", "gcloud gives the URIs only to the pools --worker-pool-spec "
                    "builds, and the pools here are the config's", "Put them in the config's "
                    "pythonPackageSpec.packageUris.")


def _args_and_command(spec: dict[str, Any], values: dict[str, object], notes: list[str]) -> None:
    """--args to every pool's container or package, --command to its container (``ConstructCustomJobSpec``)."""
    args, command = values.pop("args", None), values.pop("command", None)
    pools = spec.get("workerPoolSpecs") or []
    # gcloud reads a workerPoolSpecs written as one mapping as a one-item list, and so lays the flags over it
    pools = [p for p in ([pools] if isinstance(pools, dict) else pools) if isinstance(p, dict)]
    for i, pool in enumerate(pools):
        for key, value in (("args", args), ("command", command)):
            targets = ("containerSpec", "pythonPackageSpec") if key == "args" else ("containerSpec",)
            for target in targets:
                if value and isinstance(pool.get(target), dict):
                    replaced(notes, f"--{key}", f"workerPoolSpecs[{i}].{target}.{key}", pool[target].get(key), value)
                    pool[target][key] = value
        if command and isinstance(pool.get("pythonPackageSpec"), dict):
            not_applied(notes, f"--command for workerPoolSpecs[{i}]", "a pythonPackageSpec has no command (gcloud sets "
                        "it on containerSpec pools only): the pool runs its pythonModule", "Use a containerSpec "
                        "pool for a command of your own, or drop --command.")


def _off(values: dict[str, object], config: dict[str, Any] | None, notes: list[str]) -> None:
    """``--no-enable-...``: gcloud sets the field only when the flag is on, so the config's value stands."""
    for key, flag in _SWITCHES.items():
        if values.get(key) is False:
            values.pop(key)
            written = [k for k in (key, snake(key)) if (config or {}).get(k)]
            if written:
                not_applied(notes, f"--no-{flag[2:]}", f"gcloud sets {key} only when the flag is on, so the "
                            f"config's {written[0]}: true stands", f"Remove {written[0]} from the config to turn it off.")


def _switches(spec: dict[str, Any], values: dict[str, object], notes: list[str], name: Callable[[str], str]) -> None:
    for key in _SWITCHES:
        if values.pop(key, None):
            spec[name(key)] = True
    for key, flag in _REPLACES.items():
        if key in values:
            replaced(notes, flag, name(key), spec.get(name(key)), values[key])
            spec[name(key)] = values.pop(key)


def _snake(spec: dict[str, Any], values: dict[str, object], notes: list[str]) -> None:
    """A snake_case config: gcloud's parser does not read its pools, so no pool flag reaches them."""
    if "workerPoolSpecs" in values:
        raise GcloudError("--worker-pool-spec cannot go with a --config in snake_case (worker_pool_specs): gcloud "
                          "would send the config's pools and the flag's both, which Vertex AI refuses; write the "
                          "config in camelCase (workerPoolSpecs, machineSpec ...) or drop --worker-pool-spec")
    for key in ("args", "command", "pythonPackageUris"):
        if values.pop(key, None):
            flag = "--python-package-uris" if key == "pythonPackageUris" else f"--{key}"
            not_applied(notes, flag, "gcloud's CustomJobSpec parser does not read a snake_case config's "
                        "worker_pool_specs, so it sends those pools as written", "Write the config in camelCase "
                        "(workerPoolSpecs, containerSpec ...) for the flag to apply, or put the value in the config.")


def config_pools(config: Config) -> None:
    """gcloud's check of a --config's pools, when no --worker-pool-spec replaces them (validation.py
    _ValidateWorkerPoolSpecsFromConfig): each pool runs a container (containerSpec.imageUri) or a package
    (pythonPackageSpec.executorImageUri or pythonModule), not both and not neither. gcloud reads the camelCase
    names only (a snake_case key is an unknown field to it), so an empty pool ({}), which the REST API reads as a
    skipped pool, is refused here as gcloud refuses it."""
    pools = config.data.get("workerPoolSpecs")
    pools = [pools] if isinstance(pools, dict) else pools  # one mapping: gcloud reads a list of one
    if not isinstance(pools, list):
        return
    problems = []
    for index, pool in enumerate(pools):
        pool = pool if isinstance(pool, dict) else {}
        package, container = pool.get("pythonPackageSpec"), pool.get("containerSpec")
        runs_package = isinstance(package, dict) and bool(package.get("executorImageUri") or package.get("pythonModule"))
        runs_container = isinstance(container, dict) and bool(container.get("imageUri"))
        if runs_package != runs_container:
            continue
        items = config.doc.item_positions.get(id(config.data["workerPoolSpecs"]), [])
        line, column = items[index] if index < len(items) else \
            config.doc.key_positions.get(id(config.data), {}).get("workerPoolSpecs", (1, 1))
        what = "both" if runs_package else "an empty pool, which the REST API skips" if not pool else "neither"
        problems.append(Problem(
            file=config.shown, line=line, column=column, rule="gcloud.config-pool",
            message=f"workerPoolSpecs[{index}] ({what}): Invalid value for [--config]: Exactly one of fields "
                    "[pythonPackageSpec, containerSpec] is required for a [workerPoolSpecs] in the YAML config file.",
            allowed="containerSpec with imageUri, or pythonPackageSpec with executorImageUri and pythonModule, in "
                    "each pool (an empty pool only through --worker-pool-spec= or the REST API)"))
    if problems:
        raise ConfigProblems(problems)


def job_fields(config: Config) -> None:
    """Refuse a camelCase --config's CustomJob fields, each at its line and column: gcloud reads the file as a
    CustomJobSpec, keeps a key it does not know and sends it inside jobSpec, and Vertex AI refuses the request
    (a Google API answers an unknown JSON name with "Invalid JSON payload received. Unknown name ...")."""
    data = config.data
    found = [key for key in data if key in JOB_ONLY]
    if not found or is_snake_case(data):
        return
    positions = config.doc.key_positions.get(id(data), {})
    if "jobSpec" in data:  # a whole CustomJob: one problem, at jobSpec
        found = ["jobSpec"] + [k for k in found if k != "jobSpec"]
    problems = []
    for key in found[:1] if "jobSpec" in data else found:
        line, column = positions.get(key, (1, 1))
        named = ", ".join(found) if key == "jobSpec" else key
        fix = _WHOLE if key == "jobSpec" else f"{JOB_ONLY[key]}, and remove it from the config"
        problems.append(Problem(
            file=config.shown, line=line, column=column, rule="gcloud.config-job-field",
            message=f"{named}: {'fields' if ', ' in named else 'a field'} of the CustomJob, not of the CustomJobSpec "
                    "that --config holds: gcloud sends each inside jobSpec as it is, and Vertex AI refuses the request "
                    f"(Invalid JSON payload received. Unknown name \"{key}\" at 'custom_job.job_spec': Cannot find "
                    f"field.); {fix}",
            allowed="the CustomJobSpec's fields: workerPoolSpecs, scheduling, serviceAccount, network, "
                    "baseOutputDirectory ..."))
    raise ConfigProblems(problems)


def document(values: dict[str, object], config: dict[str, Any] | None, cwd: Path,
             notes: list[str]) -> tuple[str, dict[str, Any]]:
    """(display name, spec body) of a custom-jobs command; ``values`` are its flags (kms already joined)."""
    _off(values, config, notes)
    display = display_name(values)
    if local_package.wants(values.get("workerPoolSpecs")):
        if config and config.get("workerPoolSpecs"):
            notes.append(f"--worker-pool-spec replaces the config's workerPoolSpecs ({_count(config['workerPoolSpecs'])}) "
                         "whole, as gcloud does")
        return display, local_package.document(values, config, cwd, notes)
    pools = values.get("workerPoolSpecs")
    if isinstance(pools, list):
        pool_checks.check(pools)
    elif config is None:  # gcloud's argument group: one of them is required
        raise GcloudError("argument (--config --worker-pool-spec): Must be specified.")
    # The config's own mapping (not a copy), so problems in it point at its lines.
    spec: dict[str, Any] = config if config is not None else {}
    snake_case = is_snake_case(spec) if spec else False
    name: Callable[[str], str] = snake if snake_case else str
    if snake_case:
        _snake(spec, values, notes)
    _pools(spec, values, notes)
    _args_and_command(spec, values, notes)
    _switches(spec, values, notes, name)
    values["displayName"] = display
    for key, value in values.items():  # displayName, labels, kmsKey, region: the CustomJob's, beside the spec
        replaced(notes, _AROUND[key], name(key), spec.get(name(key)), value)
        spec[name(key)] = value
    return display, spec
