"""The one typed model of a training job.

Every input format (the native spec, AI Platform's ``trainingInput``, Vertex AI's
``CustomJobSpec``) is converted into these frozen values; everything downstream (validation
rules, the Vertex request, the backends, the Pulumi provider, plans) reads only these.

Each value carries ``at``: where its parts were written in the source document, so a rule
that finds a problem in the model can point at the exact line of the file the user wrote,
whatever format it was in. ``at`` never takes part in equality.
"""

from __future__ import annotations

import enum

from provider.core.record import Record, field
from provider.spec.study import HyperParam as HyperParam
from provider.spec.study import Hyperparameters as Hyperparameters
from provider.spec.study import Metric as Metric
from provider.spec.study import ParamCondition as ParamCondition
from provider.spec.study import ParamType as ParamType
from provider.spec.study import Safety as Safety
from provider.spec.study import StoppingKind as StoppingKind
from provider.spec.study import StudyStopping as StudyStopping
from provider.spec.study import TimeConstraint as TimeConstraint
from provider.spec.study import TrialStopping as TrialStopping
from provider.spec.where import DocPath as DocPath
from provider.spec.where import Where as Where
from provider.spec.where import path_of as path_of


class Role(enum.Enum):
    """The four worker pools of a Vertex AI job, in their fixed positions."""

    CHIEF = "chief"
    WORKER = "workers"
    PARAMETER_SERVER = "parameterServers"
    EVALUATOR = "evaluators"

    @property
    def index(self) -> int:
        return _ROLE_INDEX[self]

    @property
    def pool_name(self) -> str:
        """The key in CLUSTER_SPEC (``workerpool0`` ...)."""
        return f"workerpool{self.index}"

    @property
    def tf_task(self) -> str:
        """The task type in TF_CONFIG."""
        return _TF_TASK[self]

    @property
    def legacy_prefix(self) -> str:
        """The AI Platform field prefix (``master``, ``worker``, ...)."""
        return _LEGACY_PREFIX[self]

    @classmethod
    def by_index(cls, index: int) -> Role:
        return _ROLES_BY_INDEX[index]


_ROLE_INDEX = {Role.CHIEF: 0, Role.WORKER: 1, Role.PARAMETER_SERVER: 2, Role.EVALUATOR: 3}
_ROLES_BY_INDEX = {v: k for k, v in _ROLE_INDEX.items()}
_TF_TASK = {Role.CHIEF: "chief", Role.WORKER: "worker", Role.PARAMETER_SERVER: "ps", Role.EVALUATOR: "evaluator"}
_LEGACY_PREFIX = {
    Role.CHIEF: "master",
    Role.WORKER: "worker",
    Role.PARAMETER_SERVER: "parameterServer",
    Role.EVALUATOR: "evaluator",
}


class SourceFormat(enum.Enum):
    NATIVE = "native"
    AI_PLATFORM = "ai-platform"  # trainingInput
    VERTEX = "vertex"  # CustomJobSpec
    VERTEX_TUNING = "vertex-tuning"  # HyperparameterTuningJob (studySpec, trialJobSpec)


class Accelerator(Record):
    """GPUs or TPU chips attached to each replica of a pool: the type and how many."""

    type: str
    count: int
    at: Where = field(default_factory=dict, compare=False, repr=False)


# The AcceleratorType enum's zero: no accelerator (Vertex AI's default).
ACCELERATOR_TYPE_UNSPECIFIED = "ACCELERATOR_TYPE_UNSPECIFIED"


class NoAccelerator(Record):
    """machineSpec's acceleratorType and acceleratorCount written at their defaults
    (``ACCELERATOR_TYPE_UNSPECIFIED``, ``0``): no accelerator, sent as written, as gcloud sends them
    (None: that field was not written). A count above 0 names no accelerator: the schema refuses it."""

    type: str | None = None
    count: int | None = None
    at: Where = field(default_factory=dict, compare=False, repr=False)


class Disk(Record):
    """A replica's boot disk: its type and size (None: not written; ``""`` and 0, written, are Vertex AI's
    defaults too, and are sent as written, as gcloud sends them)."""

    type: str | None = None
    size_gb: int | None = None
    at: Where = field(default_factory=dict, compare=False, repr=False)


class PoolOverride(Record):
    """What one pool runs differently from the job's application (Vertex allows it per pool)."""

    image_uri: str | None = None
    command: tuple[str, ...] | None = None
    args: tuple[str, ...] | None = None
    # A pool that runs a container while the job runs a Python package (Reduction Server).
    container: bool = False
    # The environment of a pool that runs an image of its own (None: the job's env). A Reduction Server pool the
    # SDK builds (CustomTrainingJob.run, from_local_script) has none while the training pools have the job's.
    # A stack's secret env joins the job's env (stack_request.for_stack), not a pool's own.
    env: tuple[EnvVar, ...] | None = None


