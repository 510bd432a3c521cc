"""A problem's path as text and back: the validator names fields as written by walking the parsed path."""

from __future__ import annotations

import pytest

from provider.core.problem import format_path, parse_path
from provider.document.locate import as_written


@pytest.mark.parametrize("parts", [
    ("spec",),
    ("spec", "workerPoolSpecs", 1, "machineSpec", "machineType"),
    ("spec", "trainingInput", "hyperparameters", "params", 0, "discreteValues", 12),
    ("spec", "env", "MY_VAR"),
])
def test_parse_path_reads_back_what_format_path_wrote(parts: tuple[object, ...]) -> None:
    assert parse_path(format_path(parts)) == parts


def test_as_written_names_each_field_on_the_path_as_the_document_writes_it() -> None:
    written = {"spec": {"workerPoolSpecs": [{"machine_spec": {"machine_type": 5}}]}}
    path, message, allowed = as_written(written, ("spec", "workerPoolSpecs", 0, "machineSpec", "machineType"),
                                        "5 is not allowed for machineType", "a machineType of the catalog")
    assert path == ("spec", "workerPoolSpecs", 0, "machine_spec", "machine_type")
    assert (message, allowed) == ("5 is not allowed for machine_type", "a machine_type of the catalog")
    # a field the proto-named message lacks is named as its other fields are; user data is left alone
    path, message, _ = as_written({"spec": {"training_input": {"scale_tier": "CUSTOM"}}},
                                  ("spec", "trainingInput", "pythonModule"), "set trainingInput.pythonModule", None)
    assert path == ("spec", "training_input", "python_module")
    assert message == "set training_input.python_module"
    assert as_written({"spec": {"env": {"A_B": "1"}}}, ("spec", "env", "A_B"), "A_B", None)[0] == ("spec", "env", "A_B")


def test_a_single_value_where_a_list_goes_is_located_as_its_one_item() -> None:
    """gcloud reads ``packageUris: gs://b/p.tar.gz`` (and a pool written as a mapping) as a list of one: a problem at
    item 0 is at the value written (a book's cpu.yaml, tests/gcloud/configs/sr_flowers_cpu_book.yaml)."""
    from provider.document import read_mapping
    from provider.document.locate import locate

    text = "workerPoolSpecs:\n  machineSpec:\n    machineType: n1-standard-4\n  pythonPackageSpec:\n" \
           "    packageUris: gs://{BUCKET}/p.tar.gz\n"
    doc, _ = read_mapping(text.encode(), "cpu.yaml", "a config")
    assert doc is not None
    assert locate(doc, ("workerPoolSpecs", 0, "pythonPackageSpec", "packageUris", 0)) == (5, 18)
    assert locate(doc, ("workerPoolSpecs", 0, "machineSpec", "machineType")) == (3, 18)
    assert locate(doc, ("workerPoolSpecs", 1, "machineSpec")) == (2, 3)  # no item 1: the list's own place
