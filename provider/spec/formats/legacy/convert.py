"""AI Platform Training's ``trainingInput`` (the config.yaml of seeds 001 and 003) -> TrainingJob.

The body is taken verbatim. Beside it, the spec may carry what gcloud takes as flags
(``region``, ``packagePath``, ``moduleName``, ``jobDir``, ``args`` ...); as with gcloud, a
flag overrides the same value in the config (seed 003: "c'est la valeur de la ligne de
commande qui est retenue"): ``flags.py``.

The AI Platform rules that only make sense for this format (scale tiers, legacy machine
types, master/worker counts) are checked here, in ``pools.py`` and in ``application.py``, and
returned as error notes, each citing the rule id of tools/catalog/reference/job_rules.json.
"""

from __future__ import annotations

import json

from provider.spec.envelope import Metadata, body, merge_labels, metadata_fields
from provider.spec.formats.legacy.application import application
from provider.spec.formats.legacy.flags import effective, overlay
from provider.spec.formats.legacy.hyperparameters import hyperparameters
from provider.spec.formats.legacy.notes import Notes
from provider.spec.formats.legacy.pools import pools as read_pools
from provider.spec.model import (
    Application,
    Container,
    OutputDir,
    Scheduling,
    SourceFormat,
    TrainingJob,
    VertexOptions,
    WorkerPool,
)
from provider.spec.reader import ConversionError, Node

# trainingInput fields gcloud sends that the model has no place for yet (enableWebAccess, network
# and encryptionConfig.kmsKeyName become the Vertex job's own: _vertex_options).
_NOT_CARRIED: tuple[str, ...] = ()


def _vertex_options(ti: Node) -> VertexOptions:
    """AI Platform's enableWebAccess, network and encryptionConfig, as Vertex AI's job fields."""
    encryption = ti.child("encryptionConfig")
    return VertexOptions(
        # AI Platform's trainingInput is another API's message: gcloud ai-platform sends enableWebAccess
        # false whenever the flag is absent, which says nothing of a Vertex AI request; false is unset here.
        enable_web_access=ti.flag("enableWebAccess") or None,
        network=ti.text("network"),
        kms_key_name=encryption.text("kmsKeyName") if encryption is not None else None,
        at={"enableWebAccess": ti.at("enableWebAccess"), "network": ti.at("network"),
            "kmsKey": ti.at("encryptionConfig"), "": ti.path},
    )


def _check_job_id(spec: Node, meta: Metadata, notes: Notes) -> None:
    job_id = spec.text("jobId")
    if job_id is not None and job_id != meta.name:
        notes.error(
            f"jobId {job_id!r} differs from metadata.name {meta.name!r}",
            spec.at("jobId"),
            "aip.jobId.required",
            allowed="the same name in both places, or no jobId",
        )


def _scale_tier(ti: Node, notes: Notes) -> str:
    tier = ti.text("scaleTier")
    if tier is not None:
        return tier
    # The service reads a job without scaleTier as BASIC (the hyperparameter samples rely on it).
    notes.warn("trainingInput.scaleTier is not set: read as BASIC, as AI Platform Training did "
               "(one n1-standard-4 master); set scaleTier to say so", ti.path, "aip.scaleTier.default",
               source="tools/catalog/reference/job_rules.json")
    return "BASIC"


def _not_carried(ti: Node, notes: Notes) -> None:
    for key in _NOT_CARRIED:
        if ti.raw(key) not in (None, False, "", {}):  # false (what describe prints) loses nothing
            notes.warn(f"trainingInput.{key} is accepted but trainjobs does not carry it into the Vertex AI "
                       "request yet", ti.at(key), "aip.gcloud.not_carried")


# AI Platform fields Vertex AI has no place for: each one set is named in a warning, with what happens instead
# (the ml v1 fields: tools/catalog/reference/job_rules.json).
_NO_VERTEX_PLACE = {
    ("scheduling", "priority"): (
        "aip.scheduling.priority", "Vertex AI's Scheduling has no priority among jobs, so the job runs without it"),
    ("hyperparameters", "enableTrialEarlyStopping"): (
        "aip.hyperparameters", "Vertex AI stops trials early only with a studySpec stopping spec "
        "(decayCurveStoppingSpec, medianAutomatedStoppingSpec or convexAutomatedStoppingSpec), so every trial runs to "
        "its end; write the job as a Vertex HyperparameterTuningJob (studySpec) with one to keep early stopping"),
    ("hyperparameters", "resumePreviousJobId"): (
        "aip.hyperparameters", "a Vertex AI tuning job cannot continue an AI Platform job's study, so the study "
        "starts afresh (maxTrials new trials)"),
}


