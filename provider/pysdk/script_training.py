"""A local script the SDK packages itself, and ``aiplatform.CustomTrainingJob`` + ``.run(...)``, which runs one.

Two SDK forms take a ``script_path``: ``CustomJob.from_local_script`` (local_script.py) and
``CustomTrainingJob`` (the SDK's training_jobs.py). Both package the script alone with
utils/source_utils.py ``_TrainingScriptPythonPackager`` (module ``aiplatform_custom_trainer_script.task``,
``requirements`` as its dependencies), upload it under the staging bucket, and run it as every training
pool's python_package_spec on ``container_uri``. trainjobs packages the script's folder instead, as
``gcloud ai custom-jobs create --worker-pool-spec=...,local-package-path=DIR,script=SCRIPT`` is converted:
``script_package`` gives the python_package_spec (a placeholder package, the script's module) and the body's
``local`` (the script and its requirements), which the converter (provider/cli/convert_python.py) packages.

``CustomTrainingJob`` is a TrainingPipeline: its CustomJob is built as pipelines.py builds the other two
classes' (``run()``'s pools, args, environment_variables, base_output_dir, model arguments noted, datasets
refused), its python_package_spec the script's package (``CustomTrainingJob._run``). Its ``container_uri``
is sent as the executor image whatever it is (unlike ``from_local_script``, the pipeline has no other form),
with a note when it is no prebuilt container.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from provider.pysdk.arguments import Call, SdkError
from provider.pysdk.custom_job import Body
from provider.pysdk.pipelines import pipeline_job, staging_bucket

_PREBUILT = ("docker.pkg.dev/vertex-ai/", "gcr.io/cloud-aiplatform/")  # jobs.py from_local_script's own test


def prebuilt(container: str) -> bool:
    """Whether the SDK takes ``container`` for a prebuilt training container (from_local_script's test)."""
    return any(prefix in container for prefix in _PREBUILT)


def script_package(ctor: Call, folder: str) -> tuple[dict[str, object], dict[str, object]]:
    """(the python_package_spec running ``ctor``'s script_path on its container_uri, with a placeholder package
    under ``folder``; the body's ``local``: the script and its requirements, packaged by the converter)."""
    script = ctor.text("script_path") or ""
    if not script.endswith(".py"):
        raise SdkError(ctor.place("script_path"), f"{ctor.what}(script_path={script!r}) is not a Python file",
                       "the path of the training script, such as task.py")
    requirements = ctor.get("requirements") or []
    if not isinstance(requirements, list) or not all(isinstance(r, str) for r in requirements):
        raise SdkError(ctor.place("requirements"), f"{ctor.what}(requirements=...) is not a list of str",
                       "a list of PEP 508 requirements, such as ['pandas==2.2.2']")
    stem = PurePosixPath(script).stem
    app: dict[str, object] = {"executor_image_uri": ctor.text("container_uri"), "python_module": stem,
                              "package_uris": [f"{folder.rstrip('/')}/aiplatform-local-script/{stem}.tar.gz"]}
    return app, {"script": script, "requirements": requirements, "at": ctor.place("script_path")}


def packaged_note(ctor: Call, local: dict[str, object], module: str) -> str:
    return (f"{ctor.what} at {ctor.where}: the SDK packages {local['script']} alone (as "
            "aiplatform_custom_trainer_script.task); trainjobs packages its folder, and runs "
            f"python -m {module}")


def script_training_job(ctor: Call, run: Call | None, init: Call, method: str = "run") -> Body:
    """The CustomJob a ``CustomTrainingJob``'s TrainingPipeline runs, its script packaged by trainjobs."""
    app, local = script_package(ctor, staging_bucket(ctor, init, []))  # noted by pipeline_job
    body = pipeline_job("CustomTrainingJob", ctor, run, init, method, package=app)
    body.local = local
    body.notes.insert(0, packaged_note(ctor, local, str(app["python_module"])))
    container = str(app["executor_image_uri"] or "")
    if not prebuilt(container):
        body.notes.insert(1, f"{ctor.what}(container_uri={container!r}) at {ctor.place('container_uri')} is no "
                          "prebuilt training container: it is sent as the pools' executor image, as the SDK sends it, "
                          "though Vertex AI documents a Python package's executor image as one of its prebuilt "
                          "containers (a container image that holds the script runs as a CustomJob's container_spec)")
    return body
