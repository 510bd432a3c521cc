"""gcloud's own checks of ``--worker-pool-spec`` values that build no local package.

command_lib/ai/custom_jobs/validation.py ``_ValidateWorkerPoolSpecArgs`` (Google Cloud CLI 528):
the first pool is not empty; every pool names its machine type, and an accelerator count only with
a type, which is one of MachineSpec.AcceleratorType's NVIDIA_ or TPU_ names as written (gcloud does
not change its case: ``nvidia-tesla-t4`` is refused); each pool runs exactly one of ``container-image-uri`` or ``executor-image-uri`` (the
latter with ``python-module``, the former without it); the keys of a local package
(``local-package-path`` after the first pool, ``script``, ``requirements``, ``extra-packages``,
``extra-dirs``) only with ``local-package-path`` in the first pool (local_package.py checks that
case). Each refusal is gcloud's own words, so a command gcloud refuses is refused here the same way.
"""

from __future__ import annotations

from provider.gcloud.command import GcloudError

_LOCAL_ONLY = ("script", "requirements", "extra-packages", "extra-dirs")


def _fail(message: str) -> GcloudError:
    return GcloudError(f"Invalid value for [--worker-pool-spec]: {message}")


def _gcloud_accelerators(retired: bool = False) -> list[str]:
    """The accelerator names gcloud offers (its client's enum, kept in the catalog): NVIDIA_ and TPU_ ones;
    without ``retired``, less those the catalog says are retired (never offered as allowed)."""
    from provider.catalog import load
    from provider.gcloud.accelerator_flag import not_retired

    names: dict[str, int] = load("enum_numbers")["enums"]["AcceleratorType"]["gcloud"]
    offered = sorted(n for n in names if n.startswith(("NVIDIA", "TPU")))
    return offered if retired else not_retired(offered)


def hardware(spec: dict[str, object]) -> None:
    """gcloud's checks of a pool's machine and accelerator (``_ValidateHardwareInWorkerPoolSpecArgs``)."""
    if "machine-type" not in spec:
        raise _fail("Key [machine-type] required in dict arg but not provided.")
    if "accelerator-count" in spec and "accelerator-type" not in spec:
        raise _fail("Key [accelerator-type] required as [accelerator-count] is specified.")
    accelerator = spec.get("accelerator-type")
    if accelerator and accelerator not in _gcloud_accelerators(retired=True):
        raise _fail(f"Found invalid value of [accelerator-type]: {accelerator}. "
                    f"Available values are [{', '.join(_gcloud_accelerators())}]. (gcloud's list also holds "
                    "retired types, left out here)")


def _software(spec: dict[str, object]) -> None:
    executor, container, module = "executor-image-uri" in spec, "container-image-uri" in spec, "python-module" in spec
    if executor + container != 1:
        raise _fail("Exactly one of keys [executor-image-uri, container-image-uri] is required.")
    if container and module:
        raise _fail("Key [python-module] is not allowed together with key [container-image-uri].")
    if executor and not module:
        raise _fail("Key [python-module] is required.")
    unexpected = sorted(k for k in _LOCAL_ONLY if k in spec)
    if unexpected:
        raise _fail(f"Keys [{', '.join(unexpected)}] are not allowed: Only allow to specify together with "
                    "`local-package-path` in the first `--worker-pool-spec` flag.")


def check(pools: list[object]) -> None:
    """GcloudError, in gcloud's words, for what gcloud refuses in pools that build no local package."""
    if not pools or not pools[0]:
        raise _fail("Empty value is not allowed for the first `--worker-pool-spec` flag.")
    for spec in pools:
        if not isinstance(spec, dict) or not spec:
            continue
        hardware(spec)
        if spec is not pools[0] and "local-package-path" in spec:
            raise _fail("Key [local-package-path] is only allowed in the first `--worker-pool-spec` flag.")
        _software(spec)
