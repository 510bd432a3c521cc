"""``gcloud ai hp-tuning-jobs create``: the ``--config`` HyperparameterTuningJob with the flags laid over it.

gcloud reads the config into a HyperparameterTuningJob, then sets each flag's field
(api_lib/ai/hp_tuning_jobs/client.py ``HpTuningJobsClient.Create``), and this module does the
same, flag by flag:

- ``--display-name`` (required) replaces ``displayName``;
- ``--max-trial-count`` / ``--parallel-trial-count`` replace the config's count when not 0, and a
  count that neither gives is 1; the config's count is read as apitools reads it (a string such as
  ``"3"`` or ``"03"`` is the number, and ``0`` or ``"0"`` is not given);
- ``--network``, ``--service-account``, ``--enable-web-access`` and ``--enable-dashboard-access``
  set the field of ``trialJobSpec`` (a switch only when on, so ``--no-...`` leaves the config's);
- ``--algorithm`` sets ``studySpec.algorithm`` (``grid-search`` -> ``GRID_SEARCH``);
- ``--kms-key`` replaces ``encryptionSpec`` with ``{kmsKeyName: KEY}``;
- ``--labels`` replaces ``labels`` when it gives any;
- ``--region`` is where the job runs (the spec's ``region``).

A flag gcloud reads but does not apply (a count of 0, a ``--no-`` switch under a config that sets
it) is named in a note: nothing the user wrote disappears without a word.
"""

from __future__ import annotations

from typing import Any

from provider.gcloud.command import GcloudError, Generation, display_name
from provider.gcloud.precedence import not_applied, replaced
from provider.spec.formats.study_fields import config_count

# flag key -> the trialJobSpec field it sets (only when set: a switch only when on)
_TRIAL = {"network": "--network", "serviceAccount": "--service-account", "enableWebAccess": "--enable-web-access",
          "enableDashboardAccess": "--enable-dashboard-access"}
_COUNTS = {"maxTrialCount": "--max-trial-count", "parallelTrialCount": "--parallel-trial-count"}


def _counts(body: dict[str, Any], values: dict[str, object], notes: list[str]) -> None:
    for key, flag in _COUNTS.items():
        given = values.pop(key, None)
        written = body.get(key)
        if given:
            replaced(notes, flag, key, written, given)
            body[key] = given
            continue
        current = config_count(written)
        # gcloud: ``if not job_spec.maxTrialCount and not max_trial_count: ... = 1`` (0 and "0" alike)
        body[key] = 1 if current == 0 or current is None else current
        if written is not None and current == 0:
            not_applied(notes, f"the config's {key}: {written!r}", f"gcloud reads a count of 0 as not given, so "
                        f"{key} is 1", f"Write {key} as a count of 1 or more (or give {flag}).")
        if given == 0:
            not_applied(notes, f"{flag}=0", f"gcloud reads 0 as not given, so {key} is {body[key]}",
                        f"Give {flag} a count of 1 or more.")


def _trial(body: dict[str, Any], values: dict[str, object], notes: list[str]) -> None:
    trial = body.get("trialJobSpec")
    if not isinstance(trial, dict):
        trial = {}
        body["trialJobSpec"] = trial
    for key, flag in _TRIAL.items():
        given = values.pop(key, None)
        if given:
            replaced(notes, flag, f"trialJobSpec.{key}", trial.get(key), given)
            trial[key] = given
        elif given is False and trial.get(key):
            not_applied(notes, f"--no-{flag[2:]}", f"gcloud sets trialJobSpec.{key} only when the flag is on, so the "
                        "config's true stands", f"Remove {key} from the config's trialJobSpec to turn it off.")


def _algorithm(body: dict[str, Any], values: dict[str, object], notes: list[str]) -> None:
    algorithm = values.pop("algorithm", None)
    if not isinstance(algorithm, str):
        return
    study = body.get("studySpec")
    if not isinstance(study, dict):
        raise GcloudError("--algorithm needs the config's studySpec (gcloud sets studySpec.algorithm only "
                          "when the config has a studySpec); add studySpec: {metrics, parameters} to the config")
    value = algorithm.upper().replace("-", "_")
    replaced(notes, "--algorithm", "studySpec.algorithm", study.get("algorithm"), value)
    study["algorithm"] = value


def document(generation: Generation, values: dict[str, object], config: dict[str, Any] | None,
             notes: list[str]) -> dict[str, Any]:
    """The HyperparameterTuningJob body of the spec: the config's own mapping with the flags (kms joined) over it."""
    if values.pop("config", None) is None:
        raise GcloudError("argument --config: Must be specified. (gcloud ai hp-tuning-jobs create reads the "
                          "study and the trial job from a HyperparameterTuningJob YAML file)")
    display = display_name(values)
    if config is not None and (found := _proto_named(config, "HyperparameterTuningJob", "")) is not None:
        raise GcloudError(f"{found[0]}: gcloud reads the --config of hp-tuning-jobs by the API's JSON field names only "
                          f"(DictToMessageWithErrorCheck), and fails on {found[1]!r}; allowed: {found[2]!r}")
    # The config's own mapping (not a copy), so problems in it point at its lines.
    body: dict[str, Any] = config if config is not None else {}
    replaced(notes, "--display-name", "displayName", body.get("displayName"), display)
    body["displayName"] = display
    _counts(body, values, notes)
    _trial(body, values, notes)
    _algorithm(body, values, notes)
    key = values.pop("kmsKey", None)
    if key is not None:
        replaced(notes, "--kms-key", "encryptionSpec", body.get("encryptionSpec"), {"kmsKeyName": key})
        body["encryptionSpec"] = {"kmsKeyName": key}
    labels = values.pop("labels", None)
    if labels:
        replaced(notes, "--labels", "labels", body.get("labels"), labels)
        body["labels"] = labels
    region = values.pop("region", None)
    if region is not None:
        body["region"] = region
    assert not values, f"flags of {generation.value} without a home: {sorted(values)}"
    return body


def _proto_named(body: object, message: str, path: str) -> tuple[str, str, str] | None:
    """The first key of ``body`` (a ``message``) written by its proto name (``image_uri``) where the API's JSON name
    (``imageUri``) differs: (its path, the key, the JSON name); None when every key is a JSON name or unknown (an
    unknown key is the spec's schema's to refuse)."""
    from provider.core.names import snake
    from provider.spec.formats.vertex.proto_names import messages

    fields = messages().get(message, {})
    if not isinstance(body, dict):
        return None
    by_proto = {snake(name): name for name in fields}
    for key, value in body.items():
        if key not in fields and key in by_proto and by_proto[key] != key:
            return f"{path}{key}", key, by_proto[key]
        kind = fields.get(key, "")
        inner = kind.split(" ", 1)[1] if kind.startswith(("message ", "messages ")) else None
        for item in ((value if isinstance(value, list) else []) if kind.startswith("messages ") else [value]):
            found = _proto_named(item, inner, f"{path}{key}.") if inner else None
            if found is not None:
                return found
    return None
