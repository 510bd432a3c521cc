"""Benchmark: the TrainingJob provider's Check + Diff through the SDK's host, for stacks of N jobs.

    .venv/bin/python bench/provider_bench.py [--sizes 100,300,1000] [--repeat 3] [--profile 20] [--olds stored|none]

What ``pulumi preview`` costs the provider for a stack of N jobs that are already deployed: the
engine starts ``python -u -m pulumi.dynamic``, then calls Check and Diff once per resource over
gRPC. This builds a throwaway project with a vertex stack of max(--sizes) generated specs (the
validate benchmark's, one in five a tuning job) and runs the real program under pulumi mocks once
to get the exact inputs it declares; a stack of N jobs is the first N of them (each job's inputs
depend on its spec and the stack only). Check gets, as the engine sends it for a resource its state
holds, the inputs stored by the last ``pulumi up`` as its olds (step_generator.go: ``Olds: oldInputs``;
the state here: each job's inputs through the provider's Check); ``--olds none`` sends none, as for a
stack never deployed (every job new). For each N it times, side by side in one run:

* through the host: start ``python -u -m pulumi.dynamic`` and Configure, then Check + Diff for
  every job over gRPC (the host unpickles the provider and imports the validator on its first
  call: that is in the figure). The requests are serialised beforehand, as the engine has them;
  the host's own deserialising and serialising of every property is in the figure. Peak memory:
  the host process's VmHWM, read before it is stopped;
* the floor: the same inputs, the same host and calls, for the echo provider (bench/echo_provider.py:
  Check returns the news, Diff says no change, neither reads anything): what the SDK's host costs
  for what each resource carries, the target being the provider within 1.5x of it (CPU);
* the host's own code without gRPC: the SDK's ``DynamicResourceProviderServicer`` (its
  ``pulumi/dynamic/__main__.py``, executed without its ``main()``) called in a fresh process
  with the same requests: deserialise, unpickle the provider once, Check/Diff, serialise;
* the baseline: the same Check + Diff calls on a TrainingJobProvider in a fresh process (no
  gRPC, no serialisation; configured as the host configures it; imports warmed before the clock
  starts): the floor the host adds to.

The two in-process rows run in child processes of their own (so each peak RSS is theirs), after
their imports. Beside wall time, each row has the CPU time of the process doing the work (the
host's, read from /proc; the child's own), which load on the machine does not inflate. Each
cost's ratio to the smallest N shows how it grows. Then, for the largest N, where the host's CPU
goes: gRPC, the process boundary and the host's imports on its first call (host - servicer), the
host's (de)serialisation and unpickling (servicer - baseline) and the provider itself, and the --profile functions of
the servicer run with the most own time (cProfile). It also prints the size of the serialized
provider (what every resource's state carries in ``__provider``). Medians of --repeat runs.
Targets: 200 jobs under 2 s in all; the provider under 10 KB.
"""

from __future__ import annotations

import argparse
import cProfile
import importlib.util
import io
import json
import os
import pstats
import random
import resource
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


