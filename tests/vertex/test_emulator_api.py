"""The emulator's REST surface: the exact wire format, list filters and paging, errors, storage."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest

from provider.emulator.server import Emulator
from tests.vertex.conftest import BUCKET, PARENT, PROJECT

EXECUTOR = "us-docker.pkg.dev/vertex-ai/training/pytorch-xla.2-4.py310:latest"


def refused_body(name: str, labels: dict[str, str] | None = None) -> dict[str, Any]:
    """A job the local backend refuses at once (its package is not in storage): FAILED, fast."""
    body: dict[str, Any] = {"displayName": name, "jobSpec": {"workerPoolSpecs": [{
        "machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": "1",
        "pythonPackageSpec": {"executorImageUri": EXECUTOR, "packageUris": [f"gs://{BUCKET}/none/{name}.tar.gz"],
                              "pythonModule": "trainer.task"}}]}}
    if labels:
        body["labels"] = labels
    return body


def http(emulator: Emulator, method: str, path: str, body: Any = None,
         headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], Any]:
    data = body if isinstance(body, bytes) else (json.dumps(body).encode() if body is not None else None)
    request = urllib.request.Request(emulator.endpoint + path, data=data, method=method,
                                     headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            raw = response.read()
            return response.status, dict(response.headers), json.loads(raw) if raw else None
    except urllib.error.HTTPError as exc:
        raw = exc.read()
        return exc.code, dict(exc.headers), json.loads(raw) if raw else None


def create(client: Any, name: str, labels: dict[str, str] | None = None) -> Any:
    from google.cloud import aiplatform_v1

    return client.create_custom_job(parent=PARENT, custom_job=aiplatform_v1.CustomJob.from_json(
        json.dumps(refused_body(name, labels))))


# -- the wire format ----------------------------------------------------------------------------
def test_enums_as_integers_when_asked_and_int64_as_strings(emulator: Emulator, client: Any) -> None:
    job = create(client, "wire")
    path = f"/v1/{job.name}"
    status, headers, as_ints = http(emulator, "GET", path + "?%24alt=json%3Benum-encoding%3Dint")
    assert status == 200 and headers["Content-Type"].startswith("application/json")
    assert as_ints["state"] == 5 and as_ints["error"]["code"] == 9
    assert as_ints["jobSpec"]["workerPoolSpecs"][0]["replicaCount"] == "1"  # int64: a string
    _, _, as_names = http(emulator, "GET", path)
    assert as_names["state"] == "JOB_STATE_FAILED"
    assert as_names["createTime"].endswith("Z") and as_names["name"] == job.name
    assert "webAccessUris" not in as_names and "satisfiesPzs" not in as_names  # defaults are left out


def test_the_failed_at_start_reason_is_the_local_backends(client: Any) -> None:
    job = create(client, "refused")
    assert job.state.name == "JOB_STATE_FAILED" and job.error.code == 9
    assert job.error.message.startswith("The local backend cannot run this job: package gs://test-bucket/none/")
    assert job.end_time and job.create_time


def test_output_only_fields_in_a_request_are_ignored(emulator: Emulator) -> None:
    body = {**refused_body("sneaky"), "state": "JOB_STATE_SUCCEEDED", "name": f"{PARENT}/customJobs/1"}
    status, _, job = http(emulator, "POST", f"/v1/{PARENT}/customJobs", body)
    assert status == 200 and job["state"] == "JOB_STATE_FAILED" and not job["name"].endswith("/1")


# -- list: filters and paging -------------------------------------------------------------------
@pytest.fixture
def listed(client: Any) -> list[Any]:
    jobs = []
    for i in range(7):
        jobs.append(create(client, f"{'alpha' if i % 2 else 'beta'}_{i}",
                           {"team": "vision" if i < 4 else "nlp", **({"tier": "gold"} if i == 3 else {})}))
    return jobs


def names(client: Any, **request: Any) -> list[str]:
    return [j.display_name for j in client.list_custom_jobs(request={"parent": PARENT, **request})]


def test_paging_goes_through_every_job_newest_first(client: Any, listed: list[Any]) -> None:
    from google.cloud import aiplatform_v1

    seen, token, pages = [], "", 0
    while True:
        page = client.list_custom_jobs(request={"parent": PARENT, "page_size": 3, "page_token": token}).pages
        response: aiplatform_v1.ListCustomJobsResponse = next(iter(page))
        seen += [j.display_name for j in response.custom_jobs]
        pages += 1
        token = response.next_page_token
        if not token:
            break
    assert pages == 3 and seen == [j.display_name for j in reversed(listed)]
    assert names(client, page_size=3) == seen  # the pager follows the tokens itself


def test_a_new_job_does_not_shift_the_pages_being_read(client: Any, listed: list[Any]) -> None:
    first = next(iter(client.list_custom_jobs(request={"parent": PARENT, "page_size": 4}).pages))
    create(client, "newcomer")
    second = next(iter(client.list_custom_jobs(request={"parent": PARENT, "page_size": 4,
                                                        "page_token": first.next_page_token}).pages))
    assert [j.display_name for j in [*first.custom_jobs, *second.custom_jobs]] == [j.display_name for j in reversed(listed)]


@pytest.mark.parametrize(("text", "expected"), [
    ('display_name="alpha_1"', ["alpha_1"]),
    ('display_name:"alpha_*"', ["alpha_5", "alpha_3", "alpha_1"]),
    ('NOT display_name:"alpha_*"', ["beta_6", "beta_4", "beta_2", "beta_0"]),
    ('-display_name:"alpha_*"', ["beta_6", "beta_4", "beta_2", "beta_0"]),
    ("labels.team=nlp", ["beta_6", "alpha_5", "beta_4"]),
    ('labels.team="vision" AND display_name:"beta*"', ["beta_2", "beta_0"]),
    ("labels.tier:*", ["alpha_3"]),
    ('state="JOB_STATE_FAILED" AND labels.team=nlp', ["beta_6", "alpha_5", "beta_4"]),
    ('state!="JOB_STATE_FAILED" OR display_name="beta_0"', ["beta_0"]),
    ('state="JOB_STATE_SUCCEEDED"', []),
    ('labels.team=nlp AND display_name="alpha_5" OR display_name="beta_6"', ["beta_6", "alpha_5"]),  # OR first
    ('(labels.team=nlp AND display_name="alpha_5") OR display_name="beta_0"', ["alpha_5", "beta_0"]),
    ('create_time>"2000-01-01T00:00:00Z" AND labels.tier:*', ["alpha_3"]),
    ('create_time<"2000-01-01T00:00:00Z"', []),
    ('displayName="beta_4"', ["beta_4"]),
])
def test_filters(client: Any, listed: list[Any], text: str, expected: list[str]) -> None:
    assert names(client, filter=text) == expected


@pytest.mark.parametrize(("text", "why"), [
    ('colour="red"', "unknown field 'colour'"),
    ('state="DONE"', "'DONE' is not a job state"),
    ('state<"JOB_STATE_FAILED"', "state does not support '<'"),
    ('create_time>"yesterday"', "not an RFC 3339 time"),
    ('(display_name="a"', "ends too early"),
    ("display_name=", "ends too early"),
])
def test_a_bad_filter_is_invalid_argument(client: Any, text: str, why: str) -> None:
    from google.api_core.exceptions import BadRequest

    with pytest.raises(BadRequest, match=why):
        names(client, filter=text)


def test_a_page_token_only_works_with_its_request(emulator: Emulator, client: Any, listed: list[Any]) -> None:
    from google.api_core.exceptions import BadRequest

    token = next(iter(client.list_custom_jobs(request={"parent": PARENT, "page_size": 2}).pages)).next_page_token
    with pytest.raises(BadRequest, match="issued for a different parent, filter or read mask"):
        names(client, page_size=2, page_token=token, filter='display_name:"a*"')
    with pytest.raises(BadRequest, match="Invalid page token"):
        names(client, page_token="not-a-token")
    status, _, body = http(emulator, "GET", f"/v1/{PARENT}/customJobs?pageSize=-1")
    assert status == 400 and body["error"]["status"] == "INVALID_ARGUMENT"


def test_a_read_mask_keeps_only_its_fields(emulator: Emulator, listed: list[Any]) -> None:
    _, _, body = http(emulator, "GET", f"/v1/{PARENT}/customJobs?readMask=display_name,state&pageSize=2")
    assert [sorted(j) for j in body["customJobs"]] == [["displayName", "state"]] * 2


def test_jobs_are_listed_per_parent_and_per_collection(client: Any, listed: list[Any]) -> None:
    other = PARENT.replace("us-central1", "europe-west4")
    assert list(client.list_custom_jobs(parent=other)) == []
    assert list(client.list_hyperparameter_tuning_jobs(parent=PARENT)) == []


# -- cancel and delete ----------------------------------------------------------------------------
def test_finished_jobs_cannot_be_cancelled_and_only_they_are_deleted(emulator: Emulator, client: Any) -> None:
    from google.api_core.exceptions import BadRequest

    job = create(client, "finished")
    with pytest.raises(BadRequest, match="cannot be cancelled: it is already JOB_STATE_FAILED") as caught:
        client.cancel_custom_job(name=job.name)
    assert caught.value.response.json()["error"]["status"] == "FAILED_PRECONDITION"
    operation = client.delete_custom_job(name=job.name)
    assert operation.done() and operation.operation.name.startswith(f"{PARENT}/operations/")
    status, _, body = http(emulator, "GET", f"/v1/{operation.operation.name}")
    assert status == 200 and body["done"] is True
    assert body["response"] == {"@type": "type.googleapis.com/google.protobuf.Empty"}
    assert body["metadata"]["@type"] == "type.googleapis.com/google.cloud.aiplatform.v1.DeleteOperationMetadata"
    status, _, body = http(emulator, "GET", f"/v1/{PARENT}/operations/999")
    assert status == 404 and body["error"]["status"] == "NOT_FOUND"


# -- malformed requests ---------------------------------------------------------------------------
def test_unknown_routes_wrong_methods_and_bad_bodies(emulator: Emulator) -> None:
    status, _, body = http(emulator, "GET", f"/v1/{PARENT}/featurestores")  # a resource it does not emulate
    assert status == 404 and body["error"]["status"] == "NOT_FOUND" and body["error"]["code"] == 404
    status, headers, body = http(emulator, "PUT", f"/v1/{PARENT}/customJobs/1")
    assert status == 405 and headers["Allow"] == "GET, DELETE" and "not allowed" in body["error"]["message"]
    status, _, body = http(emulator, "POST", f"/v1/{PARENT}/customJobs", b"{not json")
    assert status == 400 and body["error"]["message"].startswith("Invalid JSON payload received.")
    status, _, body = http(emulator, "POST", f"/v1/{PARENT}/customJobs", {**refused_body("x"), "colour": "red"})
    assert status == 400
    assert body["error"]["message"] == ("Invalid JSON payload received. Unknown name \"colour\" at 'custom_job': "
                                        "Cannot find field.")
    nested = refused_body("x")
    nested["jobSpec"]["workerPoolSpecs"][0]["machineSpec"]["gpus"] = 1
    status, _, body = http(emulator, "POST", f"/v1/{PARENT}/customJobs", nested)
    assert status == 400 and "Unknown name \"gpus\" at 'custom_job.job_spec.worker_pool_specs" in \
        body["error"]["message"]
    status, _, body = http(emulator, "POST", f"/v1/{PARENT}/customJobs", {"jobSpec": {"workerPoolSpecs": []}})
    assert status == 400 and body["error"]["details"][0]["fieldViolations"][0]["field"] == "display_name"
    status, _, body = http(emulator, "GET", f"/v1/{PARENT}/customJobs?colour=red")
    assert status == 400 and "Cannot bind query parameter" in body["error"]["message"]


# -- Cloud Storage ----------------------------------------------------------------------------------
def test_storage_uploads_downloads_and_checks(emulator: Emulator, tmp_path: Any,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from google.api_core.exceptions import BadRequest, NotFound, PreconditionFailed

    from provider.packaging.gcs import gcs_client

    client = gcs_client(PROJECT, emulator.endpoint)
    bucket = client.bucket(BUCKET)
    big = tmp_path / "big.bin"
    big.write_bytes(bytes(range(256)) * 5000)  # 1.28 MB
    blob = bucket.blob("dir/big.bin", chunk_size=256 * 1024)  # a resumable upload in five chunks
    blob.upload_from_filename(str(big))
    assert (emulator.storage_root / BUCKET / "dir" / "big.bin").read_bytes() == big.read_bytes()
    assert bucket.blob("dir/big.bin").download_as_bytes() == big.read_bytes()  # checksums verified by the client
    assert bucket.blob("dir/big.bin").download_as_bytes(start=10, end=19) == big.read_bytes()[10:20]
    bucket.blob("dir/small.txt").upload_from_string(b"hello")  # multipart
    assert [b.name for b in client.list_blobs(BUCKET, prefix="dir/")] == ["dir/big.bin", "dir/small.txt"]
    with pytest.raises(PreconditionFailed):
        bucket.blob("dir/small.txt").upload_from_string(b"again", if_generation_match=0)
    with pytest.raises(NotFound):
        client.bucket("no-such-bucket").blob("x").upload_from_string(b"x")
    assert not bucket.blob("dir/missing").exists()
    bucket.blob("dir/small.txt").delete()
    assert not bucket.blob("dir/small.txt").exists()
    status, _, body = http(emulator, "POST", f"/upload/storage/v1/b/{BUCKET}/o?uploadType=multipart",
                           b'--B\r\ncontent-type: application/json\r\n\r\n{"name": "c.txt", "crc32c": "AAAAAA=="}\r\n'
                           b"--B\r\ncontent-type: text/plain\r\n\r\nabc\r\n--B--",
                           {"Content-Type": 'multipart/related; boundary="B"'})
    assert status == 400 and "doesn't match calculated CRC32C" in body["error"]["message"]
    # "../escape" is a valid Cloud Storage name: kept as an object, never a path out of the bucket.
    bucket.blob("../escape").upload_from_string(b"x")
    assert bucket.blob("../escape").download_as_bytes() == b"x"
    assert not (emulator.storage_root / "escape").exists() and not (emulator.storage_root.parent / "escape").exists()
    with pytest.raises(BadRequest, match="Invalid object name"):
        bucket.blob("..").upload_from_string(b"x")
    # STORAGE_EMULATOR_HOST works as well, as with other Cloud Storage emulators.
    monkeypatch.setenv("STORAGE_EMULATOR_HOST", emulator.endpoint)
    from google.cloud import storage

    assert storage.Client(project=PROJECT).bucket(BUCKET).blob("dir/big.bin").exists()


def test_the_stager_says_what_is_wrong(emulator: Emulator, tmp_path: Any) -> None:
    from provider.backends.base import FailedPrecondition, PermissionDenied
    from provider.packaging.gcs import GcsStager, gcs_client
    from tests.vertex.fakes import ScriptedServer, google_error

    package = tmp_path / "p.tar.gz"
    package.write_bytes(b"not really a package")
    stager = GcsStager(gcs_client(PROJECT, emulator.endpoint))
    assert not stager.exists("gs://no-such-bucket/p.tar.gz")
    with pytest.raises(FailedPrecondition, match=r"^cannot write gs://no-such-bucket/p.tar.gz: the bucket "
                                                 r"gs://no-such-bucket does not exist \(The specified bucket does not "
                                                 r"exist.\)\. Create it first"):
        stager.put("gs://no-such-bucket/p.tar.gz", package)
    stager.put(f"gs://{BUCKET}/p.tar.gz", package)
    stager.put(f"gs://{BUCKET}/p.tar.gz", package)  # already there (content-addressed): fine
    assert stager.exists(f"gs://{BUCKET}/p.tar.gz")
    # Every answer is 403 (the client may also look at the bucket, in any order).
    denied = ScriptedServer(script=[google_error(403, "PERMISSION_DENIED", "caller does not have "
                                                 "storage.objects.get access")] * 4)
    try:
        with pytest.raises(PermissionDenied, match=r"caller does not have storage\.objects\.get access\. The caller "
                                                   r"needs roles/storage\.objectViewer on gs://team-bucket"):
            GcsStager(gcs_client(PROJECT, denied.endpoint)).exists("gs://team-bucket/p.tar.gz")
    finally:
        denied.stop()
