"""The API's enums as Python code names them: ``aiplatform.gapic.AcceleratorType.NVIDIA_TESLA_T4``.

Google's samples name an enum member through the client's modules (``TRAIN_GPU, TRAIN_NGPU =
(aip.gapic.AcceleratorType.NVIDIA_TESLA_T4, 1)``, then ``if TRAIN_GPU:`` and ``accelerator_type=TRAIN_GPU.name``).
``member(dotted)`` is the lookup the Python readers give the evaluator (provider/document/python_enum.py
says what such a value is): the member a dotted import path names, with its number, from the API's own
table (``enum_types`` of provider/submission/api_types.json, generated from the installed client's v1
descriptors). A path names an enum only through a module the installed client names it in (the table's
``homes``: ``google.cloud.aiplatform.gapic``, ``google.cloud.aiplatform_v1`` and ``v1beta1``, their ``types`` and
``types.MODULE``, ``google.cloud.aiplatform.compat.types.MODULE``, as the generator found them).
tests/test_api_enums.py imports every such path and compares each member's number with the table's.
"""

from __future__ import annotations

from provider.document.python_enum import EnumMember
from provider.spec.formats.vertex.proto_names import table


def member(dotted: str) -> EnumMember | str | None:
    """The member ``dotted`` names (``google.cloud.aiplatform.gapic.AcceleratorType.NVIDIA_TESLA_T4``), a str saying
    why it names none of its enum's members, or None when it names no enum of the API."""
    if not dotted.startswith("google.cloud.aiplatform"):
        return None
    types: dict[str, dict[str, object]] = table("enum_types")
    parts = dotted.split(".")
    for start in range(3, len(parts) - 1):  # the longest enum name first: Scheduling.Strategy, not Strategy
        enum, home, name = ".".join(parts[start:-1]), ".".join(parts[:start]), parts[-1]
        found = types.get(enum)
        if found is None or home not in found["homes"]:  # type: ignore[operator]
            continue
        members = found["members"]
        assert isinstance(members, dict)
        if name in members:
            return EnumMember(int(members[name]), enum, name)
        return (f"{dotted}: {enum} has no member {name} (Python raises AttributeError); its members: "
                f"{', '.join(members)}")
    return None