# ReservationAffinity.Type's default: "This should not be used" (aiplatform_v1 types); it chooses nothing.
RESERVATION_TYPE_UNSPECIFIED = "TYPE_UNSPECIFIED"


class Reservation(Record):
    """machineSpec.reservationAffinity: which Compute Engine reservation the machines come from.

    The type and key are kept as written, their defaults too (TYPE_UNSPECIFIED, ``key: ""``: gcloud sends
    them; key None: not written); ``values: []`` is no values, as gcloud's apitools leaves an empty list out."""

    type: str  # NO_RESERVATION | ANY_RESERVATION | SPECIFIC_RESERVATION (or TYPE_UNSPECIFIED, written)
    key: str | None = None
    values: tuple[str, ...] = ()
    at: Where = field(default_factory=dict, compare=False, repr=False)

    @property
    def is_unset(self) -> bool:
        """Written only at its defaults: no reservation chosen, as if reservationAffinity were absent."""
        return self.type == RESERVATION_TYPE_UNSPECIFIED and not self.key and not self.values


class NfsMount(Record):
    """WorkerPoolSpec.nfsMounts[]: an NFS share mounted at /mnt/nfs/MOUNT_POINT in every replica."""

    server: str
    path: str
    mount_point: str
    at: Where = field(default_factory=dict, compare=False, repr=False)


class LustreMount(Record):
    """WorkerPoolSpec.lustreMounts[]: a Managed Lustre file system mounted at /mnt/lustre/MOUNT_POINT."""

    instance_ip: str
    volume_handle: str
    filesystem: str
    mount_point: str
    at: Where = field(default_factory=dict, compare=False, repr=False)


class WorkerPool(Record):
    """One of the four worker pools: its machines, how many replicas, and what it runs differently."""

    role: Role
    machine_type: str
    replica_count: int = 1
    accelerator: Accelerator | None = None
    no_accelerator: NoAccelerator | None = None  # an explicit ACCELERATOR_TYPE_UNSPECIFIED and/or count 0
    tpu_topology: str | None = None
    disk: Disk = Disk()
    override: PoolOverride | None = None
    # The AI Platform legacy machine type this pool was converted from, if any.
    legacy_machine_type: str | None = None
    # The AI Platform scale tier this pool was converted from, if any (BASIC, STANDARD_1 ...).
    scale_tier: str | None = None
    reservation: Reservation | None = None
    gpu_partition_size: str | None = None  # machineSpec.gpuPartitionSize (e.g. "1g.10gb": MIG partitions)
    nfs_mounts: tuple[NfsMount, ...] = ()
    lustre_mounts: tuple[LustreMount, ...] = ()
    at: Where = field(default_factory=dict, compare=False, repr=False)

    @property
    def gpus(self) -> int:
        """GPUs per replica (a TPU is not a GPU: the catalog's ``kind_of`` says which is which)."""
        from provider.catalog import CATALOG, AcceleratorKind

        if self.accelerator and CATALOG.kind_of(self.accelerator.type) is AcceleratorKind.GPU:
            return self.accelerator.count
        return 0


class PythonPackage(Record):
    """A Python training package: its module, and where the package comes from (URIs or a local path)."""

    module: str
    source_path: str | None = None  # a local directory to package, relative to the spec file
    package_uris: tuple[str, ...] = ()
    executor_image_uri: str | None = None
    runtime_version: str | None = None
    python_version: str | None = None
    args: tuple[str, ...] = ()
    requirements: tuple[str, ...] = ()  # PEP 508 requirements installed with the package (gcloud requirements=)
    extra_packages: tuple[str, ...] = ()  # local .whl/.tar.gz/.zip files, relative to the spec file
    at: Where = field(default_factory=dict, compare=False, repr=False)


class ContainerBuild(Record):
    """Build the image from source instead of naming one (seeds 002 and 004)."""

    context: str
    dockerfile: str | None = None
    at: Where = field(default_factory=dict, compare=False, repr=False)


class Container(Record):
    """The application as a container image (or one to build), with its command and arguments."""

    image_uri: str | None = None
    build: ContainerBuild | None = None
    command: tuple[str, ...] = ()
    args: tuple[str, ...] = ()
    at: Where = field(default_factory=dict, compare=False, repr=False)


Application = PythonPackage | Container


class EnvVar(Record):
    """One environment variable of the application."""

    name: str
    value: str
    at: Where = field(default_factory=dict, compare=False, repr=False)


class OutputDir(Record):
    """Where the job writes. ``job_dir`` jobs also get ``--job-dir`` (AI Platform semantics)."""

    uri: str
    job_dir: bool
    at: Where = field(default_factory=dict, compare=False, repr=False)


