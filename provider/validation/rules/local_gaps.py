"""What the local backend runs without: each Vertex AI field a job sets that it does not emulate.

The fields and what happens instead are data (``NOT_EMULATED_LOCALLY`` in
provider/spec/formats/vertex/field_table.py, beside the rest of the API's field list); this
rule finds which of them a job sets and warns once for each, in a local stack only.
"""

from __future__ import annotations

from collections.abc import Iterator

from provider.core.problem import Severity
from provider.spec.formats.vertex.field_table import NOT_EMULATED_LOCALLY, OTHER_METRICS_LOCALLY
from provider.spec.model import DocPath, TrainingJob, path_of
from provider.validation.rules.base import Context, Finding, Target, rule

TABLE = "provider/spec/formats/vertex/field_table.py (NOT_EMULATED_LOCALLY)"

# The model's names for the CustomJobSpec fields VertexOptions.set_fields() returns, where the table differs.
_MESSAGE_OF = {"kmsKey": ("HyperparameterTuningJob", "encryptionSpec")}


def _gaps(job: TrainingJob) -> Iterator[tuple[str, str, DocPath]]:
    """(message, field, where) for each field the job sets that the local backend does not emulate."""
    for name in job.vertex.set_fields():
        message, field = _MESSAGE_OF.get(name, ("CustomJobSpec", name))
        yield message, field, path_of(job.vertex, name)
    if job.scheduling.disable_retries:
        yield "Scheduling", "disableRetries", path_of(job.scheduling, "disable_retries")
    for pool in job.pools:
        if pool.reservation is not None and not pool.reservation.is_unset:
            yield "MachineSpec", "reservationAffinity", path_of(pool.reservation)
        for field, value, part in (("gpuPartitionSize", pool.gpu_partition_size, "gpu_partition_size"),
                                   ("nfsMounts", pool.nfs_mounts, "nfs_mounts"),
                                   ("lustreMounts", pool.lustre_mounts, "lustre_mounts")):
            if value:
                yield "MachineSpec" if field == "gpuPartitionSize" else "WorkerPoolSpec", field, path_of(pool, part)
    yield from _study_gaps(job)


def _study_gaps(job: TrainingJob) -> Iterator[tuple[str, str, DocPath]]:
    hp = job.hyperparameters
    if hp is None:
        return
    if hp.trial_stopping is not None:
        yield "StudySpec", hp.trial_stopping.kind.value, path_of(hp, "trial_stopping")
    # *_UNSPECIFIED, written explicitly, is the service's default: no noise model, the last measurement.
    for field, value, part in (("observationNoise", hp.observation_noise not in (None, "OBSERVATION_NOISE_UNSPECIFIED"),
                                "observation_noise"),
                               ("measurementSelectionType", hp.measurement_selection not in (
                                   None, "LAST_MEASUREMENT", "MEASUREMENT_SELECTION_TYPE_UNSPECIFIED"),
                                "measurement_selection"),
                               ("studyStoppingConfig", hp.study_stopping, "study_stopping")):
        if value:
            yield "StudySpec", field, path_of(hp, part)
    for m in hp.metrics:
        if m.safety is not None:
            yield "StudySpec.MetricSpec", "safetyConfig", path_of(m, "safety")


@rule
def not_emulated_locally(job: TrainingJob, ctx: Context) -> Iterator[Finding]:
    """The local backend runs the job without these Vertex AI features: it says so for each one set."""
    if ctx.target is not Target.LOCAL:
        return
    for message, field, where in _gaps(job):
        instead = NOT_EMULATED_LOCALLY[message][field]
        written = where[-1] if where and isinstance(where[-1], str) else field
        name = written if written == field else f"{written} ({message}.{field})"  # what the user wrote
        yield Finding(
            f"{name} is not emulated locally: the local backend runs the job without it ({instead})",
            where,
            "local.not_emulated",
            f"{TABLE}: {message}.{field}",
            allowed=f"{field} takes effect on Vertex AI only; remove it for local runs or run in a vertex stack",
            severity=Severity.WARNING,
        )
    hp = job.hyperparameters
    if hp is not None and hp.other_metrics:
        yield Finding(f"the study has {len(hp.metrics)} metrics: {OTHER_METRICS_LOCALLY}",
                      path_of(hp, "other_metrics"), "local.not_emulated", f"{TABLE}: StudySpec.metrics",
                      allowed="one metric for local runs, or run in a vertex stack", severity=Severity.WARNING)
