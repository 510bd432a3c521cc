"""The forms Python and YAML writers use in a Vertex body, read as Google's own readers read them.

Each case feeds the same dict to trainjobs and to Google's reader of that style (the SDK's
proto-plus classes for ``worker_pool_specs``; gcloud's --config loader, and the REST JSON
parser where it accepts the form, for ``workerPoolSpecs``) and compares the requests field by
field. The refused forms get the reader's own refusal beside trainjobs' message.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from provider.catalog import load
from provider.spec.formats.vertex import proto_forms
from provider.validation.validator import validate_data

from .google_readers import (
    assert_same_pools,
    document,
    gcloud_run,
    gcloud_spec,
    rest_spec,
    sdk_spec,
    trainjobs,
)

Json = dict[str, Any]
IMAGE = "us-docker.pkg.dev/vertex-ai/training/tf-cpu.2-12.py310:latest"
GPU_IMAGE = "us-docker.pkg.dev/vertex-ai/training/tf-gpu.2-12.py310:latest"
PACKAGE = "gs://forms-bucket/trainer-0.1.tar.gz"


def warnings_of(result: Any) -> list[str]:
    # IMAGE is past its end of availability (the catalog's dates): that warning is not what these tests are about.
    return [f"{p.path}: {p.message} | {p.allowed}" for p in result.problems
            if not p.is_error and p.rule != "container.end_of_availability"]


def errors_of(body: Json) -> list[str]:
    result = validate_data(document(body))
    return [f"{p.path}: {p.message} | {p.allowed}" for p in result.problems if p.is_error]


# -- the SDK's snake_case worker_pool_specs --------------------------------------------------

SDK_CASES: dict[str, list[Json]] = {
    # The issue's notebook: a template that leaves the GPU out, on a machine that takes none.
    "null_accelerator_on_e2": [{
        "machine_spec": {"machine_type": "e2-standard-4", "accelerator_type": None, "accelerator_count": None},
        "replica_count": 1,
        "disk_spec": None,
        "container_spec": {"image_uri": IMAGE, "command": None, "args": None, "env": None},
    }],
    "zero_count_no_type": [{
        "machine_spec": {"machine_type": "e2-standard-4", "accelerator_count": 0},
        "replica_count": 1,
        "container_spec": {"image_uri": IMAGE, "args": ["--epochs", "2"]},
    }],
    # What CustomJob.from_local_script writes by default.
    "unspecified_type_zero_count": [{
        "machine_spec": {"machine_type": "n1-standard-4", "accelerator_type": "ACCELERATOR_TYPE_UNSPECIFIED",
                         "accelerator_count": 0},
        "replica_count": 1,
        "python_package_spec": {"executor_image_uri": IMAGE, "package_uris": [PACKAGE],
                                "python_module": "trainer.task", "args": None, "env": None},
    }],
    "numeric_enum": [{
        "machine_spec": {"machine_type": "n1-standard-8", "accelerator_type": 5, "accelerator_count": 1},
        "replica_count": 1,
        "disk_spec": {"boot_disk_type": "pd-ssd", "boot_disk_size_gb": 200},
        "container_spec": {"image_uri": GPU_IMAGE},
    }],
    "null_in_second_pool_and_placeholders": [
        {"machine_spec": {"machine_type": "n1-standard-4"}, "replica_count": 1,
         "container_spec": {"image_uri": IMAGE, "env": [{"name": "MODE", "value": None}]}},
        {},
        {},
        {"machine_spec": {"machine_type": "n1-standard-4", "accelerator_type": None, "accelerator_count": 0},
         "replica_count": 1, "disk_spec": None,
         "container_spec": {"image_uri": IMAGE, "command": None, "env": [{"name": "MODE", "value": None}]}},
    ],
    "command_as_string": [{
        "machine_spec": {"machine_type": "n1-standard-4"},
        "replica_count": 1,
        "container_spec": {"image_uri": IMAGE, "command": "python train.py"},
    }],
    "args_as_string": [{
        "machine_spec": {"machine_type": "n1-standard-4"},
        "replica_count": 1,
        "container_spec": {"image_uri": IMAGE, "args": "--epochs=5"},
    }],
}


@pytest.mark.parametrize("name", sorted(SDK_CASES))
def test_sdk_form_gives_the_sdks_request(name: str) -> None:
    pools = SDK_CASES[name]
    ours, _ = trainjobs({"worker_pool_specs": copy.deepcopy(pools)})
    assert_same_pools(ours, sdk_spec(copy.deepcopy(pools)))


def test_null_and_zero_are_read_silently() -> None:
    for name in ("null_accelerator_on_e2", "zero_count_no_type", "unspecified_type_zero_count"):
        _, result = trainjobs({"worker_pool_specs": SDK_CASES[name]})
        assert warnings_of(result) == [], name


def test_numeric_enum_is_named_in_a_note() -> None:
    ours, result = trainjobs({"worker_pool_specs": SDK_CASES["numeric_enum"]})
    assert ours["workerPoolSpecs"][0]["machineSpec"]["acceleratorType"] == "NVIDIA_TESLA_T4"
    notes = warnings_of(result)
    assert len(notes) == 1 and "5 is NVIDIA_TESLA_T4" in notes[0], notes
    assert notes[0].startswith("spec.worker_pool_specs[0].machine_spec.accelerator_type:")


def test_command_string_warns_what_the_container_runs() -> None:
    ours, result = trainjobs({"worker_pool_specs": SDK_CASES["command_as_string"]})
    command = ours["workerPoolSpecs"][0]["containerSpec"]["command"]
    assert command == list("python train.py")  # what the SDK sends, as the equality test shows
    notes = warnings_of(result)
    assert len(notes) == 1, notes
    assert "the container runs the program 'p' with the arguments 'y', 't', 'h'" in notes[0]
    assert "command: ['python', 'train.py']" in notes[0]


def test_args_string_warns_what_the_program_gets() -> None:
    _, result = trainjobs({"worker_pool_specs": SDK_CASES["args_as_string"]})
    notes = warnings_of(result)
    assert len(notes) == 1 and "10 one-character arguments ('-', '-', 'e', 'p', ...)" in notes[0], notes


def test_the_issue_pools_are_refused_by_the_old_reading() -> None:
    """Without the reading, the schema refuses what the SDK runs (the issue's report)."""
    from provider.validation import schema_check

    raw = document({"worker_pool_specs": SDK_CASES["null_accelerator_on_e2"]})
    assert list(schema_check.problems(raw, "x", None, "spec"))
    read = proto_forms.read(raw)
    assert list(schema_check.problems(read.data, "x", None, "spec")) == []
    assert raw["spec"]["worker_pool_specs"][0]["machine_spec"]["accelerator_type"] is None  # not changed


# -- refused by the SDK: trainjobs says what it takes ------------------------------------------

POOL: Json = {"machine_spec": {"machine_type": "n1-standard-4"}, "replica_count": 1,
              "container_spec": {"image_uri": IMAGE}}

SDK_REFUSALS: dict[str, tuple[Any, str]] = {
    "count_as_string": (
        [{**POOL, "machine_spec": {"machine_type": "n1-standard-8", "accelerator_type": "NVIDIA_TESLA_T4",
                                   "accelerator_count": "1"}}],
        "accelerator_count is the string '1', but the Vertex AI SDK (proto-plus) takes an integer (int32) here "
        "and refuses a string | accelerator_count: 1"),
    "list_for_machine_type": (
        [{**POOL, "machine_spec": {"machine_type": ["n1-standard-4"]}}],
        "machine_type is a list, but the Vertex AI SDK (proto-plus) takes a string here and refuses it "
        "| one value: machine_type: n1-standard-4"),
    "list_for_machine_spec": (
        [{**POOL, "machine_spec": [{"machine_type": "n1-standard-4"}]}],
        "machine_spec is a list, but the Vertex AI SDK (proto-plus) takes one mapping here"),
    "pools_as_one_mapping": (
        POOL,
        "worker_pool_specs is a mapping, but the Vertex AI SDK (proto-plus) takes a list of mappings here "
        "and refuses it | a list: worker_pool_specs: [{...}]"),
    "null_pool": (
        [POOL, None],
        "worker_pool_specs[1] is null, which the Vertex AI SDK (proto-plus) refuses in a list "
        "| a mapping ({} keeps the place of a skipped pool)"),
    "unknown_enum_number": (
        [{**POOL, "machine_spec": {"machine_type": "n1-standard-8", "accelerator_type": 99, "accelerator_count": 1}}],
        "accelerator_type: 99 is not a number of AcceleratorType | the name: one of ACCELERATOR_TYPE_UNSPECIFIED, "
        "NVIDIA_A100_80GB"),
    "package_uris_as_string": (
        [{"machine_spec": {"machine_type": "n1-standard-4"}, "replica_count": 1,
          "python_package_spec": {"executor_image_uri": IMAGE, "package_uris": PACKAGE,
                                  "python_module": "trainer.task"}}],
        "reads package_uris: 'gs://forms-bucket/trainer-0.1.tar.gz' as the list of its 36 characters "
        "('g', 's', ':', '/', ...), which are not package URIs | a list of gs:// URIs"),
}


@pytest.mark.parametrize("name", sorted(SDK_REFUSALS))
def test_sdk_refusal_says_what_the_sdk_takes(name: str) -> None:
    pools, expected = SDK_REFUSALS[name]
    errors = errors_of({"worker_pool_specs": copy.deepcopy(pools)})
    assert any(expected in e for e in errors), errors
    assert all("is not of type" not in e for e in errors), errors  # the precise message only


@pytest.mark.parametrize("name", ["count_as_string", "list_for_machine_type", "list_for_machine_spec",
                                  "pools_as_one_mapping", "null_pool"])
def test_the_sdk_itself_refuses(name: str) -> None:
    with pytest.raises((TypeError, ValueError)):
        sdk_spec(copy.deepcopy(SDK_REFUSALS[name][0]))


# -- gcloud --config and the REST API: camelCase workerPoolSpecs -------------------------------

CAMEL_POOL: Json = {"machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": 1,
                    "containerSpec": {"imageUri": IMAGE}}

# Forms both gcloud and the REST JSON parser read.
CAMEL_CASES: dict[str, Json] = {
    "nulls": {"workerPoolSpecs": [{
        "machineSpec": {"machineType": "e2-standard-4", "acceleratorType": None, "acceleratorCount": None},
        "replicaCount": 1, "diskSpec": None,
        "containerSpec": {"imageUri": IMAGE, "command": None, "args": None, "env": None}}],
        "scheduling": None, "serviceAccount": None},
    "zero_count": {"workerPoolSpecs": [{
        "machineSpec": {"machineType": "e2-standard-4", "acceleratorCount": 0}, "replicaCount": "1",
        "diskSpec": {"bootDiskType": "pd-standard", "bootDiskSizeGb": 150},
        "containerSpec": {"imageUri": IMAGE}}]},
    "numeric_enum_both_agree": {"workerPoolSpecs": [{
        "machineSpec": {"machineType": "n1-standard-8", "acceleratorType": 5, "acceleratorCount": "1"},
        "replicaCount": 1, "containerSpec": {"imageUri": GPU_IMAGE}}]},
    "placeholders": {"workerPoolSpecs": [CAMEL_POOL, {}, {}, CAMEL_POOL]},
}

# Forms only gcloud reads (one value for a list): the REST JSON parser refuses them.
GCLOUD_ONLY: dict[str, tuple[Json, str]] = {
    "args": ({"workerPoolSpecs": [{**CAMEL_POOL, "containerSpec": {"imageUri": IMAGE, "args": "--epochs=5"}}]},
             "gcloud reads args: '--epochs=5' as the one-item list ['--epochs=5']"),
    "package_uris": ({"workerPoolSpecs": [{
        "machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": 1,
        "pythonPackageSpec": {"executorImageUri": IMAGE, "packageUris": PACKAGE, "pythonModule": "trainer.task"}}]},
        f"gcloud reads packageUris: '{PACKAGE}' as the one-item list"),
    "one_pool_mapping": ({"workerPoolSpecs": CAMEL_POOL},
                         "gcloud reads workerPoolSpecs written as one mapping as a one-item list"),
    "command": ({"workerPoolSpecs": [{**CAMEL_POOL, "containerSpec": {"imageUri": IMAGE, "command": "python train.py"}}]},
                "the container runs the program named 'python train.py', spaces included"),
}


@pytest.mark.parametrize("name", sorted(CAMEL_CASES))
def test_camel_form_gives_the_rest_apis_request(name: str) -> None:
    body = CAMEL_CASES[name]
    ours, _ = trainjobs(copy.deepcopy(body))
    assert_same_pools(ours, rest_spec(body))


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CAMEL_CASES))
def test_camel_form_gives_gclouds_request(name: str) -> None:
    body = CAMEL_CASES[name]
    ours, _ = trainjobs(copy.deepcopy(body))
    assert_same_pools(ours, gcloud_spec(body))


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(GCLOUD_ONLY))
def test_single_value_is_read_as_gcloud_reads_it(name: str) -> None:
    body, note = GCLOUD_ONLY[name]
    ours, result = trainjobs(copy.deepcopy(body))
    assert_same_pools(ours, gcloud_spec(body))
    assert any(note in w for w in warnings_of(result)), warnings_of(result)
    from google.protobuf.json_format import ParseError

    with pytest.raises(ParseError):  # the note's claim: the REST API itself takes only a list
        rest_spec(body)