def _no_vertex_place(ti: Node, notes: Notes) -> None:
    for (parent, key), (rule, what) in _NO_VERTEX_PLACE.items():
        node = ti.child(parent)
        if node is not None and node.raw(key) not in (None, False, 0, ""):  # the default loses nothing
            notes.warn(f"trainingInput.{parent}.{key} ({json.dumps(node.raw(key))}) is not sent to Vertex AI: {what}",
                       node.at(key), rule)


def _scheduling(ti: Node) -> Scheduling:
    sched = ti.child("scheduling")
    if sched is None:
        return Scheduling()
    return Scheduling(
        max_wait_seconds=sched.duration("maxWaitTime"),
        max_running_seconds=sched.duration("maxRunningTime"),
        restart_job_on_worker_restart=sched.flag("resilientToWorkerRestart") or None,
        strategy=sched.text("strategy"),
        at={"": sched.path, "max_wait": sched.at("maxWaitTime"), "max_running": sched.at("maxRunningTime"),
            "strategy": sched.at("strategy")},
    )


def _tf_config_note(app: Application, pools: tuple[WorkerPool, ...], ti: Node, notes: Notes) -> None:
    if isinstance(app, Container) and ti.raw("useChiefInTfConfig") is not True and len(pools) > 1:
        notes.warn(
            "on Vertex AI the primary replica is named 'chief' in TF_CONFIG; AI Platform named it "
            "'master' for custom containers unless useChiefInTfConfig was true",
            ti.at("useChiefInTfConfig") if "useChiefInTfConfig" in ti else ti.path,
            "aip.useChiefInTfConfig",
        )


def _user_args(args: object) -> tuple[str, ...]:
    if args is None:
        return ()
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise ConversionError("args must be a list of strings")
    return tuple(args)


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def convert(doc: Node) -> TrainingJob:
    meta = metadata_fields(doc)
    spec = body(doc)
    ti = spec.child("trainingInput")
    if ti is None:
        raise ConversionError("trainingInput is missing")
    notes = Notes()
    _check_job_id(spec, meta, notes)
    ti = overlay(spec, ti)
    tier = _scale_tier(ti, notes)
    _not_carried(ti, notes)
    _no_vertex_place(ti, notes)
    pools = read_pools(ti, tier, notes)
    if not pools:
        raise ConversionError("no master pool", notes=tuple(notes))
    region, region_path = effective(spec, ti, "region")
    job_dir, job_dir_path = effective(spec, ti, "jobDir")
    args, args_path = effective(spec, ti, "args")
    service_account, sa_path = effective(spec, ti, "serviceAccount")
    app = application(spec, ti, notes)
    _tf_config_note(app, pools, ti, notes)
    user_args = _user_args(args)
    tuning = hyperparameters(ti.child("hyperparameters"), notes)
    return TrainingJob(
        name=meta.name,
        team=meta.team,
        description=meta.description,
        display_name=meta.display_name,
        labels=merge_labels(meta.labels, spec.str_map("labels")),
        region=_text(region),
        pools=pools,
        application=app,
        user_args=user_args,
        output=OutputDir(uri=job_dir, job_dir=True, at={"": job_dir_path}) if isinstance(job_dir, str) else None,
        staging_bucket=spec.text("stagingBucket"),
        scheduling=_scheduling(ti),
        service_account=_text(service_account),
        hyperparameters=tuning,
        source_format=SourceFormat.AI_PLATFORM,
        desired_state=spec.text("desiredState") or "COMPLETED",
        vertex=_vertex_options(ti),
        notes=tuple(notes),
        at={
            "": ti.path,
            "name": meta.at_name,
            "labels": meta.at_labels,
            "region": region_path,
            "pools": ti.path,
            "application": ti.path,
            "args": args_path,
            "staging_bucket": spec.at("stagingBucket"),
            "service_account": sa_path,
            "scheduling": ti.at("scheduling"),
        },
    )
