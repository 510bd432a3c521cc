"""The SDK's calls a spec cannot hold as they are, refused by name with what to write instead.

``CustomTrainingJob``, ``CustomContainerTrainingJob`` and ``CustomPythonPackageTrainingJob``
(training_jobs.py) create a TrainingPipeline: a CustomJob, then a model upload and datasets a spec
does not carry. ``CustomJob.from_local_script`` builds a source distribution of the script the SDK
names ``aiplatform_custom_trainer_script`` and uploads it (jobs.py, utils/source_utils.py).
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, NoReturn

from provider.pysdk.arguments import SdkError

if TYPE_CHECKING:
    from provider.pysdk.binding import Reader


def refuse_pipeline(kind: str, node: ast.Call, reader: Reader) -> NoReturn:
    raise SdkError(reader.at(node), f"aiplatform.{kind} creates a TrainingPipeline (a CustomJob, then a model upload "
                   "and datasets) that trainjobs does not convert yet",
                   "the training part as aiplatform.CustomJob(display_name=..., worker_pool_specs=[{machine_spec, "
                   "replica_count, container_spec or python_package_spec}]).run(...)")


def refuse_local_script(node: ast.Call, reader: Reader) -> NoReturn:
    raise SdkError(reader.at(node), "aiplatform.CustomJob.from_local_script packages the script as the SDK's own "
                   "source distribution (aiplatform_custom_trainer_script), which trainjobs does not convert yet",
                   "trainjobs convert --gcloud \"gcloud ai custom-jobs create --worker-pool-spec=...,"
                   "local-package-path=DIR,script=SCRIPT\" (the same script, packaged by trainjobs)")
