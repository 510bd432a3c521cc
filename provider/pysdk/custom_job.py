"""``aiplatform.init`` + ``aiplatform.CustomJob(...)`` + its ``.run(...)`` / ``.submit(...)`` -> a spec body.

The body is the Vertex format's snake_case form (the SDK's own argument names: worker_pool_specs,
base_output_dir, staging_bucket, encryption_spec_key_name ...), built as the installed SDK builds its
request (google/cloud/aiplatform/jobs.py CustomJob.__init__, run, submit and _run):

- ``staging_bucket`` is the call's or ``init``'s; the SDK refuses a job with neither (RuntimeError),
  even beside ``base_output_dir``; without ``base_output_dir`` the job's output goes under it.
- ``location`` is the call's, else ``init``'s, else $GOOGLE_CLOUD_REGION / $CLOUD_ML_REGION, else us-central1.
- ``encryption_spec_key_name``, and ``service_account`` at run time, fall back to ``init``'s; ``network``
  too with ``run()`` (``submit()`` reads only its own).
- ``scheduling`` is sent only when timeout, restart_job_on_worker_restart, disable_retries,
  scheduling_strategy or max_wait_duration is given (max_wait_duration=0 too).
- ``sync``, ``create_request_timeout``, ``credentials`` and ``project`` are how the script talks to Vertex AI,
  not the job: each is named in a note.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from provider.core.record import Record, field
from provider.pysdk.arguments import Call, SdkError, Unread

if TYPE_CHECKING:
    from provider.document.loaded import LoadedDocument

DEFAULT_REGION = "us-central1"  # google/cloud/aiplatform/constants/base.py DEFAULT_REGION
# aiplatform.init's arguments that set how the script reaches Vertex AI, or its own experiment tracking.
_INIT_CLIENT = ("credentials", "api_endpoint", "api_key", "api_transport", "request_metadata")
_INIT_EXPERIMENT = ("experiment", "experiment_description", "experiment_tensorboard")
_SCHEDULING = ("timeout", "restart_job_on_worker_restart", "disable_retries", "scheduling_strategy",
               "max_wait_duration")


class Body(Record, frozen=False):
    """A spec body, where each of its fields came from (file:line:column), and the notes said about it."""

    spec: dict[str, object] = field(default_factory=dict)
    at: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    # CustomJob.from_local_script: the script the SDK packages and its requirements (local_script.py); the
    # converter packages the script's folder instead of the placeholder package the body names.
    local: dict[str, object] | None = None
    # JobServiceClient.create_custom_job(...): the create request it sends, converted as a request file (gapic.py)
    request: LoadedDocument | None = None

    def put(self, key: str, value: object, where: str) -> None:
        self.spec[key], self.at[key] = value, where


def init_notes(init: Call) -> list[str]:
    """What ``aiplatform.init`` sets that no job carries."""
    notes = [f"aiplatform.init({name}=...) at {init.place(name)} sets how the {init.noun} reaches Vertex AI, not the job: "
             "trainjobs submits with its own credentials and endpoint" for name in _INIT_CLIENT if init.given(name)]
    notes += [f"aiplatform.init({name}=...) at {init.place(name)} is the SDK's own experiment tracking "
              "(aiplatform.start_run), not the job's: a job's experiment is CustomJob.run(experiment=...)"
              for name in _INIT_EXPERIMENT if init.given(name)]
    if init.given("project"):
        notes.append(project_note(init, "aiplatform.init"))
    return notes


def project_note(call: Call, what: str) -> str:
    return (f"{what}(project={call.get('project')!r}) at {call.place('project')} is not written: a spec names no "
            "project; the stack that runs it does")


def client_notes(call: Call) -> list[str]:
    """What a job class's call gives that is how the code reaches Vertex AI, not the job: its project and
    credentials, each named (for CustomJob, its tuning job and the TrainingPipeline classes alike)."""
    notes = [project_note(call, call.what)] if call.given("project") else []
    if call.given("credentials"):
        notes.append(f"{call.what}(credentials=...) at {call.place('credentials')} is how the {call.noun} reaches "
                     "Vertex AI, not the job: trainjobs submits with its own")
    return notes


def region(ctor: Call, init: Call, body: Body) -> None:
    """The SDK's location, as initializer.global_config.location resolves it."""
    if ctor.text("location"):
        body.put("region", ctor.text("location"), ctor.place("location"))
    elif init.text("location"):
        body.put("region", init.text("location"), init.place("location"))
    else:
        env = next((name for name in ("GOOGLE_CLOUD_REGION", "CLOUD_ML_REGION") if os.environ.get(name)), None)
        value = os.environ[env] if env else DEFAULT_REGION
        body.put("region", value, ctor.where)
        body.notes.append(f"no location is given (neither {ctor.what}(location=...) nor aiplatform.init(location=...)):"
                          f" the SDK's default, {value!r}, is written"
                          + (f" (from ${env})" if env else " (its DEFAULT_REGION)"))