def checked_inputs(project: Path, inputs: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each job's inputs through the provider's Check (which builds the request the program no longer
    carries), in the project as the engine's host runs: what an earlier ``pulumi up`` stored, and
    what the engine sends to Diff after Check."""
    from provider.resources.training_job import TrainingJobProvider

    here = Path.cwd()
    os.chdir(project)
    try:
        provider = TrainingJobProvider()
        out = {}
        for name, props in inputs.items():
            result = provider.check({}, dict(props))
            assert not result.failures, result.failures
            out[name] = dict(result.inputs)
        return out
    finally:
        os.chdir(here)


Requests = list[tuple[Any, Any]]  # (CheckRequest, DiffRequest) per job


def requests_for(inputs: dict[str, dict[str, Any]], checked: dict[str, dict[str, Any]],
                 echo: bool = False, olds: bool = True) -> Requests:
    """The Check and Diff requests the engine sends for each job, serialised by the SDK's rpc module
    (Check gets the program's inputs, and the stored ones as its olds unless not ``olds``; Diff the
    checked inputs, against the same stored): with
    ``echo``, the same inputs for the floor's echo provider (bench/echo_provider.py)."""
    from pulumi.runtime.proto import provider_pb2

    from tests.pulumi.host import URN, ProviderHost

    empty = ProviderHost.struct({})
    out = []
    echo_provider = echo_provider_string() if echo else None

    def struct(props: dict[str, Any]) -> Any:
        return ProviderHost.struct({**props, "__provider": echo_provider} if echo_provider else props)

    for name, props in inputs.items():
        stored = struct(checked[name])
        urn = URN.format(name=name)
        out.append((provider_pb2.CheckRequest(urn=urn, olds=stored if olds else empty, news=struct(props)),
                    provider_pb2.DiffRequest(id="1", urn=urn, olds=stored, news=stored)))
    return out


def vm_hwm_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process so far (every thread), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def echo_provider_string() -> str:
    """The echo provider as the SDK serialises it (by reference: the host imports ``echo_provider``)."""
    from echo_provider import EchoProvider
    from pulumi.dynamic.dynamic import serialize_provider

    return serialize_provider(EchoProvider())


ECHO_ENV = {"PYTHONPATH": os.pathsep.join(p for p in (str(ROOT / "bench"), str(ROOT), os.environ.get("PYTHONPATH"))
                                          if p)}


def through_host(requests: Requests, project: Path,
                 env: dict[str, str] | None = None) -> tuple[float, float, int, float]:
    """Seconds for host start + Configure, for all Check + Diff calls after it, the host's peak RSS (KB),
    and the CPU seconds the host spent on the calls (load on the machine does not inflate it).

    The requests are serialised before the clock starts: the engine (in Go) has them ready, so the
    figure is the host's work plus gRPC, not this client's."""
    from pulumi.runtime.proto import provider_pb2

    from tests.pulumi.host import ProviderHost

    start = time.perf_counter()
    host = ProviderHost(env=env, cwd=project)  # the engine starts it in the program's directory
    started = time.perf_counter()
    try:
        cpu0 = cpu_s(host.proc.pid)
        for check, diff in requests:
            answer = host.stub.Check(check)
            assert not answer.failures, answer.failures
            assert host.stub.Diff(diff).changes == provider_pb2.DiffResponse.DIFF_NONE
        done = time.perf_counter()
        peak, cpu = vm_hwm_kb(host.proc.pid), cpu_s(host.proc.pid) - cpu0
    finally:
        host.close()
    return started - start, done - started, peak, cpu


class _Context:
    """The grpc.ServicerContext the servicer's wrapper would abort on: raise instead."""

    def abort(self, code: object, details: str) -> None:
        raise RuntimeError(f"{code}: {details}")


def host_servicer() -> Any:
    """The SDK's DynamicResourceProviderServicer, from the host's own module, without starting its server."""
    spec = importlib.util.find_spec("pulumi.dynamic.__main__")
    assert spec is not None and spec.origin is not None
    source = Path(spec.origin).read_text()
    body, call = source.rstrip().rsplit("\n", 1)
    assert call.strip() == "main()", call  # the module ends by serving; everything before it is definitions
    namespace: dict[str, Any] = {"__name__": "pulumi_dynamic_host"}
    exec(compile(body, spec.origin, "exec"), namespace)  # the SDK's own file, as the host runs it
    servicer = namespace["DynamicResourceProviderServicer"]()
    from google.protobuf import struct_pb2
    from pulumi.runtime.proto import provider_pb2

    servicer.Configure(provider_pb2.ConfigureRequest(args=struct_pb2.Struct(), acceptSecrets=False,
                                                     acceptResources=True), _Context())
    return servicer


def run_servicer(servicer: Any, requests: Requests) -> None:
    from pulumi.runtime.proto import provider_pb2

    context = _Context()
    for check, diff in requests:
        assert not servicer.Check(check, context).failures
        assert servicer.Diff(diff, context).changes == provider_pb2.DiffResponse.DIFF_NONE


def run_provider(inputs: list[dict[str, Any]], stored: list[dict[str, Any]] | None = None) -> None:
    from pulumi.dynamic import Config, ConfigureRequest

    from provider.resources.training_job import TrainingJobProvider

    provider = TrainingJobProvider()
    provider.configure(ConfigureRequest(Config({}, "bench")))  # as the host does, once, when it unpickles it
    for i, props in enumerate(inputs):
        result = provider.check(stored[i] if stored else {}, props)
        assert not result.failures, result.failures
        assert not provider.diff("1", result.inputs, result.inputs).changes


def child(mode: str, inputs_file: Path, n: int, profile: int, olds: bool = True) -> None:
    """In a fresh process: warm the imports, then time one pass; print JSON {seconds, rss_kb, profile}."""
    both = json.loads(inputs_file.read_text())
    inputs, checked = dict(list(both["inputs"].items())[:n]), both["checked"]
    warm = dict(list(inputs.items())[:1])
    stored = [checked[name] for name in inputs] if olds else None
    if mode == "servicer":
        requests = requests_for(inputs, checked, olds=olds)
        run_servicer(host_servicer(), requests_for(warm, checked, olds=olds))  # imports; the provider is unpickled per servicer
        servicer = host_servicer()

        def work() -> None:
            run_servicer(servicer, requests)
    else:
        run_provider(list(warm.values()), stored[:1] if stored else None)

        def work() -> None:
            run_provider(list(inputs.values()), stored)
    profiler = cProfile.Profile() if profile else None
    cpu0 = time.process_time()
    start = time.perf_counter()
    if profiler is not None:
        profiler.runcall(work)
    else:
        work()
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu0
    text = ""
    if profiler is not None:
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(profile)
        text = out.getvalue()
    print(json.dumps({"seconds": seconds, "cpu": cpu, "rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                      "profile": text}))


def in_child(mode: str, inputs_file: Path, n: int, profile: int = 0, olds: bool = True) -> dict[str, Any]:
    proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", mode, "--inputs", str(inputs_file),
                           "--n", str(n), "--profile", str(profile), "--olds", "stored" if olds else "none"], cwd=inputs_file.parent, capture_output=True, text=True, timeout=900)
    if proc.returncode != 0:
        raise SystemExit(f"the {mode} child failed: {proc.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(proc.stdout.splitlines()[-1])
    return result


def _profile_lines(text: str, keep: int) -> list[str]:
    lines = [line for line in text.splitlines() if line.strip()]
    head = next((i for i, line in enumerate(lines) if line.lstrip().startswith("ncalls")), None)
    if head is None:
        return []
    site = str(Path(json.__file__).parent.parent)
    return [line.replace(str(ROOT) + "/", "").replace(site + "/site-packages/", "").replace(site + "/", "")
            for line in lines[head:head + 1 + keep]]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="100,300,1000", help="numbers of jobs in the stack, comma-separated")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile", type=int, default=20, help="how many functions of the profile to print")
    parser.add_argument("--child", choices=("servicer", "provider"), help=argparse.SUPPRESS)
    parser.add_argument("--inputs", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--n", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--olds", choices=("stored", "none"), default="stored",
                        help="Check's olds: the stored inputs (a deployed stack, as the engine sends them) or none "
                             "(a stack never deployed)")
    args = parser.parse_args()
    olds = args.olds == "stored"
    if args.child:
        child(args.child, args.inputs, args.n, args.profile, olds)
        return 0
    sizes = sorted(int(s) for s in args.sizes.split(","))
    med = statistics.median
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="trainjobs-provider-bench-") as tmp:
        t0 = time.perf_counter()
        inputs = declared_inputs(Path(tmp), sizes[-1])
        program_s = time.perf_counter() - t0
        checked = checked_inputs(Path(tmp), inputs)
        inputs_file = Path(tmp) / "inputs.json"
        inputs_file.write_text(json.dumps({"inputs": inputs, "checked": checked}))
        provider_str = next(iter(inputs.values()))["__provider"]
        for n in sizes:
            requests = requests_for(dict(list(inputs.items())[:n]), checked, olds=olds)
            host = [through_host(requests, Path(tmp)) for _ in range(args.repeat)]
            echo_requests = requests_for(dict(list(inputs.items())[:n]), checked, echo=True, olds=olds)
            echo = [through_host(echo_requests, Path(tmp), ECHO_ENV) for _ in range(args.repeat)]
            servicer = [in_child("servicer", inputs_file, n, olds=olds) for _ in range(args.repeat)]
            base = [in_child("provider", inputs_file, n, olds=olds) for _ in range(args.repeat)]
            rows.append({
                "n": n,
                "through the host: start + Configure": (med(h[0] for h in host), None, None),
                "through the host: Check + Diff over gRPC": (med(h[1] for h in host), med(h[3] for h in host),
                                                             max(h[2] for h in host)),
                "through the host, in all": (med(h[0] + h[1] for h in host), None, None),
                "floor: echo provider through the host": (med(h[1] for h in echo), med(h[3] for h in echo),
                                                          max(h[2] for h in echo)),
                "host's servicer in-process (no gRPC)": (med(r["seconds"] for r in servicer),
                                                         med(r["cpu"] for r in servicer),
                                                         max(r["rss_kb"] for r in servicer)),
                "baseline: provider in-process (no host)": (med(r["seconds"] for r in base), med(r["cpu"] for r in base),
                                                            max(r["rss_kb"] for r in base)),
            })
        profiled = in_child("servicer", inputs_file, sizes[-1], args.profile, olds) if args.profile else None
    first = rows[0]
    print(f"provider Check + Diff for a stack of N jobs, Check's olds: {'the stored inputs (a deployed stack)' if olds else 'none (a new stack)'} "
          f"(median of {args.repeat} runs, 2 cores, "
          f"Python {sys.version.split()[0]}); CPU: of the process doing the work (the host, or the child)")
    print(f"  {'N':>5} {'what':42} {'wall s':>7} {'x first':>8} {'CPU s':>7} {'x first':>8} {'CPU ms/job':>10} "
          f"{'peak RSS':>9}")
    for row in rows:
        n = row["n"]
        for label, (wall, cpu, kb) in ((k, v) for k, v in row.items() if k != "n"):
            wall0, cpu0 = first[label][0], first[label][1]
            cpu_cells = (f"{cpu:7.3f} {cpu / cpu0:7.2f}x {cpu / n * 1000:10.2f}" if cpu is not None
                         else f"{'':7} {'':8} {'':10}")
            mem = f"{kb / 1024:6.1f} MB" if kb else ""
            print(f"  {n:5d} {label:42} {wall:7.3f} {wall / wall0:7.2f}x {cpu_cells} {mem:>9}")
    for row in rows:
        ours, floor = row["through the host: Check + Diff over gRPC"][1], row["floor: echo provider through the host"][1]
        print(f"  N={row['n']}: the provider through the host {ours / floor:.2f}x the host's floor (CPU); "
              f"target 1.5x: {'met' if ours <= 1.5 * floor else 'MISSED'}")
    for row in rows:
        if row["n"] == 200:
            total = row["through the host, in all"][0]
            print(f"  200 jobs through the host in all: {total:.3f} s wall; target < 2 s: {'met' if total < 2 else 'MISSED'}")
    last = rows[-1]
    n = last["n"]
    start_s = last["through the host: start + Configure"][0]
    host_cpu = last["through the host: Check + Diff over gRPC"][1]
    serv_cpu = last["host's servicer in-process (no gRPC)"][1]
    base_cpu = last["baseline: provider in-process (no host)"][1]
    print(f"where the CPU goes at N={n} (the host's {host_cpu:.3f} s for the calls; start + Configure {start_s:.3f} s "
          "wall besides):")
    for label, value in (("gRPC, the process boundary, the first call's imports (host - servicer)", host_cpu - serv_cpu),
                         ("the host's (de)serialisation and unpickling (servicer - baseline)", serv_cpu - base_cpu),
                         ("the provider's Check + Diff (baseline)", base_cpu)):
        print(f"  {label:70} {value:7.3f} s {value / host_cpu * 100:5.1f}%")
    if profiled is not None:
        print(f"  the servicer's run at N={n} under cProfile ({profiled['seconds']:.2f} s profiled), "
              f"top {args.profile} by own time:")
        for line in _profile_lines(profiled["profile"], args.profile):
            print("    " + line[:160])
    print(f"serialized provider (__provider): {len(provider_str)} bytes; target < 10 KB: "
          f"{'met' if len(provider_str) < 10_240 else 'MISSED'}")
    print(f"(setting up: the program under mocks declared {sizes[-1]} jobs in {program_s:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
