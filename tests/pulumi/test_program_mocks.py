"""The Pulumi program under pulumi mocks, for every stack file in stacks/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from provider.resources.job_request import decode, encode
from provider.stack.membership import StackIndex
from provider.submission.diffing import Action, diff

from .conftest import ROOT, by_type, project_copy, registration, run_program, stack_config
from .host import ProviderHost

INDEX = StackIndex.load(ROOT / "stacks")
STACKS = sorted(s.name for s in INDEX.stacks)
JOB = "pulumi-python:dynamic/trainjobs:TrainingJob"
# Project-wide grants; the project's APIs and Vertex AI service identity (gcp:projects/service,
# gcp:projects/serviceIdentity) are expected and are not grants.
PROJECT_WIDE = ("gcp:projects/iAM", "gcp:organizations/iAM", "gcp:folder/")


def test_every_stack_file_is_covered() -> None:
    assert {"local", "vision-dev", "vision-prod", "nlp-dev"} <= set(STACKS)


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("mocks")
    return {name: run_program(tmp, name) for name in STACKS}


def checked_jobs(report: dict[str, Any], project: Path = ROOT) -> dict[str, dict[str, Any]]:
    """Each job's inputs as the engine stores them: the program's, through the provider's Check in the
    SDK's own host (started in the project, as the engine starts it), which builds the request; the
    request, which the state carries as its body's canonical JSON, read back as the body."""
    with ProviderHost(cwd=project) as host:
        out = {}
        for name in by_type(report, JOB):
            checked, failures = host.check(report["dynamicInputs"][name], name=name)
            assert failures == [], (name, failures)
            body = decode(checked["request"])
            assert isinstance(body, dict) and encode(body) == checked["request"], (name, checked["request"])
            out[name] = {**checked, "request": body}
        return out


@pytest.fixture(scope="module")
def checked(reports: dict[str, dict[str, Any]]) -> dict[str, dict[str, dict[str, Any]]]:
    return {name: checked_jobs(report) for name, report in reports.items() if report["error"] is None}


def _short(dep: str) -> str:
    return dep.rsplit("::", 1)[-1]


@pytest.mark.parametrize("stack_name", STACKS)
def test_program_declares_the_stack(reports: dict[str, dict[str, Any]],
                                    checked: dict[str, dict[str, dict[str, Any]]], stack_name: str) -> None:
    report = reports[stack_name]
    assert report["error"] is None, report["error"]
    stack = INDEX.stack(stack_name)
    assert stack is not None
    members = [r for r in INDEX.members.items() if stack in r[1]]
    from provider.stack.membership import spec_name

    names = sorted(n for n in (spec_name(p) for p, _ in members) if n)
    jobs = by_type(report, JOB)
    assert sorted(jobs) == names
    labels_expected = {**stack.labels_dict, "managed-by": "trainjobs", "trainjobs-stack": stack.name}
    for name, job in jobs.items():
        inputs = job["inputs"]
        assert "request" not in inputs  # the program does not carry it: Check builds it
        req = checked[stack_name][name]["request"]
        assert inputs["backend"] == stack.backend and inputs["stack"] == stack.name
        assert inputs["parent"] == f"projects/{stack.project_id}/locations/{stack.region}"
        assert labels_expected.items() <= req["labels"].items()
        assert len(req["labels"]["trainjobs_id"]) == 32 and "identity" not in inputs  # carried once, in the request
        assert inputs["wait"] == {"until": stack.wait.until, "timeout": stack.wait.timeout_seconds}
        assert inputs["quotas"] == _plain_quotas(stack_name)
        deps = {_short(d) for d in registration(report, name)["dependencies"]}
        assert f"{stack.team}-bucket" in deps and f"{stack.team}-trainer" in deps  # infra before jobs
    exports = report["exports"]
    assert sorted(exports["jobs"]) == names
    assert exports["bucket"] == stack.bucket and exports["team"] == stack.team
    assert all(set(j) == {"id", "state", "consoleUrl", "jobDir"} for j in exports["jobs"].values())


def _plain_quotas(stack_name: str) -> Any:
    import json

    return json.loads(stack_config(stack_name)["trainjobs:quotas"])


