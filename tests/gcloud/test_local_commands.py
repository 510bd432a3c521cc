"""gcloud's commands that run the trainer here (ai-platform local train, ai custom-jobs local-run) submit no job.

A script that tries the trainer locally before submitting it (the census sample's order) converts the submit
command, the local run noted; a script, or a --gcloud line, that only runs it locally names the submit command
to convert instead (provider/gcloud/local_commands.py).
"""

from __future__ import annotations

from pathlib import Path

import yaml

from ..conftest import no_traceback, run_cli

LOCAL = "gcloud ai-platform local train --package-path trainer --module-name trainer.task -- --epochs 1\n"
SUBMIT = ("gcloud ai-platform jobs submit training census_1 --package-path trainer --module-name trainer.task "
          "--region us-central1 --staging-bucket gs://census-staging --runtime-version 2.11 --python-version 3.7 "
          "-- --epochs 3\n")


def _trainer(tmp_path: Path) -> None:
    (tmp_path / "trainer").mkdir()
    (tmp_path / "trainer" / "__init__.py").write_text("")
    (tmp_path / "trainer" / "task.py").write_text("print('training')\n")


def test_a_local_run_before_the_submit_is_noted(tmp_path: Path) -> None:
    _trainer(tmp_path)
    (tmp_path / "train.sh").write_text("#!/bin/bash\nset -e\n" + LOCAL + SUBMIT)
    proc = run_cli("convert", "train.sh", cwd=tmp_path)
    no_traceback(proc)
    assert proc.returncode == 0, proc.stderr
    assert ("note: line 3: gcloud ai-platform local train runs the trainer on this machine and submits no job: "
            "ignored") in proc.stdout
    spec = yaml.safe_load(proc.stdout)
    assert spec["metadata"]["name"] == "census_1" and spec["spec"]["args"] == ["--epochs", "3"]


def test_a_script_that_only_runs_the_trainer_locally_names_the_submit_command(tmp_path: Path) -> None:
    _trainer(tmp_path)
    (tmp_path / "local.sh").write_text("#!/bin/bash\n" + LOCAL.replace("gcloud ", "gcloud beta ", 1))
    proc = run_cli("convert", "local.sh", cwd=tmp_path)
    no_traceback(proc)
    assert proc.returncode == 1
    assert ("local.sh:2:1: gcloud ai-platform local train runs the trainer on this machine and submits no job, so "
            "there is no job to convert; convert the gcloud ai-platform jobs submit training command") in proc.stderr, \
        proc.stderr
