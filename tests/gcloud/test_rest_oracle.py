"""gcloud as the oracle for REST bodies and describe outputs: ``trainjobs convert FILE`` sends what gcloud sends.

Each case of tests/gcloud/rest_corpus.yaml is a public REST request body (customJobs.create,
hyperparameterTuningJobs.create, AI Platform projects.jobs.create) or a ``describe`` output (or the
service's answer to a create, which is the same resource), kept as written under tests/gcloud/rest/
with its source. The part of it gcloud can take becomes gcloud's input: a CustomJob's ``jobSpec``, a
tuning job's ``studySpec``/``trialJobSpec``/counts, a Job's ``trainingInput``, each as a ``--config``,
with the job's own fields as flags (``--display-name``, ``--labels``, ``--kms-key``, the job id;
``--region`` from the resource name, the ``trainingInput``, or the case's ``region``, the URL's
location of a REST call). gcloud sends its job to the stand-in (standin.py); trainjobs converts the
ORIGINAL file (``convert FILE --output request``, ``--region`` only where the file cannot name it),
and its request must carry every field gcloud sent, with the same value (for AI Platform: equal the
Vertex AI request built from the ``trainingInput`` gcloud sent). Then what REST carries beside
gcloud's part is compared field by field with the original: every field of the body, less the
fields the service sets (provider.cli.convert.OUTPUT_ONLY, named in a note), is in the request as
written. A case gcloud refuses is refused by trainjobs, naming the same field (``refused``); a case
gcloud sends and Vertex AI would refuse or could not run is refused by trainjobs with the reason
(``invalid``), or that trainjobs does not read yet, refused by name (``not_read``). Where gcloud's own flags refuse what the REST API takes (``gcloud_refuses`` alone),
the original body is the reference.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from provider.cli.convert import OUTPUT_ONLY

from ..conftest import no_traceback, run_cli
from ..test_api_fields import _canonical
from .test_gcloud_oracle import LANES, Outcome, _carries, _int64, _request, _run_all, json_names

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(1800),  # the fixture runs every case through gcloud first
    pytest.mark.skipif(shutil.which("gcloud") is None,
                       reason="gcloud is not installed: the gcloud-oracle tests need the Google Cloud CLI"),
]

HERE = Path(__file__).parent
FILES = HERE / "rest"
CORPUS: list[dict[str, Any]] = yaml.safe_load((HERE / "rest_corpus.yaml").read_text())
AIP_FLAGS = {"--module-name": "pythonModule", "--runtime-version": "runtimeVersion", "--python-version": "pythonVersion"}
TUNING_FIELDS = ("studySpec", "trialJobSpec", "maxTrialCount", "parallelTrialCount", "maxFailedTrialCount")


def _original(entry: dict[str, Any]) -> dict[str, Any]:
    text = (FILES / entry["file"]).read_text(encoding="utf-8-sig")  # a byte order mark, as PowerShell 5 writes one
    data: dict[str, Any] = json.loads(text) if entry["file"].endswith(".json") else yaml.safe_load(text)
    return data


def _kind(data: dict[str, Any]) -> str:
    return "tuning" if "studySpec" in data else "aip" if "trainingInput" in data else "custom"


def _region(entry: dict[str, Any], data: dict[str, Any]) -> str:
    name = data.get("name") or ""
    if name.startswith("projects/") and "/locations/" in name:
        return str(name.split("/")[3])
    if isinstance(data.get("trainingInput"), dict) and data["trainingInput"].get("region"):
        return str(data["trainingInput"]["region"])
    return str(entry["region"])


def _job_flags(data: dict[str, Any]) -> list[str]:
    flags = []
    if data.get("labels"):
        flags.append("--labels=" + ",".join(f"{k}={v}" for k, v in data["labels"].items()))
    if isinstance(data.get("encryptionSpec"), dict):
        flags.append(f"--kms-key={data['encryptionSpec']['kmsKeyName']}")
    return flags


def gcloud_command(entry: dict[str, Any], data: dict[str, Any]) -> tuple[str, str]:
    """(the gcloud command line, its --config text) for the part of ``data`` gcloud takes."""
    kind, region = entry.get("kind") or _kind(data), _region(entry, data)
    if kind == "aip":
        # as_config: the file, as written, is what its author gave gcloud's --config
        config = data if entry.get("as_config") else {"trainingInput": data["trainingInput"]}
        head = ["gcloud", "ai-platform", "jobs", "submit", "training", data.get("jobId") or "oracle_job",
                f"--region={region}"]
        # gcloud takes a job's packages from --packages only ("Non-custom jobs must have packages")
        uris = config.get("trainingInput", {}).get("packageUris")
        head += [f"--packages={','.join(uris)}"] if uris else []
    else:
        config = data if entry.get("as_config") else data["jobSpec"] if kind == "custom" \
            else {k: data[k] for k in TUNING_FIELDS if k in data}
        group = "custom-jobs" if kind == "custom" else "hp-tuning-jobs"
        head = ["gcloud", "ai", group, "create", f"--region={region}",
                f"--display-name={data.get('displayName') or 'oracle-job'}"]
    line = head + _job_flags(data) + [*entry.get("flags", []), "--config=config.yaml"]
    # command: the author's own gcloud line, where it is part of the case
    return entry.get("command") or shlex.join(line), yaml.dump(config, Dumper=_Dumper, sort_keys=False)


class _Dumper(yaml.SafeDumper):
    """PyYAML writes the string '1e-4' plain (its float needs a dot), which gcloud's YAML 1.1 reader takes for a
    number: such a string is written quoted, so gcloud's --config holds the string the body holds."""


