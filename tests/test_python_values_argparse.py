"""provider.document.python_values reads an argparse parser as argparse builds it, and ``parse_args()`` as the script
gets it when it runs with no arguments (``python FILE``): each option's default, argparse's own conversions.

The oracle: each snippet is run by Python with ``sys.argv`` of a script given no arguments, and the namespace it
parses must equal the evaluator's, name by name. What cannot be known (a required option, a conversion trainjobs
does not run, subcommands) is Unknown, saying why.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from provider.document.python_mutate import Namespace
from provider.document.python_values import Unknown, scope_after

from .pysdk.test_corpus import convert

_HEAD = "import argparse\nimport os\nparser = argparse.ArgumentParser(description='launch')\n"
ORACLE = [
    'parser.add_argument("--project", default="p1")\nparser.add_argument("--region", "-r", dest="location", '
    'default="europe-west4")\nargs = parser.parse_args()',
    'parser.add_argument("--epochs", type=int, default="12")\nparser.add_argument("--lr", type=float, default=0.001)\n'
    'parser.add_argument("--gpus", type=int, default=2)\nparser.add_argument("--flag", type=bool, default="False")\n'
    'args = parser.parse_args()',
    'parser.add_argument("--spot", action="store_true")\nparser.add_argument("--no-cache", action="store_false", '
    'dest="cache")\nparser.add_argument("--resume", action=argparse.BooleanOptionalAction, default=True)\n'
    'parser.add_argument("-v", action="count")\nargs = parser.parse_args()',
    'parser.add_argument("--tags", nargs="+", default=["a", "b"])\nparser.add_argument("config", nargs="?", '
    'default="c.yaml")\nparser.add_argument("--machine-type", choices=["n1-standard-8"], default="n1-standard-8")\n'
    'args = parser.parse_args()',
    'group = parser.add_argument_group("data")\ngroup.add_argument("--data", default="gs://b/d")\n'
    'parser.set_defaults(image="gcr.io/p/t:1", data="gs://b/other")\nargs, rest = parser.parse_known_args()',
    'parser.add_argument("--machine", default="n1-standard-4")\nparser.add_argument("--n", type=int, default=3)\n'
    'args = parser.parse_args(["--machine", "n1-highmem-8", "--n", "7"])',
    'parser.add_argument("--bucket", default=os.environ.get("TRAINJOBS_TEST_UNSET_VARIABLE", "gs://fallback"))\n'
    'args = parser.parse_args(args=[])',
]


@pytest.mark.parametrize("snippet", ORACLE)
def test_the_namespace_is_argparses(snippet: str, monkeypatch: pytest.MonkeyPatch) -> None:
    code = _HEAD + snippet
    monkeypatch.setattr(sys, "argv", ["launch.py"])
    ran: dict[str, object] = {}
    exec(compile(code, "launch.py", "exec"), ran)  # the oracle: Python and argparse themselves
    read = scope_after([("launch.py", code)]).get("args")
    assert isinstance(read, Namespace), read
    assert read.values == vars(ran["args"])
    assert read.values  # never vacuous


@pytest.mark.parametrize(("snippet", "why"), [
    ('parser.add_argument("--project", required=True)\nargs = parser.parse_args()',
     "argparse exits when the script runs with no arguments (the following arguments are required: --project)"),
    ('parser.add_argument("config")\nargs = parser.parse_args()', "the following arguments are required: config"),
    ('parser.add_argument("--n", type=lambda s: int(s) * 2, default="3")\nargs = parser.parse_args()\nn = args.n',
     "type=lambda s: int(s) * 2, a conversion trainjobs does not run"),
    ('sub = parser.add_subparsers(dest="cmd")\nargs = parser.parse_args()', "the parser has subcommands"),
    ('parser.add_argument("--n", default=1)\nargs = parser.parse_args()\nm = args.m',
     "the parser has no argument m (AttributeError)"),
    ('parser.add_argument("--n", default=1)\nargs = parser.parse_args(["--bogus"])',
     "unrecognized arguments: --bogus"),
])
def test_what_argparse_leaves_unknown_says_why(snippet: str, why: str) -> None:
    scope = scope_after([("launch.py", _HEAD + snippet)])
    name = snippet.rsplit("\n", 1)[-1].split(" = ")[0].split(",")[0]
    value = scope.get(name)
    assert isinstance(value, Unknown), value
    assert why in value.why


def test_a_notebooks_parse_args_reads_the_kernels_command_line() -> None:
    scope = scope_after([("cell 1", _HEAD + 'parser.add_argument("--n", default=1)\nargs = parser.parse_args()')])
    value = scope.get("args")
    assert isinstance(value, Unknown) and "the notebook kernel's own command line" in value.why


# source: find_string id 34962911214 (as tests/pysdk/corpus/ddp_submit_function_main.py): a launcher whose main()
#   reads its flags with argparse.
# adapted: shortened; the job is submitted only under a --submit flag (`if args.submit:`), never given when the script
#   runs with no arguments: the job is converted as never run, and both notes say so.
_FLAG = textwrap.dedent('''\
    import argparse

    from google.cloud import aiplatform

    parser = argparse.ArgumentParser(description="Submit training job to Vertex AI")
    parser.add_argument("--submit", action="store_true")
    args = parser.parse_args()

    aiplatform.init(project="saxgpt-project", location="us-central1", staging_bucket="gs://saxgpt-training")
    job = aiplatform.CustomJob(display_name="saxgpt-train", worker_pool_specs=[{
        "machine_spec": {"machine_type": "n1-standard-16"}, "replica_count": 1,
        "container_spec": {"image_uri": "us-central1-docker.pkg.dev/saxgpt-project/train/saxgpt:latest"}}])
    if args.submit:
        job.submit()
''')


def test_a_job_behind_a_flag_is_read_with_the_flags_default_and_said(tmp_path: Path) -> None:
    (tmp_path / "launch.py").write_text(_FLAG, encoding="utf-8")
    done = convert(Path("launch.py"), "--output", "request", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "job.submit() at launch.py:14:5 is not read: the if at line 13 is false (args.submit: False)" in done.stderr
    assert ("launch.py:7: the command line is read as `python launch.py` gives it, with no arguments: each argparse "
            "option has its default") in done.stderr
