"""``aiplatform.CustomJob.from_local_script(...)`` + its ``.run(...)`` -> a spec that packages the script.

The SDK (jobs.py ``CustomJob.from_local_script``, utils/source_utils.py) builds a source distribution
holding the script (as ``aiplatform_custom_trainer_script.task``) with ``requirements`` as its
dependencies (script_training.py: what it shares with ``CustomTrainingJob``), uploads it under the
staging bucket, and runs it on ``container_uri`` in the pools ``chief_worker_pool`` builds from
``replica_count``, ``machine_type`` ...: a prebuilt training container
(``docker.pkg.dev/vertex-ai/`` or ``gcr.io/cloud-aiplatform/``) as a python_package_spec.

trainjobs packages the script's folder instead, as ``gcloud ai custom-jobs create
--worker-pool-spec=...,local-package-path=DIR,script=SCRIPT`` is converted: the folder as a flat package,
the script's module run with ``python -m``, the requirements installed with it. The body here names a
placeholder package; the converter (provider/cli/convert_python.py) puts the folder in its place.
Refused by name: ``enable_autolog`` (the SDK wraps the script in its own autolog code) and a container
that is not a prebuilt one (the SDK then runs ``pip install`` of the package in the container's shell).
"""

from __future__ import annotations

from provider.pysdk.arguments import Call, SdkError
from provider.pysdk.custom_job import (
    JOB_DEFAULTS,
    Body,
    init_notes,
    job_fields,
    outputs,
    ran,
    region,
    run_fields,
    staging,
)
from provider.pysdk.pipelines import application, pools
from provider.pysdk.script_training import packaged_note, prebuilt, script_package


def local_script(ctor: Call, run: Call | None, init: Call, method: str = "run") -> Body:
    """The spec body of ``CustomJob.from_local_script(...)`` run by ``run`` (None: never run)."""
    body = Body()
    region(ctor, init, body)
    job_fields(ctor, init, body)
    outputs(ctor, init, body)
    local_pools(ctor, init, body)
    run_fields(ran(ctor, run, body), init, JOB_DEFAULTS[method], body)
    body.notes += init_notes(init)
    return body


def local_pools(ctor: Call, init: Call, body: Body) -> None:
    """The pools of ``CustomJob.from_local_script(...)`` put in ``body``, with the script to package (``local``): the
    job's own, or a HyperparameterTuningJob's trial (tuning.py), whose trial spec is this job's job_spec."""
    if ctor.flag("enable_autolog"):
        raise SdkError(ctor.place("enable_autolog"), f"{ctor.what}(enable_autolog=True): the SDK wraps the script "
                       "in aiplatform.autolog() and adds its own requirement, which trainjobs does not do",
                       "enable_autolog=False, and aiplatform.autolog() in the script itself")
    container = ctor.text("container_uri") or ""
    if not prebuilt(container):
        raise SdkError(ctor.place("container_uri"), f"{ctor.what}(container_uri={container!r}) is not a prebuilt "
                       "training container: the SDK then runs pip install of its package in the container's shell, "
                       "which trainjobs does not convert", "a prebuilt container (us-docker.pkg.dev/vertex-ai/"
                       "training/...), or a container image that holds the script, as a CustomJob")
    package, body.local = script_package(ctor, str(staging(ctor, init, [])[0]))  # noted by outputs
    body.put("worker_pool_specs", pools(ctor, *application(ctor, "CustomJob.from_local_script", ctor, package)),
             ctor.where)
    body.notes.append(packaged_note(ctor, body.local, str(package["python_module"])))
