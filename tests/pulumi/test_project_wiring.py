"""What `pulumi up` relies on besides the program: Pulumi.yaml, the virtualenv's requirements,
and the stack files where the engine looks for them."""

from __future__ import annotations

import ast
import re
import tomllib

import yaml

from .conftest import ROOT


def test_pulumi_yaml_runs_the_program_in_the_projects_virtualenv() -> None:
    project = yaml.safe_load((ROOT / "Pulumi.yaml").read_text())
    assert project["name"] == "trainjobs"
    assert project["runtime"] == {"name": "python", "options": {"toolchain": "pip", "virtualenv": ".venv"}}
    assert project["stackConfigDir"] == "stacks"
    assert (ROOT / "__main__.py").is_file()  # the python runtime's entry point: the project directory
    for stack in ("local", "vision-dev", "vision-prod", "nlp-dev"):
        assert (ROOT / "stacks" / f"Pulumi.{stack}.yaml").is_file()


def test_requirements_install_everything_the_program_imports() -> None:
    """When `pulumi up` creates .venv itself, it installs requirements.txt: that must cover the
    program's imports, at the pinned versions."""
    lines = [ln.strip() for ln in (ROOT / "requirements.txt").read_text().splitlines()
             if ln.strip() and not ln.startswith("#")]
    assert "-c constraints.txt" in lines
    (editable,) = [ln for ln in lines if ln.startswith("-e ")]
    extras = set(re.fullmatch(r"-e \.\[(.*)\]", editable).group(1).split(","))  # type: ignore[union-attr]
    optional = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    installed = {re.split(r"[<>=\[ ]", d)[0].lower() for e in extras for d in optional[e]}
    imported = set()
    for path in [ROOT / "__main__.py", *(ROOT / "provider" / "resources").glob("*.py")]:  # program.py is there
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                imported |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                imported.add(node.module.split(".")[0])
    third_party = {m for m in imported if m in {"pulumi", "pulumi_gcp", "pulumi_docker_build", "google"}}
    assert third_party >= {"pulumi", "pulumi_gcp", "pulumi_docker_build"}
    for module in third_party - {"google"}:
        assert module.replace("_", "-") in installed, module
    constraints = (ROOT / "constraints.txt").read_text()
    for dist in ("pulumi", "pulumi[-_]gcp", "pulumi[-_]docker[-_]build"):
        assert re.search(rf"^{dist}==", constraints, re.M), dist
