"""The SDK's calls a spec cannot hold as they are, refused by name with what to write instead.

``CustomTrainingJob`` (the SDK's training_jobs.py) packages a local script and runs it in a TrainingPipeline
(pipelines.py converts the two other TrainingPipeline classes, local_script.py ``CustomJob.from_local_script``).
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, NoReturn

from provider.pysdk.arguments import SdkError

if TYPE_CHECKING:
    from provider.pysdk.binding import Reader


def refuse_pipeline(kind: str, node: ast.Call, reader: Reader) -> NoReturn:
    raise SdkError(reader.at(node), f"aiplatform.{kind} packages a local script as the SDK's own source distribution "
                   "(aiplatform_custom_trainer_script) and runs it in a TrainingPipeline, which trainjobs does not "
                   "convert", "aiplatform.CustomContainerTrainingJob or CustomPythonPackageTrainingJob, or the gcloud "
                   "ai custom-jobs create --worker-pool-spec=...,local-package-path=DIR,script=SCRIPT equivalent")
