"""A team's infrastructure for one stack, as a component: bucket, registry, service account.

On a vertex stack (pulumi-gcp):
* a bucket in the stack's region: uniform bucket-level access, public access prevention
  enforced, versioning, and a lifecycle rule that deletes staged packages after 30 days;
* an Artifact Registry Docker repository;
* a service account the jobs run as, with least-privilege IAM scoped to that bucket
  (roles/storage.objectAdmin on the bucket only) and repository (roles/artifactregistry.reader on
  the repository only, for it and for the Vertex AI custom-code service agent that pulls images),
  and no project-wide role;
* the binding that lets the deployer act as that account (roles/iam.serviceAccountUser on it);
* unless ``trainjobs:manageApis`` is false, what a fresh project needs before any of that: the
  APIs (gcp.projects.Service, disable_on_destroy=False, so a destroy never turns off an API
  other stacks use), which every resource of the component depends on, and the Vertex AI
  service identity (gcp.projects.ServiceIdentity for aiplatform.googleapis.com), which the
  custom-code service agent's registry binding depends on, so the member exists before it is
  bound.

On a local stack, the same component creates the local equivalents through the local
backend's storage (provider.resources.local_infra).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pulumi

from provider.core.backend_registry import backend_type, capabilities
from provider.core.labels import team_labels
from provider.packaging.digest import image_tag
from provider.stack.config import StackConfig
from provider.submission.stack_request import account_id as account_id  # its home: run --stack names it too

STAGING_PREFIX = "trainjobs/"
STAGING_DAYS = 30
BUCKET_ROLE = "roles/storage.objectAdmin"
REGISTRY_ROLE = "roles/artifactregistry.reader"
ACT_AS_ROLE = "roles/iam.serviceAccountUser"
# The APIs a vertex stack uses: Vertex AI, the team's registry and bucket, its service account
# (iam), the deployer acting as it (iamcredentials), and the project number lookup
# (cloudresourcemanager).
APIS = ("aiplatform.googleapis.com", "artifactregistry.googleapis.com", "storage.googleapis.com",
        "iam.googleapis.com", "iamcredentials.googleapis.com", "cloudresourcemanager.googleapis.com")
VERTEX_AGENT_SERVICE = "aiplatform.googleapis.com"


def repository_id(stack: StackConfig) -> str:
    return f"{stack.team}-{stack.environment}"[:63].rstrip("-")


def labels(stack: StackConfig) -> dict[str, str]:
    return team_labels(stack.team, stack.environment, stack.name, extra=stack.labels_dict)


TeamHook = Callable[["TeamInfra", pulumi.ResourceOptions], None]  # a backend type's ``team_infra``


def vertex_team(infra: TeamInfra, child: pulumi.ResourceOptions) -> None:
    """Vertex AI's team infrastructure: the bucket, registry, service account and bindings (pulumi-gcp)."""
    infra._vertex(child)


def local_team(infra: TeamInfra, child: pulumi.ResourceOptions) -> None:
    """The local backend's: the same bucket, registry and account as files in its storage (local_infra.py)."""
    infra._local(child)