@pytest.mark.parametrize("stack_name", [s for s in STACKS if INDEX.stack(s).backend == "vertex"])  # type: ignore[union-attr]
def test_vertex_infrastructure_least_privilege(reports: dict[str, dict[str, Any]],
                                               checked: dict[str, dict[str, dict[str, Any]]], stack_name: str) -> None:
    report = reports[stack_name]
    stack = INDEX.stack(stack_name)
    assert stack is not None
    team, env, project, region = stack.team, stack.environment, stack.project, stack.region
    bucket = report["resources"][f"{team}-bucket"]["inputs"]
    assert bucket["name"] == stack.bucket and bucket["location"] == region.upper()
    assert bucket["uniformBucketLevelAccess"] is True and bucket["publicAccessPrevention"] == "enforced"
    assert bucket["versioning"] == {"enabled": True}
    (rule,) = bucket["lifecycleRules"]
    assert rule["action"] == {"type": "Delete"} and rule["condition"]["matchesPrefixes"] == ["trainjobs/"]
    assert {"managed-by": "trainjobs", "team": team, "environment": env}.items() <= bucket["labels"].items()
    repo = report["resources"][f"{team}-registry"]["inputs"]
    assert (repo["repositoryId"], repo["location"], repo["format"]) == (f"{team}-{env}", region, "DOCKER")
    account = report["resources"][f"{team}-trainer"]["outputs"]
    assert account["accountId"] == f"{team}-{env}-trainjobs"
    iam = {n: r["inputs"] for n, r in report["resources"].items() if "IAM" in r["type"] or "Iam" in r["type"]}
    assert iam[f"{team}-trainer-bucket"] == {"bucket": stack.bucket, "role": "roles/storage.objectAdmin",
                                             "member": account["member"]}
    assert iam[f"{team}-trainer-registry"] == {"project": project, "location": region, "repository": f"{team}-{env}",
                                               "role": "roles/artifactregistry.reader", "member": account["member"]}
    agent = iam[f"{team}-vertex-agent-registry"]
    assert agent["member"] == "serviceAccount:service-123456789012@gcp-sa-aiplatform-cc.iam.gserviceaccount.com"
    assert agent["role"] == "roles/artifactregistry.reader"
    act_as = iam[f"{team}-deployer-act-as"]
    assert act_as == {"serviceAccountId": account["name"], "role": "roles/iam.serviceAccountUser",
                      "member": stack.deployer}
    assert len(iam) == 4  # and nothing else: no project-wide grant
    assert not [r for r in report["resources"].values() if r["type"].startswith(PROJECT_WIDE)]
    exports = report["exports"]
    assert exports["registry"] == f"{region}-docker.pkg.dev/{project}/{team}-{env}"
    assert exports["serviceAccount"] == account["email"]
    for name, job in by_type(report, JOB).items():
        spec_account = job["inputs"]["spec"]["spec"].get("serviceAccount")
        assert job["inputs"]["serviceAccount"] == account["email"]
        request = checked[stack_name][name]["request"]
        assert request.get("jobSpec", request.get("trialJobSpec"))["serviceAccount"] == (spec_account or account["email"])


def test_local_stack_creates_the_local_equivalents(reports: dict[str, dict[str, Any]]) -> None:
    report = reports["local"]
    stack = INDEX.stack("local")
    assert stack is not None
    kinds = {r["type"].rsplit(":", 1)[-1]: r["inputs"] for r in report["resources"].values()
             if r["type"].startswith("pulumi-python:dynamic/trainjobs:Local")}
    assert kinds["LocalBucket"]["name"] == stack.bucket and kinds["LocalBucket"]["location"] == stack.region
    assert kinds["LocalRegistry"]["repositoryId"] == "platform-local"
    assert kinds["LocalServiceAccount"]["email"].startswith("platform-local-trainjobs@")
    assert not [r for r in report["resources"].values() if r["type"].startswith("gcp:")]


