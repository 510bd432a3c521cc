"""Google's public Vertex AI samples, as their users wrote them, read as Vertex AI reads them.

Each file in ``corpus/`` keeps only the spec values of one sample (a notebook's
``worker_pool_specs``, a ``gcloud ai custom-jobs create --config`` YAML, a python-aiplatform
snippet) wrapped in the TrainingJob envelope, with its header:

    # source: REPO@COMMIT then its path (and cell)
    # transcription: how the Python values became YAML (None -> null, variables -> their values)
    # expect: valid               or  # expect: TEXT   (an error a Vertex AI user would be given)
    # warn: TEXT                  every warning the file gets, one line each

A valid sample's request is also compared, pool by pool, with what Google's reader sends:
the SDK's for ``worker_pool_specs``, gcloud's --config loader's for ``workerPoolSpecs``.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from provider.validation.rules import Context, Target
from provider.validation.validator import validate_bytes

from ..conftest import no_traceback, run_cli
from ..google_readers import (
    assert_same_pools,
    assert_same_tuning,
    gcloud_spec,
    sdk_low_level_tuning,
    sdk_spec,
    sdk_tuning_args,
    trainjobs,
    trainjobs_tuning,
)

CORPUS = Path(__file__).parent / "corpus"
FILES = sorted(CORPUS.glob("*.yaml"))
REPOSITORIES = ("GoogleCloudPlatform/vertex-ai-samples@", "googleapis/python-aiplatform@",
                "GoogleCloudPlatform/training-data-analyst@", "GoogleCloudPlatform/asl-ml-immersion@")


@dataclass(frozen=True)
class Header:
    source: str
    transcription: str
    expect: tuple[str, ...]
    warn: tuple[str, ...]

    @property
    def valid(self) -> bool:
        return self.expect == ("valid",)


def header(path: Path) -> Header:
    fields: dict[str, list[str]] = {"source": [], "transcription": [], "expect": [], "warn": []}
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        key, _, value = line[1:].strip().partition(": ")
        if key in fields:
            fields[key].append(value)
    return Header(" ".join(fields["source"]), " ".join(fields["transcription"]), tuple(fields["expect"]),
                  tuple(fields["warn"]))


# Pools of other public repositories (KFP pipelines, guides), found with the search tool: "search:ID" then
# what the file is. The search tool names no repository for such an excerpt; its id finds it again.
SEARCHED = re.compile(r"^search:\d+ ")


def test_corpus_is_large_enough_and_from_googles_samples() -> None:
    assert len(FILES) >= 20
    for path in FILES:
        h = header(path)
        assert h.source.startswith(REPOSITORIES) or SEARCHED.match(h.source), f"{path.name}: source {h.source!r}"
        assert h.transcription, f"{path.name} does not say how it was transcribed"
        assert h.expect, f"{path.name} has no '# expect:' line"
    googles = {header(p).source.split("@")[0] for p in FILES if not SEARCHED.match(header(p).source)}
    assert googles == {r.rstrip("@") for r in REPOSITORIES}


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_sample_is_read_as_vertex_ai_reads_it(path: Path) -> None:
    h = header(path)
    result = validate_bytes(path.read_bytes(), path.name, Context(target=Target.VERTEX))
    shown = "\n".join(f"{p.severity.value} {p.line}: {p.message} | {p.allowed}" for p in result.problems)
    errors = [p for p in result.problems if p.is_error]
    warnings = [p for p in result.problems if not p.is_error]
    if h.valid:
        assert not errors, f"{path.name} was refused:\n{shown}"
    else:
        assert errors, f"{path.name} was accepted:\n{shown}"
        for expected in h.expect:
            assert any(expected in f"{p.message} | {p.allowed}" for p in errors), f"{path.name}: no {expected!r}:\n{shown}"
    for expected in h.warn:
        assert any(expected in p.message for p in warnings), f"{path.name}: no warning {expected!r}:\n{shown}"
    for p in warnings:
        assert any(w in p.message for w in h.warn), f"{path.name}: unexpected warning {p.message!r}"


def _body(path: Path) -> dict:
    spec = dict(yaml.safe_load(path.read_text(encoding="utf-8"))["spec"])
    spec.pop("region")
    return spec


SDK_VALID = [p for p in FILES if header(p).valid and "worker_pool_specs" in _body(p)]
GCLOUD_VALID = [p for p in FILES if header(p).valid and "workerPoolSpecs" in _body(p)]


@pytest.mark.parametrize("path", SDK_VALID, ids=[p.stem for p in SDK_VALID])
def test_sample_request_is_the_sdks(path: Path) -> None:
    body = _body(path)
    ours, _ = trainjobs(copy.deepcopy(body))
    assert_same_pools(ours, sdk_spec(body["worker_pool_specs"]))


# The Python SDK's two tuning forms: the low-level client's dicts (study_spec ...) and HyperparameterTuningJob's own
# arguments (metric_spec, parameter_spec with the hpt classes), each built by the installed SDK itself.
LOW_LEVEL_VALID = [p for p in FILES if header(p).valid and "study_spec" in _body(p)]
SDK_ARGS_VALID = [p for p in FILES if header(p).valid and "metric_spec" in _body(p)]


@pytest.mark.parametrize("path", LOW_LEVEL_VALID, ids=[p.stem for p in LOW_LEVEL_VALID])
def test_low_level_tuning_request_is_the_sdks(path: Path) -> None:
    body = _body(path)
    assert_same_tuning(trainjobs_tuning(copy.deepcopy(body)), sdk_low_level_tuning(body))


@pytest.mark.parametrize("path", SDK_ARGS_VALID, ids=[p.stem for p in SDK_ARGS_VALID])
def test_tuning_job_arguments_request_is_the_sdks(path: Path) -> None:
    body = _body(path)
    assert_same_tuning(trainjobs_tuning(copy.deepcopy(body)), sdk_tuning_args(body))


@pytest.mark.slow
@pytest.mark.parametrize("path", GCLOUD_VALID, ids=[p.stem for p in GCLOUD_VALID])
def test_sample_request_is_gclouds(path: Path) -> None:
    body = _body(path)
    ours, _ = trainjobs(copy.deepcopy(body))
    assert_same_pools(ours, gcloud_spec(body))


@pytest.mark.slow
def test_validate_command_accepts_what_the_notebooks_write(tmp_path: Path) -> None:
    """``trainjobs validate`` on the samples Vertex AI runs: exit 0, the notes shown as warnings."""
    valid = [str(p) for p in FILES if header(p).valid]
    proc = run_cli("validate", *valid, "--stacks", str(tmp_path / "no-stacks"), timeout=180)
    no_traceback(proc)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"{len(valid)} specs checked: {len(valid)} valid, 0 invalid" in proc.stdout, proc.stdout
    assert "warning: 7 is TPU_V3" in proc.stdout
