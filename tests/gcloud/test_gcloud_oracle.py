"""gcloud itself as the oracle: the job gcloud sends equals the request trainjobs builds from the command.

Every command of tests/gcloud/corpus.yaml (the seeds' commands and public ones, each with its
source) runs twice: through ``gcloud`` (offline: a scratch CLOUDSDK_CONFIG points every API at
the stand-in of tests/gcloud/standin.py, which records what gcloud sends), and through
``trainjobs convert --gcloud``'s reading. For AI Platform, the Vertex AI request built from the
command equals the one built from the ``trainingInput`` gcloud sent; for Vertex AI, the request
carries every field gcloud sent, with the same value; a command gcloud refuses is refused by
trainjobs, naming the same flag. gcloud takes seconds per command: one stand-in serves them all.

A command with ``local-package-path`` makes gcloud build an image with ``docker build -f-`` and
push it: a stand-in ``docker`` on PATH keeps the Dockerfile gcloud writes and builds nothing, so
gcloud sends the job. trainjobs packages the folder instead: its pools equal gcloud's, and what
its package runs (image, the file its module is, folder, args) is what the Dockerfile's FROM, COPY
and ENTRYPOINT say (``python3 task.py`` at the top of the folder is ``python -m task`` of a flat
package); what the Dockerfile installs besides is carried (its ``requirements`` entries and
``extra-packages`` files in the spec, requirements.txt by the package) or named in a note
(local_package.py).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from provider.gcloud.build import build
from provider.gcloud.command import GcloudError, Generation, parse
from provider.gcloud.words import ShellError, read_line
from provider.packaging.files import is_flat
from provider.submission.request import build_request
from provider.validation.rules import Context
from provider.validation.validator import check_document

from ..conftest import ROOT
from .standin import StandIn, start, write_config

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(1800),  # the fixture runs every corpus command through gcloud first
    pytest.mark.skipif(shutil.which("gcloud") is None,
                       reason="gcloud is not installed: the gcloud-oracle tests need the Google Cloud CLI"),
]

HERE = Path(__file__).parent
CORPUS = yaml.safe_load((HERE / "corpus.yaml").read_text())
CONFIGS = {p.stem: p for p in (ROOT / "tests" / "fixtures" / "seed_configs").glob("*.yaml")}
CONFIGS.update({p.stem: p for p in (HERE / "configs").glob("*.yaml")})
ENV = {
    "JOB_NAME": "oracle_job", "JOBNAME": "oracle_job", "NOW": "20260101_120000",
    "APP_PACKAGE_PATH": "trainer", "MAIN_APP_MODULE": "trainer.task", "PACKAGE_PATH": "trainer",
    "MODULE_NAME": "trainer.task", "TRAINER_PACKAGE_PATH": "./trainer", "MAIN_TRAINER_MODULE": "trainer.task",
    "JOB_DIR": "gs://oracle-bucket/jobs/oracle_job", "REGION": "us-east1", "RUNTIME_VERSION": "2.4",
    "BUCKET": "oracle-bucket", "BUCKET_NAME": "oracle-bucket", "PACKAGE_STAGING_PATH": "gs://oracle-bucket",
    "HPTUNING_CONFIG": "vanilla_hptuning_config.yaml", "GCP_PROJECT": "standin-project",
}


DOCKERFILE = "Dockerfile.gcloud"
# docker as gcloud calls it for local-package-path: `docker build ... -f- DIR` (the Dockerfile on
# stdin) and `docker push IMAGE`. The stand-in keeps the Dockerfile and builds and pushes nothing.
FAKE_DOCKER = """#!/bin/sh
if [ "$1" = build ]; then
  cat > "$ORACLE_DOCKERFILE"
  for arg; do context=$arg; done
  printf %s "$context" > "$ORACLE_DOCKERFILE.context"
