"""``aiplatform.HyperparameterTuningJob(custom_job=job, ...)`` + its ``.run(...)`` -> a spec body.

The body is the Vertex tuning format's SDK form (provider/spec/formats/vertex_tuning/sdk.py): the call's
own arguments, each parameter a one-key map naming its ``hpt`` class (arguments read by program.py).
As the SDK builds it (jobs.py HyperparameterTuningJob.__init__ and _run): the trial spec is a copy of
the CustomJob's ``job_spec`` (its worker pools, output directory and persistent resource), so the
CustomJob's display_name, labels and key are not sent (each named in a note); the tuning job's own
location, labels and key (or ``init``'s) are; ``.run()``'s service account, network, scheduling, web
access and TensorBoard are set on the trial spec.
"""

from __future__ import annotations

from provider.pysdk.arguments import Call, SdkError
from provider.pysdk.custom_job import (
    JOB_DEFAULTS,
    Body,
    client_notes,
    init_notes,
    named,
    outputs,
    ran,
    region,
    run_fields,
)
from provider.pysdk.local_script import local_pools

_STUDY = ("metric_spec", "parameter_spec", "max_trial_count", "parallel_trial_count", "max_failed_trial_count",
          "search_algorithm", "measurement_selection")


def _trial(job: Call, run: Call, init: Call, body: Body) -> dict[str, object]:
    trial = Body()
    if job.what.endswith(".from_local_script"):  # its pools run the script, packaged as the job's own would be
        outputs(job, init, trial)
        local_pools(job, init, trial)
        body.local = trial.local
    else:
        pools = job.get("worker_pool_specs")
        if not isinstance(pools, list) or not all(isinstance(p, dict) for p in pools):
            raise SdkError(job.place("worker_pool_specs"), f"{job.what}(worker_pool_specs=...) is not a list of "
                           "dicts", "a list of dicts with the WorkerPoolSpec's fields")
        trial.put("worker_pool_specs", pools, job.place("worker_pool_specs"))
        outputs(job, init, trial)
    if job.text("persistent_resource_id"):
        trial.put("persistent_resource_id", job.text("persistent_resource_id"), job.place("persistent_resource_id"))
    run_fields(run, init, JOB_DEFAULTS["run"], trial)
    for name in ("display_name", "labels", "encryption_spec_key_name", "location"):
        if job.get(name) is not None:
            body.notes.append(f"{job.what}({name}=...) at {job.place(name)} is not sent: the HyperparameterTuningJob "
                              "copies only the CustomJob's job_spec (its pools, output directory and persistent "
                              "resource) into each trial")
    body.notes += client_notes(job)
    body.notes += trial.notes
    body.at.update({f"custom_job.{k}": v for k, v in trial.at.items()})
    return trial.spec


def tuning_job(ctor: Call, job: Call, run: Call | None, init: Call) -> Body:
    """The spec body of ``ctor`` (HyperparameterTuningJob(...)) over ``job`` (its CustomJob(...)), run by ``run``."""
    body = Body()
    region(ctor, init, body)
    named(ctor, init, body)
    run = ran(ctor, run, body, "run()")
    body.put("custom_job", _trial(job, run, init, body), ctor.place("custom_job"))
    metrics = ctor.get("metric_spec")
    if not isinstance(metrics, dict) or not all(isinstance(g, str) for g in metrics.values()):
        raise SdkError(ctor.place("metric_spec"), f"{ctor.what}(metric_spec=...) is not a dict of metric -> goal",
                       "{'accuracy': 'maximize'} (the SDK upper-cases each goal: maximize or minimize)")
    body.put("metric_spec", {k: str(g).lower() for k, g in metrics.items()}, ctor.place("metric_spec"))
    for name in _STUDY[1:]:
        if ctor.given(name):
            body.put(name, ctor.get(name), ctor.place(name))
    body.notes += client_notes(ctor)
    body.notes += init_notes(init)
    return body
