"""``trainjobs convert cloudbuild.yaml``: the config's gcloud training step read as the command it runs
(provider.gcloud.cloud_build), the same request as ``convert --gcloud`` of that command.

Public configs: a cloudbuild.yaml whose 'Submit Training Job' step gives the gcloud builder its args
(find_string id 46426848198; the oracle corpus holds the same command as c7_bikeshare_cloudbuild_step),
and a GPU pipeline's cloudbuild-gpu.yaml whose Vertex step runs ``bash -c`` with Cloud Build's
$BUILD_ID, $PROJECT_ID and $COMMIT_SHA (find_string id 9306252182; corpus cloudbuild_smoke_test).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ..conftest import run_cli
from .test_real_inputs import _repo

BIKESHARE = """steps:
- name: 'gcr.io/cloud-builders/docker'
  id: 'Build Docker Image'
  args: ['build', '-t', 'gcr.io/storied-polymer-427814-e8/cicd-vertex-bikeshare-model', '.']
- name: 'gcr.io/cloud-builders/gcloud'
  id: 'Submit Training Job'
  args: ['ai', 'custom-jobs', 'create', '--region=us-central1', '--project=storied-polymer-427814-e8', '--worker-pool-spec=replica-count=1,machine-type=n1-standard-4,container-image-uri=gcr.io/storied-polymer-427814-e8/cicd-vertex-bikeshare-model', '--display-name=bike-sharing-model-training']
- name: 'gcr.io/cloud-builders/gcloud'
  id: 'Upload Model'
  args: ['ai', 'models', 'upload', '--display-name=bikeshare-new-model', '--region=us-central1']
"""
BIKESHARE_LINE = ("gcloud ai custom-jobs create --region=us-central1 --project=storied-polymer-427814-e8 "
                  "--worker-pool-spec=replica-count=1,machine-type=n1-standard-4,container-image-uri=gcr.io/"
                  "storied-polymer-427814-e8/cicd-vertex-bikeshare-model --display-name=bike-sharing-model-training")

GPU = """steps:
  - name: 'gcr.io/cloud-builders/docker'
    args: ['push', 'gcr.io/$PROJECT_ID/ml-trainer:$COMMIT_SHA']
  - name: 'gcr.io/$PROJECT_ID/ml-trainer:$COMMIT_SHA'
    args:
      - 'python'
      - '-c'
      - |
        import torch
  - name: 'gcr.io/google.com/cloudsdktool/cloud-sdk'
    entrypoint: 'bash'
    args:
      - '-c'
      - |
        gcloud ai custom-jobs create \\
          --region=us-west2 \\
          --display-name=smoke-test-$BUILD_ID \\
          --worker-pool-spec=machine-type=n1-standard-4,accelerator-type=NVIDIA_TESLA_T4,accelerator-count=1,replica-count=1,container-image-uri=gcr.io/$PROJECT_ID/ml-trainer:$COMMIT_SHA \\
          --args="--mode=test"
options:
  machineType: 'E2_HIGHCPU_8'
