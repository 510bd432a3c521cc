"""A launcher's own modules (provider/document/python_modules.py): ``from config import REGION``, ``import config`` then
``config.IMAGE``, a package's ``from src.settings import *``, read from the files beside the launcher, as Python
imports them when it runs the script.

The oracle is the SDK itself (tests/pysdk/sdk_oracle.py), running the launcher with its folder first on sys.path, as
``python launch.py`` has it: every request trainjobs converts must be the one the SDK sends. A module that cannot be
read, or that does not give the value, is refused by name: the module's file, and why.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .sdk_oracle import comparable, sdk_request
from .test_corpus import convert

_LAUNCH = """from google.cloud import aiplatform
{imports}

aiplatform.init(project="p", location={region}, staging_bucket={bucket})
job = aiplatform.CustomJob(display_name="local-modules", worker_pool_specs=[{{
    "machine_spec": {{"machine_type": {machine}}},
    "replica_count": 1,
    "container_spec": {{"image_uri": {image}, "args": {args}}},
}}])
job.run()
"""

# name -> (modules: path -> text, the launcher's imports and expressions)
CASES: dict[str, tuple[dict[str, str], dict[str, str]]] = {
    "from_config": ({"config.py": 'PROJECT_ID = "my-proj"\nREGION = "europe-west4"\nBUCKET = f"gs://{PROJECT_ID}-b"\n'
                                  'IMAGE = "europe-docker.pkg.dev/my-proj/t/img:1"\nMACHINE = "n1-standard-8"\n'
                                  'ARGS = ["--epochs", str(3 * 4)]\n'},
                    {"imports": "from config import REGION, BUCKET as B, MACHINE\nimport config",
                     "region": "REGION", "bucket": "B", "machine": "MACHINE", "image": "config.IMAGE",
                     "args": "config.ARGS"}),
    "package_star": ({"src/__init__.py": "", "src/settings.py": 'import os\nREGION = os.environ.get("TJ_NO_SUCH", '
                                                                '"us-east1")\nMACHINE = "n1-highmem-4"\n_HIDDEN = 1\n'
                                                                'if __name__ == "__main__":\n    REGION = "asia-east1"\n',
                      "src/images.py": 'from src.settings import MACHINE\nIMAGE = "gcr.io/p/" + MACHINE + ":2"\n'},
                     {"imports": "from src.settings import *\nfrom src import images\nimport src.images",
                      "region": "REGION", "bucket": '"gs://bkt"', "machine": "MACHINE", "image": "images.IMAGE",
                      "args": "[src.images.IMAGE]"}),
    "namespace_package_shared_list": ({"conf/base.py": 'ARGS = ["--a"]\nREGION = "us-central1"\n'},
                                      {"imports": "from conf.base import ARGS, REGION\nimport conf.base\n"
                                                  "ARGS.append('--b')",
                                       "region": "REGION", "bucket": '"gs://bkt"', "machine": '"n1-standard-4"',
                                       "image": '"gcr.io/p/i:1"', "args": "conf.base.ARGS"}),
    # source: jchavezar/vertex-ai-samples ai-flex/tensorflow/tabular/CustomJob[pre-built-container][gpu].py and its
    # variables.py (@3c5007f7, @2a8d818b); adapted: the names and values shortened, the GPU a current one (T4)
    "from_variables_star": ({"variables.py": 'import time\n_date = time.strftime("%x").replace("/", "-")\n'
                                             'project_id = "demo"\nregion = "us-central1"\n'
                                             'staging_bucket = "gs://demo-staging/ecommerce"\n'
                                             'display_name_job = "tf-ecommerce-customjob"\n'
                                             'image_gpu = "us-docker.pkg.dev/vertex-ai/training/tf-gpu.2-12.py310:latest"\n'
                                             'package_uri = "gs://demo-dist/trainer-0.1.tar.gz"\n'
                                             'model_uri = f"gs://demo-models/ecommerce/{_date}"\n'
                                             'machine_type_gpu = "n1-standard-4"\naccelerator_type = "NVIDIA_TESLA_T4"\n'
                                             'accelerator_count = 1\nreplica_count = 1\n'},
                            {"launch": 'from variables import *\nfrom google.cloud import aiplatform\n\n'
                                       'aiplatform.init(project=project_id, location=region, staging_bucket=staging_bucket)\n'
                                       'model = aiplatform.CustomJob(display_name=display_name_job + "-gpu", '
                                       'worker_pool_specs=[{"machine_spec": {"machine_type": machine_type_gpu, '
                                       '"accelerator_type": accelerator_type, "accelerator_count": accelerator_count}, '
                                       '"replica_count": replica_count, "python_package_spec": {"executor_image_uri": '
                                       'image_gpu, "package_uris": [package_uri], "python_module": "trainer.train"}}], '
                                       'labels={"ai-flex": "prebuilt-train-gpu"})\nmodel = model.run()\n'}),
    # a notebook-style folder: the launcher puts its project's folder on sys.path, as scripts under notebooks/ do
    "sys_path_parent": ({"../common/settings.py": 'REGION = "us-west1"\nIMAGE = "gcr.io/p/common:3"\n',
                         "../.git/HEAD": ""},
                        {"imports": 'import os, sys\nsys.path.append(os.path.abspath(".."))\n'
                                    "sys.path.insert(0, '../common')\nfrom common.settings import REGION\n"
                                    "import settings",
                         "region": "REGION", "bucket": '"gs://bkt"', "machine": '"n1-standard-4"',
                         "image": "settings.IMAGE", "args": "[]"}),
}


@pytest.fixture
def no_new_modules(tmp_path: Path) -> Iterator[None]:
    """The oracle imports the case's modules into this process: they are taken out again (those from the case's
    folder only: the SDK's own stay imported), so that no case, nor any other test, sees another's config."""
    yield
    for name, module in list(sys.modules.items()):
        if str(getattr(module, "__file__", None) or "").startswith(str(tmp_path)) or \
                any(str(p).startswith(str(tmp_path)) for p in getattr(module, "__path__", []) or []):
            del sys.modules[name]


def _case(folder: Path, name: str) -> Path:
    modules, parts = CASES[name]
    folder = folder / "launcher"
    folder.mkdir()
    for relative, text in modules.items():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_text(text, encoding="utf-8")
    launch = folder / "launch.py"
    launch.write_text(parts["launch"] if "launch" in parts else _LAUNCH.format(**parts), encoding="utf-8")
    return launch


@pytest.mark.parametrize("name", sorted(CASES))
def test_request_equals_the_sdks(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                 no_new_modules: None) -> None:
    launch = _case(tmp_path, name)
    monkeypatch.syspath_prepend(str(launch.parent))  # python launch.py: the script's folder first
    monkeypatch.chdir(launch.parent)  # run from its folder: sys.path.append("..") is from there
    theirs = comparable(sdk_request(launch, monkeypatch))
    done = convert(launch, "--output", "request", cwd=tmp_path.parent)  # run from elsewhere: the folder still counts
    assert done.returncode == 0, done.stderr
    mine: dict[str, Any] = comparable(json.loads(done.stdout))
    assert mine == theirs


def _refusal(folder: Path, modules: dict[str, str], imports: str, region: str) -> str:
    for relative, text in modules.items():
        (folder / relative).write_text(text, encoding="utf-8")
    launch = folder / "launch.py"
    launch.write_text(_LAUNCH.format(imports=imports, region=region, bucket='"gs://b"', machine='"n1-standard-4"',
                                     image='"gcr.io/p/i:1"', args="[]"), encoding="utf-8")
    done = convert(launch, "--output", "request")
    assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr
    return done.stderr


def test_a_value_the_module_does_not_give_is_refused_with_its_file_and_line(tmp_path: Path) -> None:
    said = _refusal(tmp_path, {"config.py": 'import os\nREGION = os.environ["TJ_UNSET_REGION"]\n'},
                    "from config import REGION", "REGION")
    assert "config.REGION, set in config.py" in said and "TJ_UNSET_REGION" in said, said


def test_a_value_a_star_import_gives_is_said_as_the_named_import_says_it(tmp_path: Path) -> None:
    """``from config import *`` and ``from config import REGION`` say the same of a value the module does not give, each
    place once."""
    module = {"config.py": 'import uuid\n\nRUN = uuid.uuid4().hex\nREGION = "us-" + RUN\n'}
    named = _refusal(tmp_path, module, "from config import REGION", "REGION")
    star = _refusal(tmp_path, module, "from config import *", "REGION")
    said = ("REGION is config.REGION, set in config.py: REGION is set from RUN at config.py, line 4; RUN is set from "
            "a random value at config.py, line 3")
    assert said in named and said in star, (named, star)
    assert star.count("config.py, line 4") == 1, star


def test_a_name_the_module_does_not_assign_is_refused_as_python_raises(tmp_path: Path) -> None:
    said = _refusal(tmp_path, {"config.py": 'ZONE = "a"\n'}, "import config", "config.REGION")
    assert "config.REGION, which config.py does not assign at its top level" in said, said


def test_a_circular_import_is_refused(tmp_path: Path) -> None:
    said = _refusal(tmp_path, {"a.py": "from b import X\nREGION = 'us-central1'\n", "b.py": "from a import REGION\n"
                                                                                           "X = REGION\n"},
                    "from b import X", "X")
    assert "circular import" in said, said


def test_a_module_that_does_not_parse_is_named(tmp_path: Path) -> None:
    said = _refusal(tmp_path, {"config.py": "REGION = 'us-central1'\nif :\n"}, "from config import REGION", "REGION")
    assert "config.py, which does not parse as Python" in said, said


def test_a_module_linked_from_outside_the_repository_is_not_read(tmp_path: Path) -> None:
    """A launcher's config.py that is a symlink out of the repository: its content is never read nor quoted."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    secret = tmp_path / "secret.py"
    secret.write_text('REGION = "leaked-value"\n', encoding="utf-8")
    os.symlink(secret, repo / "config.py")
    said = _refusal(repo, {}, "from config import REGION", "REGION")
    assert "symlink to a target outside" in said and "leaked-value" not in said, said