fi
exit 0
"""


@dataclass
class Outcome:
    rc: int
    stderr: str
    sent: dict[str, Any] | None
    path: str = ""  # where gcloud sent the job: a Vertex AI job's region is its locations/REGION


def work_folder(entry: dict[str, Any], base: Path) -> Path:
    """The entry's folder: ./trainer, the configs it names (files:) and a trainer's own files (sources:), as given."""
    work = base / entry["id"]
    (work / "trainer").mkdir(parents=True)
    (work / "trainer" / "__init__.py").write_text("")
    (work / "trainer" / "task.py").write_text("print('hello')\n")
    for name, config in (entry.get("files") or {}).items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(CONFIGS[config], work / name)
    for name, text in (entry.get("sources") or {}).items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text(text)
    return work


def _run_all(entries: list[dict[str, Any]], base: Path, shims: Path) -> dict[str, Outcome]:
    """The entries through gcloud, one after another, against a stand-in (and a gcloud config) of their own."""
    standin: StandIn = start()
    try:
        results: dict[str, Outcome] = {}
        for entry in entries:
            cfg = base / f"cloudsdk-{entry['id']}"  # a config of its own: a command's gcloud config set stays in it
            write_config(cfg, standin.url)
            work = work_folder(entry, base)
            env = {**os.environ, **ENV, **(entry.get("env") or {}), "PWD": str(work), "CLOUDSDK_CONFIG": str(cfg),
                   "PATH": f"{shims}{os.pathsep}{os.environ.get('PATH', '')}", "ORACLE_DOCKERFILE": str(work / DOCKERFILE)}
            before = len(standin.jobs())
            proc = subprocess.run(["bash", "-c", entry["command"]], cwd=work, env=env, capture_output=True,
                                  text=True, timeout=300)
            jobs, paths = standin.jobs(), standin.job_paths()
            sent = len(jobs) > before
            results[entry["id"]] = Outcome(proc.returncode, proc.stderr, jobs[-1] if sent else None,
                                           paths[-1] if sent else "")
        return results
    finally:
        standin.close()


# gcloud takes seconds a command (most of it Python starting): the corpus runs as a few parallel lanes.
LANES = 3


@contextmanager
def oracle_base(prefix: str) -> Iterator[tuple[Path, Path]]:
    """A directory of a module fixture's own (pytest's tmp_path of one test is removed after it), removed
    after: (the base, a repository that holds each command's folder, so local-package-path=. is inside
    it; a folder of shims: a docker gcloud finds on PATH)."""
    holder = tempfile.TemporaryDirectory(prefix=prefix)
    base = Path(holder.name)
    try:
        (base / ".git").mkdir()
        shims = base / "bin"
        shims.mkdir()
        (shims / "docker").write_text(FAKE_DOCKER)
        (shims / "docker").chmod(0o755)
        yield base, shims
    finally:
        holder.cleanup()


@pytest.fixture(scope="module")
def gcloud_runs() -> Iterator[tuple[dict[str, Outcome], Path]]:
    """Every corpus command through gcloud, against stand-ins; the results by id."""
    from concurrent.futures import ThreadPoolExecutor

    with oracle_base("trainjobs-oracle-") as (base, shims):
        lanes = [CORPUS[i::LANES] for i in range(LANES)]
        results: dict[str, Outcome] = {}
        with ThreadPoolExecutor(LANES) as pool:
            for done in pool.map(lambda lane: _run_all(lane, base, shims), [lane for lane in lanes if lane]):
                results.update(done)
        yield results, base


def _convert(entry: dict[str, Any], work: Path) -> tuple[dict[str, Any], Generation, list[str]]:
    env = {**ENV, **(entry.get("env") or {}), "PWD": str(work)}
    old = Path.cwd()
    try:
        os.chdir(work)  # files the command names (--config, --flags-file) are read from where it runs
        line = read_line(entry["command"], env)
        cmd = parse(line.words, line.properties)  # the gcloud config set before it, as gcloud applies them
        built = build(cmd, work, heres=line.heres)  # a config the script writes with a here-document: as bash does
    finally:
        os.chdir(old)
    spec = built.document["spec"]
    if isinstance(spec.get("packagePath"), str):
        spec["packagePath"] = str(work / spec["packagePath"])
    if isinstance(spec.get("packages"), list):  # --packages' local files, as convert --gcloud relocates them
        spec["packages"] = [p if p.startswith("gs://") else str(work / p) for p in spec["packages"]]
    return built.document, cmd.generation, built.notes


def _request(document: dict[str, Any], uris: list[str] | None,
             ctx: Context | None = None) -> tuple[dict[str, Any] | None, list[str]]:
    result = check_document(document, "<oracle>", ctx or Context())
    errors = sorted(p.message for p in result.problems if p.is_error)
    if errors or result.job is None:
        return None, errors
    return build_request(result.job, "standin-project", package_uris=uris).body, []


def _int64(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _int64(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_int64(v) for v in value]
    return int(value) if isinstance(value, str) and value.isdigit() else value


def _proto3_default(value: Any) -> bool:
    """A value Vertex AI cannot tell from an absent field: proto3 scalars (no presence) at their default."""
    return value in (False, 0, "", [], {}) or (isinstance(value, str) and value.endswith("_UNSPECIFIED"))


def json_names(kind: str, sent: dict[str, Any]) -> dict[str, Any]:
    """What gcloud sent as the REST API reads it: a key that is a field's proto name (gcloud passes an
    unknown key through as written) by the field's JSON name, from the installed v1 descriptors."""
    if kind == "aip":
        return sent
    from google.cloud import aiplatform_v1

    def walk(descriptor: Any, value: Any) -> Any:
        if not isinstance(value, dict) or descriptor is None or descriptor.GetOptions().map_entry \
                or descriptor.full_name.startswith("google.protobuf."):
            return value
        fields = {f.name: f for f in descriptor.fields} | {f.json_name: f for f in descriptor.fields}
        out = {}
        for key, item in value.items():
            f = fields.get(key)
            inner = f.message_type if f is not None else None
            out[f.json_name if f is not None else key] = (
                [walk(inner, v) for v in item] if isinstance(item, list) else walk(inner, item))
        return out

    message = aiplatform_v1.HyperparameterTuningJob if kind == "tuning" else aiplatform_v1.CustomJob
    return dict(walk(message.pb().DESCRIPTOR, sent))


