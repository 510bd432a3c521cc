"""Every flag of the three gcloud training commands, beside a ``--config``, read as gcloud reads it.

The flags are gcloud's own: its static CLI tree (``data/cli/gcloud_completions.py`` of the
installed SDK) lists each command's flags in every release track, and ``FLAGS`` below must name
exactly those, each with the cases that use it, so a flag added to gcloud fails this test until it
is read and tested. Each case is a command with flags beside a config that sets the same fields
otherwise, run twice: through ``gcloud`` (offline, against the stand-in of standin.py, which
records what gcloud sends) and through ``trainjobs convert --gcloud``'s reading. The request
trainjobs builds carries what gcloud sent, value for value (AI Platform: the Vertex AI request
built from gcloud's ``trainingInput``; Vertex AI: the CustomJob and the HyperparameterTuningJob as
the SDK's messages read them, so snake_case and camelCase compare alike); a flag gcloud reads but
does not apply is named in a note, and what trainjobs refuses it refuses by name.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from provider.gcloud.build import Built, build
from provider.gcloud.command import Generation, parse
from provider.gcloud.words import split_words
from provider.submission.request import build_request
from provider.validation.rules import Context
from provider.validation.validator import check_document

from ..test_api_fields import _canonical
from .standin import Recorded, StandIn, start, write_config

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("gcloud") is None,
                       reason="gcloud is not installed: the gcloud-oracle tests need the Google Cloud CLI"),
]

KMS = "--kms-key=k1 --kms-keyring=ring1 --kms-location=us-east1 --kms-project=kmsproj"
IMAGE = "us-docker.pkg.dev/vertex-ai/training/pytorch-gpu.2-4.py310:latest"

# An AI Platform config whose every field a flag of the case replaces.
AIP_CONFIG = """\
labels: {team: old}
trainingInput:
  scaleTier: BASIC
  region: us-central1
  masterType: n1-standard-4
  masterConfig:
    imageUri: gcr.io/old/master:0
    acceleratorConfig: {count: 1, type: NVIDIA_TESLA_P4}
  workerType: n1-standard-4
  workerCount: 1
  workerConfig: {imageUri: gcr.io/old/worker:0}
  parameterServerType: n1-standard-4
  parameterServerCount: 1
  parameterServerConfig: {imageUri: gcr.io/old/ps:0}
  serviceAccount: old@old.iam.gserviceaccount.com
  useChiefInTfConfig: false
  args: [--old]
