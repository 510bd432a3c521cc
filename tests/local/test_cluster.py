"""A job of every role runs as real processes, each with exactly what Vertex AI gives it."""

from __future__ import annotations

import json
from pathlib import Path

from provider.backends.base import JobState
from provider.backends.local.backend import LocalBackend

from .conftest import probe_spec, submit


def _dumps(folder: Path) -> dict[str, dict]:
    return {p.stem: json.loads(p.read_text()) for p in folder.glob("*.json")}


def test_chief_workers_ps_and_evaluator_get_the_documented_environment(backend: LocalBackend, tmp_path: Path) -> None:
    dump = tmp_path / "dump"
    job = submit(backend, probe_spec(workers=2, ps=1, evaluators=1, args=["--dump", str(dump), "--barrier", "5"]))
    job = backend.wait(job.id, timeout=120)
    assert job.state is JobState.SUCCEEDED, job.error
    seen = _dumps(dump)
    assert sorted(seen) == ["workerpool0-0", "workerpool1-0", "workerpool1-1", "workerpool2-0", "workerpool3-0"]

    addresses = {r.name: r.address for r in job.replicas}
    assert all(a.startswith("localhost:") for a in addresses.values())
    assert len(set(addresses.values())) == 5  # every replica its own free port
    request = job.extra["request"]
    job_spec = request["jobSpec"]
    cluster = {
        "workerpool0": [addresses["workerpool0-0"]],
        "workerpool1": [addresses["workerpool1-0"], addresses["workerpool1-1"]],
        "workerpool2": [addresses["workerpool2-0"]],
        "workerpool3": [addresses["workerpool3-0"]],
    }
    tf_cluster = {"chief": cluster["workerpool0"], "worker": cluster["workerpool1"], "ps": cluster["workerpool2"]}
    tasks = {"workerpool0-0": ("chief", 0), "workerpool1-0": ("worker", 0), "workerpool1-1": ("worker", 1),
             "workerpool2-0": ("ps", 0), "workerpool3-0": ("evaluator", 0)}
    storage = backend.storage.root
    for name, data in seen.items():
        env = data["env"]
        pool, index = name.rsplit("-", 1)
        # CLUSTER_SPEC: all four pools, this replica's pool/index, no trial, and the job itself.
        assert json.loads(env["CLUSTER_SPEC"]) == {
            "cluster": cluster, "environment": "cloud", "task": {"type": pool, "index": int(index), "trial": ""},
            "job": job_spec,
        }
        # TF_CONFIG: chief/worker/ps only (the evaluator is a task, never a cluster key).
        task_type, task_index = tasks[name]
        assert json.loads(env["TF_CONFIG"]) == {
            "cluster": tf_cluster, "environment": "cloud", "job": job_spec,
            "task": {"type": task_type, "index": task_index, "cloud": f"trainjobs-local-{job.id}"},
        }
        assert env["CLOUD_ML_JOB_ID"] == job.id
        # AIP_* from baseOutputDirectory, mapped to local storage (gs://test-bucket/out -> <storage>/test-bucket/out).
        assert env["AIP_MODEL_DIR"] == f"{storage}/test-bucket/out/model/"
        assert env["AIP_CHECKPOINT_DIR"] == f"{storage}/test-bucket/out/checkpoints/"
        assert env["AIP_TENSORBOARD_LOG_DIR"] == f"{storage}/test-bucket/out/logs/"
        # PyTorch: the chief and the workers form the world; MASTER_* point at the chief.
        assert env["MASTER_ADDR"] == "localhost"
        assert env["MASTER_PORT"] == addresses["workerpool0-0"].split(":")[1]
        assert env["WORLD_SIZE"] == "3"
        expected_rank = {"workerpool0-0": "0", "workerpool1-0": "1", "workerpool1-1": "2"}.get(name)
        assert env.get("RANK") == expected_rank
    # the checkpoints landed in local storage, where the spec's gs:// path points
    assert (storage / "test-bucket" / "out" / "checkpoints" / "workerpool0-0.json").is_file()


def test_a_single_replica_gets_no_tf_config(backend: LocalBackend, tmp_path: Path) -> None:
    dump = tmp_path / "dump"
    job = backend.wait(submit(backend, probe_spec(args=["--dump", str(dump)])).id, timeout=120)
    assert job.state is JobState.SUCCEEDED, job.error
    env = _dumps(dump)["workerpool0-0"]["env"]
    assert "TF_CONFIG" not in env
    assert json.loads(env["CLUSTER_SPEC"])["cluster"] == {"workerpool0": [job.replicas[0].address]}
    assert env["WORLD_SIZE"] == "1" and env["RANK"] == "0"


def test_python_module_runs_with_job_dir_after_the_user_args(backend: LocalBackend, tmp_path: Path) -> None:
    dump = tmp_path / "dump"
    doc = probe_spec(args=["--dump", str(dump), "--steps", "2"])
    doc["spec"]["jobDir"] = doc["spec"].pop("baseOutputDirectory")
    job = backend.wait(submit(backend, doc).id, timeout=120)
    assert job.state is JobState.SUCCEEDED, job.error
    argv = _dumps(dump)["workerpool0-0"]["argv"]
    assert argv[-2:] == ["--job-dir", str(backend.storage.root / "test-bucket" / "out")]
    assert argv[:4] == ["--dump", str(dump), "--steps", "2"]
    assert "AIP_MODEL_DIR" in _dumps(dump)["workerpool0-0"]["env"]
