"""``aiplatform.CustomJob.from_local_script(...)`` + its ``.run(...)`` -> a spec that packages the script.

The SDK (jobs.py ``CustomJob.from_local_script``, utils/source_utils.py) builds a source distribution
holding the script (as ``aiplatform_custom_trainer_script.task``) with ``requirements`` as its
dependencies, uploads it under the staging bucket, and runs it on ``container_uri`` in the pools
``chief_worker_pool`` builds from ``replica_count``, ``machine_type`` ...: a prebuilt training container
(``docker.pkg.dev/vertex-ai/`` or ``gcr.io/cloud-aiplatform/``) as a python_package_spec.

trainjobs packages the script's folder instead, as ``gcloud ai custom-jobs create
--worker-pool-spec=...,local-package-path=DIR,script=SCRIPT`` is converted: the folder as a flat package,
the script's module run with ``python -m``, the requirements installed with it. The body here names a
placeholder package; the converter (provider/cli/convert_python.py) puts the folder in its place.
Refused by name: ``enable_autolog`` (the SDK wraps the script in its own autolog code) and a container
that is not a prebuilt one (the SDK then runs ``pip install`` of the package in the container's shell).
"""

from __future__ import annotations

from pathlib import PurePosixPath

from provider.pysdk.arguments import Call, SdkError
from provider.pysdk.custom_job import JOB_DEFAULTS, Body, init_notes, job_fields, outputs, ran, region, run_fields
from provider.pysdk.pipelines import pools

_PREBUILT = ("docker.pkg.dev/vertex-ai/", "gcr.io/cloud-aiplatform/")  # the SDK's own test


def local_script(ctor: Call, run: Call | None, init: Call, method: str = "run") -> Body:
    """The spec body of ``CustomJob.from_local_script(...)`` run by ``run`` (None: never run)."""
    if ctor.flag("enable_autolog"):
        raise SdkError(ctor.place("enable_autolog"), f"{ctor.what}(enable_autolog=True): the SDK wraps the script "
                       "in aiplatform.autolog() and adds its own requirement, which trainjobs does not do",
                       "enable_autolog=False, and aiplatform.autolog() in the script itself")
    container = ctor.text("container_uri") or ""
    if not any(prefix in container for prefix in _PREBUILT):
        raise SdkError(ctor.place("container_uri"), f"{ctor.what}(container_uri={container!r}) is not a prebuilt "
                       "training container: the SDK then runs pip install of its package in the container's shell, "
                       "which trainjobs does not convert", "a prebuilt container (us-docker.pkg.dev/vertex-ai/"
                       "training/...), or a container image that holds the script, as a CustomJob")
    script = ctor.text("script_path") or ""
    if not script.endswith(".py"):
        raise SdkError(ctor.place("script_path"), f"{ctor.what}(script_path={script!r}) is not a Python file",
                       "the path of the training script, such as task.py")
    requirements = ctor.get("requirements") or []
    if not isinstance(requirements, list) or not all(isinstance(r, str) for r in requirements):
        raise SdkError(ctor.place("requirements"), f"{ctor.what}(requirements=...) is not a list of str",
                       "a list of PEP 508 requirements, such as ['pandas==2.2.2']")
    body = Body()
    region(ctor, init, body)
    job_fields(ctor, init, body)
    outputs(ctor, init, body)
    bucket = str(ctor.text("staging_bucket") or init.text("staging_bucket")).rstrip("/")
    stem = PurePosixPath(script).stem
    app: dict[str, object] = {"executor_image_uri": container, "python_module": stem,
                              "package_uris": [f"{bucket}/aiplatform-local-script/{stem}.tar.gz"]}
    if ctor.get("args"):
        app["args"] = ctor.get("args")
    env = ctor.get("environment_variables")
    if env:
        if not isinstance(env, dict):
            raise SdkError(ctor.place("environment_variables"), f"{ctor.what}(environment_variables=...) is not "
                           "a dict", "a dict of name -> value")
        app["env"] = [{"name": k, "value": v} for k, v in env.items()]
    body.put("worker_pool_specs", pools(ctor, "python_package_spec", app), ctor.where)
    body.local = {"script": script, "requirements": requirements, "at": ctor.place("script_path")}
    body.notes.append(f"{ctor.what} at {ctor.where}: the SDK packages {script} alone (as "
                      "aiplatform_custom_trainer_script.task); trainjobs packages its folder, and runs "
                      f"python -m {stem}")
    run_fields(ran(ctor, run, body), init, JOB_DEFAULTS[method], body)
    body.notes += init_notes(init)
    return body
