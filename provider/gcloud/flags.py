"""The flags of the three gcloud training commands, as tables: what each takes and where it goes.

Sources (Google Cloud CLI 528): ``gcloud ai-platform jobs submit training --help``,
``gcloud ai custom-jobs create --help``, ``gcloud ai hp-tuning-jobs create --help``, and the flag
definitions under the SDK's ``lib/googlecloudsdk/command_lib/ml_engine/flags.py``,
``command_lib/ai/custom_jobs/flags.py`` and ``command_lib/ai/hp_tuning_jobs/flags.py``.
Each flag becomes the camelCase key that stands beside ``trainingInput`` / ``workerPoolSpecs`` /
``studySpec`` in a spec (``--master-machine-type`` -> ``masterMachineType``); how each combines
with ``--config`` is build.py's (custom jobs), tuning.py's (tuning jobs) and
provider/spec/formats/legacy/flags.py's (AI Platform). tests/gcloud/test_flag_table.py holds
these tables against the flags gcloud's own static CLI tree lists for each command.
"""

from __future__ import annotations

import enum

from provider.core.record import Record


class Kind(enum.Enum):
    VALUE = "value"          # --flag VALUE or --flag=VALUE
    BOOL = "bool"            # --flag / --no-flag
    INT = "int"              # an integer: Python's int(), at least Flag.minimum where gcloud bounds it
    LIST = "list"            # comma-separated, the last occurrence wins
    APPEND_LIST = "append"   # comma-separated, occurrences add up (--args)
    DICT = "dict"            # KEY=VALUE,... (--labels), occurrences add up (a key once)
    ACCELERATOR = "accel"    # count=N,type=TYPE
    POOL = "pool"            # --worker-pool-spec, repeatable, one pool each
    CHOICE = "choice"        # one of a fixed set (--scale-tier)
    ARG_BOOLEAN = "arg_bool"  # gcloud's ArgBoolean: true/yes or false/no, in any case (--use-chief-in-tf-config)
    NOTE = "note"            # accepted, means nothing to a stored job (value taken if it has one)
    NOTE_BOOL = "note_bool"  # accepted, a switch that means nothing to a stored job
    KMS_PART = "kms_part"    # --kms-keyring / --kms-location / --kms-project


class Flag(Record):
    """One flag of a gcloud command: its name, how its value is read, and the spec key it becomes."""

    name: str
    kind: Kind
    key: str = ""            # the spec key it becomes; "" for notes
    choices: tuple[str, ...] = ()
    pre_ga: bool = False     # only in the beta and alpha tracks (GA gcloud refuses it as unrecognized)
    minimum: int | None = None  # an INT flag's lower bound: gcloud's BoundedInt(minimum, unlimited=True)


SCALE_TIERS = ("basic", "basic-gpu", "basic-tpu", "custom", "premium-1", "standard-1")

# gcloud-wide flags (gcloud topic flags / the help's GCLOUD_WIDE_FLAG list), and what they mean here.
GLOBAL = (
    Flag("--project", Kind.NOTE), Flag("--billing-project", Kind.NOTE), Flag("--configuration", Kind.NOTE),
    Flag("--verbosity", Kind.NOTE), Flag("--format", Kind.NOTE), Flag("--flatten", Kind.NOTE),
    Flag("--impersonate-service-account", Kind.NOTE), Flag("--trace-token", Kind.NOTE),
    Flag("--account", Kind.NOTE), Flag("--quiet", Kind.NOTE_BOOL), Flag("-q", Kind.NOTE_BOOL),
    Flag("--log-http", Kind.NOTE_BOOL), Flag("--user-output-enabled", Kind.NOTE_BOOL),
    Flag("--help", Kind.NOTE_BOOL), Flag("-h", Kind.NOTE_BOOL),
)

_KMS = (Flag("--kms-key", Kind.VALUE, "kmsKey"), Flag("--kms-keyring", Kind.KMS_PART, "kmsKeyring"),
        Flag("--kms-location", Kind.KMS_PART, "kmsLocation"), Flag("--kms-project", Kind.KMS_PART, "kmsProject"))

