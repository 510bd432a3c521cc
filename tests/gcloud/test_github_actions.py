"""``trainjobs convert .github/workflows/train.yml``: the workflow's one step whose run: script submits a training
job, read as the command it runs (provider.gcloud.github_actions): the same request as ``convert --gcloud`` of the
line GitHub would hand bash, its ``${{ ... }}`` expressions replaced first.

Public workflow: a "Model Training Pipeline" whose 'Trigger Vertex AI Training' step runs ``gcloud ai custom-jobs
create --region=us-central1 --config=training_config.yaml``, followed by a 'Wait for Training' step that runs
``gcloud ai custom-jobs wait`` (find_string id 25323549237); adapted: the steps after the wait are left out, the
training_config.yaml it names (not in the excerpt) is written here, and, as written, the command lacks the
--display-name gcloud requires (refused as gcloud refuses it), so the test then adds one.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ..conftest import run_cli
from .test_cloud_build import _request
from .test_real_inputs import _repo

PIPELINE = """name: Model Training Pipeline
on:
  schedule:
    - cron: '0 2 * * 0'
  workflow_dispatch:

jobs:
  train:
    runs-on: ubuntu-latest
    steps:
      - name: Trigger Vertex AI Training
        run: gcloud ai custom-jobs create --region=us-central1 --config=training_config.yaml

      - name: Wait for Training
        run: gcloud ai custom-jobs wait $JOB_ID --region=us-central1
"""
CONFIG = """workerPoolSpecs:
  machineSpec:
    machineType: n1-standard-8
  replicaCount: 1
  containerSpec:
    imageUri: us-docker.pkg.dev/my-project/trainers/model:latest
"""

EXPRESSIONS = """on: push
env:
  REGION: europe-west4
  IMAGE: gcr.io/workflow/t
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
  train:
    runs-on: ubuntu-latest
    env:
      IMAGE: gcr.io/job/t
      NAME: from-job
    steps:
      - uses: google-github-actions/auth@v2
        with:
          credentials_json: ${{ secrets.GCP_SA_KEY }}
      - name: Submit
        shell: bash
        env:
          NAME: from-step
        run: |
          gcloud ai custom-jobs create \\
            --region=${{ env.REGION }} \\
            --display-name="$NAME ${{ github.sha }}" \\
            --worker-pool-spec=machine-type=n1-standard-4,container-image-uri=${{ env.IMAGE }}:${{ vars.TAG }} \\
            --labels=region=$REGION
