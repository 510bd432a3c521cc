"""What a job hands its replicas: environment, arguments, module, durations.

These pass the JSON Schema and would fail later (at submit, in the replica, or in the API),
or would silently break the job:

* a NUL character cannot be passed in an environment value or a command-line argument
  (``execve`` takes NUL-terminated strings); the API's strings would carry it, a process cannot;
* an environment variable the training service sets itself (``CLUSTER_SPEC``, ``TF_CONFIG``,
  ``AIP_*``, ``CLOUD_ML_*``, PyTorch's ``MASTER_ADDR``...) would be overridden or would
  override what the cluster needs: an error; ``PATH``, ``LD_PRELOAD`` and ``PYTHONPATH``
  change what runs in the prebuilt container: a warning; so do the output directories
  ``AIP_MODEL_DIR``, ``AIP_CHECKPOINT_DIR`` and ``AIP_TENSORBOARD_LOG_DIR``, which Vertex AI sets
  only with baseOutputDirectory and lets a container set otherwise;
* ``module`` is run as ``python -m MODULE``: a dotted Python module name;
* a value written for a variable whose name looks secret is in the committed spec: a warning naming the stack's
  ``trainjobs:secretEnv``;
* durations are google.protobuf.Duration values: more than zero for a limit, and at most the
  type's maximum of 315,576,000,000 seconds (10,000 years).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from provider.core.problem import Severity
from provider.core.secret_names import looks_secret
from provider.document.excerpt import clip
from provider.spec.model import Container, DocPath, EnvVar, PythonPackage, TrainingJob, path_of
from provider.spec.modules import runnable_module
from provider.spec.reader import format_duration
from provider.validation.rules.base import JOB_RULES, Context, Finding, rule

RESERVED_SOURCE = JOB_RULES + " (vx.env.reserved)"
DURATION_SOURCE = JOB_RULES + " (protobuf.duration.range)"


def _reserved(ctx: Context) -> tuple[frozenset[str], tuple[str, ...], frozenset[str]]:
    """(names the service sets, prefixes it sets, names that only deserve a warning)."""
    env = ctx.catalog.limits()["env"]
    return frozenset(env["reserved_names"]), tuple(env["reserved_prefixes"]), frozenset(env["risky_names"])


def _output_dirs(ctx: Context) -> dict[str, str]:
    """AIP_MODEL_DIR, AIP_CHECKPOINT_DIR, AIP_TENSORBOARD_LOG_DIR -> where Vertex AI points them."""
    dirs: dict[str, str] = ctx.catalog.limits()["environment_variables"]["vertex"]["AIP_dirs"]["custom_job"]
    return dirs


def _output_dir_var(job: TrainingJob, var: EnvVar, where: str) -> Finding:
    """Vertex AI sets the AIP_* output directories only with baseOutputDirectory, and lets a container
    set them otherwise (custom_job.proto, baseOutputDirectory): a warning, naming which value wins."""
    if job.output is not None:
        what = (f"environment variable {var.name} is set here and by Vertex AI, which points it at {where} of "
                "baseOutputDirectory; the trainer may see either")
        allowed = f"leave {var.name} to Vertex AI (set baseOutputDirectory), or drop baseOutputDirectory"
    else:
        what = (f"environment variable {var.name} is one Vertex AI sets from baseOutputDirectory; with none set, "
                "your value reaches the trainer as written")
        allowed = f"baseOutputDirectory, to let Vertex AI set {var.name} ({where})"
    return Finding(what, path_of(var), "env.output_dir", JOB_RULES + " (environment_variables.vertex.AIP_dirs)",
                   allowed=allowed, severity=Severity.WARNING, on_key=True)


@rule
def env_names(job: TrainingJob, ctx: Context) -> Iterator[Finding]:
    names, prefixes, risky = _reserved(ctx)
    output_dirs = _output_dirs(ctx)
    for var in job.every_env:
        if var.name in output_dirs:
            yield _output_dir_var(job, var, output_dirs[var.name].replace("<base_output_directory>", ""))
        elif var.name in names or var.name.startswith(prefixes):
            yield Finding(
                f"environment variable {var.name} is set by the training service on every replica; setting it "
                "overrides what the cluster needs (or is overridden)",
                path_of(var), "env.reserved", RESERVED_SOURCE,
                allowed="another name (not CLUSTER_SPEC, TF_CONFIG, AIP_* other than " + ", ".join(output_dirs)
                + ", CLOUD_ML_*, MASTER_ADDR, MASTER_PORT, WORLD_SIZE, RANK, LOCAL_RANK)", on_key=True)
        elif var.name in risky:
            yield Finding(
                f"environment variable {var.name} changes what runs in the training container (its Python, its "
                "libraries)", path_of(var), "env.risky", RESERVED_SOURCE,
                allowed="leave it to the container, or set it knowingly", severity=Severity.WARNING, on_key=True)


_REFERENCE = ("/", "gs://", "projects/", "$", "{", "<", "[")  # a path, a Secret Manager name, a placeholder


@rule
def secret_values(job: TrainingJob, ctx: Context) -> Iterator[Finding]:
    """A value written for a variable whose name looks secret (provider.core.secret_names: HF_TOKEN, WANDB_API_KEY)
    is in the spec, which is committed: a warning that names the stack's secret setting, which hands the job the
    value kept secret (README, "Secrets"). A path, a Secret Manager name or a placeholder is no secret itself."""
    for var in job.every_env:
        if looks_secret(var.name) and len(var.value) >= 4 and not var.value.startswith(_REFERENCE):
            yield Finding(f"environment variable {var.name} looks secret, and its value is written in the spec, which "
                          "is committed with it", path_of(var), "env.secret_value", None,
                          allowed=f"its value in the stack's trainjobs:secretEnv.{var.name} (a Pulumi secret, which "
                                  "the job gets in its environment), not in the spec", severity=Severity.WARNING,
                          on_key=True)


def _nul(text: str, where: DocPath, what: str) -> Iterator[Finding]:
    if "\x00" in text:
        yield Finding(f"{what} contains a NUL character ({clip(text)})", where, "text.nul", None,
                      allowed="text without NUL (\\0): a process cannot receive it in its environment or arguments")


@rule
def no_nul(job: TrainingJob, ctx: Context) -> Iterator[Finding]:
    for var in job.every_env:
        yield from _nul(var.value, path_of(var), f"the value of {var.name}")
    app = job.application
    lists: list[tuple[str, tuple[str, ...], DocPath]] = [("an argument", job.user_args, path_of(job, "args"))]
    lists.append(("an argument", app.args, path_of(app, "args")))
    if isinstance(app, Container):
        lists.append(("the command", app.command, path_of(app, "command")))
    for what, items, where in lists:
        for i, text in enumerate(items):
            yield from _nul(text, where + (i,) if where else where, what)


@rule
def module_name(job: TrainingJob, ctx: Context) -> Iterator[Finding]:
    app = job.application
    if not isinstance(app, PythonPackage):
        return
    # python -m finds a module by its folder and file names, not by identifier rules: Google's own
    # tuning example runs my-trainer.trainer. A path, a file name or an empty part it cannot find.
    at = path_of(app, "module")
    if not app.module and any(n.error and n.path == at for n in job.notes):
        return  # its reader already refused the missing module (AI Platform: no pythonModule)
    if not runnable_module(app.module):
        yield Finding(f"module {clip(app.module)!r} is not a Python module name", at,
                      "package.module", JOB_RULES + " (vx.pythonPackageSpec: pythonModule)",
                      allowed="a dotted Python module name python -m can run, each part letters, digits, _ or -, "
                              "beginning with a letter or _ (such as trainer.task)")


@rule
def duration_range(job: TrainingJob, ctx: Context) -> Iterator[Finding]:
    limit = ctx.catalog.limits()["duration"]["max_seconds"]
    sched = job.scheduling
    for part, name, value in (("max_wait", "maxWaitTime", sched.max_wait_seconds),
                              ("max_running", "maxRunningTime", sched.max_running_seconds)):
        if value is None or (part == "max_wait" and value <= 0):  # max_wait: below its own minimum (job.py)
            continue
        if value <= 0 or value > limit:
            shown = clip(format_duration(value)) if math.isfinite(value) else "a number of seconds too large to read"
            why = "a limit of zero" if value == 0 else "negative" if value < 0 else "beyond what the API accepts"
            yield Finding(f"{name} is {shown}: {why}", path_of(sched, part), "duration.range", DURATION_SOURCE,
                          allowed=f"more than 0s and at most {limit:,}s (google.protobuf.Duration's maximum, 10,000 "
                          "years); leave it out for no limit")