AI_PLATFORM = (
    Flag("--config", Kind.VALUE, "config"),
    Flag("--enable-web-access", Kind.BOOL, "enableWebAccess"),
    Flag("--job-dir", Kind.VALUE, "jobDir"),
    Flag("--labels", Kind.DICT, "labels"),
    Flag("--master-accelerator", Kind.ACCELERATOR, "masterAccelerator"),
    Flag("--master-image-uri", Kind.VALUE, "masterImageUri"),
    Flag("--master-machine-type", Kind.VALUE, "masterMachineType"),
    Flag("--module-name", Kind.VALUE, "moduleName"),
    Flag("--package-path", Kind.VALUE, "packagePath"),
    Flag("--packages", Kind.LIST, "packages"),
    Flag("--parameter-server-accelerator", Kind.ACCELERATOR, "parameterServerAccelerator"),
    Flag("--parameter-server-image-uri", Kind.VALUE, "parameterServerImageUri"),
    Flag("--parameter-server-count", Kind.INT, "parameterServerCount", minimum=1),
    Flag("--parameter-server-machine-type", Kind.VALUE, "parameterServerMachineType"),
    Flag("--python-version", Kind.VALUE, "pythonVersion"),
    Flag("--region", Kind.VALUE, "region"),
    Flag("--runtime-version", Kind.VALUE, "runtimeVersion"),
    Flag("--scale-tier", Kind.CHOICE, "scaleTier", SCALE_TIERS),
    Flag("--service-account", Kind.VALUE, "serviceAccount"),
    Flag("--staging-bucket", Kind.VALUE, "stagingBucket"),
    Flag("--use-chief-in-tf-config", Kind.ARG_BOOLEAN, "useChiefInTfConfig"),
    Flag("--worker-accelerator", Kind.ACCELERATOR, "workerAccelerator"),
    Flag("--worker-image-uri", Kind.VALUE, "workerImageUri"),
    Flag("--worker-count", Kind.INT, "workerCount", minimum=1),
    Flag("--worker-machine-type", Kind.VALUE, "workerMachineType"),
    Flag("--tpu-tf-version", Kind.VALUE, "tpuTfVersion", pre_ga=True),
    Flag("--network", Kind.VALUE, "network", pre_ga=True),
    Flag("--async", Kind.NOTE_BOOL),
    Flag("--stream-logs", Kind.NOTE_BOOL),
    *_KMS,
)

CUSTOM_JOBS = (
    Flag("--display-name", Kind.VALUE, "displayName"),
    Flag("--config", Kind.VALUE, "config"),
    Flag("--worker-pool-spec", Kind.POOL, "workerPoolSpecs"),
    Flag("--args", Kind.APPEND_LIST, "args"),
    Flag("--command", Kind.APPEND_LIST, "command"),
    Flag("--enable-dashboard-access", Kind.BOOL, "enableDashboardAccess"),
    Flag("--enable-web-access", Kind.BOOL, "enableWebAccess"),
    Flag("--labels", Kind.DICT, "labels"),
    Flag("--network", Kind.VALUE, "network"),
    Flag("--persistent-resource-id", Kind.VALUE, "persistentResourceId"),
    Flag("--python-package-uris", Kind.LIST, "pythonPackageUris"),
    Flag("--region", Kind.VALUE, "region"),
    Flag("--service-account", Kind.VALUE, "serviceAccount"),
    *_KMS,
)

# gcloud's --algorithm choices: StudySpec.AlgorithmValueValuesEnum's names, lower-case with dashes.
ALGORITHMS = ("algorithm-unspecified", "grid-search", "random-search")

HP_TUNING = (
    Flag("--display-name", Kind.VALUE, "displayName"),
    Flag("--config", Kind.VALUE, "config"),
    Flag("--max-trial-count", Kind.INT, "maxTrialCount"),
    Flag("--parallel-trial-count", Kind.INT, "parallelTrialCount"),
    Flag("--algorithm", Kind.CHOICE, "algorithm", ALGORITHMS),
    Flag("--enable-dashboard-access", Kind.BOOL, "enableDashboardAccess"),
    Flag("--enable-web-access", Kind.BOOL, "enableWebAccess"),
    Flag("--labels", Kind.DICT, "labels"),
    Flag("--network", Kind.VALUE, "network"),
    Flag("--region", Kind.VALUE, "region"),
    Flag("--service-account", Kind.VALUE, "serviceAccount"),
    *_KMS,
)

# The keys of --worker-pool-spec (command_lib/ai/custom_jobs/flags.py), int-valued ones marked.
POOL_KEYS = {
    "replica-count": int, "machine-type": str, "accelerator-type": str, "accelerator-count": int,
    "container-image-uri": str, "executor-image-uri": str, "output-image-uri": str, "python-module": str,
    "script": str, "local-package-path": str, "requirements": list, "extra-dirs": list, "extra-packages": list,
}


def table(flags: tuple[Flag, ...], ga: bool = False) -> dict[str, Flag]:
    """The flags a command takes by name: its own (the GA track's only, with ``ga``) and gcloud's global ones."""
    return {f.name: f for f in (*flags, *GLOBAL) if not (ga and f.pre_ga)}
