"""The job's request, built by the provider's Check from what the resource carries.

The program does not carry the request (bench/RESULTS.md, issue 31: the SDK's per-node work for
its ~70 nodes was a third of each job's cost under ``pulumi preview``). It carries what the
request is made of that only the program knows: the spec (as Check validates it), the stack-wide
inputs, the staging ``bucket``, and the Outputs the request waits on (the built ``image`` and the
team's ``serviceAccount``). Check builds the request from those with the one function the stack
submits with (provider.submission.stack_request, as ``trainjobs run --stack`` does) and returns it
among the checked inputs, so the state, Diff, create, the preview's display and the policy pack
read the same ``request`` as when the program carried it.

During a preview the image or the account may be unknown: the request is then unknown as a
whole (what the engine shows as ``output<object>`` and Diff reads as "what runs may change").

The resource carries the request as ONE property: its canonical JSON (``encode``), not a map of
~70 nodes. The engine stores every key Check returns, and the SDK's host (de)serialises each node
of a map in every Check answer and every Diff request (bench/RESULTS.md, issue 31, "The provider
through the host, fourth round"); a string is one node. ``pulumi preview --diff`` still shows it
as an object, and a change inside it as an object diff: the CLI decodes a JSON string property
(docs/pulumi.md). Readers go through ``decode``, which also reads the map that states written
before hold.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from provider.core.record import replace
from provider.resources.job_args import JobArgs
from provider.resources.unknowns import is_unknown

if TYPE_CHECKING:
    from provider.spec.model import TrainingJob as JobModel
    from provider.stack.config import StackConfig

# What the request is made of (fields of JobArgs): the spec, the stack-wide inputs it reads, the
# staging bucket, the built image and the account. Not the quotas nor the policy: an unknown one
# leaves the spec's checks to ``pulumi up`` but not the request.
MADE_OF = ("job_name", "backend", "spec", "spec_file", "stack", "team", "project", "region", "stack_labels",
           "image", "service_account", "bucket")


def encode(body: Mapping[str, Any]) -> str:
    """The request as the resource carries it: canonical JSON (sorted keys, no spaces, ASCII), so
    equal bodies are equal strings and Diff compares them without decoding."""
    return json.dumps(body, sort_keys=True, separators=(",", ":"))


def decode(value: Any) -> Any:
    """The request body a carried ``request`` holds: its JSON decoded; a map (a state written before
    the request was a string) or an unknown (a preview's) as it is; a string that is not a JSON
    object as it is too (Diff reads anything not a map as "what runs may change")."""
    if not isinstance(value, str) or is_unknown(value):
        return value
    try:
        body = json.loads(value)
    except ValueError:
        return value
    return body if isinstance(body, dict) else value


def build_request(args: JobArgs, job: JobModel, stack: StackConfig | None = None) -> dict[str, Any]:
    """The body the stack submits for ``job`` (its spec checked in its stack), as the program built it.
    ``stack``: the job's stack as its Check read it from ``args`` (made from them when not given);
    its quotas, policy and pools do not make the request (stack_request reads none of them)."""
    from provider.stack.policy_inputs import stack_config
    from provider.submission.stack_request import stack_request

    if stack is None:
        stack = stack_config(replace(args, quotas=None, policy=None, persistent_resources=None))
    stack = replace(stack, bucket_name=args.bucket or None)
    spec_dir = Path(str(args.spec_file or ".")).parent  # relative: the host runs in the project directory
    request = stack_request(job, spec_dir, stack, image=args.image or None, account=args.service_account or None)
    return dict(request.body)