"""
CLOUD_BUILD = {"BUILD_ID": "b1234", "PROJECT_ID": "my-project", "COMMIT_SHA": "0123abcd"}


def _request(cwd: Path, *args: str, env: dict[str, str] | None = None) -> str:
    done = run_cli("convert", *args, "--format", "request", cwd=cwd, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_gcloud_builders_args_are_the_command(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / "cloudbuild.yaml").write_text(BIKESHARE)
    ours = _request(repo, "cloudbuild.yaml")
    assert ours == _request(repo, "--gcloud", BIKESHARE_LINE)
    assert '"imageUri": "gcr.io/storied-polymer-427814-e8/cicd-vertex-bikeshare-model"' in ours


def test_a_bash_step_is_its_script_with_cloud_builds_substitutions_from_the_environment(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / "cloudbuild.yaml").write_text(GPU)
    ours = _request(repo, "cloudbuild.yaml", env=CLOUD_BUILD)
    line = ("gcloud ai custom-jobs create --region=us-west2 --display-name=smoke-test-b1234 --worker-pool-spec="
            "machine-type=n1-standard-4,accelerator-type=NVIDIA_TESLA_T4,accelerator-count=1,replica-count=1,"
            "container-image-uri=gcr.io/my-project/ml-trainer:0123abcd --args=--mode=test")
    assert ours == _request(repo, "--gcloud", line)
    done = run_cli("convert", "cloudbuild.yaml", cwd=repo, env={"PROJECT_ID": "my-project", "COMMIT_SHA": "0"})
    assert done.returncode == 1
    assert done.stderr.startswith("trainjobs: cloudbuild.yaml steps[2]: $BUILD_ID is a Cloud Build substitution with "
                                  "no value here")


def test_args_substitutions_are_read_from_the_environment(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / "cloudbuild.yaml").write_text(
        "steps:\n- name: gcr.io/cloud-builders/gcloud\n  args: [ai, custom-jobs, create, --region=us-central1,\n"
        "         '--display-name=run-${_RUN} $$1',\n"
        "         '--worker-pool-spec=machine-type=n1-standard-4,container-image-uri=gcr.io/$PROJECT_ID/t:$SHORT_SHA']\n")
    ours = _request(repo, "cloudbuild.yaml", env={"_RUN": "7", "PROJECT_ID": "my-project", "SHORT_SHA": "abc"})
    assert '"displayName": "run-7 $1"' in ours  # $$ is Cloud Build's $; the space stays in the one word
    assert '"imageUri": "gcr.io/my-project/t:abc"' in ours


DEFAULTS = """substitutions:
  _REGION: us-central1
  _NAME: 'run "a" $x'
  _REPLICAS: 1
steps:
- name: gcr.io/cloud-builders/gcloud
  args: [ai, custom-jobs, create, '--region=${_REGION}', '--display-name=$_NAME',
         '--worker-pool-spec=machine-type=n1-standard-4,replica-count=$_REPLICAS,container-image-uri=gcr.io/p/t:$_TAG']
