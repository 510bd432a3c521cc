"""Backends as registered types: no name compared outside the backends, every declaration complete and
used where it is read (the stack schema, the validation target, the settings, opening, team infrastructure)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from provider.core.backend_registry import REGISTRY, UnknownBackend, backend_type, capabilities, kinds
from provider.core.backend_types import BackendKind, Ref
from provider.stack.config import StackConfig
from tests.conftest import ROOT

PROVIDER = ROOT / "provider"
# Where a backend's name may be compared: the backends themselves, and the registry that declares them.
ALLOWED = (PROVIDER / "backends", PROVIDER / "core" / "backend_registry.py")


def _names(node: ast.AST) -> list[str]:
    """The registered backend names ``node`` is or holds (a constant, or a tuple, list or set of them)."""
    names = set(kinds())
    if isinstance(node, ast.Constant) and node.value in names:
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [e.value for e in node.elts if isinstance(e, ast.Constant) and e.value in names]
    return []


def name_comparisons(source: str) -> list[tuple[int, str]]:
    """Every comparison (==, !=, in, a match case) of a value against a registered backend's name."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            for operand in (node.left, *node.comparators):
                found += [(node.lineno, name) for name in _names(operand)]
        elif isinstance(node, ast.MatchValue):
            found += [(node.lineno, name) for name in _names(node.value)]
    return found


def test_no_backend_name_is_compared_outside_the_backends() -> None:
    offenders = []
    for path in sorted(PROVIDER.rglob("*.py")):
        if any(path == a or a in path.parents for a in ALLOWED):
            continue
        for line, name in name_comparisons(path.read_text(encoding="utf-8")):
            offenders.append(f"{path.relative_to(ROOT)}:{line}: compares with {name!r}")
    assert offenders == [], "ask provider.core.backend_registry.capabilities(kind) instead:\n" + "\n".join(offenders)


@pytest.mark.parametrize("code", [
    'if stack.backend == "vertex": pass',
    'billed = "local" != config.backend',
    'remote = job.backend not in ("local",)',
    'match kind:\n    case "vertex": pass',
])
def test_the_check_finds_each_form_of_comparison(code: str) -> None:
    assert name_comparisons(code), code


def test_a_name_that_is_not_compared_is_not_reported() -> None:
    assert name_comparisons('for table in ("ai_platform", "vertex"): pass\nx = counts("vertex")') == []


def test_every_declaration_names_code_that_exists() -> None:
    for declared in REGISTRY:
        settings = declared.settings.load()
        for method in ("of_stack", "of_props", "open", "where"):
            assert callable(getattr(settings, method, None)), (declared.kind, method)
        assert callable(declared.team_infra.load()), declared.kind
        from provider.validation.rules import Target

        assert Target(declared.validation_target) in (Target.LOCAL, Target.VERTEX)
        assert declared.settings.startswith(f"provider.backends.{declared.kind}."), "in the backend's own package"


def test_a_kind_is_open_and_an_unknown_one_says_which_exist() -> None:
    assert BackendKind("gke") == "gke" and repr(BackendKind("gke")) == "BackendKind('gke')"
    with pytest.raises(UnknownBackend, match="unknown backend 'gke': local or vertex"):
        capabilities("gke")
    with pytest.raises(ValueError, match="'nothing' is not a reference"):
        Ref("nothing").load()


def test_the_stack_schema_takes_each_types_keys_and_requirements() -> None:
    from provider.stack.schema import stack_schema

    config = stack_schema()["properties"]["config"]
    assert config["properties"]["trainjobs:backend"]["enum"] == list(kinds())
    for declared in REGISTRY:
        for key in declared.stack_keys:
            assert config["properties"][key] == dict(declared.stack_keys[key])
    conditions = {c["if"]["properties"]["trainjobs:backend"]["const"]: c["then"]["required"] for c in config["allOf"]}
    assert conditions == {t.kind: list(t.required_keys) for t in REGISTRY if t.required_keys}


def _stack(kind: str) -> StackConfig:
    return StackConfig(name=f"t-{kind}", backend=BackendKind(kind), team="t", region="us-central1", specs=(),
                       project="p-project")


def test_a_stacks_validation_target_is_its_types_and_the_strictest_of_several() -> None:
    from provider.stack.check import context_for
    from provider.validation.rules import Target

    for declared in REGISTRY:
        assert context_for(_stack(declared.kind)).target is Target(declared.validation_target)
    assert context_for([_stack("local"), _stack("vertex")]).target is Target.VERTEX
    assert context_for(None).target is Target.ANY


def test_capabilities_decide_what_callers_used_to_decide_by_name() -> None:
    from provider.submission.stack_request import team_account

    for declared in REGISTRY:
        stack = _stack(declared.kind)
        caps = declared.capabilities
        assert (team_account(stack) is not None) is caps.service_accounts
        assert stack.bucket.startswith("p-project-") is caps.needs_project
    assert backend_type("local").capabilities.billed is False and capabilities("vertex").billed is True


def test_the_registry_imports_no_backend() -> None:
    code = ("import sys, provider.core.backend_registry as r; r.capabilities('vertex'); "
            "print([m for m in sys.modules if m.startswith('provider.') and not m.startswith('provider.core')])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT,
                         timeout=120).stdout.strip()
    assert out == "[]"


def test_the_readme_says_what_adding_a_backend_touches() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Adding a backend", 1)[1].split("\n## ", 1)[0]
    for needed in ("provider/backends/", "provider/core/backend_registry.py", "pyproject.toml",
                   "tests/test_backend_conformance.py"):
        assert needed in section, needed
    assert Path(ROOT / "provider" / "core" / "backend_registry.py").is_file()