"""
AIP_PACKAGE_CONFIG = """\
trainingInput:
  scaleTier: BASIC_GPU
  region: us-central1
  runtimeVersion: '2.1'
  pythonVersion: '3.5'
  pythonModule: old.task
  jobDir: gs://old-bucket/old
  packageUris: [gs://old-bucket/old.tar.gz]
  args: [--old]
"""
AIP_TPU_CONFIG = """\
trainingInput:
  scaleTier: CUSTOM
  region: us-central1
  masterType: n1-standard-8
  masterConfig: {imageUri: gcr.io/p/tpu:1}
  workerType: cloud_tpu
  workerCount: 1
  workerConfig:
    imageUri: gcr.io/p/tpu:1
    acceleratorConfig: {type: TPU_V2, count: 8}
"""
VERTEX_CONFIG = """\
network: projects/1/global/networks/old
serviceAccount: old@old.iam.gserviceaccount.com
persistentResourceId: old-resource
workerPoolSpecs:
- machineSpec: {machineType: n1-standard-4}
  replicaCount: 1
  containerSpec:
    imageUri: gcr.io/p/c:1
    command: [old]
    args: [--old]
- machineSpec: {machineType: n1-standard-4}
  replicaCount: 2
  pythonPackageSpec:
    executorImageUri: IMAGE_URI
    packageUris: [gs://oracle-bucket/old.tar.gz]
    pythonModule: trainer.task
    args: [--old]
""".replace("IMAGE_URI", IMAGE)
VERTEX_CONTAINERS_CONFIG = """\
network: projects/1/global/networks/old
serviceAccount: old@old.iam.gserviceaccount.com
persistentResourceId: old-resource
workerPoolSpecs:
- machineSpec: {machineType: n1-standard-4}
  replicaCount: 1
  containerSpec:
    imageUri: gcr.io/p/c:1
    command: [old]
    args: [--old]
- machineSpec: {machineType: n1-standard-4}
  replicaCount: 2
  containerSpec: {imageUri: gcr.io/p/worker:1, args: [--old-worker]}
"""
VERTEX_WEB_CONFIG = """\
enableWebAccess: true
enableDashboardAccess: true
workerPoolSpecs:
- machineSpec: {machineType: n1-standard-4}
  replicaCount: 1
  pythonPackageSpec:
    executorImageUri: IMAGE_URI
    packageUris: [gs://oracle-bucket/old.tar.gz]
    pythonModule: trainer.task
""".replace("IMAGE_URI", IMAGE)
VERTEX_SNAKE_CONFIG = """\
worker_pool_specs:
- machine_spec: {machine_type: n1-standard-4}
  replica_count: 1
  container_spec: {image_uri: gcr.io/p/c:1, args: [--old]}
"""
TUNING_CONFIG = """\
displayName: old-name
maxTrialCount: 4
parallelTrialCount: 4
labels: {team: old}
encryptionSpec: {kmsKeyName: projects/old/locations/us-east1/keyRings/old/cryptoKeys/old}
studySpec:
  algorithm: ALGORITHM_UNSPECIFIED
  metrics: [{metricId: accuracy, goal: MAXIMIZE}]
  parameters:
  - parameterId: lr
    doubleValueSpec: {minValue: 0.001, maxValue: 0.1}
    scaleType: UNIT_LOG_SCALE
trialJobSpec:
  network: projects/1/global/networks/old
  serviceAccount: old@old.iam.gserviceaccount.com
  enableWebAccess: true
  workerPoolSpecs:
  - machineSpec: {machineType: n1-standard-4}
    replicaCount: 1
    containerSpec: {imageUri: gcr.io/p/c:1, args: [--old]}
"""

# Each case: the command (run in a folder holding config.yaml and ./trainer), the config, and
# what trainjobs says beside the request: notes that must appear, or the refusal it gives by name.
CASES: dict[str, dict[str, Any]] = {
    "aip_cluster": {
        "config": AIP_CONFIG,
        "command": "gcloud ai-platform jobs submit training aip_cluster --config=config.yaml --region=us-east1 "
                   "--scale-tier=custom --master-machine-type=n1-standard-8 "
                   "--master-accelerator=count=2,type=nvidia-tesla-t4 --master-image-uri=gcr.io/p/master:1 "
                   "--worker-machine-type=n1-standard-8 --worker-count=3 --worker-image-uri=gcr.io/p/worker:1 "
                   "--worker-accelerator=count=1,type=nvidia-tesla-t4 --parameter-server-machine-type=n1-highmem-8 "
                   "--parameter-server-count=2 --parameter-server-image-uri=gcr.io/p/ps:1 "
                   "--parameter-server-accelerator=count=1,type=nvidia-tesla-t4 --use-chief-in-tf-config=true "
                   "--service-account=sa@p.iam.gserviceaccount.com --labels=team=new "
                   f"{KMS} --enable-web-access --async -- --epochs=3",
    },
    "aip_package": {
        "config": AIP_PACKAGE_CONFIG,
        "command": "gcloud beta ai-platform jobs submit training aip_package --config=config.yaml "
                   "--region=us-east1 --package-path=trainer --module-name=trainer.task "
                   "--staging-bucket=gs://oracle-bucket --job-dir=gs://oracle-bucket/jobs/aip_package "
                   "--runtime-version=2.11 --python-version=3.7 --scale-tier=basic "
                   "--network=projects/1/global/networks/n --stream-logs -- --epochs=3",
    },
    "aip_packages": {
        "config": AIP_PACKAGE_CONFIG,
        "command": "gcloud ai-platform jobs submit training aip_packages --config=config.yaml --region=europe-west4 "
                   "--packages=gs://oracle-bucket/a.tar.gz,gs://oracle-bucket/b.tar.gz --module-name=trainer.task "
                   "--runtime-version=2.11 --python-version=3.7",
    },
    "aip_tpu": {
        "config": AIP_TPU_CONFIG,
        "command": "gcloud beta ai-platform jobs submit training aip_tpu --config=config.yaml --region=us-central1 "
                   "--tpu-tf-version=2.11",
        "refused": "workerConfig.tpuTfVersion ('2.11'; gcloud --tpu-tf-version) has no Vertex AI field",
    },
    "vertex_override": {
        "config": VERTEX_CONTAINERS_CONFIG,
        "command": "gcloud ai custom-jobs create --config=config.yaml --region=us-east1 --display-name=override-job "
                   "--args=--lr,0.1 --command=python,run.py --network=projects/1/global/networks/n "
                   "--service-account=sa@p.iam.gserviceaccount.com --persistent-resource-id=new-resource "
                   f"--enable-web-access --enable-dashboard-access --labels=team=new {KMS}",
        "notes": ["--network replaces the config's network", "--command replaces the config's "
                  "workerPoolSpecs[0].containerSpec.command", "--args replaces the config's "
                  "workerPoolSpecs[1].containerSpec.args", "--persistent-resource-id replaces the config's "
                  "persistentResourceId"],
    },
    "vertex_mixed": {
        "config": VERTEX_CONFIG,
        "command": "gcloud ai custom-jobs create --config=config.yaml --region=us-central1 --display-name=mixed "
                   "--args=--lr,0.1 --command=python,run.py",
        "notes": ["--command for workerPoolSpecs[1] is not applied"],
        "refused": "a pythonPackageSpec pool after a containerSpec first pool cannot be carried",
    },
    "vertex_pools": {
        "config": VERTEX_CONFIG,
        "command": "gcloud ai custom-jobs create --config=config.yaml --region=us-central1 --display-name=pools "
                   f"--worker-pool-spec=machine-type=n1-standard-8,executor-image-uri={IMAGE},python-module=trainer.task "
                   "--worker-pool-spec=machine-type=n1-standard-4,replica-count=2,container-image-uri=gcr.io/p/w:1 "
                   "--python-package-uris=gs://oracle-bucket/new.tar.gz --args=--epochs=2",
        "notes": ["--worker-pool-spec replaces the config's workerPoolSpecs (2 pools)"],
    },
    "vertex_unapplied": {
        "config": VERTEX_WEB_CONFIG,
        "command": "gcloud ai custom-jobs create --config=config.yaml --region=us-central1 --display-name=unapplied "
                   "--python-package-uris=gs://oracle-bucket/new.tar.gz --no-enable-web-access "
                   "--no-enable-dashboard-access --command=python",
        "notes": ["--python-package-uris is not applied", "--no-enable-web-access is not applied",
                  "--no-enable-dashboard-access is not applied", "--command for workerPoolSpecs[0] is not applied"],
    },
    "vertex_snake": {
        "config": VERTEX_SNAKE_CONFIG,
        "command": "gcloud ai custom-jobs create --config=config.yaml --region=us-central1 --display-name=snake "
                   "--args=--new",
        "notes": ["--args is not applied: gcloud's CustomJobSpec parser does not read a snake_case config"],
    },
    "tuning_override": {
        "config": TUNING_CONFIG,
        "command": "gcloud ai hp-tuning-jobs create --config=config.yaml --region=us-east1 --display-name=tuned "
                   "--max-trial-count=12 --parallel-trial-count=3 --algorithm=random-search --labels=team=new "
                   "--network=projects/1/global/networks/n --service-account=sa@p.iam.gserviceaccount.com "
                   f"--enable-web-access --enable-dashboard-access {KMS}",
        "notes": ["--display-name replaces the config's displayName", "--algorithm replaces the config's "
                  "studySpec.algorithm", "--labels replaces the config's labels"],
    },
    "tuning_unapplied": {
        "config": TUNING_CONFIG,
        "command": "gcloud beta ai hp-tuning-jobs create --config=config.yaml --region=us-central1 "
                   "--display-name=tuned --max-trial-count=0 --no-enable-web-access --algorithm=RANDOM_SEARCH",
        "notes": ["--max-trial-count=0 is not applied", "--no-enable-web-access is not applied"],
    },
}

# Every flag gcloud lists for each command (all release tracks), and the cases that use it.
FLAGS: dict[Generation, dict[str, tuple[str, ...]]] = {
    Generation.AI_PLATFORM: {
        "--async": ("aip_cluster",), "--config": ("aip_cluster", "aip_package", "aip_packages", "aip_tpu"),
        "--enable-web-access": ("aip_cluster",), "--job-dir": ("aip_package",), "--kms-key": ("aip_cluster",),
        "--kms-keyring": ("aip_cluster",), "--kms-location": ("aip_cluster",), "--kms-project": ("aip_cluster",),
        "--labels": ("aip_cluster",), "--master-accelerator": ("aip_cluster",),
        "--master-image-uri": ("aip_cluster",), "--master-machine-type": ("aip_cluster",),
        "--module-name": ("aip_package", "aip_packages"), "--network": ("aip_package",),
        "--package-path": ("aip_package",), "--packages": ("aip_packages",),
        "--parameter-server-accelerator": ("aip_cluster",), "--parameter-server-count": ("aip_cluster",),
        "--parameter-server-image-uri": ("aip_cluster",), "--parameter-server-machine-type": ("aip_cluster",),
        "--python-version": ("aip_package", "aip_packages"), "--region": ("aip_cluster", "aip_package", "aip_packages"),
        "--runtime-version": ("aip_package", "aip_packages"), "--scale-tier": ("aip_cluster", "aip_package"),
        "--service-account": ("aip_cluster",), "--staging-bucket": ("aip_package",),
        "--stream-logs": ("aip_package",), "--tpu-tf-version": ("aip_tpu",),
        "--use-chief-in-tf-config": ("aip_cluster",), "--worker-accelerator": ("aip_cluster",),
        "--worker-count": ("aip_cluster",), "--worker-image-uri": ("aip_cluster",),
        "--worker-machine-type": ("aip_cluster",),
    },
    Generation.VERTEX: {
        "--args": ("vertex_override", "vertex_pools", "vertex_snake", "vertex_mixed"),
        "--command": ("vertex_override", "vertex_unapplied", "vertex_mixed"),
        "--config": ("vertex_override", "vertex_pools", "vertex_unapplied", "vertex_snake", "vertex_mixed"),
        "--display-name": ("vertex_override",),
        "--enable-dashboard-access": ("vertex_override", "vertex_unapplied"),
        "--enable-web-access": ("vertex_override", "vertex_unapplied"), "--kms-key": ("vertex_override",),
        "--kms-keyring": ("vertex_override",), "--kms-location": ("vertex_override",),
        "--kms-project": ("vertex_override",), "--labels": ("vertex_override",), "--network": ("vertex_override",),
        "--persistent-resource-id": ("vertex_override",),
        "--python-package-uris": ("vertex_pools", "vertex_unapplied"), "--region": ("vertex_override",),
        "--service-account": ("vertex_override",), "--worker-pool-spec": ("vertex_pools",),
    },
    Generation.TUNING: {
        "--algorithm": ("tuning_override", "tuning_unapplied"), "--config": ("tuning_override",),
        "--display-name": ("tuning_override",), "--enable-dashboard-access": ("tuning_override",),
        "--enable-web-access": ("tuning_override", "tuning_unapplied"), "--kms-key": ("tuning_override",),
        "--kms-keyring": ("tuning_override",), "--kms-location": ("tuning_override",),
        "--kms-project": ("tuning_override",), "--labels": ("tuning_override",),
        "--max-trial-count": ("tuning_override", "tuning_unapplied"), "--network": ("tuning_override",),
        "--parallel-trial-count": ("tuning_override",), "--region": ("tuning_override",),
        "--service-account": ("tuning_override",),
    },
}
_PATHS = {Generation.AI_PLATFORM: ("ai-platform", "jobs", "submit", "training"),
          Generation.VERTEX: ("ai", "custom-jobs", "create"), Generation.TUNING: ("ai", "hp-tuning-jobs", "create")}


def _gcloud_flags() -> dict[Generation, set[str]]:
    """The flags gcloud's static CLI tree lists for each command, in the GA, beta and alpha tracks."""
    root = subprocess.run(["gcloud", "info", "--format=value(installation.sdk_root)"], capture_output=True,
                          text=True, timeout=300, check=True).stdout.strip()
    spec = importlib.util.spec_from_file_location("gcloud_tree", Path(root) / "data" / "cli" / "gcloud_completions.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    tree = module.STATIC_COMPLETION_CLI_TREE
    out: dict[Generation, set[str]] = {}
    for generation, path in _PATHS.items():
        found: set[str] = set()
        for track in ((), ("beta",), ("alpha",)):
            node = tree
            for word in (*track, *path):
                node = node["commands"][word]
            found |= set(node["flags"])
        out[generation] = found
    return out


def test_the_table_names_every_flag_gcloud_lists_and_trainjobs_reads_each() -> None:
    listed = _gcloud_flags()
    for generation, flags in listed.items():
        assert set(FLAGS[generation]) == flags, f"{generation.value}: the table and gcloud differ"
        read = {f.name for f in generation.flags}
        assert flags <= read, f"{generation.value}: gcloud flags trainjobs does not read: {sorted(flags - read)}"


def test_each_case_the_table_names_uses_the_flag() -> None:
    for generation, flags in FLAGS.items():
        for flag, cases in flags.items():
            for case in cases:
                command = CASES[case]["command"]
                assert any(w == flag or w.startswith(f"{flag}=") or w == f"--no-{flag[2:]}" for w in command.split()), \
                    (flag, case)
                assert _PATHS[generation][-2] in command, (flag, case)


@pytest.fixture(scope="module")
def gcloud_sent() -> Iterator[dict[str, tuple[Recorded | None, str]]]:
    """Each case through gcloud against one stand-in: the job creation it sent (and its stderr)."""
    holder = tempfile.TemporaryDirectory(prefix="trainjobs-flags-")
    base = Path(holder.name)
    standin: StandIn = start()
    try:
        cfg = base / "cloudsdk"
        write_config(cfg, standin.url)
        out: dict[str, tuple[Recorded | None, str]] = {}
        for case, entry in CASES.items():
            work = _folder(base, case, entry)
            before = len(standin.requests)
            proc = subprocess.run(["bash", "-c", entry["command"]], cwd=work, capture_output=True, text=True,
                                  timeout=300, env={**os.environ, "CLOUDSDK_CONFIG": str(cfg)})
            posts = [r for r in standin.requests[before:] if r.method == "POST"
                     and r.path.split("?")[0].rsplit("/", 1)[-1] in ("jobs", "customJobs", "hyperparameterTuningJobs")]
            out[case] = (posts[-1] if posts else None, proc.stderr)
        yield out
    finally:
        standin.close()
        holder.cleanup()


def _folder(base: Path, case: str, entry: dict[str, Any]) -> Path:
    work = base / case
    (work / ".git").mkdir(parents=True)
    (work / "trainer").mkdir()
    (work / "trainer" / "__init__.py").write_text("")
    (work / "trainer" / "task.py").write_text("print('hello')\n")
    (work / "config.yaml").write_text(entry["config"])
    return work


def _ours(case: str, work: Path) -> tuple[Built, Generation]:
    old = Path.cwd()
    try:
        os.chdir(work)
        cmd = parse(split_words(CASES[case]["command"], {}))
        built = build(cmd, work)
    finally:
        os.chdir(old)
    spec = built.document["spec"]
    if isinstance(spec.get("packagePath"), str):
        spec["packagePath"] = str(work / spec["packagePath"])
    return built, cmd.generation


def _request(document: dict[str, Any], uris: list[str] | None = None) -> tuple[Any, list[str]]:
    result = check_document(document, "<flags>", Context())
    errors = sorted(p.message for p in result.problems if p.is_error)
    if errors or result.job is None:
        return None, errors
    return build_request(result.job, "standin-project", package_uris=uris), []


def _carries(sent: Any, ours: Any, where: str) -> None:
    if isinstance(sent, dict):
        assert isinstance(ours, dict), f"{where}: gcloud sent a mapping, trainjobs has {ours!r}"
        for key, value in sent.items():
            assert key in ours, f"{where}.{key}: gcloud sent {value!r}, trainjobs's request lacks it"
            _carries(value, ours[key], f"{where}.{key}")
    else:
        assert ours == sent, f"{where}: gcloud sent {sent!r}, trainjobs's request has {ours!r}"


def _location(path: str) -> str:
    return path.split("/locations/")[1].split("/")[0]


@pytest.mark.parametrize("case", sorted(CASES))
def test_flags_beside_the_config_reach_the_request_as_gcloud_sends_them(
        case: str, gcloud_sent: dict[str, tuple[Recorded | None, str]], tmp_path: Path) -> None:
    sent, stderr = gcloud_sent[case]
    assert sent is not None, f"gcloud sent no job: {stderr[-2000:]}"
    body = json.loads(sent.body)
    work = _folder(tmp_path, case, CASES[case])
    built, generation = _ours(case, work)
    notes = "\n".join(built.notes)
    for wanted in CASES[case].get("notes", ()):
        assert wanted in notes, f"no note says {wanted!r}; notes: {notes}"
    if generation is Generation.AI_PLATFORM:
        ti = body["trainingInput"]
        uploaded = ti.get("packageUris") if "packagePath" in built.document["spec"] else None
        ours, our_errors = _request(built.document, uploaded)
        theirs, their_errors = _request({"apiVersion": "trainjobs/v1", "kind": "TrainingJob",
                                         "metadata": {"name": built.document["metadata"]["name"]},
                                         "spec": {"trainingInput": ti, **({"labels": body["labels"]}
                                                                          if "labels" in body else {})}})
        assert our_errors == their_errors
        if "refused" in CASES[case]:
            assert any(CASES[case]["refused"] in e for e in our_errors), our_errors
            return
        assert not our_errors, our_errors
        assert ours.body == theirs.body and ours.parent == theirs.parent
        return
    ours, errors = _request(built.document)
    if "refused" in CASES[case]:
        assert any(CASES[case]["refused"] in e for e in errors), errors
        return
    assert not errors, errors
    kind = "CustomJob" if generation is Generation.VERTEX else "HyperparameterTuningJob"
    _carries(_canonical(kind, body), _canonical(kind, ours.body), kind)
    assert _location(ours.parent) == _location(sent.path)
