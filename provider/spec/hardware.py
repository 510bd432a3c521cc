"""What a job runs on, in a few words: ``1x n1-standard-8 + 2xT4, 4x n1-standard-8`` (pools in order).

Used by ``trainjobs validate --summary`` and by ``trainjobs plan``'s reports (provider.gitops), so
it lives beside the model both read, below the CLI.
"""

from __future__ import annotations

from provider.spec.model import TrainingJob


def hardware(job: TrainingJob) -> str:
    """Each pool as ``REPLICASx MACHINE`` with ``+ COUNTxACCELERATOR`` (NVIDIA_ and TESLA_ dropped)."""
    parts = []
    for p in job.pools:
        acc = f" + {p.accelerator.count}x{p.accelerator.type.replace('NVIDIA_', '').replace('TESLA_', '')}" if p.accelerator else ""
        parts.append(f"{p.replica_count}x {p.machine_type}{acc}")
    return ", ".join(parts)
