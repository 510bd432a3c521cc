"""Run the Pulumi program (__main__.py) under pulumi mocks, as ``pulumi up`` would, without the CLI.

    python -m tests.pulumi.harness STACK [--config-json JSON] [--forward-dynamic]

prints a JSON report: every resource registered (type, name, inputs, parent, dependencies,
secret outputs), the outputs the mocks returned, and the stack's exports. Each run is a fresh
process, because Pulumi's runtime (and its mocks) is global to a process.

With --forward-dynamic, the program's dynamic resources are not mocked: the mock monitor hands
them to the SDK's real provider host (python -u -m pulumi.dynamic) over gRPC, Check then Create,
exactly as the engine does, so the program, the SDK, the provider and the backend run together.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import runpy
import sys
from pathlib import Path
from typing import Any

import pulumi
import yaml
from pulumi.runtime import mocks as mock_runtime
from pulumi.runtime import rpc

ROOT = Path(__file__).resolve().parents[2]
DYNAMIC = "pulumi-python:dynamic/"


class Recording(mock_runtime.MockMonitor):
    """The SDK's mock monitor, also recording what the engine sees of each registration."""

    def __init__(self, mocks: mock_runtime.Mocks) -> None:
        super().__init__(mocks)
        self.registrations: list[dict[str, Any]] = []

    def RegisterResource(self, request: Any) -> Any:
        response = super().RegisterResource(request)
        if request.type != "pulumi:pulumi:Stack":
            self.registrations.append({
                "urn": response.urn,
                "type": request.type,
                "name": request.name,
                "parent": request.parent,
                "custom": request.custom,
                "dependencies": sorted(request.dependencies),
                "additionalSecretOutputs": sorted(request.additionalSecretOutputs),
                "deleteBeforeReplace": request.deleteBeforeReplace,
                "customTimeouts": {"create": request.customTimeouts.create, "update": request.customTimeouts.update,
                                   "delete": request.customTimeouts.delete},
                "id": response.id,
            })
        return response



def _unknown(value: Any) -> bool:
    from pulumi.output import Unknown

    return isinstance(value, Unknown)


def plain(value: Any) -> Any:
    """Secrets unwrapped (and marked), unknowns as the engine's sentinel, for the JSON report."""
    if _unknown(value):
        return rpc.UNKNOWN
    if isinstance(value, dict):
        if value.get(rpc._special_sig_key) == rpc._special_secret_sig:
            return {"__secret__": plain(value["value"])}
        return {k: plain(v) for k, v in value.items() if k != "__provider"}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def engine_inputs(value: Any) -> Any:
    """Inputs as the engine would send them to the provider: secrets unwrapped, the provider kept,
    unknowns (a preview) as the engine's sentinel."""
    if _unknown(value):
        return rpc.UNKNOWN
    if isinstance(value, dict):
        if value.get(rpc._special_sig_key) == rpc._special_secret_sig:
            return engine_inputs(value["value"])
        return {k: engine_inputs(v) for k, v in value.items()}
    if isinstance(value, list):
        return [engine_inputs(v) for v in value]
    return value


# In a preview, what these resources compute is not known yet (an image being built, an account
# being created): the mocks answer with the engine's unknown sentinel, as the engine does.
PREVIEW_UNKNOWN = {
    "docker-build:index:Image": ("digest", "ref"),
    "gcp:serviceaccount/account:Account": ("email", "member", "name"),
}


