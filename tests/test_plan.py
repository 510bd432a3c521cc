"""trainjobs plan over real git histories: specs added, changed, removed, renamed; sources and
stack settings changed; policy violations; the exit codes and the exact request of a new job."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from provider.packaging import package_uris
from provider.stack.membership import StackIndex
from provider.submission.request import build_request
from provider.validation.validator import validate_bytes

from .conftest import no_traceback, run_cli
from .plan_repo import ENV, PlanRepo, actions, job, stack

RESNET = "specs/vision/resnet.yaml"
TUNER = "specs/vision/tuner.yaml"
N1_STANDARD_4 = 0.21849885  # verified price (catalog pricing.json)
T4 = 0.4025  # unverified price


@pytest.fixture
def repo(tmp_path: Path) -> PlanRepo:
    return PlanRepo(tmp_path / "repo")


def test_no_change_plans_nothing(repo: PlanRepo) -> None:
    plan = repo.plan()
    assert plan["_rc"] == 0 and plan["ok"] is True
    assert plan["stacks"] == [] and plan["unaffected_stacks"] == ["local", "nlp-dev", "vision-dev"]
    text = repo.run("plan", "--base", "main")
    assert text.returncode == 0 and "No stack changes." in text.stdout
    assert "unchanged stacks: local, nlp-dev, vision-dev" in text.stdout


def test_added_spec_is_created_with_capacity_and_estimate(repo: PlanRepo) -> None:
    repo.write("specs/vision/new.yaml", repo.read(RESNET).replace("vision_resnet", "vision_new")
               .replace("36000s", "7200s"))  # untracked: the working tree is what is planned
    plan = repo.plan()
    assert actions(plan) == {("vision-dev", "vision_new"): "create", ("vision-dev", "vision_resnet"): "unchanged",
                             ("vision-dev", "vision_tuner"): "unchanged"}
    assert plan["unaffected_stacks"] == ["local", "nlp-dev"]
    new = job(plan, "vision-dev", "vision_new")
    assert new["file"] == "specs/vision/new.yaml" and new["owners"] == ["@acme/vision"]
    cap = new["capacity"]
    assert (cap["gpus_at_once"], cap["vcpus_at_once"], cap["max_hours"], cap["max_gpu_hours"]) == (3, 12, 2, 6)
    # 3 replicas x (n1-standard-4 + 1 T4) x 2 h
    assert new["cost"]["estimated_max_usd"] == pytest.approx(3 * (N1_STANDARD_4 + T4) * 2)
    assert new["cost"]["unverified_prices"] == ["NVIDIA_TESLA_T4"]
    started = stack(plan, "vision-dev")["started"]
    assert started["jobs"] == 1 and started["gpus_at_once"] == 3 and started["unverified_prices"] is True
    assert plan["owners"] == ["@acme/vision"] and plan["estimate"]["as_of"] == "2026-10-07"


def test_changed_hardware_replaces_with_a_field_diff(repo: PlanRepo) -> None:
    repo.edit(RESNET, "      machineType: n1-standard-4\n      replicas: 2",
              "      machineType: n1-standard-8\n      replicas: 4")
    plan = repo.plan()
    # The spec is held by two stacks: both replace it (the local stack's copy costs nothing).
    assert actions(plan)[("vision-dev", "vision_resnet")] == "replace"
    assert actions(plan)[("local", "vision_resnet")] == "replace"
    changes = {c["label"]: (c["old"], c["new"]) for c in job(plan, "vision-dev", "vision_resnet")["changes"]}
    assert changes == {"workers: machine type": ("n1-standard-4", "n1-standard-8"), "workers: replicas": ("2", "4")}
    assert job(plan, "local", "vision_resnet")["cost"]["billed"] is False
    text = repo.run("plan", "--base", "main").stdout
    assert "~ replace   vision_resnet  specs/vision/resnet.yaml" in text
    assert "workers: replicas: 2 -> 4" in text and "workers: machine type: n1-standard-4 -> n1-standard-8" in text


def test_args_and_image_changes_are_shown(repo: PlanRepo) -> None:
    repo.edit(RESNET, 'args: [--epochs, "5"]', 'args: [--epochs, "50"]')
    repo.edit("specs/nlp/bert.yaml", "bert:1.0", "bert:1.1")
    plan = repo.plan()
    resnet = {c["label"]: c["new"] for c in job(plan, "vision-dev", "vision_resnet")["changes"]}
    assert resnet["chief: args"][:2] == ["--epochs", "50"] and resnet["workers: args"][:2] == ["--epochs", "50"]
    bert = job(plan, "nlp-dev", "nlp_bert")
    assert bert["action"] == "replace"
    assert [(c["label"], c["old"], c["new"]) for c in bert["changes"]] == [
        ("chief: image", "us-docker.pkg.dev/acme/nlp/bert:1.0", "us-docker.pkg.dev/acme/nlp/bert:1.1")]
    # g2-standard-8 and one L4 in us-central1 for maxRunningTime 7200s, at the catalog's derived (unverified) prices
    assert bert["cost"]["estimated_max_usd"] == pytest.approx(2 * (0.29358417 * 1.15 + 0.56004 * 1.15), abs=0.01)
    assert bert["cost"]["missing_prices"] == [] and bert["cost"]["unverified_prices"] == ["g2-standard-8", "NVIDIA_L4"]


def test_label_change_is_a_no_op(repo: PlanRepo) -> None:
    repo.edit(TUNER, "labels: {cost-center: vision}", "labels: {cost-center: vision, owner: ana}")
    plan = repo.plan()
    tuner = job(plan, "vision-dev", "vision_tuner")
    assert tuner["action"] == "unchanged" and tuner["changes"] == []
    assert [(c["label"], c["new"]) for c in tuner["no_op_changes"]] == [("label owner", "ana")]
    assert stack(plan, "vision-dev")["started"]["jobs"] == 0 and plan["_rc"] == 0


def test_removed_spec_is_deleted(repo: PlanRepo) -> None:
    repo.git("rm", "-q", TUNER)
    plan = repo.plan()
    assert actions(plan)[("vision-dev", "vision_tuner")] == "delete"
    assert stack(plan, "vision-dev")["counts"] == {"create": 0, "replace": 0, "cancel": 0, "delete": 1,
                                                   "unchanged": 1}
    assert "its spec left the stack" in repo.run("plan", "--base", "main").stdout


def test_renamed_file_is_unchanged_and_says_where_it_was(repo: PlanRepo) -> None:
    repo.git("mv", TUNER, "specs/vision/tuning.yaml")
    repo.commit("rename")
    plan = json.loads(repo.run("plan", "--base", "HEAD~1", "--format", "json").stdout)
    tuner = job(plan, "vision-dev", "vision_tuner")
    assert tuner["action"] == "unchanged" and tuner["moved_from"] == TUNER
    assert tuner["file"] == "specs/vision/tuning.yaml"
    assert "(moved from specs/vision/tuner.yaml)" in repo.run("plan", "--base", "HEAD~1").stdout


def test_renamed_job_is_deleted_and_created(repo: PlanRepo) -> None:
    repo.edit(TUNER, "name: vision_tuner", "name: vision_tuner_v2")
    plan = repo.plan()
    assert actions(plan)[("vision-dev", "vision_tuner")] == "delete"
    assert actions(plan)[("vision-dev", "vision_tuner_v2")] == "create"


def test_stack_globs_decide_membership_on_each_side(repo: PlanRepo) -> None:
    repo.edit("stacks/Pulumi.local.yaml", "specs/vision/resnet.yaml", "specs/vision/tuner.yaml")
    plan = repo.plan()
    assert actions(plan)[("local", "vision_resnet")] == "delete"
    assert actions(plan)[("local", "vision_tuner")] == "create"
    assert [(c["label"], c["old"], c["new"]) for c in stack(plan, "local")["settings_changes"]] == [
        ("trainjobs:specs", ["specs/vision/resnet.yaml"], ["specs/vision/tuner.yaml"])]
    assert "vision-dev" in plan["unaffected_stacks"]


def test_trainer_source_change_replaces_every_job_that_packages_it(repo: PlanRepo) -> None:
    repo.write("trainer/trainer/task.py", 'print("training harder")\n')
    plan = repo.plan()
    assert actions(plan) == {("local", "vision_resnet"): "replace", ("vision-dev", "vision_resnet"): "replace",
                             ("vision-dev", "vision_tuner"): "unchanged"}
    (change, *_) = job(plan, "vision-dev", "vision_resnet")["changes"]
    assert change["label"] == "chief: package"
    assert change["old"][0].startswith("gs://acme-vision-dev-vision-dev/jobs/vision_resnet/packages/")
    assert change["old"][0].endswith("/trainer.tar.gz") and change["old"] != change["new"]
    proc = repo.run("affected-stacks", "--base", "main")
    assert proc.returncode == 0 and proc.stdout == "local\nvision-dev\n"


def test_container_context_change_replaces_the_built_image(repo: PlanRepo) -> None:
    repo.edit("containers/tuner/Dockerfile", "python:3.11-slim", "python:3.12-slim")
    plan = repo.plan()
    tuner = job(plan, "vision-dev", "vision_tuner")
    assert tuner["action"] == "replace"
    (change,) = tuner["changes"]
    assert change["label"] == "chief: image"
    assert change["old"].startswith("<built from containers/tuner: vision-tuner:src-") and change["old"] != change["new"]


def test_desired_state_cancelled_cancels(repo: PlanRepo) -> None:
    repo.edit("specs/nlp/bert.yaml", "  region: us-central1", "  region: us-central1\n  desiredState: CANCELLED")
    plan = repo.plan()
    assert actions(plan) == {("nlp-dev", "nlp_bert"): "cancel"}
    assert stack(plan, "nlp-dev")["started"]["jobs"] == 0


def test_stack_quota_change_and_new_versus_existing_violations(repo: PlanRepo) -> None:
    repo.edit("stacks/Pulumi.vision-dev.yaml", "maxGpusPerJob: 8", "maxGpusPerJob: 2")
    plan = repo.plan()
    assert plan["_rc"] == 1 and plan["ok"] is False
    vision = stack(plan, "vision-dev")
    assert [(c["path"], c["old"], c["new"]) for c in vision["settings_changes"]] == [
        ("trainjobs:quotas.maxGpusPerJob", 8, 2)]
    (violation,) = vision["violations"]
    assert (violation["rule"], violation["job"], violation["limit"], violation["value"], violation["new"]) == (
        "quotas.maxGpusPerJob", "vision_resnet", "2", "3", True)
    assert all(j["action"] == "unchanged" for j in vision["jobs"])
    text = repo.run("plan", "--base", "main").stdout
    assert "NEW vision_resnet holds 3 GPUs at once, more than stack vision-dev allows per job " \
           "(rule quotas.maxGpusPerJob: limit 2, value 3)" in text
    assert "result: FAILS: 1 policy violation(s)" in text
    # Once merged, the violation is already there: a later change still fails, and says so.
    repo.commit("lower the quota")
    repo.edit(RESNET, '"5"', '"6"')
    later = repo.plan("--base", "HEAD")  # the last --base wins
    (violation,) = stack(later, "vision-dev")["violations"]
    assert violation["new"] is False


def test_policy_violations_name_rule_limit_and_value(repo: PlanRepo) -> None:
    repo.edit(RESNET, "      replicas: 2\n      accelerator: {type: NVIDIA_TESLA_T4, count: 1}",
              "      replicas: 2\n      accelerator: {type: NVIDIA_TESLA_T4, count: 4}")
    repo.edit(RESNET, "labels: {cost-center: vision}", "labels: {team: vision}")
    repo.edit(RESNET, "36000s", "172800s")
    plan = repo.plan()
    assert plan["_rc"] == 1
    found = {(v["rule"], v["limit"], v["value"]) for v in stack(plan, "vision-dev")["violations"]}
    assert found == {
        ("quotas.maxGpusPerJob", "8", "9"),
        ("quotas.maxRunningTime", "86400s", "172800s"),
        ("policy.requiredLabels", "cost-center", "env, team"),
    }
    assert stack(plan, "local")["violations"] == []  # the local stack has no such quotas


def test_stack_gpu_quota_counts_every_job(repo: PlanRepo) -> None:
    for k in range(5):
        repo.write(f"specs/vision/copy{k}.yaml", repo.read(RESNET).replace("vision_resnet", f"vision_copy{k}"))
    plan = repo.plan()
    violations = stack(plan, "vision-dev")["violations"]
    assert [(v["rule"], v["limit"], v["value"]) for v in violations] == [("quotas.maxGpusPerStack", "16", "18")]
    assert stack(plan, "vision-dev")["gpus_held_after"] == 18


def test_invalid_spec_fails_the_plan(repo: PlanRepo) -> None:
    repo.edit("specs/nlp/bert.yaml", "g2-standard-8", "g2-standard-7")
    plan = repo.plan()
    assert plan["_rc"] == 1 and plan["ok"] is False
    (problem,) = [p for p in plan["problems"] if p["severity"] == "error"]
    assert problem["file"] == "specs/nlp/bert.yaml" and problem["line"] == 10
    assert "g2-standard-7" in problem["message"]
    text = repo.run("plan", "--base", "main")
    assert text.returncode == 1 and "specs/nlp/bert.yaml:10:" in text.stdout


def test_new_stack_file_creates_its_jobs_and_removed_one_deletes_them(repo: PlanRepo) -> None:
    repo.write("stacks/Pulumi.vision-prod.yaml", repo.read("stacks/Pulumi.vision-dev.yaml")
               .replace("environment: dev", "environment: prod").replace("acme-vision-dev", "acme-vision-prod"))
    repo.git("rm", "-q", "stacks/Pulumi.nlp-dev.yaml")
    plan = repo.plan()
    assert stack(plan, "vision-prod")["status"] == "added"
    assert actions(plan)[("vision-prod", "vision_resnet")] == "create"
    assert stack(plan, "nlp-dev")["status"] == "removed"
    assert actions(plan)[("nlp-dev", "nlp_bert")] == "delete"
    proc = repo.run("affected-stacks", "--base", "main", "--format", "json")
    assert json.loads(proc.stdout) == ["vision-prod"]
    assert "nlp-dev" in proc.stderr and "destroy" in proc.stderr


def test_project_change_replaces_every_job(repo: PlanRepo) -> None:
    repo.edit("stacks/Pulumi.nlp-dev.yaml", "gcp:project: acme-nlp-dev", "gcp:project: acme-nlp-dev2")
    plan = repo.plan()
    (change,) = job(plan, "nlp-dev", "nlp_bert")["changes"]
    assert (change["path"], change["new"]) == ("parent", "projects/acme-nlp-dev2/locations/us-central1")


def test_show_requests_gives_the_exact_request(repo: PlanRepo) -> None:
    repo.write("specs/vision/new.yaml", repo.read(RESNET).replace("vision_resnet", "vision_new"))
    plan = repo.plan("--show-requests")
    got = job(plan, "vision-dev", "vision_new")["request"]
    # The same request built the way the provider builds it, from the files on disk.
    path = repo.root / "specs/vision/new.yaml"
    config = StackIndex.load(repo.root / "stacks").stack("vision-dev")
    assert config is not None
    model = validate_bytes(path.read_bytes(), str(path)).job
    assert model is not None
    want = build_request(model, config.project_id, labels=config.labels_dict,
                         package_uris=package_uris(model, path.parent, f"gs://{config.bucket}"))
    assert got == {"kind": want.kind, "parent": want.parent, "body": want.body}
    assert "request" not in job(repo.plan(), "vision-dev", "vision_new")
    text = repo.run("plan", "--base", "main", "--show-requests").stdout
    assert '"kind": "CustomJob"' in text and '"pythonModule": "trainer.task"' in text


def test_stack_option_limits_the_plan(repo: PlanRepo) -> None:
    repo.write("trainer/trainer/task.py", 'print("training harder")\n')
    plan = repo.plan("--stack", "vision-dev")
    assert [s["name"] for s in plan["stacks"]] == ["vision-dev"] and plan["unaffected_stacks"] == []
    assert repo.plan("--stack", "nlp-dev")["unaffected_stacks"] == ["nlp-dev"]


def test_default_base_is_origin_main_then_main(repo: PlanRepo) -> None:
    repo.write("trainer/trainer/task.py", 'print("training harder")\n')
    repo.commit("trainer")
    assert repo.run("plan").stdout.startswith("trainjobs plan: main (")
    repo.git("update-ref", "refs/remotes/origin/main", "HEAD~1")
    first = repo.run("plan").stdout.splitlines()[0]
    assert first.startswith("trainjobs plan: origin/main (") and "vision_resnet" in repo.run("plan").stdout


def test_usage_errors_say_what_is_allowed(repo: PlanRepo, tmp_path: Path) -> None:
    bad_ref = repo.run("plan", "--base", "no-such-branch")
    assert bad_ref.returncode == 2 and "--base 'no-such-branch' is not a commit" in bad_ref.stderr
    assert "fetch-depth: 0" in bad_ref.stderr
    bad_stack = repo.run("plan", "--stack", "nope")
    assert bad_stack.returncode == 2 and "allowed: local, nlp-dev, vision-dev" in bad_stack.stderr
    outside = tmp_path / "not-a-repo"
    outside.mkdir()
    proc = run_cli("plan", cwd=outside, env=ENV)
    no_traceback(proc)
    assert proc.returncode == 2 and "not inside a git repository" in proc.stderr
    assert run_cli("plan", "--format", "yaml", cwd=repo.root, env=ENV).returncode == 2


def test_project_in_a_subdirectory_of_the_repository(tmp_path: Path) -> None:
    repo = PlanRepo(tmp_path / "mono" / "ml")
    (tmp_path / "mono" / "ml" / ".git").rename(tmp_path / "mono" / ".git")  # the repository is one level up
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "move into ml/")
    repo.write("trainer/trainer/task.py", 'print("training harder")\n')
    plan = repo.plan("--base", "HEAD")
    assert sorted(actions(plan)) == [("local", "vision_resnet"), ("vision-dev", "vision_resnet"),
                                     ("vision-dev", "vision_tuner")]
    assert actions(plan)[("vision-dev", "vision_tuner")] == "unchanged"


def test_affected_stacks_for_ci(repo: PlanRepo) -> None:
    assert repo.run("affected-stacks", "--base", "main").stdout == ""
    repo.write("trainer/trainer/task.py", 'print("training harder")\n')
    github = repo.run("affected-stacks", "--base", "main", "--backend", "vertex", "--format", "github")
    assert github.returncode == 0 and github.stdout == 'stacks=["vision-dev"]\ntimeouts={"vision-dev": 60}\n'
    assert repo.run("affected-stacks", "--base", "main", "--backend", "local").stdout == "local\n"


def test_plan_never_imports_pulumi_or_the_vertex_sdk(repo: PlanRepo) -> None:
    repo.write("trainer/trainer/task.py", 'print("training harder")\n')
    code = (
        "import sys\n"
        "from provider.cli import main\n"
        "rc = main(['plan', '--base', 'main', '--format', 'json'])\n"
        "heavy = sorted(m for m in sys.modules if m.startswith(('pulumi', 'google.cloud.aiplatform', 'grpc')))\n"
        "print('HEAVY', heavy, file=sys.stderr)\n"
        "sys.exit(rc)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=repo.root, capture_output=True, text=True, timeout=60,
                          env={**os.environ, **ENV})
    assert proc.returncode == 0, proc.stderr
    assert "HEAVY []" in proc.stderr


def test_an_invalid_stack_file_or_duplicate_names_fail_the_plan(repo: PlanRepo) -> None:
    repo.edit("stacks/Pulumi.nlp-dev.yaml", "trainjobs:backend: vertex", "trainjobs:backend: vertx")
    repo.write("specs/vision/twin.yaml", repo.read(TUNER))
    plan = repo.plan()
    assert plan["_rc"] == 1
    assert stack(plan, "nlp-dev")["jobs"] == []  # not "every job deleted": the file must be fixed first
    messages = [(p["file"], p["message"]) for p in plan["problems"]]
    assert any(f == "stacks/Pulumi.nlp-dev.yaml" and "'vertx' is not allowed" in m for f, m in messages)
    assert ("specs/vision/twin.yaml", "job name 'vision_tuner' is already used by specs/vision/tuner.yaml") in messages
