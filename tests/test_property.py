"""Property tests: the validator never raises, whatever it is given."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from provider.validation.validator import validate_bytes, validate_data

scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True, allow_infinity=True),
                    st.text(max_size=20))
keys = st.one_of(st.sampled_from(["apiVersion", "kind", "metadata", "spec", "name", "region", "workerPools",
                                  "chief", "workers", "machineType", "accelerator", "type", "count", "replicas",
                                  "application", "pythonPackage", "container", "trainingInput", "scaleTier",
                                  "masterType", "workerCount", "workerPoolSpecs", "worker_pool_specs",
                                  "machineSpec", "hyperparameters", "params", "labels", "env", "scheduling"]),
                 st.text(max_size=10))
documents = st.recursive(scalars, lambda children: st.one_of(st.lists(children, max_size=4),
                                                             st.dictionaries(keys, children, max_size=5)),
                         max_leaves=30)

SLOW = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SLOW
@given(st.binary(max_size=2000))
def test_arbitrary_bytes_never_raise(data: bytes) -> None:
    result = validate_bytes(data, "f.yaml")
    assert result.problems or result.ok


@SLOW
@given(st.text(alphabet=st.sampled_from(list("abc:-[]{}&*!|>'\"#% \n\t,?01.e")), max_size=300))
def test_arbitrary_yamlish_text_never_raises(text: str) -> None:
    validate_bytes(text.encode(), "f.yaml")


@SLOW
@given(documents)
def test_arbitrary_structures_never_raise(doc: object) -> None:
    result = validate_data(doc, "doc")
    assert isinstance(result.problems, list)


@SLOW
@given(st.dictionaries(keys, documents, max_size=6))
def test_envelope_like_documents_never_raise(spec: dict) -> None:
    doc = {"apiVersion": "trainjobs/v1", "kind": "TrainingJob", "metadata": {"name": "j"}, "spec": spec}
    validate_data(doc, "doc")
    # and the same written as YAML text (JSON is YAML)
    try:
        text = json.dumps(doc)
    except ValueError:
        return
    validate_bytes(text.encode(), "f.yaml")
