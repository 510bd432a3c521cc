"""Vertex AI's JobState -> the shared JobState: one explicit table, no SDK import.

The one owner of Vertex AI's job states in code. Their names and numbers are catalog facts
(``provider/catalog/data/states.json``, built from ``tools/catalog/reference/job_states.json`` with
its sources) and are read from there; the emulator's list filter takes them from here. Vertex AI's
JobState enum (google.cloud.aiplatform.v1.JobState) has twelve values; the shared enum has seven.
The table below maps every one, and importing this module fails if the catalog names a state the
table does not map. The five without a twin:

* ``JOB_STATE_UNSPECIFIED``: the service has not said yet: QUEUED (not started, not finished).
* ``JOB_STATE_PAUSED``: not running and not finished, waiting to resume: QUEUED.
* ``JOB_STATE_UPDATING``: a running job whose configuration changes: RUNNING.
* ``JOB_STATE_EXPIRED``: the service stopped the job at a time limit: CANCELLED, the state the
  local backend gives a job that outlived its max wait or max running time (as AI Platform did).
* ``JOB_STATE_PARTIALLY_SUCCEEDED``: some results may be missing: FAILED, so nobody takes a
  partial training run for a finished one; the status keeps the Vertex state in its message.
"""

from __future__ import annotations

from provider.backends.base import JobState
from provider.catalog import load


def _catalog_names() -> tuple[str, ...]:
    """The catalog's Vertex AI job states, by number: the numbers run 0..N-1 without a gap."""
    numbers: dict[str, int] = load("states")["vertex"]
    names = tuple(sorted(numbers, key=numbers.__getitem__))
    if [numbers[n] for n in names] != list(range(len(names))):
        raise RuntimeError(f"the catalog's Vertex AI job states are not numbered 0..{len(names) - 1}: {numbers}")
    return names


# The enum's values, in order (JOB_STATE_UNSPECIFIED = 0 ... JOB_STATE_PARTIALLY_SUCCEEDED = 11).
VERTEX_STATE_NAMES: tuple[str, ...] = _catalog_names()
# A TrainingPipeline's states (google.cloud.aiplatform.v1.PipelineState): a job's, under their own prefix,
# without the job-only EXPIRED, UPDATING and PARTIALLY_SUCCEEDED.
PIPELINE_STATE_NAMES: tuple[str, ...] = tuple(
    "PIPELINE_STATE_" + n for n in ("UNSPECIFIED", "QUEUED", "PENDING", "RUNNING", "SUCCEEDED", "FAILED",
                                    "CANCELLING", "CANCELLED", "PAUSED"))
# The states Vertex AI calls terminal (the catalog's vertex_terminal).
VERTEX_TERMINAL: frozenset[str] = frozenset(load("states")["vertex_terminal"])

STATE_TABLE: dict[str, JobState] = {
    "JOB_STATE_UNSPECIFIED": JobState.QUEUED,
    "JOB_STATE_QUEUED": JobState.QUEUED,
    "JOB_STATE_PENDING": JobState.PENDING,
    "JOB_STATE_RUNNING": JobState.RUNNING,
    "JOB_STATE_SUCCEEDED": JobState.SUCCEEDED,
    "JOB_STATE_FAILED": JobState.FAILED,
    "JOB_STATE_CANCELLING": JobState.CANCELLING,
    "JOB_STATE_CANCELLED": JobState.CANCELLED,
    "JOB_STATE_PAUSED": JobState.QUEUED,
    "JOB_STATE_EXPIRED": JobState.CANCELLED,
    "JOB_STATE_UPDATING": JobState.RUNNING,
    "JOB_STATE_PARTIALLY_SUCCEEDED": JobState.FAILED,
}

if set(STATE_TABLE) != set(VERTEX_STATE_NAMES):
    raise RuntimeError(f"the Vertex AI job states of the catalog and of STATE_TABLE differ: "
                       f"{sorted(set(STATE_TABLE) ^ set(VERTEX_STATE_NAMES))}")

# Vertex states that have no twin in JobState: the status says what Vertex reported.
UNTWINNED = frozenset(name for name, state in STATE_TABLE.items() if name != state.vertex)


def vertex_name(state: int | str) -> str:
    """``3`` or ``"JOB_STATE_RUNNING"`` -> ``"JOB_STATE_RUNNING"``; ValueError when unknown."""
    if isinstance(state, int):
        if 0 <= state < len(VERTEX_STATE_NAMES):
            return VERTEX_STATE_NAMES[state]
        raise ValueError(f"unknown Vertex AI job state {state}: 0 to {len(VERTEX_STATE_NAMES) - 1}")
    if state in STATE_TABLE:
        return state
    raise ValueError(f"unknown Vertex AI job state {state!r}: one of {', '.join(VERTEX_STATE_NAMES)}")


def to_job_state(state: int | str) -> JobState:
    """A Vertex AI JobState (its number or its name) -> the shared JobState."""
    return STATE_TABLE[vertex_name(state)]


def to_vertex(state: JobState) -> int:
    """The shared JobState -> the number of its Vertex AI twin (what the REST API sends)."""
    return VERTEX_STATE_NAMES.index(state.vertex)
