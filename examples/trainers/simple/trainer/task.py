"""A small single-process trainer: linear regression by gradient descent, standard library only.

It behaves like a well-mannered Vertex AI / AI Platform trainer:
  * takes --job-dir (passed by the service) and user args;
  * checkpoints every epoch to AIP_CHECKPOINT_DIR (or JOB_DIR/checkpoints) and resumes
    from the latest checkpoint after a restart;
  * saves the model to AIP_MODEL_DIR (or JOB_DIR/model);
  * reports its loss the way cloudml-hypertune does, for hyperparameter tuning.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time


def local_path(uri: str) -> str:
    """gs://BUCKET/PATH -> /gcs/BUCKET/PATH (Vertex AI's Cloud Storage FUSE mount)."""
    return "/gcs/" + uri[len("gs://"):] if uri.startswith("gs://") else uri


def report_metric(tag: str, value: float, step: int) -> None:
    """Write the metric in cloudml-hypertune's format (one JSON object per line)."""
    path = os.environ.get("CLOUD_ML_HP_METRIC_FILE", "/tmp/hypertune/output.metrics")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    entry = {
        "timestamp": time.time(),
        "trial": str(os.environ.get("CLOUD_ML_TRIAL_ID", 0)),
        tag: str(float(value)),
        "global_step": str(step),
        "checkpoint_path": "",
    }
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(entry, sort_keys=True) + "\n")


def make_data(n: int, seed: int) -> list[tuple[float, float]]:
    rng = random.Random(seed)
    return [(x, 3.0 * x + 2.0 + rng.gauss(0, 0.1)) for x in (rng.uniform(-1, 1) for _ in range(n))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--job-dir", default=os.environ.get("AIP_MODEL_DIR", "."))
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--learning_rate", "--lr", type=float, default=0.1)
    parser.add_argument("--samples", type=int, default=256)
    parser.add_argument("--sleep", type=float, default=0.0, help="seconds to sleep per epoch (for demos)")
    parser.add_argument("--fail-at-epoch", type=int, default=-1, help="exit 3 at this epoch (for tests)")
    args, unknown = parser.parse_known_args(argv)
    job_dir = local_path(args.job_dir)
    ckpt_dir = local_path(os.environ.get("AIP_CHECKPOINT_DIR", os.path.join(job_dir, "checkpoints")))
    model_dir = local_path(os.environ.get("AIP_MODEL_DIR", os.path.join(job_dir, "model")))
    os.makedirs(ckpt_dir, exist_ok=True)
    ckpt = os.path.join(ckpt_dir, "latest.json")
    w, b, start = 0.0, 0.0, 0
    if os.path.exists(ckpt):
        with open(ckpt, encoding="utf-8") as f:
            state = json.load(f)
        w, b, start = state["w"], state["b"], state["epoch"] + 1
        print(f"resuming from checkpoint at epoch {state['epoch']}", flush=True)
        if start >= args.epochs:
            print(f"nothing left to train: the checkpoint in {ckpt_dir} is at the last epoch ({state['epoch']}) of "
                  f"--epochs {args.epochs}. To train again from scratch, give the run its own output directory "
                  "(trainjobs run --fresh SPEC; scripts/try.sh does), or raise --epochs to train on.", flush=True)
    print(f"training: epochs={args.epochs} lr={args.learning_rate} unknown_args={unknown}", flush=True)
    data = make_data(args.samples, seed=42)
    loss = float("inf")
    for epoch in range(start, args.epochs):
        if epoch == args.fail_at_epoch:
            print(f"failing on purpose at epoch {epoch}", file=sys.stderr, flush=True)
            return 3
        gw = gb = loss = 0.0
        for x, y in data:
            err = (w * x + b) - y
            gw += 2 * err * x / len(data)
            gb += 2 * err / len(data)
            loss += err * err / len(data)
        w -= args.learning_rate * gw
        b -= args.learning_rate * gb
        print(f"epoch {epoch}: loss={loss:.5f} w={w:.3f} b={b:.3f}", flush=True)
        tmp = ckpt + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump({"w": w, "b": b, "epoch": epoch}, f)
        os.replace(tmp, ckpt)
        report_metric(os.environ.get("CLOUD_ML_HP_METRIC_TAG", "loss"), loss, epoch)
        if args.sleep:
            time.sleep(args.sleep)
    os.makedirs(model_dir, exist_ok=True)
    with open(os.path.join(model_dir, "model.json"), "w", encoding="utf-8") as f:
        json.dump({"w": w, "b": b, "loss": loss}, f)
    print(f"saved model to {model_dir}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