GIVEN_BUCKET = "convert --staging-bucket"  # where a bucket the code knows only when it runs is given instead


def staging(ctor: Call, init: Call, notes: list[str]) -> tuple[str | None, str]:
    """The staging bucket, the call's or else init's, and where it is given (None: neither gives one). A bucket
    written without gs:// is gs://BUCKET to the SDK (utils._timestamped_gcs_dir puts gs:// before the output
    directory it makes under it, and the package upload reads the bucket with or without it): so written, and
    noted."""
    bucket, where = ctor.text("staging_bucket"), ctor.place("staging_bucket")
    if not bucket and not isinstance(ctor.get("staging_bucket"), Unread):
        bucket, where = init.text("staging_bucket"), init.place("staging_bucket")
    unread = next((c for c in (ctor, init) if isinstance(c.get("staging_bucket"), Unread)), None)
    given = unread.get("staging_bucket") if unread is not None else None
    if not bucket and unread is not None and isinstance(given, Unread) and given.given:  # known only when the code
        notes.append(f"{unread.what}(staging_bucket={given!r}) at {unread.place('staging_bucket')}: "  # runs
                     f"{GIVEN_BUCKET} {given.given} is written in its place")
        bucket, where = given.given, unread.place("staging_bucket")  # problems point at the code's argument
    if bucket and not bucket.startswith("gs://"):
        notes.append(f"staging_bucket {bucket!r} ({where}) is written as 'gs://{bucket}': the SDK puts gs:// before "
                     "the paths it makes under a bucket named without it")
        bucket = f"gs://{bucket}"
    return bucket, where


def outputs(ctor: Call, init: Call, body: Body) -> None:
    """base_output_dir, or the staging bucket the SDK puts the job's output under."""
    bucket, where = staging(ctor, init, body.notes)
    if not bucket:
        raise SdkError(ctor.where, f"{ctor.what} has no staging bucket: the SDK raises RuntimeError (staging_bucket "
                       "should be passed to CustomJob constructor or should be set using aiplatform.init)",
                       f"{ctor.what}(staging_bucket='gs://BUCKET') or aiplatform.init(staging_bucket='gs://BUCKET')")
    if ctor.text("base_output_dir"):
        body.put("base_output_dir", ctor.text("base_output_dir"), ctor.place("base_output_dir"))
        body.notes.append(f"staging_bucket {bucket!r} ({where}) is not written: with base_output_dir the SDK only "
                          "checks that a staging bucket is set")
    else:
        body.put("staging_bucket", bucket, where)


def named(ctor: Call, init: Call, body: Body, key: str = "encryption_spec_key_name") -> None:
    """A job constructor's display_name and labels, and its encryption key: its argument ``key``, else init's."""
    if ctor.text("display_name"):
        body.put("display_name", ctor.text("display_name"), ctor.place("display_name"))
    elif isinstance(ctor.get("display_name"), Unread):  # only with convert --name, which names the job instead
        body.notes.append(f"{ctor.what}(display_name={ctor.get('display_name')!r}) at {ctor.place('display_name')} is "
                          "not written: convert --name names the job")
    if ctor.get("labels") is not None:
        body.put("labels", ctor.get("labels"), ctor.place("labels"))
    given, where = ctor.text(key), ctor.place(key)
    if not given:
        given, where = init.text("encryption_spec_key_name"), init.place("encryption_spec_key_name")
    if given:
        body.put("encryption_spec_key_name", given, where)


def ran(ctor: Call, run: Call | None, body: Body, methods: str = "run() or .submit()") -> Call:
    """The call that runs the job ``ctor`` builds; when there is none, a run() with no arguments, and a note."""
    if run is not None:
        return run
    body.notes.append(f"{ctor.what} at {ctor.where} is never run (no .{methods}): converted as run() with no "
                      "arguments")
    return Call(f"{ctor.what}.run", ctor.where)


def job_fields(ctor: Call, init: Call, body: Body) -> None:
    """CustomJob's own fields: display_name, labels, the key, the persistent resource; project as a note."""
    named(ctor, init, body)
    if not ctor.text("display_name") and not isinstance(ctor.get("display_name"), Unread):
        body.notes.append(f"{ctor.what} at {ctor.where} has no display_name: the SDK makes one up at run time; "
                          "the spec's name is the file's")
    if ctor.text("persistent_resource_id"):
        body.put("persistent_resource_id", ctor.text("persistent_resource_id"), ctor.place("persistent_resource_id"))
    body.notes += client_notes(ctor)


def _strategy(run: Call) -> str | None:
    value = run.get("scheduling_strategy")
    if value is None:
        return None
    if isinstance(value, str):
        return value.rsplit(".", 1)[-1]  # Scheduling.Strategy.SPOT, read as its dotted name, or the name itself
    raise SdkError(run.place("scheduling_strategy"), f"{run.what}(scheduling_strategy={value!r}) is not a "
                   "Scheduling.Strategy", "aiplatform.compat.types.custom_job.Scheduling.Strategy.SPOT (or its name)")


