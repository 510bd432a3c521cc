"""Build trainjobs' catalog (provider/catalog/data/*.json) from the reference facts.

Inputs, both kept in this repository so the build is reproducible and checked by a test:

* ``tools/catalog/reference/``: the team's verified facts about Google Cloud training, each
  file with its ``sources`` and ``unverified`` flags (copied from shared/reference/catalog).
* ``tools/catalog/curated/``: facts trainjobs added on top, each with its own sources
  (prebuilt training containers, machine shapes of the non-N1 families, prices).

Output: small, normalised JSON files that the code reads through ``provider.catalog``.
Unverified values keep an ``unverified`` flag in the output, so messages can say so.

Run ``python tools/catalog/build.py`` after changing an input, then
``python tools/schema/generate.py`` to regenerate the JSON Schema; ``tests/test_catalog_build.py``
fails while the committed files differ from what these scripts produce.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
REFERENCE = HERE / "reference"
CURATED = HERE / "curated"
OUT = ROOT / "provider" / "catalog" / "data"

AS_OF = "2026-11-22"

Json = dict[str, Any]


def _load(path: Path) -> Json:
    with path.open(encoding="utf-8") as f:
        data: Json = json.load(f)
    return data


# Vertex AI locations table names accelerators by display name; the API by enum.
_DISPLAY_FOR_REGION_TABLE = {
    "A100 40GB": "NVIDIA_TESLA_A100",
    "A100 80GB": "NVIDIA_A100_80GB",
    "H100": "NVIDIA_H100_80GB",
    "H100 Mega": "NVIDIA_H100_MEGA_80GB",
    "H200": "NVIDIA_H200_141GB",
    "B200": "NVIDIA_B200",
    "GB200": "NVIDIA_GB200",
    "RTX PRO 6000": "NVIDIA_RTX_PRO_6000",
    "L4": "NVIDIA_L4",
    "P4": "NVIDIA_TESLA_P4",
    "P100": "NVIDIA_TESLA_P100",
    "T4": "NVIDIA_TESLA_T4",
    "V100": "NVIDIA_TESLA_V100",
    "K80": "NVIDIA_TESLA_K80",
    "TPU v2": "TPU_V2",
    "TPU v2 Pod": "TPU_V2",
    "TPU v3": "TPU_V3",
    "TPU v3 Pod": "TPU_V3",
    "TPU v5e": "TPU_V5_LITEPOD",
    # TPU v6e and TPU7x have no AcceleratorType enum: the machine type implies them.
    "TPU v6e": "TPU_V6E",
    "TPU7x": "TPU7X",
}

# Accelerators that Vertex AI no longer offers for new training jobs, with what to use instead.
# K80: "Deprecated: Nvidia Tesla K80 GPU has reached end of support" (accelerator_type.proto).
_REPLACEMENTS = {
    "NVIDIA_TESLA_K80": ["NVIDIA_TESLA_T4", "NVIDIA_L4"],
    "NVIDIA_TESLA_P100": ["NVIDIA_TESLA_T4", "NVIDIA_L4", "NVIDIA_TESLA_V100"],
    "NVIDIA_TESLA_P4": ["NVIDIA_TESLA_T4", "NVIDIA_L4"],
}


def build_accelerators(vms: Json, gpu: Json, tpu_training: Json | None = None) -> Json:
    notes = vms["accelerator_capacity_notes"]
    display_by_enum: dict[str, str] = {}
    for display, enum in vms["accelerator_display_name_to_enum"].items():
        display_by_enum.setdefault(enum.split(" ")[0], display)
    vertex_gpus = set(vms["accelerator_types_supported_for_custom_training_gpu"])
    out: dict[str, Json] = {}
    for entry in vms["accelerator_type_enum"]:
        name = entry["name"]
        if name == "ACCELERATOR_TYPE_UNSPECIFIED":
            continue
        kind = "tpu" if name.startswith("TPU") else "gpu"
        rec: Json = {
            "display": display_by_enum.get(name, name),
            "kind": kind,
            "enum_number": entry["number"],
            "vertex_training": (name in vertex_gpus) if kind == "gpu" else _tpu_trains(name, entry, tpu_training),
            "ai_platform_training": name in gpu["accelerator_columns"] or name in ("TPU_V2", "TPU_V3"),
            "deprecated": entry["deprecated"],
            "description": entry["description"],
        }
        if name == "NVIDIA_TESLA_P100":
            rec["end_of_support"] = "2026-09-15"
            rec["end_of_support_source"] = notes["NVIDIA_TESLA_P100"]
        if name == "NVIDIA_TESLA_K80":
            rec["end_of_support_source"] = entry["description"]
        if kind == "tpu" and not rec["vertex_training"] and tpu_training:
            rec["no_training_machine"] = tpu_training["vertex_training_rule"]
        if name in _REPLACEMENTS:
            rec["instead"] = _REPLACEMENTS[name]
        for key, note in notes.items():
            if name in key.split("/"):
                rec["capacity_note"] = note
        out[name] = rec
    # TPU generations without an AcceleratorType enum: their machine types imply them.
    for name, display in (("TPU_V6E", "TPU v6e"), ("TPU7X", "TPU7x")):
        out[name] = {
            "display": display,
            "kind": "tpu",
            "enum_number": None,
            "vertex_training": True,
            "ai_platform_training": False,
            "deprecated": False,
            "implied_by_machine_type": True,
            "description": f"{display}: no AcceleratorType enum; set by the machine type and tpuTopology",
        }
    sources = vms["sources"][:6] + (tpu_training or {}).get("sources", [])
    return {"accelerators": out, "sources": sources}


def _tpu_trains(name: str, entry: Json, tpu_training: Json | None) -> bool:
    """A TPU AcceleratorType trains on Vertex AI when a page gives it a machine type (curated/tpu_training.json)."""
    listed = (tpu_training or {}).get("vertex_training", {})
    return bool(listed[name]) if name in listed else not entry["deprecated"]


def _shape_of(name: str, curated_shapes: Json) -> Json | None:
    return curated_shapes.get("machine_types", {}).get(name)


def build_machine_types(vms: Json, gpu: Json, legacy: Json, curated_shapes: Json) -> Json:
    vertex_list = vms["machine_types_supported_for_training"]
    requires = set(vms["machine_types_requiring_gpu_or_tpu"])
    aip_ce = set(gpu["machine_types"])
    out: dict[str, Json] = {}
    families = {m: fam for fam, ms in vms["machine_types_by_family"].items() for m in ms}
    for name in vertex_list:
        rec: Json = {
            "family": families.get(name, name.split("-")[0]),
            "vertex_training": True,
            "ai_platform_training": name in aip_ce,
            "requires_accelerator": name in requires,
        }
        if name in gpu["machine_types"]:
            g = gpu["machine_types"][name]
            rec["vcpus"] = g["vcpus"]
            rec["memory_gb"] = g["memory_gb"]
            if g.get("memory_unverified"):
                rec["unverified"] = ["memory_gb"]
                rec["note"] = g["memory_note"]
            rec["shape_source"] = "gpu_compat_ai_platform.json"
        else:
            shape = _shape_of(name, curated_shapes)
            if shape:
                rec["vcpus"] = shape["vcpus"]
                rec["memory_gb"] = shape["memory_gb"]
                if not shape.get("verified", False):
                    rec["unverified"] = ["vcpus", "memory_gb"]
                rec["shape_source"] = shape.get("source", "curated/machine_shapes.json")
        out[name] = rec
    # Compute Engine types that only legacy machine types map to (not offered by Vertex training).
    for lname, lrec in legacy["machine_types"].items():
        ce = lrec.get("compute_engine_equivalent")
        if not ce:
            continue
        ce_name = ce.split(" ")[0]
        if ce_name not in out:
            out[ce_name] = {
                "family": ce_name.split("-")[0],
                "vertex_training": False,
                "ai_platform_training": False,
                "requires_accelerator": False,
                "vcpus": lrec["vcpus"],
                "memory_gb": lrec["memory_gb"],
                "unverified": ["vcpus", "memory_gb"],
                "note": f"only reached through the legacy machine type {lname!r}",
            }
    return {"machine_types": out, "notes": vms["machine_type_notes"], "sources": vms["sources"][:3]}


def build_accelerator_counts(vms: Json, gpu: Json, tpu_counts: Json) -> Json:
    vertex: dict[str, dict[str, list[int]]] = {
        m: {a: list(c) for a, c in accs.items()} for m, accs in vms["valid_accelerator_counts"].items()
    }
    # cloud-tpu: TPU_V2/TPU_V3, 8 cores for a single device; pods in multiples of 32.
    tpu = vms["tpu"]["tpu_v2_v3"]
    vertex["cloud-tpu"] = {k: list(v) for k, v in tpu_counts.items()}
    aip: dict[str, dict[str, list[int]]] = {}
    for m, rec in gpu["machine_types"].items():
        aip[m] = {a: list(c) for a, c in rec["valid_gpu_counts"].items() if c}
    return {
        "vertex": vertex,
        "ai_platform": aip,
        "tpu_topologies": {
            "ct5lp": {t["machineType"]: [] for t in vms["tpu"]["tpu_v5e"]["topologies"]}
            | _tpu_v5e_topologies(vms),
            "ct6e": vms["tpu"]["tpu_v6e"]["topologies"],
            "tpu7x": {vms["tpu"]["tpu7x"]["machineType"]: vms["tpu"]["tpu7x"]["topologies"]},
        },
        "unverified": [
            {
                "table": "ai_platform",
                "accelerator": "NVIDIA_TESLA_K80",
                "why": gpu["verification"]["NVIDIA_TESLA_K80 column"],
            },
            {
                "table": "vertex",
                "machine_type": "cloud-tpu",
                "why": "pod sizes beyond 32 cores: " + tpu["acceleratorCount"],
            },
        ],
        "semantics": {"vertex": vms["valid_accelerator_counts_semantics"], "ai_platform": gpu["semantics"]},
        "sources": {"vertex": vms["sources"][:2], "ai_platform": gpu["sources"][:3]},
    }


def _tpu_v5e_topologies(vms: Json) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for t in vms["tpu"]["tpu_v5e"]["topologies"]:
        out.setdefault(t["machineType"], [])
        if t["topology"] not in out[t["machineType"]]:
            out[t["machineType"]].append(t["topology"])
    return out


def build_gpu_caps(gpu: Json) -> Json:
    caps = gpu["per_gpu_limits"]
    by_count = {
        acc: {n: {"max_vcpus": v[0], "max_memory_gb": v[1]} for n, v in table.items() if n.isdigit()}
        for acc, table in caps["compute_engine_caps_by_gpu_count"].items()
        if isinstance(table, dict)
    }
    by_count = {k: v for k, v in by_count.items() if v}
    # Training-specific exception (seed 001): 4 x P100 gives at most 64 vCPUs and 208 GB everywhere.
    by_count["NVIDIA_TESLA_P100"]["4"] = {"max_vcpus": 64, "max_memory_gb": 208}
    return {
        "caps_by_gpu_count": by_count,
        "doc_example": caps["doc_stated_per_gpu"]["NVIDIA_TESLA_V100"],
        "rule_text": caps["doc_rule_text"],
        "training_exception": caps["training_specific_exception"],
        "applies_to_families": ["n1"],
        "sources": [gpu["sources"][1], gpu["sources"][4]],
    }


def build_regions(regions: Json) -> Json:
    aip = regions["ai_platform_training"]
    vx = regions["vertex_ai"]
    names: set[str] = set(vx["custom_training_regions_doc"]) | set(aip["training_regions"])
    names |= set(vx["custom_training_regions_gcloud_fallback"])
    out: dict[str, Json] = {}
    for r in sorted(names):
        rec: Json = {
            "vertex_training": r in vx["custom_training_regions_doc"],
            "ai_platform_training": r in aip["training_regions"],
        }
        if r not in vx["custom_training_regions_doc"]:
            rec["unverified"] = ["vertex_training"]
            rec["note"] = "listed by gcloud's SUPPORTED_TRAINING_REGIONS, not by the locations doc"
            rec["vertex_training"] = True
        if r in aip["training_regions"]:
            rec["name"] = aip["training_regions"][r]["name"]
        acc = vx["accelerators_by_region"].get(r)
        if acc:
            rec["location"] = acc["location"]
            rec["vertex_training_accelerators"] = sorted(
                {_DISPLAY_FOR_REGION_TABLE[a] for a in acc["training_accelerators"]}
            )
        else:
            rec["vertex_training_accelerators"] = []
        gpus = aip["gpu_types_by_region"].get(r, {})
        if gpus:
            rec["ai_platform_gpus"] = sorted(gpus)
            unv = sorted(a for a, v in gpus.items() if v.get("unverified"))
            if unv:
                rec["ai_platform_gpus_unverified"] = unv
        tpus = aip["tpu_regions"].get(r, {})
        if tpus:
            rec["ai_platform_tpus"] = sorted(tpus)
        out[r] = rec
    return {
        "regions": out,
        "ai_platform_gpu_regions": aip["gpu_regions"],
        "same_zone_rule": aip["same_zone_rule"]["text"],
        "bucket_rule": vx["bucket_rule"],
        "legend": vx["accelerators_by_region_legend"],
        "sources": regions["sources"],
    }


def build_zones(regions: Json, statements: Json) -> Json:
    out: dict[str, dict[str, Json]] = {}
    for region, zones in regions["zone_matrix"].items():
        if not isinstance(zones, dict):
            continue
        out[region] = {}
        for zone, rec in zones.items():
            if not isinstance(rec, dict) or "gpus" not in rec:
                continue
            z: Json = {"gpus": sorted(rec["gpus"])}
            if rec.get("unverified_gpus"):
                z["unverified"] = sorted(rec["unverified_gpus"])
            out[region][zone] = z
    return {
        "zones": out,
        "statements": statements.get("statements", []),
        "note": regions["zones_by_gpu_note"] + " " + statements.get("note", ""),
        "sources": regions["sources"][8:],
    }


def build_legacy(legacy: Json, tiers: Json) -> Json:
    machines: dict[str, Json] = {}
    for name, rec in legacy["machine_types"].items():
        ce = rec.get("compute_engine_equivalent")
        m: Json = {"description": rec["description"]}
        if name == "cloud_tpu":
            m["tpu"] = {"type": "TPU_V2", "count": 8}
            m["unverified"] = ["tpu"]
        else:
            m["machine_type"] = ce.split(" ")[0]
            if rec["gpu_type"]:
                m["accelerator"] = {"type": rec["gpu_type"], "count": rec["gpu_count"]}
            if rec.get("compute_engine_equivalent_unverified"):
                m["unverified"] = ["machine_type"]
        machines[name] = m
    scale: dict[str, Json] = {}
    for name, rec in tiers["tiers"].items():
        t: Json = {"description": rec["api_description"], "gcloud": rec["gcloud_choice"]}
        if name == "CUSTOM":
            t["custom"] = True
            t["rules"] = rec["rules_verified"]
        else:
            pools: Json = {}
            for role, key in (("chief", "master"), ("workers", "workers"), ("parameterServers", "parameter_servers")):
                p = rec.get(key)
                if not p or not p.get("count"):
                    continue
                pool: Json = {"machine_type": p["machine_type"], "count": p["count"]}
                if p.get("accelerator"):
                    pool["accelerator"] = p["accelerator"]
                pools[role] = pool
            if name == "BASIC_TPU":
                pools["chief"]["tpu"] = {"type": "TPU_V2", "count": 8}
            t["pools"] = pools
            unverified = rec.get("unverified") or any(
                (rec.get(k) or {}).get("machine_type_unverified") for k in ("master",)
            )
            if unverified or name == "BASIC_TPU":
                t["unverified"] = ["pools"]
        scale[name] = t
    return {
        "machine_types": machines,
        "scale_tiers": scale,
        "rules": legacy["rules"],
        "tier_verification": tiers["verification_summary"],
        "sources": legacy["sources"] + tiers["sources"],
    }


def _version_tuple(version: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"[0-9]+", version))


def _default_container(containers: Json, rule: Json) -> Json:
    """The prebuilt containers a Python package job without runtimeVersion or executor image runs.

    The newest TensorFlow CPU and GPU builds the containers page lists (the framework AI Platform's
    runtime versions were named after), preferring builds still served on AS_OF, so ``convert``
    never writes a retired default while a served one exists; ``end_of_availability`` is the earlier
    of the two, so a rule can tell whether Vertex AI still serves them on a given day.
    """
    chosen: dict[str, tuple[bool, tuple[int, ...], str]] = {}
    for name, rec in containers.items():
        if rec["framework"] != "tensorflow" or rec["accelerator"] not in ("cpu", "gpu"):
            continue
        served = (rec.get("end_of_availability") or "9999-12-31") >= AS_OF
        key = (served, _version_tuple(rec["version"]), name)
        if rec["accelerator"] not in chosen or key > chosen[rec["accelerator"]]:
            chosen[rec["accelerator"]] = key
    cpu, gpu = chosen["cpu"][2], chosen["gpu"][2]
    ends = [containers[n].get("end_of_availability") for n in (cpu, gpu)]
    return {
        "cpu": cpu,
        "gpu": gpu,
        "end_of_availability": min(e for e in ends if e) if all(ends) else None,
        "rule": rule.get("rule", ""),
        "sources": rule.get("sources", []),
    }


def build_runtimes(rules: Json, curated_containers: Json) -> Json:
    rt = rules["ai_platform_runtime_versions"]
    rule = next(r for r in rules["rules"] if r["id"] == "aip.pythonVersion.compat")
    containers = curated_containers.get("containers", {})
    hosts = curated_containers.get("uri_hosts", {})
    for name, rec in containers.items():
        rec["uris"] = [f"{host}/vertex-ai/training/{name}:latest" for host in hosts.values()]
    # TensorFlow runtime X.Y -> tf-cpu.X-Y / tf-gpu.X-Y, the Python 3.7 builds (name congruence).
    mapping: dict[str, Json] = {}
    for name, rec in sorted(containers.items()):
        if rec["framework"] != "tensorflow" or rec["python"] != "3.7" or rec["accelerator"] not in ("cpu", "gpu"):
            continue
        mapping.setdefault(rec["version"], {"python": "3.7"})[rec["accelerator"]] = name
    default_rule = curated_containers.get("default_without_runtime", {})
    return {
        "runtime_versions": {
            "verified": rt["known_runtime_versions"]["verified_existing"],
            "unverified": rt["known_runtime_versions"]["later_versions_unverified"],
        },
        "python_versions": rule["check"]["python_versions"],
        "python_rule": rule["rule"],
        "chief_vs_master": rt["chief_vs_master"],
        "prebuilt_training_containers": containers,
        "container_notes": curated_containers.get("notes", []),
        "runtime_to_container": {
            "map": mapping,
            "rule": curated_containers.get("runtime_to_container", {}).get("rule", ""),
            "verified": False,
        },
        "default_without_runtime": _default_container(containers, default_rule),
        "builtin_algorithms": curated_containers.get("builtin_algorithms", {}),
        "sources": rule["sources"] + curated_containers.get("sources", []),
    }


def build_limits(rules: Json, vms: Json) -> Json:
    by_id = {r["id"]: r for r in rules["rules"]}

    def src(rule_id: str) -> list[str]:
        return list(by_id[rule_id].get("sources", []))

    disk = vms["disk_spec"]
    return {
        "job_name": {
            "regex": by_id["aip.jobId.charset"]["check"]["regex"],
            "max_length": 128,
            "rule": by_id["aip.jobId.charset"]["rule"],
            "sources": ["seed 000 (Código do job)", "seed 003 (Nom de la tâche)"] + src("aip.jobId.charset"),
        },
        "labels": {
            "max_labels": 64,
            "max_key_length": 63,
            "max_value_length": 63,
            # The reference states the rule with \\p{Ll}/\\p{Lo}; JSON Schema patterns must also work in
            # Python's re and in editors, so non-ASCII is allowed as a range here and the exact
            # Unicode categories are checked in code (rules/job.py, labels_unicode).
            "key_regex": "^[a-z\\u0080-\\uffff][a-z0-9_\\u0080-\\uffff-]{0,62}$",
            "value_regex": "^[a-z0-9_\\u0080-\\uffff-]{0,63}$",
            "key_regex_unicode": by_id["aip.labels"]["check"]["key_regex_unicode"],
            "value_regex_unicode": by_id["aip.labels"]["check"]["value_regex_unicode"],
            "rule": by_id["aip.labels"]["rule"],
            "sources": src("aip.labels") + src("vx.labels"),
        },
        "duration": {"regex": rules["duration_format"]["regex"], "rule": rules["duration_format"]["text"],
                     "max_seconds": by_id["protobuf.duration.range"]["check"]["max_seconds"],
                     "sources": src("protobuf.duration.range")},
        "max_wait": {
            "min_seconds": by_id["aip.scheduling.maxWaitTime"]["check"]["min_seconds"],
            "rule": by_id["aip.scheduling.maxWaitTime"]["rule"],
            "sources": ["seed 003 (scheduling.maxWaitTime)"] + src("aip.scheduling.maxWaitTime"),
        },
        "max_running": {
            "default_seconds": 604800,
            "rule": by_id["aip.scheduling.maxRunningTime"]["rule"],
            "sources": ["seed 003 (scheduling.maxRunningTime)"] + src("aip.scheduling.maxRunningTime"),
        },
        "boot_disk": {
            "types": disk["bootDiskType"]["allowed"],
            "legacy_types": ["pd-ssd", "pd-standard"],
            "default_type": disk["bootDiskType"]["default"],
            "default_type_exceptions": disk["bootDiskType"]["default_exceptions"],
            "min_gb": disk["bootDiskSizeGb"]["min"],
            "max_gb": disk["bootDiskSizeGb"]["max"],
            "default_gb": disk["bootDiskSizeGb"]["default"],
            "sources": src("vx.diskSpec") + src("aip.diskConfig"),
        },
        "pools": {
            "max": vms["worker_pools"]["max_pools"],
            "max_unverified": vms["worker_pools"]["max_pools_unverified"],
            "note": vms["worker_pools"]["max_pools_note"],
            "positions": vms["worker_pools"]["positions"],
            "reduction_server_images": vms["worker_pools"]["reduction_server"]["imageUri_one_of"],
        },
        "package_uris": {"max": 100, "regex": by_id["aip.packageUris"]["check"]["each_regex"], "sources": src("aip.packageUris")},
        "job_dir": {"regex": by_id["aip.jobDir"]["check"]["regex"], "sources": src("aip.jobDir")},
        "env": {
            "max": by_id["vx.env.max"]["check"]["max_items"],
            "name_regex": by_id["vx.env.max"]["check"]["name_regex"],
            "reserved_names": by_id["vx.env.reserved"]["check"]["reserved_names"],
            "reserved_prefixes": by_id["vx.env.reserved"]["check"]["reserved_prefixes"],
            "risky_names": by_id["vx.env.reserved"]["check"]["risky_names"],
            "sources": src("vx.env.max") + src("vx.env.reserved"),
        },
        "gcs": {
            "bucket": by_id["gcs.bucket_name"]["check"],
            "object": by_id["gcs.object_name"]["check"],
            "sources": src("gcs.bucket_name") + src("gcs.object_name"),
        },
        "args": {"max_total_chars": by_id["vx.args.total_len"]["check"]["max_total_chars"], "sources": src("vx.args.total_len")},
        "display_name": {"max_length": 128, "sources": src("vx.displayName")},
        "scheduling_strategies": {
            "vertex": ["STRATEGY_UNSPECIFIED", "ON_DEMAND", "LOW_COST", "STANDARD", "SPOT", "FLEX_START"],
            "vertex_deprecated": ["ON_DEMAND", "LOW_COST"],
            "ai_platform": ["STRATEGY_UNSPECIFIED", "ON_DEMAND", "LOW_COST"],
            "sources": src("vx.scheduling.other") + src("aip.scheduling.strategy"),
        },
        "scheduling_priority": by_id["aip.scheduling.priority"]["check"],
        "hyperparameters": {
            "ai_platform": rules["ai_platform_hyperparameter_spec"],
            "max_discrete_values": 1000,
            "grid_search_types": ["INTEGER", "CATEGORICAL", "DISCRETE"],
            "recommendation": by_id["vx.hpt.recommendation"]["rule"],
            "sources": src("vx.hpt.param_specs") + src("vx.hpt.counts"),
        },
        "environment_variables": rules["environment_variables"],
        "rules": {r["id"]: {"rule": r["rule"], "verified": bool(r.get("verified", False))} for r in rules["rules"]},
        "sources": rules["sources"],
    }


def build_states(states: Json) -> Json:
    return {
        "vertex": {e["name"]: e["number"] for e in states["vertex_ai"]["enum"]},
        "ai_platform": {e["name"]: e["number"] for e in states["ai_platform_training"]["enum"]},
        "vertex_terminal": states["vertex_ai"]["terminal_states"],
        "ai_platform_to_vertex": {
            k: v for k, v in states["vertex_ai"]["state_mapping_from_ai_platform"].items() if k != "note"
        },
        "sources": states["sources"],
    }


def build(reference: Path = REFERENCE, curated: Path = CURATED) -> dict[str, Json]:
    ref = {p.stem: _load(p) for p in sorted(reference.glob("*.json"))}
    cur = {p.stem: _load(p) for p in sorted(curated.glob("*.json"))}
    vms, gpu, regions = ref["vertex_machine_spec"], ref["gpu_compat_ai_platform"], ref["regions"]
    legacy, tiers, rules = ref["legacy_machine_types"], ref["scale_tiers"], ref["job_rules"]
    files = {
        "accelerators": build_accelerators(vms, gpu, cur.get("tpu_training")),
        "machine_types": build_machine_types(vms, gpu, legacy, cur.get("machine_shapes", {})),
        "accelerator_counts": build_accelerator_counts(vms, gpu, cur["tpu_training"]["cloud_tpu_counts"]),
        "gpu_caps": build_gpu_caps(gpu),
        "regions": build_regions(regions),
        "zones": build_zones(regions, cur.get("zone_statements", {})),
        "legacy": build_legacy(legacy, tiers),
        "runtimes": build_runtimes(rules, cur.get("prebuilt_containers", {})),
        "limits": build_limits(rules, vms),
        "states": build_states(ref["job_states"]),
    }
    if "pricing" in cur:
        files["pricing"] = cur["pricing"]
    if "enum_numbers" in cur:
        files["enum_numbers"] = cur["enum_numbers"]
    if "vertex_job_fields" in cur:
        files["job_fields"] = cur["vertex_job_fields"]
    files["catalog"] = {
        "as_of": AS_OF,
        "built_from": ["tools/catalog/reference/" + p.name for p in sorted(reference.glob("*.json"))]
        + ["tools/catalog/curated/" + p.name for p in sorted(curated.glob("*.json"))],
        "files": sorted(files),
        "note": "Generated by tools/catalog/build.py; edit the inputs, not these files.",
    }
    return files


def render(data: Json) -> str:
    return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the committed catalog is stale")
    args = parser.parse_args(argv)
    files = build()
    stale = []
    for name, data in files.items():
        path = OUT / f"{name}.json"
        text = render(data)
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(path)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    if args.check and stale:
        print("stale catalog files: " + ", ".join(str(p.relative_to(ROOT)) for p in stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
