"""How many replicas the local backend can ever start for one job, checked at submit.

The local backend runs one process per replica, all on this machine. A spec may ask for any
replica count (on Vertex AI the project's quota decides), but here a count past what one
machine can start would only fail halfway, after starting hundreds of processes. So submit
refuses it first, with the limit in the message:

* ``MAX_LOCAL_REPLICAS`` (256) replicas of one run (one trial; parallel trials are already
  throttled by the supervisor): one machine serves a few hundred training processes at most;
* fewer when the user's process limit (``RLIMIT_NPROC``) is lower: half of it, since each
  replica may start processes of its own (data loaders, workers).
"""

from __future__ import annotations

import resource
from typing import Any

from provider.backends.base import FailedPrecondition

MAX_LOCAL_REPLICAS = 256


def replica_limit() -> tuple[int, str]:
    """(the most replicas one run may have here, why that number)."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NPROC)
    if soft != resource.RLIM_INFINITY and soft // 2 < MAX_LOCAL_REPLICAS:
        return max(1, soft // 2), f"half of this user's process limit, RLIMIT_NPROC {soft}"
    return MAX_LOCAL_REPLICAS, "one process per replica, all on this machine"


def check_replicas(pool_specs: list[dict[str, Any]]) -> None:
    """FailedPrecondition when one run of the job has more replicas than this machine can start."""
    total = 0
    for spec in pool_specs:
        try:
            total += int(spec.get("replicaCount", 1))
        except (TypeError, ValueError):
            raise FailedPrecondition(f"replicaCount {str(spec.get('replicaCount'))[:40]!r} is not an integer") from None
    limit, why = replica_limit()
    if total > limit:
        raise FailedPrecondition(
            f"the job has {total:,} replicas and the local backend starts at most {limit:,} for one job ({why}). "
            "Lower the replica counts for a local run, or run it on Vertex AI, where the project's quota decides; "
            "nothing was started")