def _carries(sent: Any, ours: Any, where: str) -> None:
    if isinstance(sent, dict):
        assert isinstance(ours, dict), f"{where}: gcloud sent a mapping, trainjobs has {ours!r}"
        for key, value in sent.items():
            assert key in ours, f"{where}.{key}: gcloud sent {value!r}, trainjobs's request lacks it"
            _carries(value, ours[key], f"{where}.{key}")
    else:
        assert ours == sent, f"{where}: gcloud sent {sent!r}, trainjobs's request has {ours!r}"


@pytest.mark.parametrize("entry", CORPUS, ids=[e["id"] for e in CORPUS])
def test_trainjobs_reads_the_command_as_gcloud_does(entry: dict[str, Any],
                                                    gcloud_runs: tuple[dict[str, Outcome], Path]) -> None:
    results, base = gcloud_runs
    outcome = results[entry["id"]]
    work = base / entry["id"]
    if entry.get("refused"):
        assert outcome.rc != 0 and outcome.sent is None, f"gcloud accepted it: {outcome.stderr}"
        assert entry["refused"] in outcome.stderr
        ours = entry.get("trainjobs_refuses", entry["refused"])  # where trainjobs words the same refusal its own way
        try:
            document, _, _ = _convert(entry, work)
        except (GcloudError, ShellError) as exc:
            assert ours in str(exc), f"gcloud: {outcome.stderr}\ntrainjobs: {exc}"
            return
        # read, then refused by the spec's validation (convert --gcloud prints these and writes no spec)
        _, errors = _request(document, None)
        assert any(ours in e for e in errors), f"gcloud: {outcome.stderr}\ntrainjobs: {errors}"
        return
    assert outcome.sent is not None, f"gcloud sent no job (rc {outcome.rc}): {outcome.stderr[-2000:]}"
    if entry.get("not_converted"):  # gcloud takes it; trainjobs cannot build it, and says why in one message
        with pytest.raises(GcloudError) as refused:
            _convert(entry, work)
        assert entry["not_converted"] in str(refused.value)
        return
    document, generation, notes = _convert(entry, work)
    if generation is not Generation.AI_PLATFORM:  # the region: in the path gcloud sent the job to (ai/region too)
        assert f"/locations/{document['spec'].get('region')}/" in outcome.path, (outcome.path, document["spec"])
    if entry.get("invalid"):  # gcloud sends it; Vertex AI refuses the job, and trainjobs says why before sending
        _, errors = _request(document, None)
        assert any(entry["invalid"] in e for e in errors), errors
        return
    if "local-package-path" in entry["command"]:
        context = work / (work / f"{DOCKERFILE}.context").read_text()
        _runs_what_the_image_runs(outcome.sent, document, notes, (work / DOCKERFILE).read_text(), context)
    elif generation is Generation.AI_PLATFORM:
        ti = outcome.sent["trainingInput"]
        local = [p for p in document["spec"].get("packages", []) if not p.startswith("gs://")]
        uploaded = ti.get("packageUris") if "packagePath" in document["spec"] or local else None
        ours, our_errors = _request(document, uploaded)
        from_gcloud = {"apiVersion": "trainjobs/v1", "kind": "TrainingJob",
                       "metadata": {"name": document["metadata"]["name"]},
                       "spec": {"trainingInput": ti, **({"labels": outcome.sent["labels"]}
                                                         if "labels" in outcome.sent else {})}}
        theirs, their_errors = _request(from_gcloud, None)
        assert our_errors == their_errors
        # gcloud sent it: a refusal of trainjobs' own must be declared (invalid:, with the reason), never pass as
        # "both readings refused alike"
        assert not our_errors, f"gcloud sends it and trainjobs refuses it; the corpus must say invalid: {our_errors}"
        assert ours == theirs
    else:
        ours, our_errors = _request(document, None)
        assert not our_errors, our_errors
        assert ours is not None
        _carries(_int64(json_names("custom", outcome.sent)), _int64(ours), "CustomJob")


