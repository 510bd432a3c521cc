"""trainjobs convert: the native spec for a legacy or Vertex config, which validates the same way."""

from __future__ import annotations

from pathlib import Path

import yaml

from provider.request import build_request
from provider.validation.validator import validate_bytes, validate_data

from .conftest import ROOT, no_traceback, run_cli


def _round_trip(path: Path) -> None:
    proc = run_cli("convert", str(path))
    no_traceback(proc)
    assert proc.returncode == 0, proc.stderr
    native = yaml.safe_load(proc.stdout)
    assert native["apiVersion"] == "trainjobs/v1" and "workerPools" in native["spec"]
    original = validate_bytes(path.read_bytes(), str(path)).job
    converted = validate_data(native).job
    assert original is not None and converted is not None
    # The converted spec asks Vertex AI for exactly what the original did.
    assert build_request(converted, "p", package_uris=["gs://b/p.tar.gz"]).body == \
        build_request(original, "p", package_uris=["gs://b/p.tar.gz"]).body


def test_convert_legacy_configs() -> None:
    for name in ("custom_cpu_cluster", "gpu_compute_engine_t4", "gpu_legacy_machine_types", "job_spec_dict"):
        _round_trip(ROOT / "specs" / "seeds" / f"{name}.yaml")


def test_convert_vertex_sdk_worker_pool_specs() -> None:
    _round_trip(ROOT / "specs" / "seeds" / "cassava_multiworker_sdk.yaml")


def test_convert_a_bare_config_yaml_with_gcloud_flags(tmp_path: Path) -> None:
    seed = (ROOT / "tests" / "fixtures" / "seed_configs" / "seed003_example2.yaml").read_text()
    config = tmp_path / "config.yaml"
    config.write_text(seed)
    proc = run_cli("convert", str(config), "--region", "us-east1", "--module-name", "trainer.task",
                   "--package-path", "trainer", "--job-dir", "gs://b/job", "--name", "seed003")
    assert proc.returncode == 0, proc.stderr
    native = yaml.safe_load(proc.stdout)
    assert native["metadata"]["name"] == "seed003"
    assert native["spec"]["workerPools"]["workers"] == {"machineType": "n1-highcpu-16", "replicas": 9}
    assert native["spec"]["scheduling"] == {"maxWaitTime": "3600s", "maxRunningTime": "7200s"}
    assert native["spec"]["application"]["pythonPackage"]["runtimeVersion"] == "2.4"


def test_convert_reports_what_a_bare_config_lacks(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text((ROOT / "tests" / "fixtures" / "seed_configs" / "seed003_example2.yaml").read_text())
    proc = run_cli("convert", str(config), "--region", "us-east1")
    no_traceback(proc)
    assert proc.returncode == 1
    assert "config.yaml:3:3: error: no Python module to run" in proc.stderr


def test_convert_shows_the_request() -> None:
    proc = run_cli("convert", "specs/seeds/cassava_multiworker_sdk.yaml", "--output", "request")
    assert proc.returncode == 0 and '"kind": "CustomJob"' in proc.stdout