def test_numeric_enum_where_gcloud_and_rest_disagree_is_refused() -> None:
    body = {"workerPoolSpecs": [{**CAMEL_POOL, "machineSpec": {
        "machineType": "a2-highgpu-1g", "acceleratorType": 8, "acceleratorCount": 1}}]}
    errors = errors_of(body)
    assert any("acceleratorType: 8 is NVIDIA_TESLA_A100 in the REST API but NVIDIA_L4 to gcloud --config" in e
               for e in errors), errors
    assert rest_spec(body)["workerPoolSpecs"][0]["machineSpec"]["acceleratorType"] == "NVIDIA_TESLA_A100"


@pytest.mark.slow
def test_gcloud_numbers_the_enum_its_own_way() -> None:
    body = {"workerPoolSpecs": [{**CAMEL_POOL, "machineSpec": {
        "machineType": "a2-highgpu-1g", "acceleratorType": 8, "acceleratorCount": 1}}]}
    assert gcloud_spec(body)["workerPoolSpecs"][0]["machineSpec"]["acceleratorType"] == "NVIDIA_L4"


@pytest.mark.slow
@pytest.mark.parametrize("body, expected", [
    ({"workerPoolSpecs": [{**CAMEL_POOL, "replicaCount": "two"}]},
     "replicaCount is the string 'two', but gcloud's --config loader takes an integer (int64) here"),
    ({"workerPoolSpecs": [{**CAMEL_POOL, "machineSpec": {"machineType": ["n1-standard-4"]}}]},
     "machineType is a list, but gcloud's --config loader takes a string here"),
    ({"workerPoolSpecs": [CAMEL_POOL, None]},
     "workerPoolSpecs[1] is null, which gcloud's --config loader refuses in a list"),
], ids=["string_count", "list_for_string", "null_pool"])
def test_gcloud_refusal_says_what_gcloud_takes(body: Json, expected: str) -> None:
    errors = errors_of(copy.deepcopy(body))
    assert any(expected in e for e in errors), errors
    proc = gcloud_run(body)
    assert proc.returncode != 0 and "Cannot parse YAML" in proc.stderr, proc.stderr[-1000:]


