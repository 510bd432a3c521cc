"""gcloud's commands that run a trainer on this machine and submit no job, each with the command to convert instead.

``gcloud ai-platform local train`` (surface/ai_platform/local/train.py) runs the module in a local process with a
TF_CONFIG; ``gcloud ai custom-jobs local-run`` (surface/ai/custom_jobs/local_run.py) builds a Docker image and runs
it. Neither sends a request, so there is no job in them to convert: ``convert --gcloud`` names the submit command
instead (command.py), and in a script one before the training command is noted (script.py).
"""

from __future__ import annotations

# gcloud's commands that run a trainer locally, and the command that submits the same trainer as a job.
SUBMIT_INSTEAD = ("convert the gcloud ai-platform jobs submit training command for the same trainer (its --package-path, "
                   "--module-name, --job-dir and args after --, with --region)")
LOCAL: dict[tuple[str, ...], str] = {
    ("ai-platform", "local", "train"): SUBMIT_INSTEAD,
    ("ml-engine", "local", "train"): SUBMIT_INSTEAD,
    ("ai", "custom-jobs", "local-run"): "convert the gcloud ai custom-jobs create command for the same trainer "
    "(--worker-pool-spec=machine-type=...,executor-image-uri=IMAGE,local-package-path=PATH,script=FILE or "
    "python-module=MODULE, its args after --args, with --region)",
}
