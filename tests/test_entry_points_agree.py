"""The same specs through every entry point give the same problems, in the same order, with the same verdict.

A throwaway git repository holds two stacks (``vision-dev`` on Vertex AI, ``lab`` on this machine)
and specs that are valid, refused by a stack's quota, refused by its policy, in no stack, in both
stacks (valid in one, over the other's quota), needing a staging bucket that no stack gives it,
and getting one from its stack. Each spec goes through:

* ``trainjobs validate`` of the file from the root, from the spec's folder, by absolute path from
  another folder, and through a symlinked checkout (from inside it and by its path); of its
  folder and of the whole tree (its own problems);
* the pre-commit hook's command (``.pre-commit-hooks.yaml``'s entry, with the file name);
* ``trainjobs run --dry-run`` (from the spec's folder, and ``--stack`` each stack holding it) and,
  for a refused spec, ``trainjobs run`` itself (it refuses before anything starts);
* the Pulumi program under mocks (its error lists every problem of the stack's specs);
* the policy pack's resource policy on the job's inputs;
* ``trainjobs plan`` of the commit that adds the specs;
* the emulator's validation of the job's request (given the workspace).

``validate SPEC`` from the root is the reference: (file, line, severity, message) in order, and
its exit code. Entry points that speak of errors only, or of one stack only, are compared with
the reference's errors of that stack.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from .conftest import ROOT, no_traceback, run_cli
from .plan_repo import ENV

Seen = tuple[str, int | None, str, str]  # file, line, severity, message

VISION = """\
config:
  trainjobs:backend: vertex
  trainjobs:team: vision
  trainjobs:environment: dev
  gcp:project: acme-vision-dev
  gcp:region: us-central1
  trainjobs:specs: [specs/vision/*.yaml, specs/shared/*.yaml]
  trainjobs:quotas: {maxGpusPerJob: 4, allowedAccelerators: [NVIDIA_TESLA_T4, NVIDIA_L4]}
  trainjobs:policy: {requiredLabels: [cost-center]}
"""
LAB = """\
config:
  trainjobs:backend: local
  trainjobs:team: lab
  trainjobs:environment: dev
  gcp:region: us-central1
  trainjobs:specs: [specs/lab/*.yaml, specs/shared/*.yaml]
  trainjobs:quotas: {maxGpusPerJob: 1}
"""


def spec(name: str, pools: str, labels: str = "{cost-center: vision}", application: str = "") -> str:
    app = application or "    container: {image: us-docker.pkg.dev/acme/trainers/t:1}\n"
    return (f"apiVersion: trainjobs/v1\nkind: TrainingJob\nmetadata:\n  name: {name}\n  labels: {labels}\n"
            f"spec:\n  region: us-central1\n  workerPools:\n{pools}  application:\n{app}")


T4 = "      accelerator: {type: NVIDIA_TESLA_T4, count: %d}\n"
CHIEF = "    chief:\n      machineType: n1-standard-16\n"
PACKAGE = ("    pythonPackage:\n      path: ../trainer/trainer\n      module: trainer.task\n"
           "      executorImage: us-docker.pkg.dev/vertex-ai/training/tf-cpu.2-17.py310:latest\n")
# An AI Platform runtime names no image but runs one, past its end of availability: the same warning everywhere.
RUNTIME = ("    pythonPackage:\n      uris: [gs://acme-vision/p.tar.gz]\n      module: trainer.task\n"
           "      runtimeVersion: '2.11'\n      pythonVersion: '3.7'\n")
SPECS = {
    "specs/vision/ok.yaml": spec("vision_ok", CHIEF + T4 % 1),
    "specs/vision/runtime.yaml": spec("vision_runtime", CHIEF + T4 % 1, application=RUNTIME),
    "specs/vision/quota.yaml": spec("vision_quota", CHIEF + T4 % 4 + "    workers:\n      machineType: n1-standard-16\n"
                                    "      replicas: 1\n" + T4 % 4),
    "specs/vision/policy.yaml": spec("vision_policy", CHIEF + T4 % 1, labels="{team: vision}"),
    "specs/shared/both.yaml": spec("shared_both", CHIEF + T4 % 2),
    "specs/alone/free.yaml": spec("alone_free", "    chief: {machineType: n1-standard-4}\n"),
    "specs/alone/staging.yaml": spec("alone_staging", "    chief: {machineType: n1-standard-4}\n", application=PACKAGE),
    "specs/lab/staged.yaml": spec("lab_staged", "    chief: {machineType: n1-standard-4}\n", application=PACKAGE),
}
STACKS = {"specs/vision/": ["vision-dev"], "specs/shared/": ["vision-dev", "lab"], "specs/lab/": ["lab"]}
REFUSED = {"specs/vision/quota.yaml", "specs/vision/policy.yaml", "specs/shared/both.yaml", "specs/alone/staging.yaml"}
LINE = re.compile(r"^(?P<file>[^\s:]+):(?:(?P<line>\d+):\d+:)? (?P<sev>error|warning|note): (?P<msg>.*)$")


def stacks_of(rel: str) -> list[str]:
    return next((s for prefix, s in STACKS.items() if rel.startswith(prefix)), [])


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, env={**os.environ, **ENV}, check=True)


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("agree") / "repo"
    (root / "stacks").mkdir(parents=True)
    for name in ("Pulumi.yaml", "__main__.py"):
        shutil.copy(ROOT / name, root / name)
    (root / "stacks" / "Pulumi.vision-dev.yaml").write_text(VISION)
    (root / "stacks" / "Pulumi.lab.yaml").write_text(LAB)
    trainer = root / "specs" / "trainer" / "trainer"
    trainer.mkdir(parents=True)
    (trainer / "__init__.py").write_text("")
    (trainer / "task.py").write_text("print('trained')\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "stacks, no specs yet")
    for rel, text in SPECS.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    git(root, "checkout", "-q", "-b", "specs")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "the specs")
    return root


@pytest.fixture(scope="module")
def link(repo: Path) -> Path:
    path = repo.parent / "checkout-link"
    path.symlink_to(repo, target_is_directory=True)
    return path


def seen(text: str) -> list[Seen]:
    out = []
    for raw in text.splitlines():
        m = LINE.match(raw)
        if m:
            out.append((m["file"], int(m["line"]) if m["line"] else None, m["sev"], m["msg"]))
    return out


def cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    proc = run_cli(*args, cwd=cwd, env={"TRAINJOBS_HOME": str(cwd / ".no-home")}, timeout=120)
    no_traceback(proc)
    return proc


def reference(repo: Path, rel: str) -> tuple[int, list[Seen]]:
    proc = cli(repo, "validate", rel)
    return proc.returncode, seen(proc.stdout)


def errors(found: list[Seen], stack: str | None = None) -> list[Seen]:
    """The errors; of one stack: less the quota and policy of the others (their messages name them)."""
    out = [s for s in found if s[2] == "error"]
    if stack is None:
        return out
    return [s for s in out if "stack " not in s[3] or f"stack {stack} " in s[3] + " "]


@pytest.mark.parametrize("rel", sorted(SPECS))
def test_validate_gives_one_answer_from_anywhere(repo: Path, link: Path, tmp_path: Path, rel: str) -> None:
    code, expected = reference(repo, rel)
    assert code == (1 if rel in REFUSED else 0), expected
    if rel in REFUSED:
        assert errors(expected)
    notes = [s for s in expected if s[2] == "note"]
    if stacks_of(rel):
        assert not notes
    else:  # said once, as a note, not an error
        assert len(notes) == 1 and notes[0][:2] == (rel, None) and notes[0][3].startswith("in no stack")
    folder = (repo / rel).parent
    runs = {
        "from its folder": cli(folder, "validate", Path(rel).name),
        "by absolute path from elsewhere": cli(tmp_path, "validate", str(repo / rel)),
        "inside a symlinked checkout": cli(link, "validate", rel),
        "through a symlinked checkout": cli(tmp_path, "validate", str(link / rel)),
        "pre-commit hook": _pre_commit(repo, rel),
    }
    for how, proc in runs.items():
        assert (proc.returncode, seen(proc.stdout)) == (code, expected), f"{how}:\n{proc.stdout}{proc.stderr}"
    for how, proc in {"its folder": cli(repo, "validate", str(Path(rel).parent)),
                      "the tree": cli(repo, "validate"), "the tree from its folder": cli(folder, "validate")}.items():
        mine = [s for s in seen(proc.stdout) if s[0] == rel]
        assert mine == expected, f"{how}:\n{proc.stdout}"


def _pre_commit(repo: Path, rel: str) -> subprocess.CompletedProcess[str]:
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert re.search(hook["files"], rel) and hook["pass_filenames"] is True
    command, *rest = hook["entry"].split()
    exe = Path(sys.executable).parent / command
    proc = subprocess.run([str(exe), *rest, rel], cwd=repo, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "NO_COLOR": "1"})
    no_traceback(proc)
    return proc


@pytest.mark.parametrize("rel", sorted(SPECS))
def test_run_and_its_dry_run_give_validates_answer(repo: Path, rel: str) -> None:
    code, expected = reference(repo, rel)
    folder = (repo / rel).parent
    tries = [("from its folder", folder, ("run", "--dry-run", Path(rel).name))]
    tries += [(f"--stack {s}", repo, ("run", "--dry-run", rel, "--stack", s)) for s in stacks_of(rel)]
    if rel in REFUSED:  # a real run refuses before anything is staged or started
        tries.append(("run", folder, ("run", Path(rel).name, "--detach")))
    for how, cwd, args in tries:
        proc = cli(cwd, *args)
        assert (proc.returncode, seen(proc.stderr)) == (code, expected), f"{how}:\n{proc.stdout}{proc.stderr}"
        if code:
            assert "nothing was started" in proc.stderr
            assert not (cwd / ".no-home" / "jobs").exists()
    if code == 0:
        for stack in stacks_of(rel) or [None]:
            args = ("run", "--dry-run", rel, "--format", "json") + (("--stack", stack) if stack else ())
            shown = json.loads(cli(repo, *args).stdout)
            assert shown["verdict"]["ok"] is True
            assert shown["where"]["backend"] == ("vertex" if stack == "vision-dev" else "local")
            assert shown["where"]["stack"] == stack


def test_validate_and_run_agree_on_the_staging_bucket(repo: Path) -> None:
    # In no stack, no bucket: both refuse, at the package path. In stack lab: the stack's bucket, in the request.
    _, refused = reference(repo, "specs/alone/staging.yaml")
    assert any("needs a job dir or a staging bucket" in s[3] for s in errors(refused))
    shown = json.loads(cli(repo, "run", "--dry-run", "specs/lab/staged.yaml", "--format", "json").stdout)
    (pool,) = shown["request"]["body"]["jobSpec"]["workerPoolSpecs"]
    assert pool["pythonPackageSpec"]["packageUris"][0].startswith("gs://lab-dev-trainjobs/")


@pytest.mark.slow
@pytest.mark.parametrize("stack", ["vision-dev", "lab"])
def test_the_pulumi_program_refuses_what_validate_refuses(repo: Path, tmp_path: Path, stack: str) -> None:
    from tests.pulumi.conftest import run_program, stack_config

    report = run_program(tmp_path, stack, stack_config(stack, project=repo), project=repo)
    message = (report["error"] or "").split("\nTraceback")[0]  # the RunError's text, before the harness's traceback
    members = sorted(rel for rel in SPECS if stack in stacks_of(rel))
    expected = [e for rel in members for e in errors(reference(repo, rel)[1], stack)]
    found = [(m["file"], int(m["line"]) if m["line"] else None, "error", m["msg"])
             for m in (re.match(r"^  (?P<file>[^\s:]+):(?:(?P<line>\d+):\d+:)? (?P<msg>.*?)(?: at \S+)?(?: \(allowed: .*)?$",
                                raw) for raw in message.splitlines()) if m]
    assert found == expected, report["error"]
    assert bool(report["error"]) == bool(expected)


@pytest.mark.parametrize("rel", sorted(r for r in SPECS if stacks_of(r)))
def test_the_policy_pack_reports_the_stacks_quota_and_policy(repo: Path, rel: str) -> None:
    from pulumi_policy import ResourceValidationArgs

    from tests.test_policy_pack import PACK, engine, options, urn

    for stack in stacks_of(rel):
        config = yaml.safe_load((repo / "stacks" / f"Pulumi.{stack}.yaml").read_text())["config"]
        document = yaml.safe_load((repo / rel).read_text())
        props = engine({
            "jobName": document["metadata"]["name"], "stack": stack, "team": config["trainjobs:team"],
            "project": config.get("gcp:project"), "region": config["gcp:region"],
            "backend": config["trainjobs:backend"], "spec": document, "specFile": rel,
            "quotas": config.get("trainjobs:quotas", {}), "policy": config.get("trainjobs:policy", {}),
            "stackLabels": config.get("trainjobs:labels", {})})
        found: list[str] = []
        name = document["metadata"]["name"]
        PACK.JOB_POLICY.validate(ResourceValidationArgs(PACK.TYPE_TOKEN, props, urn(stack, name), name, options(), None),
                                 lambda message, urn=None, sink=found.append: sink(message))
        expected = [s[3] for s in errors(reference(repo, rel)[1], stack) if f"stack {stack}" in s[3]]
        # each message starts where it is: the spec file (with line and column when the file is in the pack's project)
        assert all(f.startswith(f"{rel}") for f in found), found
        assert [f.split(": ", 1)[1].split(" (rule ")[0] for f in found] == expected, (stack, found)


def test_plan_refuses_what_validate_refuses(repo: Path) -> None:
    proc = cli(repo, "plan", "--base", "main", "--format", "json")
    plan = json.loads(proc.stdout)
    from_folder = cli(repo / "specs" / "vision", "plan", "--base", "main", "--format", "json")
    assert (from_folder.returncode, json.loads(from_folder.stdout)) == (proc.returncode, plan)  # the project's plan
    assert proc.returncode == 1 and plan["ok"] is False
    said = {(p["file"], p["line"], p["message"]) for p in plan["problems"]}
    said |= {v["message"] for s in plan["stacks"] for v in s["violations"]}  # type: ignore[arg-type]
    for rel in SPECS:
        for file, line, _, message in errors(reference(repo, rel)[1]):
            assert (file, line, message) in said or message in said, (rel, message, said)


@pytest.mark.parametrize("rel", sorted(SPECS))
def test_the_emulator_refuses_a_submitted_job_as_validate_does(repo: Path, rel: str) -> None:
    from provider.emulator.validate import problems
    from provider.stack.check import validate_in
    from provider.submission import launch
    from provider.submission.stack_request import stack_request, team_account
    from provider.workspace import Workspace

    ws = Workspace.of(repo / rel)
    expected = errors(reference(repo, rel)[1])
    job = validate_in(repo / rel, ws.stacks_of(repo / rel)).job
    assert job is not None
    held = ws.stacks_of(repo / rel)
    if not held:
        try:
            request = launch.prepare(job, (repo / rel).parent, "local", labels=launch.labels_for(job))
        except ValueError as exc:  # the launch itself refuses: nothing reaches the emulator
            assert expected and "staging bucket" in str(exc)
            return
        assert not problems(request.kind, job.region, request.body, ws) and not expected
        return
    for stack in held:
        request = stack_request(job, (repo / rel).parent, stack, account=team_account(stack))
        found = [p.message for p in problems(request.kind, job.region, request.body, ws)]
        assert found == [s[3] for s in errors(expected, stack.name)], (stack.name, found)


def test_a_run_in_a_stack_that_does_not_hold_the_spec_is_checked_there_too_and_says_so(repo: Path) -> None:
    _, expected = reference(repo, "specs/alone/free.yaml")
    proc = cli(repo, "run", "--dry-run", "specs/alone/free.yaml", "--stack", "vision-dev", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    shown = seen(proc.stderr)
    extra = [s for s in shown if s not in expected]
    assert [s for s in shown if s in expected] == expected  # validate's answer, and one word more
    assert extra == [("specs/alone/free.yaml", None, "warning", extra[0][3])]
    assert "stack vision-dev does not hold this spec" in extra[0][3]
    assert json.loads(proc.stdout)["where"]["backend"] == "vertex"
    over = cli(repo, "run", "--dry-run", "specs/vision/ok.yaml", "--stack", "lab")  # 1 GPU: lab allows 1
    assert over.returncode == 0, over.stderr
    refused = cli(repo, "run", "--dry-run", "specs/shared/both.yaml", "--stack", "lab")
    assert refused.returncode == 1 and "more than stack lab allows per job" in refused.stderr
