"""A --flags-file's plain scalars read as gcloud reads them: YAML 1.2, numbers built by Python's int and float.

gcloud reads a flags file with core/yaml_location_value.py (ruamel with no version: YAML 1.2),
not as it reads a --config (YAML 1.1): ``yes`` and ``1:30`` are strings, ``010`` is 10, ``1_000``
is 1000, ``1e-5`` is 1e-05, and ``0o17``, ``0x1F``, ``.inf`` make gcloud fail. These tests run the
same flags files through gcloud itself (the stand-in records what it sends) and through trainjobs.
"""

from __future__ import annotations

import math
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from provider.gcloud import flags_yaml
from provider.gcloud.build import build
from provider.gcloud.command import GcloudError, parse
from provider.gcloud.words import split_words

from .gcloud_loader import NO_GCLOUD, gcloud_yaml
from .standin import start, write_config

COMMAND = "gcloud ai custom-jobs create --region=us-central1 --flags-file=flags.yaml"
FLAGS = ("--display-name: 010\n"
         "--worker-pool-spec: {machine-type: n1-standard-4, replica-count: 1, container-image-uri: gcr.io/p/i}\n"
         "--labels: {a: yes, c: on}\n--enable-web-access: false\n"
         "--args: [1:30, x]\n--command: [yes, '1e-5']\n")


def _repo(tmp_path: Path, flags: str) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "flags.yaml").write_text(flags)
    return tmp_path


def _ours(work: Path):  # type: ignore[no-untyped-def]
    here = Path.cwd()
    os.chdir(work)  # gcloud reads a flags file from where it runs
    try:
        return build(parse(split_words(COMMAND, {})), work)
    finally:
        os.chdir(here)


def test_a_flags_file_is_read_as_gcloud_reads_it_each_reading_named(tmp_path: Path) -> None:
    built = _ours(_repo(tmp_path, FLAGS))
    spec = built.document["spec"]
    assert spec["displayName"] == "10"  # 010 is the integer 10 to gcloud's loader, written 10
    assert spec["labels"] == {"a": "yes", "c": "on"}  # YAML 1.2 strings, refused by the strict reader before
    assert spec["workerPoolSpecs"][0]["containerSpec"]["args"] == ["1:30", "x"]
    assert spec["workerPoolSpecs"][0]["containerSpec"]["command"] == ["yes", "1e-5"]
    assert spec["enableWebAccess"] is True  # false in a flags file is the bare flag to gcloud
    assert any(n.endswith("flags.yaml: --enable-web-access: false is read as gcloud reads a flags file: the bare flag "
                          "--enable-web-access, which sets it (gcloud sends it so); remove the line to leave the flag "
                          "unset") for n in built.notes), built.notes
    readings = [n for n in built.notes if "as gcloud reads a --flags-file" in n]
    assert [n.split(": unquoted ")[1].split(" ")[0] for n in readings] == ["010", "yes", "on", "1:30", "yes"]
    assert readings[0].endswith("flags.yaml:1:17: unquoted 010 is read as gcloud reads a --flags-file "
                                "(YAML 1.2, Python's int and float): 10")


@pytest.mark.parametrize("items", ["[1e-5]", "[x, 010]", "[true]", "[x, ~]"])
def test_a_list_item_that_is_not_text_is_refused_as_gcloud_fails_on_it(tmp_path: Path, items: str) -> None:
    with pytest.raises(GcloudError) as refused:
        _ours(_repo(tmp_path, FLAGS.replace("[1:30, x]", items)))
    assert "--flags-file=flags.yaml: flags.yaml: --args: item " in str(refused.value) and "not text: gcloud fails on it" in str(refused.value)


def test_a_list_item_with_a_comma_is_kept_whole(tmp_path: Path) -> None:
    built = _ours(_repo(tmp_path, FLAGS.replace("[1:30, x]", "['--ids=1,2', x]")))
    assert built.document["spec"]["workerPoolSpecs"][0]["containerSpec"]["args"] == ["--ids=1,2", "x"]


@pytest.mark.parametrize("text", ["0o17", "0x1F", "0b101", ".inf", ".nan"])
def test_a_number_gcloud_cannot_read_in_a_flags_file_is_refused_by_position(tmp_path: Path, text: str) -> None:
    with pytest.raises(GcloudError) as refused:
        _ours(_repo(tmp_path, f"--display-name: {text}\n"))
    message = str(refused.value)
    assert "flags.yaml:1:17: an unquoted number gcloud cannot read in a flags file" in message or \
        ("flags.yaml:1:17: not a flags file" in message and text in (".inf", ".nan")), message
    assert text not in message  # the file's text is not shown


FORMS = ["1e-5", "yes", "No", "on", "010", "08", "-010", "0_7", "1:30", "1_000", "0b101", "0o17", "0x1F", ".inf",
         ".NaN", "~", "NULL", "True", "false", "tRUE", "1.", "+1", "-0", "1.0e+3", ".5", "+.5", ".5e3", "_", "n1"]


@pytest.mark.skipif(NO_GCLOUD, reason="gcloud is not installed: its flags-file loader is compared where it is")
def test_flags_yaml_matches_gcloud_s_loader(tmp_path: Path) -> None:
    out = gcloud_yaml(tmp_path, "try:\n    print(repr(yaml.load('--x: %s\\n' % t, location_value=True).value['--x'].value))\n"
                                "except ValueError:\n    print('unreadable')", FORMS)

    def ours(text: str) -> str:
        try:
            value = flags_yaml.read(text)
        except flags_yaml.Unreadable:
            return "unreadable"
        return "nan" if isinstance(value, float) and math.isnan(value) else repr(value)

    assert out == [ours(t) for t in FORMS]


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("gcloud") is None, reason="gcloud is not installed: the oracle needs it")
def test_gcloud_sends_what_trainjobs_reads_from_the_flags_file(tmp_path: Path) -> None:
    work = _repo(tmp_path / "work", FLAGS)
    standin = start()
    try:
        write_config(tmp_path / "cloudsdk", standin.url)
        env = {**os.environ, "CLOUDSDK_CONFIG": str(tmp_path / "cloudsdk")}
        proc = subprocess.run(["bash", "-c", COMMAND], cwd=work, env=env, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        (sent,) = standin.jobs()
        (work / "flags.yaml").write_text(FLAGS.replace("[1:30, x]", "[1e-5]"))  # a number in a list: gcloud fails
        failed = subprocess.run(["bash", "-c", COMMAND], cwd=work, env=env, capture_output=True, text=True, timeout=300)
        assert failed.returncode != 0 and "Expected type <class 'str'> for field args" in failed.stderr
        assert len(standin.jobs()) == 1
        (work / "flags.yaml").write_text(FLAGS)
    finally:
        standin.close()
    built = _ours(work)
    assert sent["jobSpec"]["workerPoolSpecs"][0]["containerSpec"]["command"] == ["yes", "1e-5"]
    assert sent["displayName"] == built.document["spec"]["displayName"]
    assert sent["jobSpec"]["enableWebAccess"] is built.document["spec"]["enableWebAccess"] is True
    assert sent["labels"] == built.document["spec"]["labels"]
    assert sent["jobSpec"]["workerPoolSpecs"][0]["containerSpec"] == \
        built.document["spec"]["workerPoolSpecs"][0]["containerSpec"]
