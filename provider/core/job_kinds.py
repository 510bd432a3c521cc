"""The job kinds of Vertex AI's JobService, and each one's names: the one table.

A kind (``CustomJob``) has a REST collection (``projects/P/locations/L/customJobs/ID``), a method
suffix in the SDK's ``JobServiceClient`` (``create_custom_job``), the field of its body that holds
the job's spec (``jobSpec``; a tuning job's ``trialJobSpec``, ``trial_job_spec`` in Google's error
field paths) and the message a list answers with. The emulator's routes and its service, the
Vertex backend, the local backend's resource names, the requests and the console all read them
here (https://cloud.google.com/vertex-ai/docs/reference/rest#rest-resource:-v1.projects.locations.customjobs).
"""

from __future__ import annotations

from provider.core.record import Record


class JobKind(Record):
    """A kind of job and its names in the REST API and the Python SDK."""

    name: str  # CustomJob
    collection: str  # customJobs
    method: str  # custom_job: JobServiceClient.create_custom_job, get_..., list_...s, cancel_..., delete_...
    spec_field: str  # jobSpec: the body's field that holds the job's spec
    spec_field_snake: str  # job_spec: the same field in Google's error field paths
    list_response: str  # ListCustomJobsResponse

    @property
    def tuning(self) -> bool:
        return self == TUNING_JOB


CUSTOM_JOB = JobKind("CustomJob", "customJobs", "custom_job", "jobSpec", "job_spec", "ListCustomJobsResponse")
TUNING_JOB = JobKind("HyperparameterTuningJob", "hyperparameterTuningJobs", "hyperparameter_tuning_job",
                     "trialJobSpec", "trial_job_spec", "ListHyperparameterTuningJobsResponse")
KINDS = (CUSTOM_JOB, TUNING_JOB)
_BY_NAME = {k.name: k for k in KINDS}
_BY_COLLECTION = {k.collection: k for k in KINDS}
COLLECTIONS = tuple(_BY_COLLECTION)
COLLECTION_PATTERN = "|".join(COLLECTIONS)  # for a route's regular expression


def kind(name: str) -> JobKind:
    """The kind named ``name`` (``CustomJob``, ``HyperparameterTuningJob``); ValueError otherwise."""
    found = _BY_NAME.get(name)
    if found is None:
        raise ValueError(f"{name!r} is not a job kind: {', '.join(_BY_NAME)}")
    return found


def of_collection(collection: str) -> JobKind | None:
    """The kind whose REST collection is ``collection`` (``customJobs``); None for any other."""
    return _BY_COLLECTION.get(collection)


def collection(name: str) -> str:
    """``CustomJob`` -> ``customJobs``."""
    return kind(name).collection
