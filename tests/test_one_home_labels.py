"""Label rules: the catalog's Unicode rule, in one place (provider.core.labels), used by the spec's
check, the Vertex list filter and every label trainjobs writes (issue 28, part 4)."""

from __future__ import annotations

from pathlib import Path

import pytest

from provider.backends.base import InvalidArgument
from provider.backends.vertex.backend import label_filter
from provider.catalog import CATALOG
from provider.core.labels import MAX_KEY_LENGTH, MAX_VALUE_LENGTH, label_value, valid_key, valid_value

from .conftest import ROOT, no_traceback, run_cli

# (key, is it a valid key): Google's examples and the edges of the catalog's key_regex_unicode
KEYS = [("team", True), ("équipe", True), ("日本", True), ("cost-center_2", True), ("Équipe", False),
        ("Team", False), ("1team", False), ("_team", False), ("tëam!", False), ("a" * 63, True), ("a" * 64, False)]


def test_the_rule_is_the_catalogs() -> None:
    rule = CATALOG.limits()["labels"]
    assert (rule["max_key_length"], rule["max_value_length"]) == (MAX_KEY_LENGTH, MAX_VALUE_LENGTH)
    # the rule the code implements is the one the catalog writes down
    assert rule["key_regex_unicode"] == "^[\\p{Ll}\\p{Lo}][\\p{Ll}\\p{Lo}\\p{N}_-]{0,62}$"
    assert rule["value_regex_unicode"] == "^[\\p{Ll}\\p{Lo}\\p{N}_-]{0,63}$"


@pytest.mark.parametrize(("key", "ok"), KEYS)
def test_the_spec_check_and_the_vertex_filter_agree_on_a_key(key: str, ok: bool, tmp_path: Path) -> None:
    assert valid_key(key) is ok
    try:
        label_filter({key: "x"})
        filtered = True
    except InvalidArgument:
        filtered = False
    assert filtered is ok
    spec = (ROOT / "specs" / "local" / "simple.yaml").read_text(encoding="utf-8")
    assert "labels: {cost-center: platform}" in spec
    path = tmp_path / "job.yaml"
    spec = spec.replace("labels: {cost-center: platform}", f"labels: {{'{key}': v}}")
    spec = spec.replace("../../examples/", f"{ROOT.as_posix()}/examples/")
    path.write_text(spec, encoding="utf-8")
    proc = run_cli("validate", str(path))
    no_traceback(proc)
    assert (proc.returncode == 0) is ok, proc.stdout


def test_values_and_made_values() -> None:
    assert valid_value("") and valid_value("ä-1") and valid_value("値") and not valid_value("A")
    assert not valid_value("x" * 64)
    for text in ("My Stack", "ÉQUIPE Nord", "a/b:c", "x" * 80, "日本語"):
        made = label_value(text)
        assert valid_value(made), made
    assert label_value("Vision Dev/é") == "vision-dev-é"


@pytest.mark.parametrize(("key", "ok"), [("équipe", True), ("Équipe", False), ("日本", True)])
def test_a_stacks_labels_follow_the_same_rule(key: str, ok: bool, tmp_path: Path) -> None:
    stack = (ROOT / "stacks" / "Pulumi.nlp-dev.yaml").read_text(encoding="utf-8")
    path = tmp_path / "Pulumi.x.yaml"
    assert "  trainjobs:labels:\n    env: dev\n" in stack
    path.write_text(stack.replace("  trainjobs:labels:\n    env: dev\n", f"  trainjobs:labels:\n    '{key}': v\n"),
                    encoding="utf-8")
    proc = run_cli("validate", str(path))
    no_traceback(proc)
    assert (proc.returncode == 0) is ok, proc.stdout
    if not ok:
        assert "labels.unicode" in proc.stdout or "not lowercase letters or digits" in proc.stdout
