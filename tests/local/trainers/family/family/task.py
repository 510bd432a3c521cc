"""A test trainer for the local backend's process semantics (tests/local/test_process_semantics.py).

--dump DIR            append "PID START_TIME" to DIR/<replica>.starts at each start
--steps N             run N steps of --step-seconds each
--family              start a child, a grandchild in a session of its own (setsid) and a
                      double-forked daemon; list their pids in DIR/<replica>.family. At start, a
                      replacement first writes which pids of the previous family still live to
                      DIR/<replica>.alive-at-start-<N> (N: its start number)
--abort-at-step K     os.abort() at step K (SIGABRT: the trainer's own crash)
--kill-at-end NAME    the chief: SIGKILL replica NAME (its newest pid), then exit 0 at once
"""

import argparse
import json
import os
import signal
import subprocess
import sys
import time

SLEEPER = [sys.executable, "-c", "import time; time.sleep(3600)"]
# a child that starts a grandchild in a new session, writes its pid to argv[1], and sleeps
SETSID_PARENT = [sys.executable, "-c", "import subprocess, sys, time; "
                 "g = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(3600)'], start_new_session=True); "
                 "open(sys.argv[1] + '.tmp', 'w').write(str(g.pid)); "
                 "import os; os.replace(sys.argv[1] + '.tmp', sys.argv[1]); time.sleep(3600)"]


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def write(path, text):
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.replace(path + ".tmp", path)


def daemon():
    """The classic double fork: the daemon's parent exits, its session is its own."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        os.setsid()
        grandchild = os.fork()
        if grandchild == 0:
            os.close(w)
            os.execv(sys.executable, SLEEPER)
        os.write(w, str(grandchild).encode())
        os._exit(0)
    os.close(w)
    os.waitpid(pid, 0)
    with os.fdopen(r) as f:
        return int(f.read())


def family(path):
    child = subprocess.Popen(SLEEPER)
    marker = path + ".setsid"
    parent = subprocess.Popen([*SETSID_PARENT, marker])
    deadline = time.time() + 60
    while not os.path.exists(marker) and time.time() < deadline:
        time.sleep(0.02)
    with open(marker) as f:
        grandchild = int(f.read())
    os.unlink(marker)
    pids = {"child": child.pid, "setsid_parent": parent.pid, "setsid_grandchild": grandchild, "daemon": daemon()}
    write(path, json.dumps(pids))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dump", required=True)
    p.add_argument("--steps", type=int, default=1)
    p.add_argument("--step-seconds", type=float, default=0.0)
    p.add_argument("--family", action="store_true")
    p.add_argument("--abort-at-step", type=int, default=-1)
    p.add_argument("--kill-at-end", default="")
    args, _ = p.parse_known_args()
    task = json.loads(os.environ["CLUSTER_SPEC"])["task"]
    me = f"{task['type']}-{task['index']}"
    os.makedirs(args.dump, exist_ok=True)
    base = os.path.join(args.dump, me)
    with open(base + ".starts", "a") as f:
        f.write(f"{os.getpid()} {time.time()}\n")
    with open(base + ".starts") as f:
        number = len(f.read().split("\n")) - 1
    if args.family:
        if os.path.exists(base + ".family"):
            with open(base + ".family") as f:
                before = json.load(f)
            write(f"{base}.alive-at-start-{number}", json.dumps({k: v for k, v in before.items() if alive(v)}))
        family(base + ".family")
    for step in range(args.steps):
        if step == args.abort_at_step:
            print(f"{me}: aborting at step {step}", flush=True)
            os.abort()
        time.sleep(args.step_seconds)
        print(f"{me}: step {step}", flush=True)
    if args.kill_at_end and task["type"] == "workerpool0":
        victims = os.path.join(args.dump, args.kill_at_end + ".starts")
        deadline = time.time() + 120
        while not os.path.exists(victims) and time.time() < deadline:
            time.sleep(0.05)
        with open(victims) as f:
            victim = int(f.read().split()[-2])
        os.kill(victim, signal.SIGKILL)
        os._exit(0)
    print(f"{me}: done", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
