"""``a, b = x, f()``: Python binds each target to its own item, so a target whose item is known stays known where
another's is not (provider.document.python_eval.unpacked). python_flow binds a called function's parameters so
(``go("x", labels)`` for ``def go(name, labels)``: one tuple assignment), where a parameter must keep its own value."""

from __future__ import annotations

from pathlib import Path

from provider.document.python_values import Unknown, scope_after

from .pysdk.test_corpus import convert


def test_each_target_gets_its_own_item() -> None:
    scope = scope_after([("t.py", "import random\nname, seed, (x, y) = 'job', random.random(), (1, 2)\n"
                                  "[a, b] = ['A', random.random()]\nc, d = e = 'c', random.random()")])
    assert (scope.get("name"), scope.get("x"), scope.get("y"), scope.get("a")) == ("job", 1, 2, "A")
    assert all(isinstance(scope.get(n), Unknown) for n in ("seed", "b", "e", "c", "d"))  # e = the whole tuple
    assert "a random value" in str(getattr(scope.get("seed"), "why", ""))


def test_a_starred_target_takes_the_whole_value() -> None:
    """``a, *b = 1, f()``: b would be a list holding the unknown item, so the value is read whole (found by
    tests/test_python_values_shared.py's property test)."""
    scope = scope_after([("t.py", "import random\na, *b = 1, random.random()")])
    assert isinstance(scope.get("a"), Unknown) and isinstance(scope.get("b"), Unknown)


def test_a_count_that_does_not_match_is_still_refused() -> None:
    value = scope_after([("t.py", "a, b = 1, 2, 3")]).get("a")
    assert isinstance(value, Unknown) and "from 3 values (Python raises ValueError)" in value.why


# source: find_string id 24904560034, a public guide's run_hyperparameter_tuning(display_name, container_uri,
#   metrics_spec, parameter_spec) called with names that are also its parameters' names.
# adapted: a CustomJob with labels in place of its tuning job; the labels made at run time (random), so that one
#   argument is unknown and the others are not.
_SCRIPT = '''import random

from google.cloud import aiplatform

aiplatform.init(project="my-project", location="us-central1", staging_bucket="gs://my-bucket")


def go(display_name, image, labels):
    job = aiplatform.CustomJob(display_name=display_name, labels=labels, worker_pool_specs=[{
        "machine_spec": {"machine_type": "n1-standard-4"}, "replica_count": 1, "container_spec": {"image_uri": image}}])
    job.run()


labels = {"run": str(random.random())}
go("tf-hpt", "gcr.io/p/t:1", labels)
'''


def test_a_functions_unknown_argument_is_named_as_itself(tmp_path: Path) -> None:
    (tmp_path / "launch.py").write_text(_SCRIPT, encoding="utf-8")
    done = convert(Path("launch.py"), "--output", "request", cwd=tmp_path)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert ("launch.py:9:66: aiplatform.CustomJob(labels=...) cannot be known without running the script: labels is "
            "set from a random value") in done.stderr
