"""trainjobs' tables of the SDK's parameters are the installed SDK's own signatures: a new argument is noticed
(and then carried or refused by name), never dropped."""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from provider.pysdk import signatures


def _sdk() -> dict[str, Any]:
    from google.cloud import aiplatform
    from google.cloud.aiplatform import hyperparameter_tuning as hpt

    return {"init": aiplatform.init, "CustomJob": aiplatform.CustomJob.__init__,
            "CustomJob.run": aiplatform.CustomJob.run, "CustomJob.submit": aiplatform.CustomJob.submit,
            "CustomJob.from_local_script": aiplatform.CustomJob.from_local_script,
            "HyperparameterTuningJob": aiplatform.HyperparameterTuningJob.__init__,
            "HyperparameterTuningJob.run": aiplatform.HyperparameterTuningJob.run,
            "CustomTrainingJob": aiplatform.CustomTrainingJob.__init__,
            "CustomTrainingJob.run": aiplatform.CustomTrainingJob.run,
            "CustomTrainingJob.submit": aiplatform.CustomTrainingJob.submit,
            "CustomContainerTrainingJob": aiplatform.CustomContainerTrainingJob.__init__,
            "CustomContainerTrainingJob.run": aiplatform.CustomContainerTrainingJob.run,
            "CustomContainerTrainingJob.submit": aiplatform.CustomContainerTrainingJob.submit,
            "CustomPythonPackageTrainingJob": aiplatform.CustomPythonPackageTrainingJob.__init__,
            "CustomPythonPackageTrainingJob.run": aiplatform.CustomPythonPackageTrainingJob.run,
            **{name: getattr(hpt, name).__init__ for name in signatures.PARAMETER_SPECS}}


@pytest.mark.parametrize("name", sorted(signatures.SIGNATURES))
def test_parameters_are_the_sdks(name: str) -> None:
    params = inspect.signature(_sdk()[name]).parameters
    ours = signatures.SIGNATURES[name]
    assert ours == tuple(p for p in params if p not in ("self", "cls"))
    required = tuple(n for n, p in params.items() if n not in ("self", "cls") and p.default is p.empty)
    assert signatures.REQUIRED.get(name, ()) == required
    keyword_only = all(p.kind is p.KEYWORD_ONLY for n, p in params.items() if n not in ("self", "cls"))
    assert (name in signatures.KEYWORD_ONLY) == keyword_only


def test_every_class_is_where_the_sdk_exports_it() -> None:
    from google.cloud import aiplatform

    for name in ("CustomJob", "HyperparameterTuningJob", *signatures.TRAINING_PIPELINES):
        cls = getattr(aiplatform, name)
        assert signatures.sdk_class(f"google.cloud.aiplatform.{name}") == name
        assert signatures.sdk_class(f"{cls.__module__}.{name}") == name
