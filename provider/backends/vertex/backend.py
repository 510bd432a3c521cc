"""VertexBackend: CustomJobs and HyperparameterTuningJobs on Vertex AI, behind the backend seam.

* Regional endpoints: a job in ``europe-west4`` is sent to ``europe-west4-aiplatform.googleapis.com``
  (gRPC, Application Default Credentials). ``api_endpoint`` overrides that for every location;
  an ``http://`` endpoint (the trainjobs emulator) is spoken to over REST with anonymous
  credentials, an ``https://`` one over REST with the given (or default) credentials.
* Idempotent submission: a request whose labels carry IDENTITY_LABEL is first looked up with
  the list filter ``labels.trainjobs_id="VALUE"``; the newest job found that has not failed or
  been cancelled is adopted instead of creating another. The look-up runs again before every retry of a create, so a create that
  succeeded but whose answer was lost is adopted, never repeated.
* Transient errors are retried with exponential backoff and jitter (``retry``); ``find``,
  ``cancel`` and ``wait`` are the seam's shared ones (provider.backends.polling), polling with
  backoff (``poll``). Errors become the seam's BackendError subclasses (errors.py).

The instance holds plain data only (the Pulumi provider pickles it); clients are built on first
use and never pickled.
"""

from __future__ import annotations

import builtins
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from provider.backends.base import (
    BackendError,
    FailedPrecondition,
    InvalidArgument,
    JobStatus,
    Listing,
    LogChunk,
    NotFound,
    PermissionDenied,
    StoredObject,
    Submission,
)
from provider.backends.log_line import LogQuery
from provider.backends.polling import Backoff, Polled, retrying
from provider.backends.vertex import outputs as vertex_outputs
from provider.backends.vertex.errors import LOGIN_HINT, Call, is_transient, translate
from provider.backends.vertex.retry import POLL, RETRY
from provider.backends.vertex.status import job_status, split_name
from provider.core import job_kinds
from provider.core.labels import ALLOWED as _LABEL_RULE
from provider.core.labels import IDENTITY_LABEL, valid_key

Json = dict[str, Any]
T = TypeVar("T")

# kind -> collection, collection -> kind, collection -> the client's method suffix (provider.core.job_kinds)
KINDS = {k.name: k.collection for k in job_kinds.KINDS}
COLLECTIONS = {k.collection: k.name for k in job_kinds.KINDS}
_METHOD = {k.collection: k.method for k in job_kinds.KINDS}
_JOB_ID = re.compile(r"^[A-Za-z0-9_-]{1,128}$")


def label_filter(labels: dict[str, str]) -> str:
    """The list filter for jobs carrying all ``labels``: ``labels.k="v" AND ...``."""
    terms = []
    for key, value in sorted(labels.items()):
        if not valid_key(key):
            raise InvalidArgument(f"label key {key!r} cannot be filtered on: {_LABEL_RULE}")
        terms.append(f"labels.{key}={json.dumps(value)}")
    return " AND ".join(terms)


def _as_json(message: Any) -> Json:
    """A proto-plus message -> its REST JSON (camelCase, enum names, int64 as strings)."""
    data: Json = json.loads(type(message).to_json(message, use_integers_for_enums=False, indent=None,
                                         always_print_fields_with_no_presence=False))
    return data


