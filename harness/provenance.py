"""What a run's numbers depend on beside its code and data: installed packages, the CPU and
the float-arithmetic settings in force (docs/models.md, "Training", says why). Every installed
distribution is recorded: a transitive dependency (Pillow, pyarrow) can move a number too."""

from __future__ import annotations

import contextlib
import importlib.metadata as md
import os
import platform
import sys
from typing import Any

from . import NUMERICS_ENV, PINS_IN_EFFECT

__all__ = ["environment", "numerics", "torch_numerics", "SIMD_FLAGS"]

#: CPU features that decide which vectorized kernels a numeric library may run.
SIMD_FLAGS = ("sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512vl", "avx512_vnni",
              "avx512_bf16", "avx_vnni", "amx_tile", "amx_bf16", "amx_int8")


def _distributions() -> dict[str, str]:
    found: dict[str, str] = {}
    for dist in md.distributions():
        meta = dist.metadata  # parsed once: `dist.version` would parse the file again
        if name := (meta["Name"] or "").strip():
            found.setdefault(name.lower().replace("_", "-"), meta["Version"])
    return dict(sorted(found.items()))


def _cpu() -> dict[str, Any]:
    found: dict[str, str] = {}
    flags: set[str] = set()
    with contextlib.suppress(OSError):  # not Linux: the platform module's answer stands
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:  # the first processor's block is enough
                key, _, value = line.partition(":")
                key = key.strip()
                if key in ("model name", "vendor_id"):
                    found.setdefault(key, value.strip())
                elif key == "flags":
                    flags = set(value.split())
                    break
    return {"model": found.get("model name") or platform.processor() or platform.machine(),
            "vendor": found.get("vendor_id", ""), "machine": platform.machine(), "cores": os.cpu_count(),
            "simd": [f for f in SIMD_FLAGS if f in flags]}


def numerics() -> dict[str, Any]:
    """The manifest's `numerics`: `NUMERICS_ENV` (pinned by harness/__init__.py) and threads."""
    found: dict[str, Any] = {k: os.environ.get(k, "") for k in (*NUMERICS_ENV, "OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    if not PINS_IN_EFFECT:  # torch was loaded before the harness set them: they did not apply
        found["pins_in_effect"] = False
    return found


def environment() -> dict[str, Any]:
    """The manifest's `environment`: python, platform, CPU and every installed distribution
    with its version (read from metadata; nothing is imported)."""
    return {"python": platform.python_version(), "platform": platform.platform(), "cpu": _cpu(),
            "packages": _distributions()}


def torch_numerics() -> dict[str, Any]:
    """torch's CPU dispatch level and threads; {} unless this process imported torch (not here)."""
    if (torch := sys.modules.get("torch")) is None:
        return {}
    try:
        return {"cpu_capability": torch.backends.cpu.get_cpu_capability(), "threads": torch.get_num_threads()}
    except Exception:  # metadata only: an unusual torch build must not end the run
        return {}