def test_images_built_from_source_are_pinned_by_digest(tmp_path: Path) -> None:
    """Seeds 002 and 004 build their image: it is pushed to the team's registry and its digest pinned."""
    project = project_copy(tmp_path)
    first = run_program(tmp_path, "vision-dev", project=project)
    assert first["error"] is None, first["error"]
    images = by_type(first, "docker-build:index:Image")
    assert sorted(images) == ["vision_cassava_multiworker-image", "vision_hptune_container-image"]
    image = images["vision_cassava_multiworker-image"]
    assert image["inputs"]["push"] is True
    assert image["inputs"]["context"] == {"location": "examples/containers/cassava"}  # relative: same in any checkout
    assert image["inputs"]["registries"][0]["address"] == "us-central1-docker.pkg.dev"
    tag = image["inputs"]["tags"][0]
    assert tag.startswith("us-central1-docker.pkg.dev/acme-vision-dev/vision-dev/vision-cassava-multiworker:src-")
    assert first["resources"]["vision_cassava_multiworker"]["inputs"]["image"] == image["outputs"]["ref"]
    first_checked = checked_jobs(first, project)
    job = first_checked["vision_cassava_multiworker"]["request"]
    pinned = job["jobSpec"]["workerPoolSpecs"][0]["containerSpec"]["imageUri"]
    assert pinned == image["outputs"]["ref"] and "@sha256:" in pinned

    unchanged = run_program(tmp_path, "vision-dev", project=project)
    same = checked_jobs(unchanged, project)["vision_cassava_multiworker"]["request"]
    assert diff(job, same).action is Action.UNCHANGED

    (project / "examples/containers/cassava/trainer/task.py").write_text("# a new trainer\n")
    changed = run_program(tmp_path, "vision-dev", project=project)
    changed_checked = checked_jobs(changed, project)
    new = changed_checked["vision_cassava_multiworker"]["request"]
    assert new["jobSpec"]["workerPoolSpecs"][0]["containerSpec"]["imageUri"] != pinned
    verdict = diff(job, new)
    assert verdict.action is Action.REPLACE and {c.label for c in verdict.changes} == {"chief: image", "workers: image"}
    # the other built job, whose context did not change, is untouched
    other = "vision_hptune_container"
    assert diff(first_checked[other]["request"], changed_checked[other]["request"]).action is Action.UNCHANGED


def test_secret_env_values_stay_secret(tmp_path: Path) -> None:
    config = stack_config("local", **{"trainjobs:secretEnv": {"API_TOKEN": "s3cr3t"}})
    report = run_program(tmp_path, "local", config, secret_keys=["trainjobs:secretEnv"])
    assert report["error"] is None, report["error"]
    for name in by_type(report, JOB):
        reg = registration(report, name)
        assert reg["additionalSecretOutputs"] == ["request", "spec"]
        request = report["resources"][name]["inputs"]["request"]
        assert "__secret__" in request  # the engine stores it encrypted
        body = decode(request["__secret__"])  # carried as Check would return it: its canonical JSON
        assert isinstance(body, dict) and encode(body) == request["__secret__"]
        job_spec = body.get("jobSpec") or body["trialJobSpec"]
        for pool in job_spec["workerPoolSpecs"]:
            code = pool.get("pythonPackageSpec") or pool["containerSpec"]
            assert {"name": "API_TOKEN", "value": "s3cr3t"} in code["env"]
        assert "s3cr3t" not in str(report["resources"][name]["inputs"].get("spec"))


def test_invalid_specs_fail_the_program_with_every_problem(tmp_path: Path) -> None:
    project = project_copy(tmp_path)
    bad = project / "specs" / "local" / "broken.yaml"
    bad.write_text((project / "specs/local/simple.yaml").read_text()
                   .replace("name: local_simple", "name: local_broken")
                   .replace("chief: {machineType: n1-standard-4}",
                            "chief:\n      machineType: n1-standard-8\n      accelerator: {type: NVIDIA_TESLA_T4, count: 3}"))
    report = run_program(tmp_path, "local", project=project)
    error = report["error"] or ""
    assert "RunError" in error and "specs/local/broken.yaml:" in error
    assert "3 x NVIDIA_TESLA_T4 is not a valid count on n1-standard-8" in error
    assert not by_type(report, JOB)  # nothing declared


def test_invalid_stack_config_fails_with_its_position(tmp_path: Path) -> None:
    project = project_copy(tmp_path)
    stack_file = project / "stacks" / "Pulumi.local.yaml"
    stack_file.write_text(stack_file.read_text().replace("trainjobs:backend: local", "trainjobs:backend: locl"))
    report = run_program(tmp_path, "local", project=project)
    error = report["error"] or ""
    assert "stack local: its config is invalid" in error
    assert "stacks/Pulumi.local.yaml:5:22: 'locl' is not allowed for trainjobs:backend" in error


