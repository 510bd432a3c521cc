"""A spec's request as its stack submits it: the stack's labels, its service account, the job's identity.

The Pulumi program (provider.resources.program) and ``trainjobs run --stack`` both build a stack's
request here, so a job that ``run`` starts carries the identity label ``pulumi up`` computes for
the same spec, and ``up`` adopts that job instead of starting a second one (every backend's
``submit`` adopts the newest job carrying the label that has not failed or been cancelled).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from provider.core.backend_registry import capabilities
from provider.core.labels import IDENTITY_LABEL
from provider.core.record import replace
from provider.core.vertex_request import VertexRequest
from provider.spec.model import EnvVar, TrainingJob
from provider.submission import launch
from provider.submission.diffing import fingerprint

if TYPE_CHECKING:
    from provider.packaging.stage import Stager
    from provider.stack.config import StackConfig

SERVICE_ACCOUNT_DOMAIN = "iam.gserviceaccount.com"  # Google's: ACCOUNT_ID@PROJECT.iam.gserviceaccount.com


def account_id(stack: StackConfig) -> str:
    """The id of the team's service account: 6-30 characters, lowercase letters, digits and hyphens."""
    base = f"{stack.team}-{stack.environment}-trainjobs"
    return base[:30].rstrip("-")


def team_account(stack: StackConfig) -> str | None:
    """The email of the account a Vertex AI stack's jobs run as (TeamInfra creates it); None elsewhere."""
    if not capabilities(stack.backend).service_accounts or not stack.project:
        return None
    return f"{account_id(stack)}@{stack.project}.{SERVICE_ACCOUNT_DOMAIN}"


def identity(stack: StackConfig, name: str, body: Mapping[str, Any]) -> str:
    """The job's identity label: which stack and spec it is, and what it runs."""
    text = f"{stack.project_id}/{stack.name}/{name}/{fingerprint(dict(body))}"
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def for_stack(job: TrainingJob, stack: StackConfig, account: str | None = None,
              secret_env: Mapping[str, str] | None = None) -> TrainingJob:
    """The job as the stack runs it: as the team's account (when the spec names none), with the
    stack's secret environment."""
    if job.service_account is None and account and capabilities(stack.backend).service_accounts:
        job = replace(job, service_account=account)
    if secret_env:
        env = [e for e in job.env if e.name not in secret_env]
        job = replace(job, env=tuple(env) + tuple(EnvVar(k, str(v)) for k, v in secret_env.items()))
    return job


def stack_request(job: TrainingJob, spec_dir: Path, stack: StackConfig, stager: Stager | None = None,
                  image: str | None = None, account: str | None = None,
                  secret_env: Mapping[str, str] | None = None,
                  check: Callable[[VertexRequest], None] | None = None) -> VertexRequest:
    """The exact request the stack submits for ``job`` (staged first when ``stager`` is given, after
    ``check``, the backend's refusals), with the stack's labels and the identity label."""
    job = for_stack(job, stack, account, secret_env)
    labels = launch.labels_for(job, stack=stack.name, extra=stack.labels_dict)
    request = launch.prepare(job, spec_dir, stack.project_id, stager=stager, default_bucket=f"gs://{stack.bucket}",
                             labels=labels, image_uri=image, check=check)
    body = dict(request.body)
    body["labels"] = {**body.get("labels", {}), IDENTITY_LABEL: identity(stack, job.name, body)}
    return replace(request, body=body)