class TeamInfra(pulumi.ComponentResource):
    bucket: pulumi.Output[str]
    registry: pulumi.Output[str]
    service_account: pulumi.Output[str]

    def __init__(self, stack: StackConfig, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("trainjobs:index:TeamInfra", f"{stack.team}-{stack.environment}", None, opts)
        self.stack = stack
        self.resources: list[pulumi.Resource] = []
        self.repository: pulumi.Resource | None = None
        child = pulumi.ResourceOptions(parent=self)
        hook: TeamHook = backend_type(stack.backend).team_infra.load()  # type: ignore[assignment]  # registered
        hook(self, child)  # the backend type's own infrastructure (provider.core.backend_registry)
        self.register_outputs({"bucket": self.bucket, "registry": self.registry,
                               "serviceAccount": self.service_account})

    def _vertex(self, child: pulumi.ResourceOptions) -> None:
        import pulumi_gcp as gcp

        s = self.stack
        project, region = s.project, s.region
        tags = labels(s)
        apis = self._apis(child) if s.manage_apis else []
        child = pulumi.ResourceOptions.merge(child, pulumi.ResourceOptions(depends_on=list(apis)))
        bucket = gcp.storage.Bucket(
            f"{s.team}-bucket",
            name=s.bucket,
            project=project,
            location=region.upper(),
            uniform_bucket_level_access=True,
            public_access_prevention="enforced",
            versioning=gcp.storage.BucketVersioningArgs(enabled=True),
            lifecycle_rules=[gcp.storage.BucketLifecycleRuleArgs(
                action=gcp.storage.BucketLifecycleRuleActionArgs(type="Delete"),
                condition=gcp.storage.BucketLifecycleRuleConditionArgs(
                    age=STAGING_DAYS, matches_prefixes=[STAGING_PREFIX]),
            )],
            labels=tags,
            opts=child,
        )
        repo = gcp.artifactregistry.Repository(
            f"{s.team}-registry",
            repository_id=repository_id(s),
            project=project,
            location=region,
            format="DOCKER",
            description=f"Training images of team {s.team} ({s.environment})",
            labels=tags,
            opts=child,
        )
        account = gcp.serviceaccount.Account(
            f"{s.team}-trainer",
            account_id=account_id(s),
            project=project,
            display_name=f"trainjobs: {s.team} {s.environment} training jobs",
            opts=child,
        )
        bucket_access = gcp.storage.BucketIAMMember(
            f"{s.team}-trainer-bucket", bucket=bucket.name, role=BUCKET_ROLE, member=account.member, opts=child)
        repo_access = gcp.artifactregistry.RepositoryIamMember(
            f"{s.team}-trainer-registry", project=project, location=region, repository=repo.repository_id,
            role=REGISTRY_ROLE, member=account.member, opts=child)
        number = gcp.organizations.get_project_output(project_id=project).number
        identity = gcp.projects.ServiceIdentity(
            f"{s.team}-vertex-agent", project=project, service=VERTEX_AGENT_SERVICE, opts=child) \
            if s.manage_apis else None
        agent = gcp.artifactregistry.RepositoryIamMember(
            f"{s.team}-vertex-agent-registry", project=project, location=region, repository=repo.repository_id,
            role=REGISTRY_ROLE,
            member=number.apply(lambda n: f"serviceAccount:service-{n}@gcp-sa-aiplatform-cc.iam.gserviceaccount.com"),
            opts=pulumi.ResourceOptions.merge(child, pulumi.ResourceOptions(depends_on=[identity] if identity else [])))
        self.resources = [*apis, *([identity] if identity else []), bucket, repo, account, bucket_access,
                          repo_access, agent]
        if s.deployer:
            self.resources.append(gcp.serviceaccount.IAMMember(
                f"{s.team}-deployer-act-as", service_account_id=account.name, role=ACT_AS_ROLE, member=s.deployer,
                opts=child))
        self.bucket = bucket.name
        self.registry = repo.repository_id.apply(lambda rid: f"{region}-docker.pkg.dev/{project}/{rid}")
        self.service_account = account.email
        self.repository = repo

    def _apis(self, child: pulumi.ResourceOptions) -> list[pulumi.Resource]:
        import pulumi_gcp as gcp

        s = self.stack
        return [gcp.projects.Service(f"{s.team}-api-{api.split('.')[0]}", project=s.project, service=api,
                                     disable_on_destroy=False, opts=child) for api in APIS]

    def _local(self, child: pulumi.ResourceOptions) -> None:
        from provider.resources.local_infra import (
            LocalBucket,
            LocalBucketArgs,
            LocalRegistry,
            LocalRegistryArgs,
            LocalServiceAccount,
            LocalServiceAccountArgs,
        )

        s = self.stack
        home = s.local_home or None
        email = f"{account_id(s)}@{s.project_id}.iam.local"
        bucket = LocalBucket(f"{s.team}-bucket", LocalBucketArgs(
            name=s.bucket, location=s.region, labels=labels(s), local_home=home,
            lifecycle=[{"action": "Delete", "age": STAGING_DAYS, "matchesPrefix": STAGING_PREFIX}]), opts=child)
        registry = LocalRegistry(f"{s.team}-registry", LocalRegistryArgs(
            repository_id=repository_id(s), location=s.region, labels=labels(s), local_home=home), opts=child)
        account = LocalServiceAccount(f"{s.team}-trainer", LocalServiceAccountArgs(
            email=email, display_name=f"trainjobs: {s.team} {s.environment} training jobs",
            roles=[f"{BUCKET_ROLE} on gs://{s.bucket}", f"{REGISTRY_ROLE} on {repository_id(s)}"], local_home=home),
            opts=child)
        self.resources = [bucket, registry, account]
        self.bucket = pulumi.Output.from_input(s.bucket)
        self.registry = registry.path.apply(lambda p: str(p).rsplit("/", 1)[0])
        self.service_account = pulumi.Output.from_input(email)

    def image(self, name: str, context: str, dockerfile: str | None, source_digest: str) -> Any:
        """Build the image of a job from source and push it to the team's registry (vertex stacks)."""
        import pulumi_docker_build as docker_build
        import pulumi_gcp as gcp

        s = self.stack
        if not capabilities(s.backend).builds_images:
            raise pulumi.RunError(f"{name}: images are built and pushed on vertex stacks; on a local stack name an "
                                  "image the local container engine can run")
        host = f"{s.region}-docker.pkg.dev"
        token = gcp.organizations.get_client_config_output().access_token
        tag = self.registry.apply(lambda r: f"{r}/{image_tag(name, source_digest)}")  # the plan's placeholder
        return docker_build.Image(
            f"{name}-image",
            context=docker_build.BuildContextArgs(location=context),
            dockerfile=docker_build.DockerfileArgs(location=dockerfile) if dockerfile else None,
            tags=[tag],
            push=True,
            platforms=[docker_build.Platform.LINUX_AMD64],
            registries=[docker_build.RegistryArgs(address=host, username="oauth2accesstoken", password=token)],
            opts=pulumi.ResourceOptions(parent=self, depends_on=[self.repository] if self.repository else []),
        )
