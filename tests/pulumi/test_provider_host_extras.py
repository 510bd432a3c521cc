"""requirements and extraPackages through the Pulumi program and the SDK's dynamic-provider host (issue 20).

The program declares what the provider stages (``requirements``: the lines and their sdist's URI;
``extraPackages``: each file, relative to the project, and its URI) beside ``package``; the
provider, unpickled by ``python -m pulumi.dynamic`` as the engine's host does, stages all three
and the local backend installs them into the job's environment. A changed requirement is another
URI, so the request changes and the job is replaced.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from provider.backends.local.backend import LocalBackend
from provider.resources.job_request import decode
from tests.gcloud.test_local_package_extras import WHEEL, tiny_wheel
from tests.local.conftest import cleanup

from .conftest import ROOT, project_copy, run_program, stack_config
from .host import ProviderHost

pytestmark = pytest.mark.slow

WHEELHOUSE = ROOT / ".venv" / "wheelhouse"
EXECUTOR = "us-docker.pkg.dev/vertex-ai/training/pytorch-xla.2-4.py310:latest"
TASK = """\
import json, os

import extra_mod
import pluggy

os.makedirs(os.environ["AIP_MODEL_DIR"], exist_ok=True)
with open(os.path.join(os.environ["AIP_MODEL_DIR"], "result.json"), "w") as out:
    json.dump({"extra": extra_mod.VALUE, "requirement": pluggy.__name__}, out)
"""


def _spec(requirement: str) -> dict[str, Any]:
    return {
        "apiVersion": "trainjobs/v1", "kind": "TrainingJob", "metadata": {"name": "host_extras", "team": "platform"},
        "spec": {
            "region": "us-central1",
            "workerPools": {"chief": {"machineType": "n1-standard-4"}},
            "application": {"pythonPackage": {"path": "../../trainers/extras/trainer", "module": "trainer.task",
                                              "executorImage": EXECUTOR, "requirements": [requirement],
                                              "extraPackages": [f"../../trainers/extras/dist/{WHEEL}"]}},
            "baseOutputDirectory": "gs://local-bucket/host/extras",
            "scheduling": {"maxRunningTime": "900s"},
        },
    }


def _declare(tmp: Path, project: Path, home: Path, requirement: str) -> dict[str, Any]:
    (project / "specs" / "host" / "extras.yaml").write_text(yaml.safe_dump(_spec(requirement)))
    report = run_program(tmp, "local", stack_config("local", project, **{
        "trainjobs:specs": ["specs/host/*.yaml"], "trainjobs:localHome": str(home),
        "trainjobs:wait": {"until": "completion", "timeout": "300s"}}), project=project)
    assert report["error"] is None, report["error"]
    inputs: dict[str, Any] = report["dynamicInputs"]["host_extras"]
    return inputs


def test_the_provider_stages_and_installs_requirements_and_extra_packages(tmp_path: Path, env_cache: Path) -> None:
    if not (WHEELHOUSE / "pluggy-1.7.0-py3-none-any.whl").is_file():
        pytest.fail(f"{WHEELHOUSE} has no pluggy wheel: run bash scripts/setup.sh dev")
    project = project_copy(tmp_path)
    (project / "specs" / "host").mkdir()
    trainer = project / "trainers" / "extras" / "trainer"
    trainer.mkdir(parents=True)
    (trainer / "__init__.py").write_text("")
    (trainer / "task.py").write_text(TASK)
    tiny_wheel(project / "trainers" / "extras" / "dist" / WHEEL)
    home = tmp_path / "home"

    inputs = _declare(tmp_path, project, home, "pluggy==1.7.0")
    assert inputs["extraPackages"][0]["source"] == f"trainers/extras/dist/{WHEEL}"  # relative to the project
    assert inputs["requirements"]["lines"] == ["pluggy==1.7.0"]

    backend = LocalBackend(home=home)
    host = ProviderHost(env={"TRAINJOBS_ENV_CACHE": str(env_cache), "TRAINJOBS_LOCAL_GPUS": "none",
                             "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(WHEELHOUSE)}, cwd=project)
    try:
        checked = host.check(inputs)[0]  # the request, built by the provider's Check
        uris = decode(checked["request"])["jobSpec"]["workerPoolSpecs"][0]["pythonPackageSpec"]["packageUris"]
        assert uris == [inputs["package"]["uri"], inputs["extraPackages"][0]["uri"], inputs["requirements"]["uri"]]
        job_id, outs = host.check_and_create(inputs)
        assert outs["state"] == "SUCCEEDED", outs
        assert all(backend.storage.path(u).is_file() for u in uris)
        result = home / "storage" / "local-bucket" / "host" / "extras" / "model" / "result.json"
        assert yaml.safe_load(result.read_text()) == {"extra": "from the extra package", "requirement": "pluggy"}

        changed = _declare(tmp_path, project, home, "pluggy>=1.7")
        assert changed["requirements"]["uri"] != inputs["requirements"]["uri"]
        assert "request" in host.diff(job_id, checked, host.check(changed)[0]).replaces
        again = host.check(_declare(tmp_path, project, home, "pluggy==1.7.0"))[0]
        assert host.diff(job_id, checked, again).replaces == ()
    finally:
        try:
            cleanup(backend)
        finally:
            host.close()