def scheduling(run: Call) -> dict[str, object] | None:
    """The SDK's Scheduling, sent only when one of its arguments is set (max_wait_duration=0 counts)."""
    timeout, max_wait = run.seconds("timeout"), run.seconds("max_wait_duration")
    restart, no_retries, strategy = (run.flag("restart_job_on_worker_restart"), run.flag("disable_retries"),
                                     _strategy(run))
    if not (timeout or restart or no_retries or strategy or max_wait is not None):
        return None
    out: dict[str, object] = {}
    if timeout:
        out["timeout"] = f"{timeout}s"
    if restart:
        out["restart_job_on_worker_restart"] = True
    if no_retries:
        out["disable_retries"] = True
    if strategy:
        out["strategy"] = strategy
    if max_wait is not None:
        out["max_wait_duration"] = f"{max_wait}s"
    return out


def _experiment(run: Call, body: Body) -> None:
    experiment, experiment_run = run.get("experiment"), run.get("experiment_run")
    if experiment and run.get("tensorboard"):
        raise SdkError(run.place("experiment"), f"{run.what}(experiment=..., tensorboard=...): the SDK raises "
                       "ValueError ('experiment' and 'tensorboard' cannot be set together)", "one of them")
    if experiment_run and not experiment:
        body.notes.append(f"{run.what}(experiment_run=...) at {run.place('experiment_run')} is not sent: the SDK reads "
                          "experiment_run only beside experiment")
        experiment_run = None
    for name, value in (("experiment", experiment), ("experiment_run", experiment_run)):
        if not value:
            continue
        if not isinstance(value, str) or not value.startswith("projects/"):
            raise SdkError(run.place(name), f"{run.what}({name}={value!r}): the SDK looks the {name} up by name in "
                           "the project at run time (aiplatform.Experiment), which a spec cannot do",
                           f"{name} as its full resource name: projects/P/locations/R/metadataStores/default/"
                           "contexts/NAME")
        body.put(name, value, run.place(name))


# Which of init's defaults each method reads (jobs.py, training_jobs.py: ``x = x or initializer.global_config.x``):
# CustomJob.submit reads no network of init's, a TrainingPipeline's submit no service account.
JOB_DEFAULTS = {"run": ("service_account", "network"), "submit": ("service_account",)}
PIPELINE_DEFAULTS = {"run": ("service_account", "network"), "submit": ("network",)}


def run_fields(run: Call, init: Call, defaults: tuple[str, ...], body: Body) -> None:
    """What ``.run()`` / ``.submit()`` (or HyperparameterTuningJob.run) sets on the job spec; ``defaults``: the
    arguments it takes from ``init`` when not given."""
    for name in ("service_account", "network"):
        value, where = run.text(name), run.place(name)
        if not value and name in defaults:
            value, where = init.text(name), init.place(name)
        if value:
            body.put(name, value, where)
    sched = scheduling(run)
    if sched is not None:
        body.put("scheduling", sched, run.where)
    if run.flag("enable_web_access"):
        body.put("enable_web_access", True, run.place("enable_web_access"))
    if run.text("tensorboard"):
        body.put("tensorboard", run.text("tensorboard"), run.place("tensorboard"))
    if run.text("persistent_resource_id"):
        body.put("persistent_resource_id", run.text("persistent_resource_id"), run.place("persistent_resource_id"))
    if run.get("psc_interface_config") is not None:
        if not isinstance(run.get("psc_interface_config"), dict):
            raise SdkError(run.place("psc_interface_config"), f"{run.what}(psc_interface_config=...) is not a dict",
                           "a dict of PscInterfaceConfig's fields (network_attachment, dns_peering_configs)")
        body.put("psc_interface_config", run.get("psc_interface_config"), run.place("psc_interface_config"))
    _experiment(run, body)
    for name in ("sync", "create_request_timeout"):
        if run.given(name):
            body.notes.append(f"{run.what}({name}=...) at {run.place(name)} is how the {run.noun} waits for Vertex AI, "
                              "not the job: trainjobs run and its --wait policy decide that")


def custom_job(ctor: Call, run: Call | None, init: Call, method: str = "run") -> Body:
    """The spec body of ``ctor`` (CustomJob(...)) run by ``run`` (None: never run, read as run())."""
    body = Body()
    region(ctor, init, body)
    job_fields(ctor, init, body)
    pools = ctor.get("worker_pool_specs")
    if not isinstance(pools, list) or not all(isinstance(p, dict) for p in pools):
        raise SdkError(ctor.place("worker_pool_specs"), f"{ctor.what}(worker_pool_specs=...) is not a list of dicts",
                       "a list of dicts with the WorkerPoolSpec's fields (machine_spec, replica_count, container_spec "
                       "or python_package_spec ...), as the SDK's docstring shows")
    body.put("worker_pool_specs", pools, ctor.place("worker_pool_specs"))
    outputs(ctor, init, body)
    run_fields(ran(ctor, run, body), init, JOB_DEFAULTS[method], body)
    body.notes += init_notes(init)
    return body
