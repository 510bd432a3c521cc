"""``--master-accelerator`` / ``--worker-accelerator`` / ``--parameter-server-accelerator`` of
``gcloud ai-platform jobs submit training``, read as gcloud reads them.

command_lib/ml_engine/flags.py ``_MakeAcceleratorArgConfigArg`` (Google Cloud CLI 528): an ArgDict
with ``spec={'type': _ConvertAcceleratorTypeToEnumValue, 'count': _ValidateAcceleratorCount}`` and
``required_keys=['type', 'count']``. So, in gcloud's order: an unknown key is refused; each key's
value is converted where it stands (``type``: ``nvidia-tesla-t4`` or ``NVIDIA_TESLA_T4``, any case,
must name a member of AI Platform's ``AcceleratorConfig.TypeValueValuesEnum``; ``count``: Python's
``int`` of it, greater than 0); then a missing ``type`` and then a missing ``count`` is refused.
There is no default count (``gcloud ai custom-jobs create``'s ``accelerator-count`` defaults to 1;
this flag's does not). Each refusal is gcloud's own words, plus what is allowed; the choices never
offer a retired accelerator (the catalog says which), though gcloud's list still holds them.
"""

from __future__ import annotations

from collections.abc import Iterable

from provider.gcloud.arg_types import GcloudError, Lexed, pairs

# GoogleCloudMlV1AcceleratorConfig.TypeValueValuesEnum of gcloud 528's ml/v1 messages, in order
# (ACCELERATOR_TYPE_UNSPECIFIED is a member gcloud looks up but does not list as a choice).
AI_PLATFORM_TYPES = (
    "NVIDIA_TESLA_A100", "NVIDIA_TESLA_K80", "NVIDIA_TESLA_P100", "NVIDIA_TESLA_P4", "NVIDIA_TESLA_T4",
    "NVIDIA_TESLA_V100", "TPU_V2", "TPU_V2_POD", "TPU_V3", "TPU_V3_POD", "TPU_V4_POD",
)
_UNLISTED = "ACCELERATOR_TYPE_UNSPECIFIED"
COUNT_MESSAGE = "The count of the accelerator must be greater than 0."


def _choice(name: str) -> str:
    return name.replace("_", "-").lower()  # arg_utils.EnumNameToChoice


def not_retired(names: Iterable[str]) -> list[str]:
    """``names`` (AcceleratorType names) less those the catalog says are retired today (K80, P100 ...):
    gcloud's lists still hold them, but a message never offers one as allowed. One that the catalog
    does not know (AI Platform's TPU_V2_POD) stays."""
    import datetime as dt

    from provider.catalog import CATALOG

    today, known = dt.date.today(), CATALOG.accelerators
    return sorted(n for n in names if n not in known or not known[n].retired(today))


def offered() -> list[str]:
    """gcloud's choices for ``type``, as it spells them, less the retired ones."""
    return sorted(_choice(t) for t in not_retired(AI_PLATFORM_TYPES))


def _type(flag: str, value: object) -> str:
    text = value if isinstance(value, str) else str(value)
    name = text.replace("-", "_").upper()  # arg_utils.ChoiceToEnumName
    if name not in AI_PLATFORM_TYPES and name != _UNLISTED:
        raise GcloudError(f"argument {flag}: Invalid accelerator: {_choice(name)}. Valid choices are: "
                          f"[{', '.join(offered())}]. (gcloud's list also holds retired types, left out here)")
    return name


def _count(flag: str, value: object) -> int:
    try:
        count = int(value) if isinstance(value, str | int | float) else int(str(value))
    except ValueError:
        raise GcloudError(f"argument {flag}: invalid ArgDict value: count={value} is not a whole number "
                          "(gcloud refuses it); allowed: count=N, a whole number greater than 0") from None
    if count <= 0:
        raise GcloudError(f"argument {flag}: {COUNT_MESSAGE} (received: count={value}); allowed: a whole "
                          "number greater than 0, e.g. count=1")
    return count


def read(flag: str, value: str | Lexed) -> dict[str, object]:
    """``{'type': ENUM_NAME, 'count': N}`` from the flag's value; GcloudError where gcloud refuses it."""
    raw = pairs(flag, value)
    out: dict[str, object] = {}
    for key, given in raw.items():
        if key not in ("count", "type"):
            raise GcloudError(f"argument {flag}: valid keys are [count, type]; received: {key}")
        out[str(key)] = _type(flag, given) if key == "type" else _count(flag, given)
    for required in ("type", "count"):
        if required not in out:
            raise GcloudError(f"argument {flag}: Key [{required}] required in dict arg but not provided; "
                              f"allowed: {flag}=type=TYPE,count=N (both keys: gcloud sets no default count)")
    return out