def _image(dockerfile: str) -> tuple[str, str, str, list[str]]:
    """(FROM, the folder COPYed, the file ENTRYPOINT runs, what RUN pip installs) of gcloud's Dockerfile,
    the folder and the file relative to the build context (local-package-path)."""
    lines = [ln.strip() for ln in dockerfile.splitlines()]
    base = next(ln.split()[1] for ln in lines if ln.startswith("FROM "))
    # build.py _PreparePackageEntry: this comment, then the COPY of the folder that holds the script
    copy = lines[lines.index("# Copy the source directory into the docker container.") + 1]
    folder = json.loads(copy[len("COPY "):])[0]
    entry = json.loads(next(ln for ln in lines if ln.startswith("ENTRYPOINT "))[len("ENTRYPOINT "):])
    file = entry[2].replace(".", "/") + ".py" if entry[1] == "-m" else entry[1]
    # build.py _DependencyEntries: RUN pip install ... ARG, the argument shell-quoted (shlex_quote)
    installs = [shlex.split(ln)[-1] for ln in lines if ln.startswith("RUN pip") and ln.split()[-1] != "."]
    return base, folder, file, installs


def _our_file(path: Path, module: str) -> Path:
    """The file ``python -m MODULE`` runs from the package built from ``path`` (packaging's layout)."""
    top = path if is_flat(path) else path.parent
    return (top / (module.replace(".", "/") + ".py")).resolve()


def _runs_what_the_image_runs(sent: dict[str, Any], document: dict[str, Any], notes: list[str],
                              dockerfile: str, context: Path) -> None:
    ours, errors = _request(document, ["gs://oracle-bucket/package.tar.gz"], Context(staging_bucket="gs://oracle-bucket"))
    assert ours is not None, errors
    base, folder, file, installs = _image(dockerfile)
    spec, their_spec = ours["jobSpec"], _int64(sent["jobSpec"])
    assert ours["displayName"] == sent["displayName"]
    for key, value in their_spec.items():
        if key != "workerPoolSpecs":
            _carries(value, _int64(spec.get(key)), f"CustomJob.jobSpec.{key}")
    theirs = [p for p in their_spec["workerPoolSpecs"] if p]
    assert len(theirs) == len(spec["workerPoolSpecs"])
    path = Path(document["spec"]["application"]["pythonPackage"]["path"])
    for i, (their_pool, our_pool) in enumerate(zip(theirs, _int64(spec["workerPoolSpecs"]), strict=True)):
        assert our_pool["machineSpec"] == their_pool["machineSpec"], f"pool {i}"
        assert our_pool["replicaCount"] == their_pool.get("replicaCount", 1), f"pool {i}"
        package = our_pool["pythonPackageSpec"]
        assert package.get("args") == their_pool["containerSpec"].get("args"), f"pool {i}"
        assert package["executorImageUri"] == base, f"pool {i}"
        # the same file runs: gcloud's entrypoint in its copy of the folder, python -m MODULE from trainjobs's package
        assert _our_file(path, package["pythonModule"]) == (context / file).resolve(), f"pool {i}"
    assert path.resolve() == (context / folder).resolve()  # the folder gcloud copies is the one packaged
    package = document["spec"]["application"]["pythonPackage"]
    for installed in installs:
        if installed == "./requirements.txt":  # DIR/requirements.txt: carried by the package, or a note says not
            assert any("requirements.txt" in n and ("not kept" in n or "installed with the package" in n)
                       for n in notes), (installed, notes)
            continue
        # a requirements= entry is carried as it is written; an extra-packages file (COPYed to the image under
        # its base name, then installed) is carried as that very file of the build context
        copies = [json.loads(ln[len("COPY "):]) for ln in dockerfile.splitlines() if ln.startswith("COPY [")]
        copied = [source for source, target in copies if target == installed]
        carried = installed in package.get("requirements", []) or any(
            Path(p).resolve() == (context / c).resolve() for c in copied for p in package.get("extraPackages", []))
        assert carried, (installed, package)
    wanted = len(package.get("requirements", [])) + len(package.get("extraPackages", []))
    assert wanted == len([i for i in installs if i != "./requirements.txt"]), (installs, package)