# -- a fresh project: APIs, the Vertex AI service agent, and the order of it all -------------------------
VERTEX_STACKS = [s for s in STACKS if INDEX.stack(s).backend == "vertex"]  # type: ignore[union-attr]
SERVICE = "gcp:projects/service:Service"
IDENTITY = "gcp:projects/serviceIdentity:ServiceIdentity"
NEEDED_APIS = {"aiplatform.googleapis.com", "artifactregistry.googleapis.com", "storage.googleapis.com",
               "iam.googleapis.com", "iamcredentials.googleapis.com"}


def _closure(report: dict[str, Any]) -> dict[str, set[str]]:
    """Every registration's dependencies, direct or through others (by resource name)."""
    direct = {r["name"]: {_short(d) for d in r["dependencies"]} for r in report["registrations"]}
    out: dict[str, set[str]] = {}

    def walk(name: str) -> set[str]:
        if name not in out:
            out[name] = set()
            for dep in direct.get(name, ()):
                out[name] |= {dep} | walk(dep)
        return out[name]

    for name in direct:
        walk(name)
    return out


def _creators(report: dict[str, Any]) -> dict[str, str]:
    """IAM member -> the resource that makes it exist."""
    out = {}
    for name, r in report["resources"].items():
        if r["type"] == "gcp:serviceaccount/account:Account":
            out[r["outputs"]["member"]] = name
        if r["type"] == IDENTITY and r["inputs"]["service"] == "aiplatform.googleapis.com":
            # Vertex AI's service identity; its custom-code agent is bound as -cc.
            number = "123456789012"
            out[f"serviceAccount:service-{number}@gcp-sa-aiplatform-cc.iam.gserviceaccount.com"] = name
    return out


@pytest.mark.parametrize("stack_name", VERTEX_STACKS)
def test_a_fresh_project_enables_the_apis_before_anything_else(reports: dict[str, dict[str, Any]],
                                                              stack_name: str) -> None:
    report = reports[stack_name]
    stack = INDEX.stack(stack_name)
    assert stack is not None
    services = {r["inputs"]["service"]: (n, r["inputs"]) for n, r in by_type(report, SERVICE).items()}
    assert set(services) >= NEEDED_APIS
    for _, inputs in services.values():
        assert inputs["project"] == stack.project and inputs["disableOnDestroy"] is False
    api_names = {n for n, _ in services.values()}
    closure = _closure(report)
    for reg in report["registrations"]:
        if reg["custom"] and reg["name"] not in api_names:
            assert api_names <= closure[reg["name"]], (reg["name"], api_names - closure[reg["name"]])
    (identity,) = by_type(report, IDENTITY).values()
    assert identity["inputs"] == {"project": stack.project, "service": "aiplatform.googleapis.com"}


@pytest.mark.parametrize("stack_name", VERTEX_STACKS)
def test_nothing_binds_a_member_before_its_creator(reports: dict[str, dict[str, Any]], stack_name: str) -> None:
    report = reports[stack_name]
    stack = INDEX.stack(stack_name)
    assert stack is not None
    creators, closure = _creators(report), _closure(report)
    bindings = {n: r["inputs"]["member"] for n, r in report["resources"].items() if "member" in r["inputs"]}
    assert len(bindings) == 4
    for name, member in bindings.items():
        if member == stack.deployer:
            continue  # a person or group of the organisation: nothing here creates it
        assert member in creators, (name, member)
        assert creators[member] in closure[name], (name, member, creators[member])


def test_a_stack_that_manages_apis_centrally_turns_it_off(tmp_path: Path) -> None:
    report = run_program(tmp_path, "vision-dev", stack_config("vision-dev", **{"trainjobs:manageApis": False}))
    assert report["error"] is None, report["error"]
    assert not by_type(report, SERVICE) and not by_type(report, IDENTITY)
    assert "vision-vertex-agent-registry" in report["resources"]  # the rest is as before
    assert sorted(by_type(report, JOB)) == sorted(by_type(reports_of_default(tmp_path), JOB))


def reports_of_default(tmp_path: Path) -> dict[str, Any]:
    return run_program(tmp_path, "vision-dev")
