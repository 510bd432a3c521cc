"""``CustomContainerTrainingJob`` / ``CustomPythonPackageTrainingJob`` + ``.run(...)`` -> the CustomJob they run.

These classes create a TrainingPipeline (google/cloud/aiplatform/training_jobs.py): a CustomJob built from
``run()``'s machine arguments (utils/worker_spec_utils.py ``_DistributedTrainingSpec.chief_worker_pool``:
one chief, ``replica_count - 1`` workers, an optional Reduction Server pool; every pool with its boot disk,
pd-ssd and 100 GB by default), then a Model upload and datasets. The CustomJob part becomes the spec, as
``_prepare_training_task_inputs_and_output_dir`` builds its inputs; the Model's arguments are named in a
note (a spec runs the training, it uploads no model); a dataset, whose split the pipeline exports for the
trainer, is refused by name. ``CustomTrainingJob`` runs a local script the SDK packages: its
python_package_spec is given (script_training.py), the rest built here.
"""

from __future__ import annotations

import ast
import re

from provider.pysdk.arguments import Call, SdkError
from provider.pysdk.custom_job import (
    PIPELINE_DEFAULTS,
    Body,
    client_notes,
    init_notes,
    named,
    ran,
    region,
    run_fields,
    staging,
)
from provider.pysdk.signatures import DATASET_ARGS

_MODEL = ("model_serving_container_image_uri", "model_serving_container_predict_route",
          "model_serving_container_health_route", "model_serving_container_command", "model_serving_container_args",
          "model_serving_container_environment_variables", "model_serving_container_ports", "model_description",
          "model_instance_schema_uri", "model_parameters_schema_uri", "model_prediction_schema_uri",
          "explanation_metadata", "explanation_parameters", "model_encryption_spec_key_name")
_RUN_MODEL = ("model_display_name", "model_labels", "model_id", "parent_model", "is_default_version",
              "model_version_aliases", "model_version_description")
_STRUCT_INTS = ("accelerator_count", "boot_disk_size_gb")  # sent as given; replica counts are compared with 0 first
_RUN_JOB = ("service_account", "network", "timeout", "restart_job_on_worker_restart", "enable_web_access",
            "tensorboard", "sync", "create_request_timeout", "disable_retries", "persistent_resource_id",
            "scheduling_strategy", "max_wait_duration", "psc_interface_config")


def _pool(run: Call, replicas: int, chief: bool) -> dict[str, object]:
    if run.given("accelerator_type") and run.get("accelerator_type") is None:  # the default is the str, not None
        raise SdkError(run.place("accelerator_type"), f"{run.what}(accelerator_type=None): the SDK raises ValueError "
                       "(Given accelerator_type `None` invalid)", "leave it out, or an AcceleratorType name such as "
                       "'NVIDIA_TESLA_T4'")
    accelerator = run.text("accelerator_type") or "ACCELERATOR_TYPE_UNSPECIFIED"
    count = run.get("accelerator_count", 0)
    machine: dict[str, object] = {"machine_type": run.text("machine_type") or "n1-standard-4"}
    if accelerator != "ACCELERATOR_TYPE_UNSPECIFIED" and count:
        machine.update(accelerator_type=accelerator, accelerator_count=count)
    if chief and run.text("tpu_topology"):
        machine["tpu_topology"] = run.text("tpu_topology")
    _reservation(run, machine)
    return {"machine_spec": machine, "replica_count": replicas,
            "disk_spec": {"boot_disk_type": run.text("boot_disk_type") or "pd-ssd",
                          "boot_disk_size_gb": run.get("boot_disk_size_gb", 100)}}