_EXPONENT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)[eE][-+]?[0-9]+")
_Dumper.add_representer(str, lambda dumper, text: dumper.represent_scalar(
    "tag:yaml.org,2002:str", text, style="'" if _EXPONENT.fullmatch(text) else None))


@pytest.fixture(scope="module")
def gcloud_runs() -> Iterator[dict[str, Outcome]]:
    from concurrent.futures import ThreadPoolExecutor

    holder = tempfile.TemporaryDirectory(prefix="trainjobs-rest-oracle-")
    base = Path(holder.name)
    try:
        (base / "bin").mkdir()
        entries = []
        for entry in CORPUS:
            command, config = gcloud_command(entry, _original(entry))
            entries.append({"id": entry["id"], "command": command, "sources": {"config.yaml": config}})
        lanes = [entries[i::LANES] for i in range(LANES)]
        results: dict[str, Outcome] = {}
        with ThreadPoolExecutor(LANES) as pool:
            for done in pool.map(lambda lane: _run_all(lane, base, base / "bin"), [lane for lane in lanes if lane]):
                results.update(done)
        yield results
    finally:
        holder.cleanup()


def _convert(entry: dict[str, Any], data: dict[str, Any]) -> tuple[int, str, dict[str, Any] | None]:
    """trainjobs convert of the original file: (exit code, stderr, the request)."""
    named = bool(data.get("name")) or bool((data.get("trainingInput") or {}).get("region"))
    region = [] if named else ["--region", _region(entry, data)]
    proc = run_cli("convert", str(FILES / entry["file"]), *region, *entry.get("convert_flags", []),
                   "--output", "request")
    no_traceback(proc)
    return proc.returncode, proc.stderr, json.loads(proc.stdout) if proc.returncode == 0 else None


def _without_output_only(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k not in OUTPUT_ONLY}


@pytest.mark.parametrize("entry", CORPUS, ids=[e["id"] for e in CORPUS])
def test_convert_sends_what_gcloud_sends(entry: dict[str, Any], gcloud_runs: dict[str, Outcome]) -> None:
    data = _original(entry)
    outcome = gcloud_runs[entry["id"]]
    rc, stderr, request = _convert(entry, data)
    if entry.get("refused"):
        assert outcome.sent is None and outcome.rc != 0, f"gcloud accepted it: {outcome.sent}"
        assert entry.get("gcloud_refuses", entry["refused"]) in outcome.stderr, outcome.stderr
        assert rc == 1 and entry["refused"] in stderr, stderr
        return
    sent = outcome.sent
    if entry.get("gcloud_refuses"):  # gcloud's flags refuse what the REST API takes: the original is the reference
        assert sent is None and entry["gcloud_refuses"] in outcome.stderr, outcome.stderr
        sent = _without_output_only(data)
        if "trainingInput" in sent:  # with the flags of the case, where gcloud would put them
            flags = dict(f.split("=", 1) for f in entry.get("flags", []))
            sent["trainingInput"] = {**sent["trainingInput"], **{
                field: flags[flag] for flag, field in AIP_FLAGS.items() if flag in flags}}
    assert sent is not None, f"gcloud sent no job (rc {outcome.rc}): {outcome.stderr[-2000:]}"
    refusal = entry.get("invalid") or entry.get("not_read")
    if refusal:
        assert rc == 1 and refusal in stderr, stderr
        return
    assert rc == 0 and request is not None, stderr
    if entry.get("warned"):
        assert entry["warned"] in stderr, stderr
    body = request["body"]
    assert request["parent"].endswith(f"/locations/{_region(entry, data)}")
    kind = _kind(data)
    if kind == "aip":
        spec = {"trainingInput": sent["trainingInput"], **({"labels": sent["labels"]} if "labels" in sent else {})}
        theirs, errors = _request({"apiVersion": "trainjobs/v1", "kind": "TrainingJob",
                                   "metadata": {"name": data.get("jobId") or "oracle_job"}, "spec": spec}, None)
        assert not errors, errors
        assert theirs is not None
        theirs["displayName"] = body["displayName"]  # the job id, as trainjobs names the Vertex AI job
        assert body == theirs
        return
    _carries(_int64(json_names(kind, sent)), _int64(body), "body")
    message = "HyperparameterTuningJob" if kind == "tuning" else "CustomJob"
    # what REST carries beside gcloud's part: the whole body as written, less what the service sets
    assert _canonical(message, _without_output_only(data)) == _canonical(message, {
        k: v for k, v in body.items() if k in _without_output_only(data)})
    for key in (key for key in data if key in OUTPUT_ONLY):  # a note (a CustomJob), or the schema's warning
        assert f"{key} is set by the service (output only): ignored" in stderr \
            or f"{key} is output only (set by the service" in stderr, stderr