class VertexBackend(Polled):
    name = "vertex"
    # logs -f: Cloud Logging allows 60 reads a minute per project; a quiet job is read less and less often.
    log_backoff = Backoff(initial=1.0, multiplier=1.5, maximum=10.0, attempts=0, jitter=0.0)

    def __init__(self, project: str, location: str, api_endpoint: str | None = None, credentials: Any = None,
                 retry: Backoff = RETRY, poll: Backoff = POLL, timeout: float = 60.0, **_: Any) -> None:
        if not project or not location:
            raise ValueError("the Vertex backend needs a project and a location (a region such as us-central1)")
        self.project = project
        self.location = location
        self.api_endpoint = api_endpoint.rstrip("/") if api_endpoint else None
        self.credentials = credentials
        self.retry = retry
        self.poll = poll
        self.timeout = timeout  # seconds per API call
        self._clients: dict[str, Any] = {}

    def __getstate__(self) -> Json:
        state = dict(self.__dict__)
        state["_clients"] = {}  # never pickle a client (or its channel)
        return state

    # -- clients --------------------------------------------------------------------------------
    def endpoint(self, location: str | None = None) -> str:
        return self.api_endpoint or f"{location or self.location}-aiplatform.googleapis.com"

    def companion_endpoint(self) -> str | None:
        """The endpoint of the other Google APIs a job uses (Cloud Logging, Cloud Storage): a URL
        endpoint (the emulator, a proxy) serves them too; a regional host, or none, means Google's."""
        return self.api_endpoint if self.api_endpoint and "://" in self.api_endpoint else None

    def client(self, location: str | None = None, service: str = "JobServiceClient") -> Any:
        """The ``aiplatform_v1`` client of ``service`` (the job service's by default) for this endpoint."""
        endpoint = self.endpoint(location)
        key = endpoint if service == "JobServiceClient" else f"{service} {endpoint}"
        client = self._clients.get(key)
        if client is None:
            from google.auth.exceptions import GoogleAuthError
            from google.cloud import aiplatform_v1

            options = {"api_endpoint": endpoint}
            credentials = self.credentials
            try:
                if endpoint.startswith(("http://", "https://")):
                    if credentials is None and endpoint.startswith("http://"):
                        from google.auth.credentials import AnonymousCredentials

                        credentials = AnonymousCredentials()  # type: ignore[no-untyped-call]  # google-auth leaves it untyped
                    client = getattr(aiplatform_v1, service)(transport="rest", credentials=credentials,
                                                             client_options=options)
                else:
                    client = getattr(aiplatform_v1, service)(credentials=credentials, client_options=options)
            except GoogleAuthError as exc:
                raise PermissionDenied(f"no Google credentials to reach Vertex AI at {endpoint} for project "
                                       f"{self.project!r}: {exc}. {LOGIN_HINT}") from exc
            self._clients[key] = client
        return client

    def _call(self, call: Call, fn: Callable[[], T]) -> T:
        """``fn()``, retried on transient errors; API errors become BackendErrors."""
        try:
            return retrying(fn, self.retry, is_transient)
        except BackendError:
            raise
        except Exception as exc:
            error = translate(exc, call)
            if error is None:
                raise
            raise error from exc

    def _site(self, action: str, collection: str, location: str, target: str = "") -> Call:
        return Call(action, collection, self.project, location, self.endpoint(location), target)

    # -- names ----------------------------------------------------------------------------------
    def parent(self, location: str | None = None) -> str:
        return f"projects/{self.project}/locations/{location or self.location}"

    def _candidates(self, job_id: str) -> list[tuple[str, str, str]]:
        """(collection, location, resource name) to try for a job id or a resource name."""
        if "/" in job_id:
            try:
                _, location, collection, _ = split_name(job_id)
            except ValueError as exc:
                raise InvalidArgument(str(exc)) from exc
            if collection not in COLLECTIONS:
                raise InvalidArgument(f"{job_id!r} is not a {' or '.join(job_kinds.COLLECTIONS)} resource name")
            return [(collection, location, job_id)]
        if not _JOB_ID.match(job_id):
            raise InvalidArgument(f"{job_id!r} is not a Vertex AI job id (the digits that end its resource name)")
        return [(c, self.location, f"{self.parent()}/{c}/{job_id}") for c in KINDS.values()]

    # -- the seam -------------------------------------------------------------------------------
    def check(self, submission: Submission) -> None:
        """Nothing to refuse here before staging: Vertex AI itself judges the request (quotas,
        machine availability) when it is created, and the validator has checked it against the
        catalog already."""

    def submit(self, submission: Submission) -> JobStatus:
        """Create the job, or adopt the newest job that carries the same identity label (unless it
        failed or was cancelled: submitting again is then a retry)."""
        request = submission.request
        collection = KINDS.get(request.kind)
        if collection is None:
            raise InvalidArgument(f"unknown job kind {request.kind!r}: CustomJob or HyperparameterTuningJob")
        parts = request.parent.split("/")
        if len(parts) != 4 or parts[0] != "projects" or parts[2] != "locations":
            raise InvalidArgument(f"{request.parent!r} is not a parent (projects/PROJECT/locations/REGION)")
        project, location = parts[1], parts[3]
        if project != self.project:
            raise InvalidArgument(f"the request is for project {project!r}, but this backend works in "
                                  f"{self.project!r}")
        identity = (request.body.get("labels") or {}).get(IDENTITY_LABEL)
        client = self.client(location)

        def attempt() -> Json:
            if identity:
                found = self._list_json(client, collection, request.parent, label_filter({IDENTITY_LABEL: identity}))
                adoptable = [job for job in found if job_status(request.kind, job).state.adoptable]
                if adoptable:
                    return adoptable[0]
            from google.cloud import aiplatform_v1

            message_type = getattr(aiplatform_v1, request.kind)
            message = message_type.from_json(json.dumps(request.body))
            method = getattr(client, f"create_{_METHOD[collection]}")
            created = method(parent=request.parent, **{_METHOD[collection]: message}, timeout=self.timeout)
            return _as_json(created)

        job = self._call(self._site("create", collection, location), attempt)
        return job_status(request.kind, job)

    def get(self, job_id: str) -> JobStatus:
        tried: builtins.list[str] = []
        for collection, location, name in self._candidates(job_id):
            client = self.client(location)
            method = getattr(client, f"get_{_METHOD[collection]}")

            def fetch(m: Any = method, n: str = name) -> Json:
                return _as_json(m(name=n, timeout=self.timeout))

            try:
                job = self._call(self._site("get", collection, location, name), fetch)
            except NotFound:
                tried.append(name)
                continue
            return job_status(COLLECTIONS[collection], job)
        raise NotFound(f"no Vertex AI job {job_id!r} (looked for {' and '.join(tried)})")

    def _list_json(self, client: Any, collection: str, parent: str, filter: str,
                   limit: int | None = None) -> builtins.list[Json]:
        """The collection's jobs, newest first; with ``limit``, only until that many readable ones came
        (one the API returns that cannot be read does not count: ``scan`` lists it apart). The service
        lists newest first (the emulator does, by create time), and the pager fetches a page only when
        iteration reaches it, so the newest N cost about ceil(N / page) calls at any history."""
        method = getattr(client, f"list_{_METHOD[collection]}s")
        size = min(limit, 100) if limit else 100
        pager = method(request={"parent": parent, "filter": filter, "page_size": size}, timeout=self.timeout)
        jobs: builtins.list[Json] = []
        readable = 0
        for job in pager:
            jobs.append(_as_json(job))
            if limit is not None:
                readable += len(vertex_outputs.read_jobs(COLLECTIONS[collection], jobs[-1:])[0])
                if readable >= limit:
                    break
        return sorted(jobs, key=lambda j: (j.get("createTime", ""), j.get("name", "")), reverse=True)

    def list(self, labels: dict[str, str] | None = None) -> builtins.list[JobStatus]:
        """Jobs of both kinds in the backend's location, newest first, filtered by the service."""
        return self.scan(labels).jobs

    def scan(self, labels: dict[str, str] | None = None, limit: int | None = None) -> Listing:
        """As ``list``, with the jobs the API returns that cannot be read listed apart."""
        filter = label_filter(labels) if labels else ""
        client = self.client()
        out: builtins.list[JobStatus] = []
        broken = []
        for kind, collection in KINDS.items():
            def fetch(c: str = collection) -> builtins.list[Json]:
                return self._list_json(client, c, self.parent(), filter, limit)

            jobs, unreadable = vertex_outputs.read_jobs(kind, self._call(self._site("list", collection, self.location),
                                                                         fetch))
            out.extend(jobs)
            broken.extend(unreadable)
        out.sort(key=lambda s: (s.create_time or "", s.name), reverse=True)
        return Listing(out[:limit] if limit is not None else out, broken)

    # -- outputs and logs ---------------------------------------------------------------------------
    def storage_client(self) -> Any:
        """google-cloud-storage's client for the Cloud Storage this backend's jobs write to (the
        emulator's through a URL endpoint)."""
        from provider.packaging.gcs import gcs_client

        return gcs_client(self.project, self.companion_endpoint(), self.credentials)

    def outputs(self, uri: str) -> builtins.list[StoredObject]:
        return vertex_outputs.objects(self.storage_client(), uri)

    def download(self, stored: StoredObject, target: Path) -> None:
        vertex_outputs.download(self.storage_client(), stored, target)

    def local_path(self, uri: str) -> Path | None:
        return None  # in Cloud Storage, never on this machine

    def read_logs(self, job_id: str, cursor: str = "", query: LogQuery | None = None) -> LogChunk:
        """The job's Cloud Logging entries since ``cursor`` (provider.backends.vertex.logs)."""
        from provider.backends.log_line import check_replica
        from provider.backends.summary import replica_names
        from provider.backends.vertex.logs import CloudLogs, read

        status = self.get(job_id)  # read first: once it has ended, the read after brings its last entries
        if not cursor:
            check_replica(status.id, query.replica if query else None, replica_names(status))
        logs = CloudLogs(self.project, self.companion_endpoint(), self.credentials)
        return read(logs, status.id, cursor, query, ended=status.state.terminal)

    def jobs_at(self) -> str:
        return f"vertex:{self.api_endpoint or 'google'}/{self.project}/{self.location}"

    def resolve(self, ref: str, labels: dict[str, str] | None = None) -> str:
        """The job ``ref`` names (provider.backends.resolve: the rules every backend shares); a full id
        is one of 10 digits or more."""
        from provider.backends.resolve import Seen, resolve

        where = self.parent() + (f" with labels {labels}" if labels else "")
        return resolve(ref, lambda: (Seen(j.id, j.name, j.display_name) for j in self.list(labels)),
                       lambda r: r.isdigit() and len(r) >= 10, "Vertex AI job", where)  # a Vertex AI job id has 19 digits

    def request_cancel(self, status: JobStatus) -> str:
        """Ask Vertex AI to cancel the job (it ends CANCELLED); it is followed by its resource name."""
        _, location, collection, _ = split_name(status.name)
        method = getattr(self.client(location), f"cancel_{_METHOD[collection]}")
        self._call(self._site("cancel", collection, location, status.name),
                   lambda: method(name=status.name, timeout=self.timeout))
        return status.name

    def delete(self, job_id: str) -> None:
        """Delete a finished job and wait for the long-running operation that does it."""
        status = self.get(job_id)
        if not status.state.terminal:
            raise FailedPrecondition(f"job {status.name} is {status.state.value}: cancel it before deleting it")
        _, location, collection, _ = split_name(status.name)
        method = getattr(self.client(location), f"delete_{_METHOD[collection]}")

        def attempt() -> None:
            operation = method(name=status.name, timeout=self.timeout)
            operation.result(timeout=self.timeout)

        try:
            self._call(self._site("delete", collection, location, status.name), attempt)
        except NotFound:
            return  # gone already (a retry after a delete whose answer was lost): what was asked