def _struct_numbers(run: Call, notes: list[str]) -> Call:
    """``run`` with a count given as a str of digits (``os.environ.get("ACCELERATOR_COUNT", 4)``) as its int: the
    TrainingPipeline sends its pools as a google.protobuf.Struct, where the str stays a str, and Vertex AI reads
    the Struct's JSON as a CustomJobSpec, whose int fields take a number's decimal string (proto3 JSON); named in a
    note. (A CustomJob's proto-plus message refuses the str: from_local_script's pools are left as given.)"""
    args = dict(run.args)
    for name in _STRUCT_INTS:
        value = args.get(name)
        if isinstance(value, str) and re.fullmatch(r"-?[0-9]+", value):
            args[name] = int(value)
            notes.append(f"{run.what}({name}={value!r}) at {run.place(name)} is a str: the TrainingPipeline sends it "
                         f"in its Struct as the string, which Vertex AI reads as the number {int(value)}, written so")
    return Call(run.what, run.where, args, run.at, run.noun)


def _reservation(run: Call, machine: dict[str, object]) -> None:
    kind = run.text("reservation_affinity_type")
    if kind:
        affinity: dict[str, object] = {"reservation_affinity_type": kind}
        if kind == "SPECIFIC_RESERVATION":
            affinity.update(key=run.get("reservation_affinity_key"), values=run.get("reservation_affinity_values"))
        machine["reservation_affinity"] = affinity


def application(ctor: Call, kind: str, run: Call,
                package: dict[str, object] | None = None) -> tuple[str, dict[str, object]]:
    """The pools' container_spec or python_package_spec (``package``: a script's, packaged: script_training.py),
    with ``run``'s args and environment_variables."""
    env = run.get("environment_variables")
    if env is not None and not isinstance(env, dict):
        raise SdkError(run.place("environment_variables"), f"{run.what}(environment_variables=...) is not a dict",
                       "a dict of name -> value")
    app: dict[str, object]
    if package is not None:
        app = dict(package)
    elif kind == "CustomContainerTrainingJob":
        app = {"image_uri": ctor.text("container_uri")}
        if ctor.get("command"):
            app["command"] = ctor.get("command")
    else:
        uris = ctor.get("python_package_gcs_uri")
        app = {"executor_image_uri": ctor.text("container_uri"), "python_module": ctor.text("python_module_name"),
               "package_uris": [uris] if isinstance(uris, str) else uris}
    if run.get("args"):
        app["args"] = run.get("args")
    if env:
        app["env"] = [{"name": k, "value": v} for k, v in env.items()]
    return ("container_spec" if kind == "CustomContainerTrainingJob" else "python_package_spec"), app


def pools(machines: Call, spec_key: str, app: dict[str, object]) -> list[dict[str, object]]:
    """chief_worker_pool's pools from ``machines`` (replica_count, machine_type ...), each running ``app`` (the
    Reduction Server's pool its own image, when one is given)."""
    replicas = machines.get("replica_count", 1)
    if not isinstance(replicas, int) or isinstance(replicas, bool):  # os.environ["NUM_NODES"]: a str
        why = " the SDK compares it with 0 and raises TypeError" if isinstance(replicas, str) else " not an int"
        raise SdkError(machines.place("replica_count"), f"{machines.what}(replica_count={replicas!r}) is a "
                       f"{type(replicas).__name__}:{why}", "an int, 1 or more (one read from the environment: "
                       "int(os.environ[...]))")
    if replicas < 1:
        raise SdkError(machines.place("replica_count"), f"{machines.what}(replica_count={replicas!r}): the SDK "
                       "builds no pool", "1 or more (1: the chief alone; more: replica_count - 1 workers beside it)")
    out = [{**_pool(machines, 1, True), spec_key: app}]
    servers = machines.get("reduction_server_replica_count", 0)
    if replicas > 1 or (isinstance(servers, int) and servers > 0):
        out.append({**_pool(machines, replicas - 1, False), spec_key: dict(app)} if replicas > 1 else {})
    if isinstance(servers, int) and servers > 0:
        if not machines.text("reduction_server_machine_type"):
            raise SdkError(machines.place("reduction_server_replica_count"), f"{machines.what}(reduction_server_replica_"
                           f"count={servers}) without reduction_server_machine_type: the SDK sends the Reduction "
                           "Server's pool with an empty machine_spec, which Vertex AI refuses (a pool's machine_type "
                           "is required)", "reduction_server_machine_type='n1-highcpu-16' (Google's recommendation) "
                           "beside it, with reduction_server_container_uri, the Reduction Server's image")
        server = {"machine_spec": {"machine_type": machines.text("reduction_server_machine_type")},
                  "replica_count": servers, "disk_spec": {"boot_disk_type": "pd-ssd", "boot_disk_size_gb": 100}}
        _reservation(machines, server["machine_spec"])  # type: ignore[arg-type]
        image = machines.text("reduction_server_container_uri")
        server.update({"container_spec": {"image_uri": image}} if image else {spec_key: dict(app)})
        out.append(server)
    return out


