"""``gcloud config set PROPERTY VALUE`` (and ``gcloud auth ...``) before the gcloud command, read as gcloud applies them.

A script often sets gcloud's properties before its training command (``gcloud config set project p``,
``gcloud config set ai/region us-central1``, then ``gcloud ai custom-jobs create ...``). Those that bear on the
job are collected where the prelude is read (provider.gcloud.words) and applied where the command's flags are
resolved (provider.gcloud.command.parse), as gcloud does:

* ``project`` / ``core/project``: the project, as ``--project`` gives it (checked as gcloud checks it; a
  gcloud setting, not part of the job); ``--project`` on the command wins;
* ``ai/region``: the region of ``gcloud ai custom-jobs|hp-tuning-jobs create`` when ``--region`` is absent
  (command_lib/ai/flags.py RegionAttributeConfig: --region, then ai/region);
* ``compute/region``: the region of ``gcloud ai-platform jobs submit training`` when ``--region`` is absent
  (its --region stores into compute/region, which jobs_util.SubmitTraining reads; ai_platform/region is
  region_util's, for models and versions, never read by jobs submit training).

``CLOUDSDK_CORE_PROJECT``, ``CLOUDSDK_AI_REGION`` and ``CLOUDSDK_COMPUTE_REGION`` in the environment of convert are
these properties as gcloud reads them, before its configuration: they win over a ``gcloud config set`` in the script,
and a flag of the command wins over them (each is named in a note).

The properties that change nothing in the job sent (``account``, ``disable_prompts``, ``compute/zone``...)
and ``gcloud auth login`` / ``activate-service-account`` (credentials) give a note; any other property, flag
or verb is refused by name.
"""

from __future__ import annotations

from collections.abc import Mapping

from provider.core.gcloud_config import ENVIRONMENT, full_name
from provider.gcloud.arg_types import GcloudError, project

READ = tuple(ENVIRONMENT)
# Properties that change nothing in the job any of the three commands sends (output, prompts, who signs in...).
HARMLESS = ("core/account", "core/disable_prompts", "core/verbosity", "core/user_output_enabled", "core/log_http",
            "core/disable_usage_reporting", "core/disable_color", "core/show_structured_logs", "compute/zone",
            "ai_platform/region", "component_manager/disable_update_check", "survey/disable_prompts")
AUTH = ("login", "activate-service-account", "configure-docker")  # credentials (configure-docker: docker's)
_ALLOWED = ("allowed before the gcloud command: gcloud config set with project, ai/region or compute/region (which "
            "give the project and region), or with " + ", ".join(p.removeprefix("core/") for p in HARMLESS) +
            " (which change nothing in the job), and gcloud auth login / activate-service-account / configure-docker")


def ran(words: list[str], properties: dict[str, str], notes: list[str]) -> None:
    """Read a ``gcloud config ...`` / ``gcloud auth ...`` command that runs before the gcloud one into
    ``properties`` (full name -> value, the last one set wins) and ``notes``; Refused (with the word to blame)."""
    from provider.gcloud.prelude import Refused  # here: prelude's word checks import command, which imports this

    group, verb = words[1], (words[2] if len(words) > 2 else "")
    if group == "auth":
        if verb not in AUTH:
            raise Refused(f"gcloud auth {verb} is not read before the gcloud command; {_ALLOWED}", min(2, len(words) - 1))
        who = "docker (for the registries gcloud pushes images to)" if verb == "configure-docker" else "gcloud"
        notes.append(f"gcloud auth {verb} before the command gives {who} credentials, no field of the job: ignored")
        return
    if verb != "set":
        raise Refused(f"gcloud config {verb} is not read: only gcloud config set PROPERTY VALUE is; {_ALLOWED}",
                      min(2, len(words) - 1))
    args = words[3:]
    flag = next((k for k, w in enumerate(args) if w.startswith("-")), None)
    if flag is not None:
        raise Refused(f"gcloud config set {args[flag]}: its flags are not read (--configuration, --installation "
                      f"set another configuration than the command reads); write gcloud config set PROPERTY VALUE",
                      3 + flag)
    if len(args) != 2:
        raise Refused(f"gcloud config set takes a PROPERTY and a VALUE, and {len(args)} word(s) follow it; write "
                      "gcloud config set PROPERTY VALUE", len(words) - 1)
    name, value = full_name(args[0]), args[1]
    if name in HARMLESS:
        notes.append(f"gcloud config set {args[0]} {value}: changes nothing in the job gcloud sends: ignored")
        return
    if name not in READ:
        raise Refused(f"gcloud config set {args[0]}: this property is not read (it may change what gcloud sends); "
                      f"{_ALLOWED}", 3)
    if name == "core/project":
        try:
            project(value)
        except GcloudError as exc:
            raise Refused(f"gcloud config set {args[0]}: {exc}", 4) from None
    properties[name] = value


def environment(properties: Mapping[str, str], env: Mapping[str, str], notes: list[str]) -> dict[str, str]:
    """The properties the command reads: those set before it, under the ``CLOUDSDK_*`` variables of the environment,
    which gcloud reads first (each named in a note; a project is checked as --project is)."""
    out = dict(properties)
    for name, variable in ENVIRONMENT.items():
        value = env.get(variable)
        if not value:
            continue
        if name == "core/project":
            project(value)  # GcloudError, as gcloud refuses it
            notes.append(f"project {value} (${variable}) is a gcloud setting, not part of the job: ignored")
            continue
        over = f", over gcloud config set {name} {properties[name]} earlier" if name in properties else ""
        notes.append(f"{name} is {value!r}, from ${variable} in the environment, which gcloud reads after the "
                     f"command's flags and before its configuration{over}")
        out[name] = value
    return out


def apply(vertex: bool, values: dict[str, object], notes: list[str], properties: Mapping[str, str],
          project_flag: bool) -> None:
    """The properties set before the command, applied as gcloud applies them to it: a flag of the command wins.
    ``vertex``: a ``gcloud ai`` command (region from ai/region), else ai-platform (region from compute/region)."""
    if "core/project" in properties and not project_flag:
        notes.append(f"project {properties['core/project']} (gcloud config set project) is a gcloud setting, not "
                     "part of the job: ignored")
    region, other = ("ai/region", "compute/region") if vertex else ("compute/region", "ai/region")
    if region in properties and "region" not in values:
        values["region"] = properties[region]
    elif region in properties:
        notes.append(f"gcloud config set {region} {properties[region]}: --region on the command wins")
    if other in properties:
        notes.append(f"gcloud config set {other} {properties[other]}: this command takes its region from --region "
                     f"or {region}, not {other}: ignored")