"""


def test_the_configs_substitutions_are_the_defaults_the_environment_overrides(tmp_path: Path) -> None:
    """A cloudbuild.yaml's substitutions: give the values of the names the environment does not set, as Cloud Build's
    defaults (a build's --substitutions override them); each is the value as written, quotes and $ included."""
    repo = _repo(tmp_path)
    (repo / "cloudbuild.yaml").write_text(DEFAULTS)
    ours = _request(repo, "cloudbuild.yaml", env={"_TAG": "v1"})
    assert '"displayName": "run \\"a\\" $x"' in ours and '"imageUri": "gcr.io/p/t:v1"' in ours
    assert '"parent": "projects/PROJECT/locations/us-central1"' in ours and '"replicaCount": "1"' in ours
    moved = _request(repo, "cloudbuild.yaml", env={"_TAG": "v1", "_REGION": "europe-west4"})
    assert '"parent": "projects/PROJECT/locations/europe-west4"' in moved
    done = run_cli("convert", "cloudbuild.yaml", cwd=repo)  # _TAG: no default and not in the environment
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith("trainjobs: cloudbuild.yaml steps[0]: $_TAG is a Cloud Build substitution with no "
                                  "value here"), done.stderr
    assert "allowed: a default in the config's substitutions:, or export _TAG=..." in done.stderr


@pytest.mark.parametrize(("config", "says"), [
    ("steps:\n- name: gcr.io/cloud-builders/docker\n  args: [build, .]\n",
     "a Cloud Build config with no step that submits a training job"),
    (BIKESHARE + BIKESHARE[BIKESHARE.index("- name: 'gcr.io/cloud-builders/gcloud'"):],
     "2 Cloud Build steps submit a training job (steps[1] (id 'Submit Training Job'), steps[3] (id 'Submit Training"),
    ("steps:\n- name: gcr.io/cloud-builders/gcloud\n  dir: training\n  args: [ai, custom-jobs, create, --config=c.yaml]\n",
     "steps[0] runs in dir 'training' of the build's workspace: run trainjobs convert from that folder"),
])
def test_what_cannot_be_read_as_one_command_is_refused(config: str, says: str, tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / "cloudbuild.yaml").write_text(config)
    done = run_cli("convert", "cloudbuild.yaml", cwd=repo)
    assert done.returncode == 1
    assert says in done.stderr
    assert "Traceback" not in done.stderr


ENVIRONMENT = """options:
  env: ['REGION=europe-west4', 'IMAGE=gcr.io/$PROJECT_ID/t']
steps:
- name: gcr.io/cloud-builders/gcloud
  entrypoint: bash
  env: ['REGION=us-east1', 'NAME=run $$1']
  args:
  - -c
  - gcloud ai custom-jobs create --region=$$REGION --display-name="$$NAME"
    --worker-pool-spec=machine-type=n1-standard-4,container-image-uri=$$IMAGE
"""


def test_a_scripts_environment_is_the_steps_env_over_the_builds(tmp_path: Path) -> None:
    """A script's $NAME reads the step's env: (over options.env), not the environment of convert; substitutions in
    the values are read as in args."""
    repo = _repo(tmp_path)
    (repo / "cloudbuild.yaml").write_text(ENVIRONMENT)
    ours = _request(repo, "cloudbuild.yaml", env={"PROJECT_ID": "my-project", "REGION": "asia-east1", "NAME": "no"})
    line = ("gcloud ai custom-jobs create --region=us-east1 --display-name='run $1' "
            "--worker-pool-spec=machine-type=n1-standard-4,container-image-uri=gcr.io/my-project/t")
    assert ours == _request(repo, "--gcloud", line)


@pytest.mark.parametrize(("change", "says"), [
    (("  env: ['REGION=us-east1', 'NAME=run $$1']", "  secretEnv: [NAME]"),
     "steps[0]: $NAME is a Cloud Build secretEnv value, never written into a spec"),
    (("  env: ['REGION=us-east1', 'NAME=run $$1']", "  env: [REGION]"),
     "steps[0]: env item 'REGION' is not NAME=VALUE; allowed: a list of NAME=VALUE strings"),
    (("['REGION=europe-west4',", "['CLOUDSDK_CORE_PROJECT=p', 'REGION=europe-west4',"),
     "export CLOUDSDK_CORE_PROJECT sets a gcloud property for the gcloud command"),
    (("  env: ['REGION=us-east1', 'NAME=run $$1']", "  env: ['REGION=us-east1', 'NAME=run $$1', 'UNUSED=1']"), None),
])
def test_a_steps_secrets_and_malformed_env_are_refused(change: tuple[str, str], says: str | None,
                                                       tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / "cloudbuild.yaml").write_text(ENVIRONMENT.replace(*change))
    done = run_cli("convert", "cloudbuild.yaml", cwd=repo, env={"PROJECT_ID": "p", "NAME": "s3cr3t"})
    if says is None:  # a value the script does not read changes nothing
        assert done.returncode == 0, done.stderr
        return
    assert done.returncode == 1 and "Traceback" not in done.stderr and "s3cr3t" not in done.stderr
    assert says in done.stderr, done.stderr


def test_a_gcloud_property_in_the_env_of_a_gcloud_step_is_refused(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / "cloudbuild.yaml").write_text(BIKESHARE.replace("  id: 'Submit Training Job'\n", "  id: 'Submit Training Job'"
                                                            "\n  env: ['CLOUDSDK_COMPUTE_REGION=europe-west4', 'X=1']\n"))
    done = run_cli("convert", "cloudbuild.yaml", cwd=repo)
    assert done.returncode == 1
    assert "export CLOUDSDK_COMPUTE_REGION sets a gcloud property for the gcloud command" in done.stderr, done.stderr
