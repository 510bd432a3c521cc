"""The local stack's TeamInfra resources (LocalBucket, LocalRegistry, LocalServiceAccount),
through the SDK's real dynamic-provider host, with the inputs the program declares."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import run_program, stack_config
from .host import ProviderHost


@pytest.fixture(scope="module")
def declared(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("infra")
    report = run_program(tmp, "local", stack_config("local", **{"trainjobs:localHome": str(tmp / "home")}))
    assert report["error"] is None, report["error"]
    return {name: v for name, v in report["dynamicInputs"].items()
            if name in ("platform-bucket", "platform-registry", "platform-trainer")}


@pytest.fixture(scope="module")
def host() -> Iterator[ProviderHost]:
    with ProviderHost() as h:
        yield h


def test_the_bucket_is_created_updated_and_deleted_without_losing_data(declared: dict[str, dict[str, Any]],
                                                                       host: ProviderHost) -> None:
    inputs = declared["platform-bucket"]
    bucket_id, outs = host.check_and_create(inputs)
    description = Path(bucket_id)
    assert description.is_file() and outs["path"] == bucket_id
    assert description.parent.name == "platform-local-trainjobs"
    data = description.parent / "jobs" / "model.bin"
    data.parent.mkdir()
    data.write_bytes(b"weights")

    relabelled = {**inputs, "labels": {**inputs["labels"], "owner": "someone"}}
    answer = host.diff(bucket_id, outs, relabelled)
    assert (answer.changes, answer.replaces) == ("DIFF_SOME", ())  # labels: updated in place
    host.update(bucket_id, outs, relabelled)
    assert '"owner": "someone"' in description.read_text()
    renamed = host.diff(bucket_id, outs, {**inputs, "name": "other-bucket"})
    assert renamed.replaces == ("name",) and renamed.delete_before_replace

    assert host.read(bucket_id, outs)[0] == bucket_id
    host.delete(bucket_id, outs)
    assert not description.exists()
    assert data.read_bytes() == b"weights"  # like a bucket without force_destroy: the data stays
    assert host.read(bucket_id, outs)[0] == ""  # gone: refresh drops it


def test_the_registry_and_the_service_account_records(declared: dict[str, dict[str, Any]],
                                                      host: ProviderHost) -> None:
    registry_id, _ = host.check_and_create(declared["platform-registry"])
    account_id, account = host.check_and_create(declared["platform-trainer"])
    assert Path(registry_id).parent.name == "platform-local"
    record = Path(account_id).read_text()
    assert "platform-local-trainjobs@" in account_id
    assert "roles/storage.objectAdmin on gs://platform-local-trainjobs" in record
    host.delete(registry_id, declared["platform-registry"])
    host.delete(account_id, account)
    assert not Path(registry_id).parent.exists()  # an empty registry directory goes with it
    assert not Path(account_id).exists()