class Warnings(logging.Handler):
    """What the program logs to the engine (pulumi.log.warn), as the mock engine passes it on."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


class Mocks(mock_runtime.Mocks):
    def __init__(self, forward: Any | None, preview: bool = False, wait_notice: str = "") -> None:
        self.forward = forward
        self.preview = preview
        self.wait_notice = wait_notice
        self.created: dict[str, dict[str, Any]] = {}
        self.dynamic_inputs: dict[str, dict[str, Any]] = {}

    def new_resource(self, args: mock_runtime.MockResourceArgs) -> tuple[str | None, dict[str, Any]]:
        inputs = dict(args.inputs)
        t, name = args.typ, args.name
        if t.startswith(DYNAMIC):
            self.dynamic_inputs[name] = engine_inputs(inputs)
        if t.startswith(DYNAMIC) and self.forward is not None:
            id_, outs = self.forward.check_and_create(inputs)
            self.created[name] = {"type": t, "inputs": plain(inputs), "outputs": plain(outs)}
            return id_, outs
        outs = dict(inputs)
        if t == "gcp:storage/bucket:Bucket":
            outs["url"] = f"gs://{inputs['name']}"
            id_ = inputs["name"]
        elif t == "gcp:artifactregistry/repository:Repository":
            id_ = f"projects/{inputs['project']}/locations/{inputs['location']}/repositories/{inputs['repositoryId']}"
            outs["name"] = inputs["repositoryId"]
        elif t == "gcp:serviceaccount/account:Account":
            email = f"{inputs['accountId']}@{inputs['project']}.iam.gserviceaccount.com"
            outs.update(email=email, member=f"serviceAccount:{email}",
                        name=f"projects/{inputs['project']}/serviceAccounts/{email}")
            id_ = outs["name"]
        elif t == "gcp:projects/serviceIdentity:ServiceIdentity":
            email = f"service-123456789012@gcp-sa-{inputs['service'].split('.')[0]}.iam.gserviceaccount.com"
            outs.update(email=email, member=f"serviceAccount:{email}")
            id_ = f"projects/{inputs['project']}/services/{inputs['service']}"
        elif t == "docker-build:index:Image":
            # The mock "builds" the image: its digest follows its tag, which carries the context's digest.
            tag = inputs["tags"][0]
            digest = "sha256:" + hashlib.sha256(tag.encode()).hexdigest()
            outs.update(digest=digest, ref=f"{tag}@{digest}")
            id_ = tag
        elif t.startswith(DYNAMIC + "trainjobs:TrainingJob"):
            id_ = f"mock-{name}"
            outs.update(jobId=id_, state="QUEUED", consoleUrl="", outputDir="", error="",
                        waitNotice=self.wait_notice.format(name=name))
        elif t.startswith(DYNAMIC):
            id_ = f"mock-{name}"
            outs["path"] = f"/mock/{name}"
        else:
            id_ = f"{name}-id"
        if self.preview:
            outs.update(dict.fromkeys(PREVIEW_UNKNOWN.get(t, ()), rpc.UNKNOWN))
        self.created[name] = {"type": t, "inputs": plain(inputs), "outputs": plain(outs)}
        return id_, outs

    def call(self, args: mock_runtime.MockCallArgs) -> tuple[dict[str, Any], list[tuple[str, str]]]:
        if args.token == "gcp:organizations/getProject:getProject":
            return {"number": "123456789012", "projectId": args.args.get("projectId")}, []
        if args.token == "gcp:organizations/getClientConfig:getClientConfig":
            return {"accessToken": "mock-access-token", "project": "p", "region": "r", "zone": "z", "id": "x"}, []
        raise NotImplementedError(f"no mock for {args.token}")


def stack_config(stack: str, project: Path = ROOT) -> dict[str, str]:
    """What the engine passes: {"ns:key": "string"}, structured values as JSON."""
    data = yaml.safe_load((project / "stacks" / f"Pulumi.{stack}.yaml").read_text())
    out = {}
    for key, value in (data.get("config") or {}).items():
        out[key] = value if isinstance(value, str) else json.dumps(value)
    return out


def run(stack: str, config: dict[str, str] | None, forward: Any | None, secret_keys: list[str],
        project: Path = ROOT, preview: bool = False, wait_notice: str = "") -> dict[str, Any]:
    mocks = Mocks(forward, preview, wait_notice)
    monitor = Recording(mocks)
    logger = logging.getLogger("trainjobs.harness")
    warnings = Warnings()
    logger.addHandler(warnings)
    logger.propagate = False
    mock_runtime.set_mocks(mocks, project="trainjobs", stack=stack, preview=preview, monitor=monitor, logger=logger)
    pulumi.runtime.set_all_config(config if config is not None else stack_config(stack, project), secret_keys)
    os.chdir(project)
    error = None

    @mock_runtime.test
    def program() -> None:
        runpy.run_path(str(project / "__main__.py"), run_name="__main__")

    exports: dict[str, Any] = {}

    @mock_runtime.test
    def read_exports() -> Any:
        from pulumi.runtime.settings import get_root_resource

        root = get_root_resource()
        return pulumi.Output.from_input(dict(root.outputs)).apply(exports.update)  # type: ignore[union-attr]

    try:
        program()
        read_exports()
    except Exception as exc:
        import traceback

        error = f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}"
    return {
        "error": error,
        "registrations": monitor.registrations,
        "resources": mocks.created,
        "exports": plain(exports),
        "dynamicInputs": mocks.dynamic_inputs,
        "warnings": warnings.messages,
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("stack")
    parser.add_argument("--config-json")
    parser.add_argument("--secret-keys", default="[]")
    parser.add_argument("--forward-dynamic", action="store_true")
    parser.add_argument("--out", required=True, help="where to write the JSON report")
    parser.add_argument("--project", default=str(ROOT), help="the project directory (Pulumi.yaml, stacks/, specs/)")
    parser.add_argument("--preview", action="store_true", help="a preview: built images and accounts unknown")
    parser.add_argument("--wait-notice", default="", help="the waitNotice each job's create returns ({name})")
    args = parser.parse_args()
    forward = None
    if args.forward_dynamic:
        from tests.pulumi.host import ProviderHost

        forward = ProviderHost(cwd=Path(args.project))  # the engine starts providers in the program's directory
    try:
        report = run(args.stack, json.loads(args.config_json) if args.config_json else None, forward,
                     json.loads(args.secret_keys), Path(args.project), args.preview, args.wait_notice)
    finally:
        if forward is not None:
            forward.close()
    Path(args.out).write_text(json.dumps(report, default=str))
    sys.stdout.flush()
    os._exit(0)  # skip interpreter teardown: the SDK's event loops complain noisily at exit


if __name__ == "__main__":
    sys.exit(main())
