"""What trainjobs does with each field of Vertex AI's v1 job messages that it does not simply carry.

The checklist is the API itself: ``tests/test_api_fields.py`` walks the installed
google-cloud-aiplatform v1 descriptors (CustomJobSpec, HyperparameterTuningJob and everything
they hold) and fails on any field that is neither carried end to end (schema, model, exact
request, native spec, Pulumi diff) nor named here with its reason. Each table is keyed by
the message's name (as in ``google.cloud.aiplatform.v1``, nested names joined by dots) and
the field's REST (camelCase) name.

* ``OUTPUT_ONLY``: fields the service sets. A describe output carries them; trainjobs reads
  past each one with a warning naming it, as ``create`` ignores them. Their messages are not
  walked further.
* ``REFUSED``: fields that cannot have a meaning here, refused by name with the reason.
  Every input field of today's v1 job messages has one on Vertex AI, so it is empty: a
  field added here must say why it cannot.
* ``NOT_EMULATED_LOCALLY``: carried to Vertex AI, but the local backend runs the job without
  it; a spec of a local stack that sets one gets a warning saying what happens instead.
"""

from __future__ import annotations

OUTPUT_ONLY: dict[str, dict[str, str]] = {
    "HyperparameterTuningJob": {
        "name": "the job's resource name, given by the service",
        "trials": "the trials the service ran",
        "state": "the job's state",
        "createTime": "when the job was created",
        "startTime": "when the job started",
        "endTime": "when the job ended",
        "updateTime": "when the job last changed",
        "error": "the job's error, when it failed",
        "satisfiesPzs": "a zone-separation property of the job's resources",
        "satisfiesPzi": "a zone-isolation property of the job's resources",
    },
}

REFUSED: dict[str, dict[str, str]] = {}

_NETWORK = "the local backend runs every replica on this machine's own network"
NOT_EMULATED_LOCALLY: dict[str, dict[str, str]] = {
    "CustomJobSpec": {
        "persistentResourceId": "the job runs on this machine, not on a PersistentResource",
        "network": _NETWORK,
        "reservedIpRanges": _NETWORK,
        "pscInterfaceConfig": _NETWORK,
        "protectedArtifactLocationId": "artifacts stay in local storage",
        "tensorboard": "TensorBoard logs stay under the job's output directory (trainjobs tensorboard)",
        "enableWebAccess": "there is no interactive shell service; replicas are local processes",
        "enableDashboardAccess": "there is no dashboard service; replicas are local processes",
        "experiment": "no Vertex AI Experiment records the run",
        "experimentRun": "no Vertex AI Experiment records the run",
        "models": "there is no Model Registry to read from",
    },
    "WorkerPoolSpec": {
        "nfsMounts": "nothing is mounted at /mnt/nfs/",
        "lustreMounts": "nothing is mounted at /mnt/lustre/",
    },
    "MachineSpec": {
        "gpuPartitionSize": "GPUs are given whole (CUDA_VISIBLE_DEVICES), not as MIG partitions",
        "reservationAffinity": "there is no Compute Engine reservation to consume",
    },
    "Scheduling": {
        "disableRetries": "a replica killed from outside is restarted as restartJobOnWorkerRestart says",
    },
    "HyperparameterTuningJob": {
        "encryptionSpec": "local storage is not encrypted with the key",
    },
    "StudySpec": {
        "decayCurveStoppingSpec": "every trial runs to its end",
        "medianAutomatedStoppingSpec": "every trial runs to its end",
        "convexAutomatedStoppingSpec": "every trial runs to its end",
        "observationNoise": "the local search does not model measurement noise",
        "measurementSelectionType": "a trial's last reported value counts (LAST_MEASUREMENT)",
        "studyStoppingConfig": "the study runs maxTrialCount trials",
    },
    "StudySpec.MetricSpec": {
        "safetyConfig": "trials are ranked by the first metric alone",
    },
}
"""Keyed like the other tables; the local warning names the field and says what runs instead."""

OTHER_METRICS_LOCALLY = "trials are ranked by the first metric alone; the other metrics are not optimised"