"""
EXPRESSIONS_LINE = ("gcloud ai custom-jobs create --region=europe-west4 --display-name='from-step 0123abcd' "
                    "--worker-pool-spec=machine-type=n1-standard-4,container-image-uri=gcr.io/job/t:v7 "
                    "--labels=region=europe-west4")
RUNNER = {"GITHUB_SHA": "0123abcd", "TAG": "v7"}


def test_a_public_workflows_training_step_is_its_command(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / "training_config.yaml").write_text(CONFIG)
    (repo / "train.yml").write_text(PIPELINE)
    done = run_cli("convert", "train.yml", cwd=repo)
    assert done.returncode == 1 and done.stderr == (
        "trainjobs: train.yml jobs.train.steps[0] (name 'Trigger Vertex AI Training') (its gcloud command): argument "
        "--display-name: Must be specified.\n")
    (repo / "train.yml").write_text(PIPELINE.replace("--config=", "--display-name=weekly-retrain --config="))
    ours = _request(repo, "train.yml")
    line = "gcloud ai custom-jobs create --region=us-central1 --display-name=weekly-retrain --config=training_config.yaml"
    assert ours == _request(repo, "--gcloud", line)
    assert '"machineType": "n1-standard-8"' in ours  # the config file was read, as gcloud reads it


def test_expressions_are_replaced_before_bash_and_env_values_are_the_steps_environment(tmp_path: Path) -> None:
    """${{ env.X }} is the innermost literal env: value, ${{ vars.X }} and ${{ github.sha }} come from the environment
    (GITHUB_SHA), and a plain $X of the script is the innermost env: value too, each named in a note."""
    repo = _repo(tmp_path)
    (repo / "train.yml").write_text(EXPRESSIONS)
    done = run_cli("convert", "train.yml", "--format", "request", cwd=repo,
                   env={**RUNNER, "REGION": "us-east1", "NAME": "from-shell"})  # env: wins over the environment
    assert done.returncode == 0, done.stderr
    assert done.stdout == _request(repo, "--gcloud", EXPRESSIONS_LINE)
    assert "train.yml jobs.train.steps[1] (name 'Submit')" in done.stderr
    assert "${{ env.IMAGE }} is 'gcr.io/job/t', from jobs.train.env" in done.stderr
    assert "${{ github.sha }} is '0123abcd', read from the environment ($GITHUB_SHA)" in done.stderr
    assert "$NAME is 'from-step', set by jobs.train.steps[1].env" in done.stderr
    assert "$REGION is 'europe-west4', set by the workflow's env" in done.stderr


def test_an_env_value_that_is_an_expression_is_read_from_the_environment(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / "train.yml").write_text(
        "jobs:\n  t:\n    runs-on: ubuntu-latest\n    env:\n      REGION: ${{ vars.REGION }}\n      IMAGE: gcr.io/p/t\n"
        "    steps:\n      - run: gcloud ai custom-jobs create --region=${{ env.REGION }} --display-name=x\n"
        "          --worker-pool-spec=machine-type=n1-standard-4,container-image-uri=$IMAGE --labels=r=$REGION\n")
    ours = _request(repo, "train.yml", env={"REGION": "asia-east1"})
    line = ("gcloud ai custom-jobs create --region=asia-east1 --display-name=x "
            "--worker-pool-spec=machine-type=n1-standard-4,container-image-uri=gcr.io/p/t --labels=r=asia-east1")
    assert ours == _request(repo, "--gcloud", line, env={"REGION": "asia-east1"})


STEP = ("jobs:\n  train:\n    runs-on: {runs_on}\n{job}    steps:\n      - name: Train\n{step}        run: gcloud ai "
        "custom-jobs create --region={region} --display-name=x --worker-pool-spec=machine-type=n1-standard-4,"
        "container-image-uri=gcr.io/p/t\n")


def _workflow(region: str = "us-central1", step: str = "", job: str = "", runs_on: str = "ubuntu-latest") -> str:
    return STEP.format(region=region, step=step, job=job, runs_on=runs_on)


@pytest.mark.parametrize(("workflow", "says"), [
    (_workflow("${{ secrets.REGION }}"),
     "train.yml jobs.train.steps[0] (name 'Train'): ${{ secrets.REGION }} is a GitHub Actions secret, never written"),
    (_workflow("${{ format('{0}', inputs.region) }}"),
     "jobs.train.steps[0] (name 'Train'): ${{ format('{0}', inputs.region) }} is a GitHub Actions expression not "
     "read here"),
    (_workflow("${{ matrix.region }}"), "${{ matrix.region }} is a GitHub Actions expression not read here"),
    (_workflow("${{ vars.TRAINJOBS_TEST_NEVER_SET }}"),
     "${{ vars.TRAINJOBS_TEST_NEVER_SET }} is set by GitHub when the workflow runs, and $TRAINJOBS_TEST_NEVER_SET is "
     "not set here; allowed: export TRAINJOBS_TEST_NEVER_SET=..."),
    (_workflow("${{ env.API_KEY }}"), "${{ env.API_KEY }} would write $API_KEY, whose name looks secret"),
    (_workflow("${{ env.API_KEY }}", job="    env:\n      API_KEY: sk-123\n"),  # a literal env: value too
     "${{ env.API_KEY }} would write $API_KEY, whose name looks secret"),
    (_workflow(step="        shell: pwsh\n"), "jobs.train.steps[0] (name 'Train'): runs its script with shell 'pwsh'"),
    (_workflow(job="    defaults:\n      run:\n        shell: python\n"), "runs its script with shell 'python'"),
    (_workflow(runs_on="windows-latest"), "runs on 'windows-latest', whose default shell is pwsh"),
    (_workflow(runs_on="[self-hosted, windows]"), "runs on ['self-hosted', 'windows'], whose default shell is pwsh"),
    (_workflow(step="        working-directory: training\n"),
     "jobs.train.steps[0] (name 'Train'): runs in working-directory 'training': run trainjobs convert from that folder"),
    (_workflow(job="    defaults:\n      run:\n        working-directory: ml\n"), "runs in working-directory 'ml'"),
    ("jobs:\n  t:\n    runs-on: ubuntu-latest\n    steps:\n      - run: gcloud ai custom-jobs list\n",
     "train.yml: a GitHub Actions workflow with no step that submits a training job"),
    (_workflow() + "  again:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo\n"
     "      - run: gcloud ai-platform jobs submit training j --region=us-central1\n",
     "2 GitHub Actions steps submit a training job (jobs.train.steps[0] (name 'Train'), jobs.again.steps[1])"),
])
def test_what_cannot_be_read_as_github_runs_it_is_refused(workflow: str, says: str, tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / "train.yml").write_text(workflow)
    done = run_cli("convert", "train.yml", cwd=repo, env={"API_KEY": "s3cr3t"})
    assert done.returncode == 1
    assert says in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and "s3cr3t" not in done.stderr


def test_sh_and_a_bash_template_are_bash(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / "a.yml").write_text(_workflow(step="        shell: sh\n"))
    (repo / "b.yml").write_text(_workflow(job="    defaults:\n      run:\n        shell: bash -l {0}\n"))
    line = ("gcloud ai custom-jobs create --region=us-central1 --display-name=x "
            "--worker-pool-spec=machine-type=n1-standard-4,container-image-uri=gcr.io/p/t")
    assert _request(repo, "a.yml") == _request(repo, "b.yml") == _request(repo, "--gcloud", line)


def test_a_secret_looking_env_value_is_never_shown(tmp_path: Path) -> None:
    """A literal env: value is the step's environment; one whose name looks secret is kept out of the spec and the
    notes, as convert --gcloud keeps out $API_KEY of the environment."""
    repo = _repo(tmp_path)
    (repo / "train.yml").write_text(_workflow(step="        env:\n          API_KEY: s3cr3t\n").replace(
        "gcr.io/p/t\n", "gcr.io/p/t --args=--key=$API_KEY\n"))
    done = run_cli("convert", "train.yml", "--format", "request", cwd=repo)
    assert done.returncode == 0, done.stderr
    assert "s3cr3t" not in done.stdout + done.stderr
    assert "$API_KEY is its value, set by jobs.train.steps[0].env" in done.stderr
    assert "the trainer's args '--key=$API_KEY' are left out" in done.stderr


def test_what_decides_whether_the_step_runs_is_named(tmp_path: Path) -> None:
    """A job's or step's if: and a job's strategy.matrix decide whether, or how often, GitHub submits the job: the
    request is the same as without them, and each is named in a note."""
    repo = _repo(tmp_path)
    (repo / "plain.yml").write_text(_workflow())
    (repo / "gated.yml").write_text(_workflow(
        step="        if: github.ref == 'refs/heads/main'\n",
        job="    if: ${{ github.event_name == 'push' }}\n    strategy:\n      matrix:\n        seed: [1, 2]\n"))
    assert _request(repo, "gated.yml") == _request(repo, "plain.yml")
    done = run_cli("convert", "gated.yml", "--format", "request", cwd=repo)
    assert done.returncode == 0, done.stderr
    assert "jobs.train runs only if \"${{ github.event_name == 'push' }}\" (its if:)" in done.stderr
    assert ("jobs.train.steps[0] (name 'Train') runs only if \"github.ref == 'refs/heads/main'\" (its if:), which "
            "GitHub evaluates") in done.stderr
    assert "jobs.train runs once for each combination of its strategy.matrix" in done.stderr
    assert "runs only if" not in run_cli("convert", "plain.yml", "--format", "request", cwd=repo).stderr
    assert "# note: jobs.train runs once for each combination" in run_cli("convert", "gated.yml", cwd=repo).stdout
