"""The TrainingJob's typed inputs (provider.resources.job_args): the property map and back."""

from __future__ import annotations

from provider.core.record import fields
from provider.resources.job_args import JobArgs
from provider.resources.training_job import OUTPUTS, TrainingJob

ARGS = JobArgs(
    job_name="resnet", stack="vision-dev", team="vision", project="acme", backend="vertex", region="us-central1",
    quotas={"maxGpusPerJob": 8}, wait={"until": "none", "timeout": 3600}, retention="keep", replace="deleteFirst",
    spec={"apiVersion": "trainjobs/v1", "kind": "TrainingJob", "metadata": {"name": "resnet"}},
    spec_file="specs/vision/resnet.yaml", service_account="vision-dev-trainjobs@acme.iam.gserviceaccount.com",
    bucket="acme-vision-dev", request_kind="CustomJob",
    parent="projects/acme/locations/us-central1", desired_state="RUNNING",
    extra_packages=[{"source": "dist/a.whl", "uri": "gs://b/a.whl"}], max_wait_seconds=600.0,
)


def test_the_props_use_the_engines_names_and_leave_out_what_is_unset() -> None:
    props = ARGS.to_props()
    assert props["jobName"] == "resnet" and props["specFile"] == "specs/vision/resnet.yaml"
    assert props["requestKind"] == "CustomJob" and props["desiredState"] == "RUNNING"
    assert props["extraPackages"] == [{"source": "dist/a.whl", "uri": "gs://b/a.whl"}]
    assert props["maxWaitSeconds"] == 600.0
    assert props["serviceAccount"] == "vision-dev-trainjobs@acme.iam.gserviceaccount.com" and props["bucket"] == "acme-vision-dev"
    assert "request" not in props and "image" not in props  # Check builds the request; no image built here
    assert "policy" not in props and "stackLabels" not in props and "adopt" not in props
    assert not any(key.count("_") for key in props)  # camelCase, as the state and the policy pack read them


def test_the_props_read_back_to_the_same_args() -> None:
    state = {**ARGS.to_props(), **dict.fromkeys(OUTPUTS, ""), "__provider": "x"}
    assert JobArgs.from_props(state) == ARGS


def test_a_state_with_a_request_reads_back_as_it_came() -> None:
    """A state (or a secret stack's program) carries the request: read as the engine sent it."""
    request = {"displayName": "resnet", "labels": {"trainjobs_id": "x" * 32}}
    args = JobArgs.from_props({**ARGS.to_props(), "request": request})
    assert args.request is request


def test_a_missing_input_reads_as_none() -> None:
    args = JobArgs.from_props({"jobName": "resnet"})
    assert args.job_name == "resnet"
    assert all(getattr(args, f.name) is None for f in fields(args) if f.name != "job_name")


def test_every_output_is_declared_on_the_resource() -> None:
    declared = TrainingJob.__annotations__
    assert set(OUTPUTS) <= set(declared), set(OUTPUTS) - set(declared)