def _notes(ctor: Call, run: Call, body: Body) -> None:
    for call, names in ((ctor, _MODEL), (run, _RUN_MODEL)):
        for name in names:
            if call.get(name) is not None:
                body.notes.append(f"{call.what}({name}=...) at {call.place(name)} is not carried: the TrainingPipeline "
                                  "uploads a Model after training, and a spec runs the training only (upload the "
                                  "model from the job's output, base_output_dir/model, afterwards)")
    for name in DATASET_ARGS:  # left unread (binding's keep): a None written out is no dataset
        value = run.get(name)
        if value is not None and not (isinstance(value, ast.Constant) and value.value is None):
            raise SdkError(run.place(name), f"{run.what}({name}=...): the TrainingPipeline exports a dataset's split "
                           "for the trainer (AIP_TRAINING_DATA_URI ...), which a spec cannot do",
                           "the trainer reading its data itself (args with gs:// or bq:// paths), as a CustomJob")
    body.notes += client_notes(ctor)


def staging_bucket(ctor: Call, init: Call, notes: list[str]) -> str:
    """The pipeline's staging bucket: the class's, else init's (custom_job.staging); _CustomTrainingJob.__init__
    raises RuntimeError without one, whether run() gives base_output_dir or not."""
    bucket, _ = staging(ctor, init, notes)
    if not bucket:
        raise SdkError(ctor.where, f"{ctor.what} has no staging bucket: the SDK raises RuntimeError (staging_bucket "
                       "should be set in TrainingJob constructor or set using aiplatform.init)",
                       f"{ctor.what}(staging_bucket='gs://BUCKET') or aiplatform.init(staging_bucket='gs://BUCKET')")
    return str(bucket)


def pipeline_job(kind: str, ctor: Call, run: Call | None, init: Call, method: str = "run",
                 package: dict[str, object] | None = None) -> Body:
    """The CustomJob a TrainingPipeline of ``kind`` runs, as a spec body (``package``: the python_package_spec of
    CustomTrainingJob's script)."""
    body = Body()
    bucket = staging_bucket(ctor, init, body.notes)
    run = ran(ctor, run, body, "run()")
    region(ctor, init, body)
    named(ctor, init, body, "training_encryption_spec_key_name")
    _notes(ctor, run, body)
    run = _struct_numbers(run, body.notes)
    body.put("worker_pool_specs", pools(run, *application(ctor, kind, run, package)), run.where)
    if run.text("base_output_dir"):
        body.put("base_output_dir", run.text("base_output_dir"), run.place("base_output_dir"))
    else:
        body.put("staging_bucket", bucket, staging(ctor, init, [])[1])
        body.notes.append(f"the TrainingPipeline writes its output under {bucket}/aiplatform-custom-training-TIME; "
                          f"trainjobs' job under {bucket}/aiplatform-custom-job-NAME (give run(base_output_dir=...) "
                          "to name one)")
    job_args = {name: value for name, value in run.args.items() if name in _RUN_JOB}
    if job_args.get("max_wait_duration") == 0:  # the pipeline reads it as a truth value: 0 is not sent
        del job_args["max_wait_duration"]
    run_fields(Call(run.what, run.where, job_args, run.at), init, PIPELINE_DEFAULTS[method], body)
    if run.flag("enable_dashboard_access"):
        body.put("enable_dashboard_access", True, run.place("enable_dashboard_access"))
    body.notes += init_notes(init)
    return body
