"""Data-parallel training with PyTorch DistributedDataParallel (gloo, on the CPU).

The cluster comes from what Vertex AI sets on every replica of pools 0 (chief) and 1 (workers):
MASTER_ADDR, MASTER_PORT, WORLD_SIZE and RANK (init_method="env://"). Each replica trains on
its own shard of the data; DDP averages the gradients, so the replicas stay identical.

* checkpoints each epoch to AIP_CHECKPOINT_DIR and resumes from the newest after a restart;
* the chief saves the model to AIP_MODEL_DIR and reports the validation loss like
  cloudml-hypertune, for tuning;
* --learning_rate and --hidden are tunable;
* shuts down cleanly: every rank leaves the process group, the chief last (see shut_down).
"""

from __future__ import annotations

import argparse
import json
import os
import time
import warnings

warnings.filterwarnings("ignore", message="Failed to initialize NumPy")  # torch works without NumPy here

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
from torch import nn  # noqa: E402
from torch.nn.parallel import DistributedDataParallel  # noqa: E402
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset  # noqa: E402


def local_path(uri: str) -> str:
    return "/gcs/" + uri[len("gs://"):] if uri.startswith("gs://") else uri


def report_metric(tag: str, value: float, step: int) -> None:
    path = os.environ.get("CLOUD_ML_HP_METRIC_FILE", "/tmp/hypertune/output.metrics")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    entry = {"timestamp": time.time(), "trial": str(os.environ.get("CLOUD_ML_TRIAL_ID", 0)), tag: str(float(value)),
             "global_step": str(step), "checkpoint_path": ""}
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(entry, sort_keys=True) + "\n")


def make_data(n: int) -> TensorDataset:
    g = torch.Generator().manual_seed(0)
    x = torch.randn(n, 8, generator=g)
    w = torch.arange(1.0, 9.0)
    y = (x @ w).unsqueeze(1) + 0.1 * torch.randn(n, 1, generator=g)
    return TensorDataset(x, y)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--job-dir", default="")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--learning_rate", type=float, default=0.05)
    parser.add_argument("--hidden", type=int, default=16)
    parser.add_argument("--samples", type=int, default=2048)
    parser.add_argument("--batch-size", type=int, default=64)
    args, _ = parser.parse_known_args()

    torch.manual_seed(0)
    dist.init_process_group(backend="gloo", init_method="env://")
    rank, world = dist.get_rank(), dist.get_world_size()
    print(f"rank {rank} of {world} (MASTER_ADDR={os.environ['MASTER_ADDR']}:{os.environ['MASTER_PORT']})",
          flush=True)

    model = DistributedDataParallel(nn.Sequential(nn.Linear(8, args.hidden), nn.ReLU(), nn.Linear(args.hidden, 1)))
    optimizer = torch.optim.SGD(model.parameters(), lr=args.learning_rate)
    data = make_data(args.samples)
    sampler = DistributedSampler(data, num_replicas=world, rank=rank, shuffle=True, seed=0)
    loader = DataLoader(data, batch_size=args.batch_size, sampler=sampler)

    ckpt_dir = local_path(os.environ.get("AIP_CHECKPOINT_DIR", os.path.join(args.job_dir or ".", "checkpoints")))
    ckpt = os.path.join(ckpt_dir, "ddp.pt")
    start = 0
    if os.path.exists(ckpt):
        state = torch.load(ckpt, weights_only=True)
        model.module.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        start = state["epoch"] + 1
        print(f"rank {rank}: resuming from checkpoint at epoch {state['epoch']}", flush=True)

    loss_fn = nn.MSELoss()
    for epoch in range(start, args.epochs):
        sampler.set_epoch(epoch)
        total, seen = 0.0, 0
        for x, y in loader:
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()  # DDP all-reduces the gradients across the replicas here
            optimizer.step()
            total += loss.item() * len(x)
            seen += len(x)
        stats = torch.tensor([total, float(seen)])
        dist.all_reduce(stats)
        epoch_loss = (stats[0] / stats[1]).item()
        if rank == 0:
            print(f"epoch {epoch}: loss={epoch_loss:.4f} over {int(stats[1].item())} samples", flush=True)
            os.makedirs(ckpt_dir, exist_ok=True)
            tmp = ckpt + ".tmp"
            torch.save({"model": model.module.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch}, tmp)
            os.replace(tmp, ckpt)
            report_metric(os.environ.get("CLOUD_ML_HP_METRIC_TAG", "loss"), epoch_loss, epoch)
        dist.barrier()

    # The replicas must hold identical parameters: compare their checksums.
    checksum = torch.tensor([sum(p.detach().double().sum().item() for p in model.parameters())])
    gathered = [torch.zeros(1, dtype=torch.float64) for _ in range(world)]
    dist.all_gather(gathered, checksum.double())
    in_sync = all(abs(g.item() - gathered[0].item()) < 1e-9 for g in gathered)
    if rank == 0:
        print(f"parameters {'in sync' if in_sync else 'DIFFER'} across {world} replicas", flush=True)
        model_dir = local_path(os.environ.get("AIP_MODEL_DIR", os.path.join(args.job_dir or ".", "model")))
        os.makedirs(model_dir, exist_ok=True)
        torch.save(model.module.state_dict(), os.path.join(model_dir, "model.pt"))
        print(f"saved model to {model_dir}", flush=True)
    shut_down(rank, world)
    return 0 if in_sync else 1


def shut_down(rank: int, world: int) -> None:
    """Leave the process group cleanly, the chief last.

    The chief (rank 0) hosts the rendezvous store. If it exits while another rank is still tearing
    down its process group, that rank's background threads lose the store and the process aborts
    at exit ("terminate called without an active exception", SIGABRT), which the local backend and
    Vertex AI rightly count as the replica failing. So: a barrier, then every rank destroys its
    group; the others then check out through the store, and the chief waits for them (up to a
    minute) before it exits and takes the store down."""
    store = dist.distributed_c10d._get_default_store()  # kept past destroy_process_group
    dist.barrier()
    dist.destroy_process_group()
    if rank != 0:
        store.add("trainjobs/exited", 1)
        return
    deadline = time.monotonic() + 60
    while store.add("trainjobs/exited", 0) < world - 1 and time.monotonic() < deadline:
        time.sleep(0.05)


if __name__ == "__main__":
    raise SystemExit(main())
