"""``gcloud config set PROPERTY VALUE`` and ``gcloud auth ...`` before the gcloud command (provider.gcloud.properties):
collected where the prelude is read (words.read_line, on the Line), applied where the flags are resolved
(command.parse), as gcloud applies them. tests/gcloud/corpus.yaml's props_* cases hold the same against gcloud.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from provider.gcloud.command import GcloudError, parse
from provider.gcloud.words import ShellError, read_line

from ..conftest import run_cli

VERTEX = ("gcloud ai custom-jobs create --display-name=x "
          "--worker-pool-spec=machine-type=n1-standard-4,replica-count=1,container-image-uri=gcr.io/p/i")
AIP = "gcloud ai-platform jobs submit training j1 --master-image-uri=gcr.io/p/i --scale-tier=basic"


@pytest.mark.parametrize("between", [" && ", "; ", "\n", "\n\n# a comment\n"])
def test_properties_before_the_command_are_kept_on_the_line(between: str) -> None:
    line = read_line(f"gcloud config set project my-proj{between}gcloud config set ai/region us-east1{between}"
                     f"gcloud config set core/project other-proj{between}{VERTEX}", {})
    assert line.words[:4] == ["gcloud", "ai", "custom-jobs", "create"]
    assert line.properties == {"core/project": "other-proj", "ai/region": "us-east1"}  # the last one set wins


def test_variables_and_quotes_in_a_config_set_are_read_as_bash_reads_them() -> None:
    line = read_line('REGION=europe-west4\ngcloud config set ai/region "$REGION"\n' + VERTEX, {})
    assert line.properties == {"ai/region": "europe-west4"}
    with pytest.raises(ShellError, match=r"\$AI_REGION is not defined"):
        read_line("gcloud config set ai/region $AI_REGION\n" + VERTEX, {})


@pytest.mark.parametrize(("before", "says"), [
    ("gcloud config set account me@example.com", "gcloud config set account me@example.com: changes nothing in the job"),
    ("gcloud config set compute/zone us-east1-b", "gcloud config set compute/zone us-east1-b: changes nothing"),
    ("gcloud config set disable_prompts true", "gcloud config set disable_prompts true: changes nothing"),
    ("gcloud auth login", "gcloud auth login before the command gives gcloud credentials, no field of the job"),
    ("gcloud auth activate-service-account --key-file=key.json", "gcloud auth activate-service-account before"),
    # before a local-package-path job, whose image gcloud pushes (a public script: find_string id 15263705304)
    ("gcloud auth configure-docker asia-northeast1-docker.pkg.dev -q", "gcloud auth configure-docker before the "
                                                                       "command gives docker (for the registries"),
])
def test_what_changes_nothing_in_the_job_is_a_note(before: str, says: str) -> None:
    line = read_line(f"{before}\n{VERTEX}", {})
    assert line.properties == {}
    assert len(line.notes) == 1 and line.notes[0].startswith(says), line.notes


@pytest.mark.parametrize(("before", "says"), [
    ("gcloud config set run/region x", "column 19: gcloud config set run/region: this property is not read"),
    ("gcloud config set api_endpoint_overrides/aiplatform http://x/", "column 19: gcloud config set "
                                                                       "api_endpoint_overrides/aiplatform: this"),
    ("gcloud config unset project", "column 15: gcloud config unset is not read: only gcloud config set PROPERTY"),
    ("gcloud config configurations activate x", "column 15: gcloud config configurations is not read"),
    ("gcloud config set --configuration=other project p", "column 19: gcloud config set --configuration=other: its "
                                                          "flags are not read"),
    ("gcloud config set project", "gcloud config set takes a PROPERTY and a VALUE, and 1 word(s) follow it"),
    ("gcloud config set project My_Project", "column 27: gcloud config set project: The project property must be "
                                             "set to a valid project ID, not the project name [My_Project]"),
    ("gcloud auth print-access-token", "column 13: gcloud auth print-access-token is not read before the gcloud "
                                       "command"),
])
def test_what_may_change_the_job_is_refused_by_name(before: str, says: str) -> None:
    with pytest.raises(ShellError) as refused:
        read_line(f"{before} && {VERTEX}", {})
    message = str(refused.value)
    assert says in message
    assert "allowed" in message or "write gcloud config set PROPERTY VALUE" in message  # and what to write instead


def test_the_training_command_itself_is_still_one_command() -> None:
    with pytest.raises(ShellError, match="'gcloud config set ai/region us-east1' after the training command would run as well"):
        read_line(f"{VERTEX} && gcloud config set ai/region us-east1", {})
    with pytest.raises(ShellError, match="a second command"):
        read_line("gcloud config set ai/region us-east1 || " + VERTEX, {})


def test_ai_region_gives_the_region_of_gcloud_ai_and_the_flag_wins() -> None:
    cmd = parse(VERTEX.split(), {"ai/region": "us-east1", "compute/region": "europe-west1"})
    assert cmd.values["region"] == "us-east1"
    assert any("compute/region europe-west1: this command takes its region from --region or ai/region" in n
               for n in cmd.notes), cmd.notes
    cmd = parse([*VERTEX.split(), "--region=asia-east1"], {"ai/region": "us-east1"})
    assert cmd.values["region"] == "asia-east1"
    assert any("ai/region us-east1: --region on the command wins" in n for n in cmd.notes)
    assert "region" not in parse(VERTEX.split(), {}).values


def test_compute_region_gives_the_region_of_jobs_submit_training_not_ai_region() -> None:
    cmd = parse(AIP.split(), {"compute/region": "europe-west1", "ai/region": "us-east1"})
    assert cmd.values["region"] == "europe-west1"
    assert any("ai/region us-east1: this command takes its region from --region or compute/region" in n
               for n in cmd.notes), cmd.notes
    assert "region" not in parse(AIP.split(), {"ai/region": "us-east1"}).values


def test_the_project_is_noted_unless_the_flag_gives_it() -> None:
    notes = parse(VERTEX.split(), {"core/project": "my-proj"}).notes
    assert any(n.startswith("project my-proj (gcloud config set project) is a gcloud setting") for n in notes)
    notes = parse([*VERTEX.split(), "--project=flag-proj"], {"core/project": "my-proj"}).notes
    assert not any("my-proj" in n for n in notes) and any(n.startswith("--project=flag-proj") for n in notes)


def test_convert_reads_a_script_that_sets_the_region_first(tmp_path: Path) -> None:
    # a public README (find_string id 8115394632): gcloud config set project, ai/region, then no --region
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    script = ("gcloud auth login\ngcloud config set project ac215-transit-prediction\n"
              "gcloud config set ai/region us-east1\n" + VERTEX.replace("gcloud ai", "gcloud beta ai"))
    done = run_cli("convert", "--gcloud", script, "--output", "request", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["parent"].endswith("/locations/us-east1")
    assert "note: gcloud auth login before the command gives gcloud credentials" in done.stderr
    assert "note: project ac215-transit-prediction (gcloud config set project) is a gcloud setting" in done.stderr
    done = run_cli("convert", "--gcloud", "gcloud config set ai/region us-east1\n" + AIP, cwd=tmp_path)
    assert done.returncode == 1
    assert "no --region: gcloud takes the region from --region or its compute/region property" in done.stderr


def test_cloudsdk_variables_of_the_environment_are_the_properties_gcloud_reads_first(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """gcloud reads CLOUDSDK_AI_REGION (CLOUDSDK_COMPUTE_REGION, CLOUDSDK_CORE_PROJECT) before its configuration: the
    variable wins over a gcloud config set in the script, the command's flag over both; each is named in a note."""
    monkeypatch.setenv("CLOUDSDK_AI_REGION", "europe-west4")
    monkeypatch.setenv("CLOUDSDK_COMPUTE_REGION", "asia-east1")
    cmd = parse(VERTEX.split(), {"ai/region": "us-east1"})
    assert cmd.values["region"] == "europe-west4"
    assert any("ai/region is 'europe-west4', from $CLOUDSDK_AI_REGION in the environment" in n and
               "over gcloud config set ai/region us-east1" in n for n in cmd.notes), cmd.notes
    assert parse(AIP.split()).values["region"] == "asia-east1"
    assert parse([*VERTEX.split(), "--region=us-west1"]).values["region"] == "us-west1"
    monkeypatch.setenv("CLOUDSDK_CORE_PROJECT", "PROJECT_ID")
    with pytest.raises(GcloudError, match="PROJECT_ID"):
        parse(VERTEX.split())
    monkeypatch.setenv("CLOUDSDK_CORE_PROJECT", "env-proj")
    assert any(n.startswith("project env-proj ($CLOUDSDK_CORE_PROJECT) is a gcloud setting")
               for n in parse(VERTEX.split()).notes)


def test_convert_takes_the_region_from_cloudsdk_ai_region(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    done = run_cli("convert", "--gcloud", VERTEX, "--output", "request", cwd=tmp_path,
                   env={"CLOUDSDK_AI_REGION": "us-east1"})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["parent"].endswith("/locations/us-east1")
    assert "from $CLOUDSDK_AI_REGION in the environment" in done.stderr
