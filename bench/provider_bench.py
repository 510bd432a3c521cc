"""Benchmark: the TrainingJob provider's Check + Diff through the SDK's host, for 200 specs.

    .venv/bin/python bench/provider_bench.py [--specs 200] [--repeat 5]

What ``pulumi preview`` costs the provider for a stack of 200 jobs that are already deployed:
the engine starts ``python -u -m pulumi.dynamic``, then calls Check and Diff once per resource
over gRPC. This builds a throwaway project with a vertex stack of --specs generated specs (the
validate benchmark's, one in five a tuning job), runs the real program under pulumi mocks to
get the exact inputs it declares, then times, side by side:

* through the host: start ``python -u -m pulumi.dynamic`` and Configure, then Check + Diff for
  every job over gRPC (the host unpickles the provider and imports the validator on its first
  call: that is in the figure). The requests are serialised beforehand, as the engine has them;
  the host's own deserialising and serialising of every property is in the figure;
* the baseline: the same Check + Diff calls on a TrainingJobProvider in this process (no gRPC,
  no serialisation, imports already warm): the floor the host adds to.

It also prints the size of the serialized provider (what every resource's state carries in
``__provider``). Medians of --repeat runs. Targets: under 2 s in all; under 10 KB.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from validate_bench import native  # noqa: E402  (the same realistic specs as the validate benchmark)

STACK = """config:
  trainjobs:backend: vertex
  trainjobs:team: vision
  trainjobs:environment: bench
  gcp:project: acme-vision-bench
  gcp:region: us-central1
  trainjobs:specs: [specs/bench/*.yaml]
  trainjobs:quotas: {maxGpusPerJob: 512, maxGpusPerStack: 100000, allowedRegions: [us-central1]}
  trainjobs:labels: {env: bench}
  trainjobs:wait: {until: running, timeout: 1800s}
"""


def declared_inputs(project: Path, n: int) -> dict[str, dict[str, Any]]:
    """The inputs the real program declares for each job (the program run under pulumi mocks)."""
    for name in ("Pulumi.yaml", "__main__.py"):
        shutil.copy(ROOT / name, project / name)
    (project / "stacks").mkdir()
    (project / "stacks" / "Pulumi.bench.yaml").write_text(STACK)
    specs = project / "specs" / "bench"
    specs.mkdir(parents=True)
    rng = random.Random(5)
    for i in range(n):
        (specs / f"bench_native_{i}.yaml").write_text(native(i, rng))
    out = project / "report.json"
    proc = subprocess.run([sys.executable, "-m", "tests.pulumi.harness", "bench", "--out", str(out),
                           "--project", str(project)], cwd=ROOT, capture_output=True, text=True, timeout=900)
    if not out.exists():
        raise SystemExit(f"the program did not run: {proc.stderr[-2000:]}")
    report = json.loads(out.read_text())
    if report["error"]:
        raise SystemExit(report["error"])
    inputs: dict[str, dict[str, Any]] = {
        k: v for k, v in report["dynamicInputs"].items() if k.startswith("bench_native_")}
    assert len(inputs) == n, len(inputs)
    return inputs


def through_host(inputs: dict[str, dict[str, Any]]) -> tuple[float, float]:
    """Seconds for host start + Configure, and for all Check + Diff calls after it.

    The requests are serialised before the clock starts, by the SDK's own rpc module: the engine
    (in Go) has them ready, so the figure is the host's work plus gRPC, not this client's."""
    from pulumi.runtime.proto import provider_pb2

    from tests.pulumi.host import URN, ProviderHost

    empty = ProviderHost.struct({})
    requests = []
    for name, props in inputs.items():
        news = ProviderHost.struct(props)
        urn = URN.format(name=name)
        requests.append((provider_pb2.CheckRequest(urn=urn, olds=empty, news=news),
                         provider_pb2.DiffRequest(id="1", urn=urn, olds=news, news=news)))
    start = time.perf_counter()
    host = ProviderHost()
    started = time.perf_counter()
    try:
        for check, diff in requests:
            answer = host.stub.Check(check)
            assert not answer.failures, answer.failures
            assert host.stub.Diff(diff).changes == provider_pb2.DiffResponse.DIFF_NONE
    finally:
        done = time.perf_counter()
        host.close()
    return started - start, done - started


def in_process(inputs: dict[str, dict[str, Any]]) -> float:
    from provider.resources.training_job import TrainingJobProvider

    provider = TrainingJobProvider()
    start = time.perf_counter()
    for props in inputs.values():
        result = provider.check({}, props)
        assert not result.failures, result.failures
        assert not provider.diff("1", props, result.inputs).changes
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--specs", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="trainjobs-provider-bench-") as tmp:
        t0 = time.perf_counter()
        inputs = declared_inputs(Path(tmp), args.specs)
        program_s = time.perf_counter() - t0
    provider_str = next(iter(inputs.values()))["__provider"]

    in_process(inputs)  # warm imports for the baseline
    host_runs = [through_host(inputs) for _ in range(args.repeat)]
    base_runs = [in_process(inputs) for _ in range(args.repeat)]
    start_s = statistics.median(s for s, _ in host_runs)
    calls_s = statistics.median(c for _, c in host_runs)
    total = statistics.median(s + c for s, c in host_runs)
    base = statistics.median(base_runs)
    n = args.specs
    print(f"provider Check + Diff for a stack of {n} specs (median of {args.repeat} runs, 2 cores, "
          f"Python {sys.version.split()[0]})")
    print(f"  {'what':58} {'wall s':>8} {'ms/job':>8}")
    print(f"  {'through the host: start python -u -m pulumi.dynamic':58} {start_s:8.3f}")
    print(f"  {'through the host: Check + Diff over gRPC, first call cold':58} {calls_s:8.3f} {calls_s / n * 1000:8.2f}")
    print(f"  {'through the host, in all':58} {total:8.3f} {total / n * 1000:8.2f}")
    print(f"  {'baseline: the same calls in-process (warm, no gRPC)':58} {base:8.3f} {base / n * 1000:8.2f}")
    print(f"  in all: min {min(s + c for s, c in host_runs):.3f} s, max {max(s + c for s, c in host_runs):.3f} s; "
          f"target < 2 s: {'met' if total < 2 else 'MISSED'}")
    print(f"serialized provider (__provider): {len(provider_str)} bytes; target < 10 KB: "
          f"{'met' if len(provider_str) < 10_240 else 'MISSED'}")
    print(f"(setting up: the program under mocks declared {n} jobs in {program_s:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