# -- the catalog's enum numbers are Google's ----------------------------------------------------


def test_proto_enum_numbers_are_the_sdks() -> None:
    from google.cloud.aiplatform_v1.types import AcceleratorType, Scheduling

    enums = load("enum_numbers")["enums"]
    assert enums["AcceleratorType"]["proto"] == {e.name: e.value for e in AcceleratorType}
    assert enums["Scheduling.Strategy"]["proto"] == {e.name: e.value for e in Scheduling.Strategy}


@pytest.mark.slow
def test_gcloud_enum_numbers_are_gclouds() -> None:
    import subprocess
    import sys

    from .google_readers import gcloud_lib

    script = (
        "import json, sys; sys.path[:0] = [sys.argv[1], sys.argv[1] + '/third_party']\n"
        "from googlecloudsdk.generated_clients.apis.aiplatform.v1 import aiplatform_v1_messages as m\n"
        "e = lambda t: {v.name: v.number for v in t}\n"
        "print(json.dumps({'AcceleratorType': e(m.GoogleCloudAiplatformV1MachineSpec.AcceleratorTypeValueValuesEnum),"
        " 'Scheduling.Strategy': e(m.GoogleCloudAiplatformV1Scheduling.StrategyValueValuesEnum)}))\n"
    )
    proc = subprocess.run([sys.executable, "-s", "-c", script, str(gcloud_lib())], capture_output=True, text=True,
                          timeout=120, check=True)
    enums = load("enum_numbers")["enums"]
    for name, numbers in json.loads(proc.stdout).items():
        assert enums[name]["gcloud"] == numbers, name


def test_strategy_number_both_readers_agree_on() -> None:
    body = {"workerPoolSpecs": [CAMEL_POOL], "scheduling": {"strategy": 4, "timeout": "3600s"}}
    ours, result = trainjobs(copy.deepcopy(body))
    assert ours["scheduling"] == rest_spec(body)["scheduling"] == {"strategy": "SPOT", "timeout": "3600s"}
    assert any("4 is SPOT" in w for w in warnings_of(result)), warnings_of(result)


def test_strategy_number_the_readers_disagree_on_is_refused() -> None:
    errors = errors_of({"workerPoolSpecs": [CAMEL_POOL], "scheduling": {"strategy": 6}})
    assert any("strategy: 6 is FLEX_START in the REST API but no value to gcloud --config" in e for e in errors), errors