def test_a_package_linked_from_outside_the_repository_is_not_read(tmp_path: Path) -> None:
    """``from src.config import REGION`` where the folder src is a symlink out of the repository: not read either."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "config.py").write_text('REGION = "leaked-value"\n', encoding="utf-8")
    os.symlink(tmp_path / "elsewhere", repo / "src")
    said = _refusal(repo, {}, "from src.config import REGION", "REGION")
    assert "a folder that is a symlink" in said and "leaked-value" not in said, said


def test_a_notebook_imports_from_its_own_folder(tmp_path: Path) -> None:
    """A notebook's kernel starts in its folder: a cell's ``from constants import *`` reads constants.py there, for
    the SDK's job and for a ``!gcloud`` line's ``{REGION}`` alike."""
    (tmp_path / "constants.py").write_text('REGION = "europe-west1"\nIMAGE = "gcr.io/p/nb:1"\n', encoding="utf-8")
    cells = ["from constants import *",
             '!gcloud ai custom-jobs create --region={REGION} --display-name=nb '
             '--worker-pool-spec=machine-type=n1-standard-4,container-image-uri={IMAGE}']
    notebook = tmp_path / "nb.ipynb"
    notebook.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": c} for c in cells]}))
    done = convert(notebook, "--output", "request")
    assert done.returncode == 0, done.stderr
    request = json.loads(done.stdout)
    assert request["parent"].endswith("/locations/europe-west1")
    assert request["body"]["jobSpec"]["workerPoolSpecs"][0]["containerSpec"]["imageUri"] == "gcr.io/p/nb:1"