class Scheduling(Record):
    """How long the job may wait and run, its restart and retry behaviour, and its scheduling strategy."""

    max_wait_seconds: float | None = None
    max_running_seconds: float | None = None
    # None: not written. An explicit false is kept: gcloud sends what a config sets, defaults included.
    restart_job_on_worker_restart: bool | None = None
    strategy: str | None = None
    disable_retries: bool | None = None
    # The max wait was written as Vertex AI's maxWaitDuration (FLEX_START only), not maxWaitTime.
    max_wait_is_vertex: bool = False
    at: Where = field(default_factory=dict, compare=False, repr=False)


class DnsPeering(Record):
    """PscInterfaceConfig.dnsPeeringConfigs[]: a DNS domain resolved in another project's network."""

    domain: str
    target_project: str
    target_network: str


class PscInterface(Record):
    """CustomJobSpec.pscInterfaceConfig: a Private Service Connect interface for the job."""

    network_attachment: str | None = None
    dns_peering: tuple[DnsPeering, ...] = ()
    at: Where = field(default_factory=dict, compare=False, repr=False)


class VertexOptions(Record):
    """The CustomJobSpec fields of today's Vertex AI that the seeds do not know (issue 11).

    The local backend does not emulate them: a rule says so for every one that is set.
    """

    persistent_resource_id: str | None = None
    enable_web_access: bool | None = None  # None: not written; an explicit false is sent as written
    network: str | None = None
    reserved_ip_ranges: tuple[str, ...] = ()
    tensorboard: str | None = None
    experiment: str | None = None
    experiment_run: str | None = None
    enable_dashboard_access: bool | None = None
    kms_key_name: str | None = None  # the job's CustomJob.encryptionSpec.kmsKeyName (gcloud --kms-key)
    protected_artifact_location_id: str | None = None
    models: tuple[str, ...] = ()  # Model Registry models (and versions) the job may use
    psc_interface: PscInterface | None = None
    at: Where = field(default_factory=dict, compare=False, repr=False)

    def set_fields(self) -> list[str]:
        """The REST names of the fields that are set, in a fixed order."""
        values = {
            "persistentResourceId": self.persistent_resource_id,
            "enableWebAccess": self.enable_web_access,
            "network": self.network,
            "reservedIpRanges": self.reserved_ip_ranges,
            "tensorboard": self.tensorboard,
            "experiment": self.experiment,
            "experimentRun": self.experiment_run,
            "enableDashboardAccess": self.enable_dashboard_access,
            "kmsKey": self.kms_key_name,
            "protectedArtifactLocationId": self.protected_artifact_location_id,
            "models": self.models,
            "pscInterfaceConfig": self.psc_interface,
        }
        return [name for name, value in values.items() if value]


class Note(Record):
    """What a format converter found: a format-specific rule broken (``error``), or something
    the user should know about how the spec was read (a warning)."""

    message: str
    path: DocPath
    rule: str
    source: str | None = None
    allowed: str | None = None
    error: bool = False


class TrainingJob(Record):
    """One training job, whatever format it was written in: its pools, application and options."""

    name: str
    region: str | None
    pools: tuple[WorkerPool, ...]
    application: Application
    team: str | None = None
    description: str | None = None
    display_name: str | None = None  # Vertex AI's free-text displayName; defaults to name
    labels: tuple[tuple[str, str], ...] = ()
    user_args: tuple[str, ...] = ()
    env: tuple[EnvVar, ...] = ()
    output: OutputDir | None = None
    staging_bucket: str | None = None
    scheduling: Scheduling = Scheduling()
    service_account: str | None = None
    hyperparameters: Hyperparameters | None = None
    vertex: VertexOptions = VertexOptions()
    source_format: SourceFormat = SourceFormat.NATIVE
    # COMPLETED: run to the end; CANCELLED: the job should be cancelled (pulumi up does it).
    desired_state: str = "COMPLETED"
    notes: tuple[Note, ...] = field(default=(), compare=False)
    at: Where = field(default_factory=dict, compare=False, repr=False)

    def pool(self, role: Role) -> WorkerPool | None:
        for p in self.pools:
            if p.role is role:
                return p
        return None

    @property
    def chief(self) -> WorkerPool:
        return self.pools[0]

    @property
    def replica_total(self) -> int:
        return sum(p.replica_count for p in self.pools)

    @property
    def names_local_files(self) -> bool:
        """Whether the spec names a local path: what its check and its request read from the files
        there (provider.spec.local_paths lists them)."""
        from provider.spec.local_paths import local_paths  # it builds on this module

        return bool(local_paths(self))

    @property
    def labels_dict(self) -> dict[str, str]:
        return dict(self.labels)

    @property
    def env_dict(self) -> dict[str, str]:
        return {e.name: e.value for e in self.env}

    @property
    def every_env(self) -> tuple[EnvVar, ...]:
        """The job's env and each pool's own (a pool that runs an image of its own may have its own)."""
        own = tuple(var for p in self.pools if p.override is not None and p.override.env for var in p.override.env)
        return self.env + own
