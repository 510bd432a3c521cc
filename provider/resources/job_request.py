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
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from provider.core.record import replace
from provider.resources.job_args import JobArgs

if TYPE_CHECKING:
    from provider.spec.model import TrainingJob as JobModel

# What the request is made of (fields of JobArgs): the spec, the stack-wide inputs it reads, the
# staging bucket, the built image and the account. Not the quotas nor the policy: an unknown one
# leaves the spec's checks to ``pulumi up`` but not the request.
MADE_OF = ("job_name", "backend", "spec", "spec_file", "stack", "team", "project", "region", "stack_labels",
           "image", "service_account", "bucket")


def build_request(args: JobArgs, job: JobModel) -> dict[str, Any]:
    """The body the stack submits for ``job`` (its spec checked in its stack), as the program built it."""
    from provider.stack.policy_inputs import stack_config
    from provider.submission.stack_request import stack_request

    # the stack as far as the request reads it (its quotas, policy and pools do not make it)
    made_of = replace(args, quotas=None, policy=None, persistent_resources=None)
    stack = replace(stack_config(made_of), bucket_name=args.bucket or None)
    spec_dir = Path(str(args.spec_file or ".")).parent  # relative: the host runs in the project directory
    request = stack_request(job, spec_dir, stack, image=args.image or None, account=args.service_account or None)
    return dict(request.body)
