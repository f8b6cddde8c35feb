"""The run manifest (`manifest.json`): everything a run's numbers depend on, and its status."""

from __future__ import annotations

import importlib.metadata as md
import os
import platform
import subprocess
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from . import __version__
from .fileio import describe, fail
from .project import MANIFEST_SCHEMA_VERSION
from .provenance import environment, numerics

__all__ = ["new_manifest", "check_resumed", "now", "package_version"]


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def package_version(name: str) -> str:
    """An installed distribution's version without importing it ("" when absent)."""
    try:
        return md.version(name)
    except md.PackageNotFoundError:
        return ""


def _git_commit() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=Path(__file__).resolve().parent,
                             capture_output=True, text=True, timeout=5)
        return out.stdout.strip() if out.returncode == 0 else ""
    except (OSError, subprocess.SubprocessError):
        return ""


def check_resumed(previous: Any, path: Path | str) -> dict[str, Any]:
    """The manifest `--resume` continues, once the fields the new one carries on (`started`,
    `resumed`, `usage`, `probes_done`) have the types it needs; else one DataError line naming file and field."""
    if not isinstance(previous, dict):
        raise fail(path, "", f"expected a JSON object, got {describe(previous)}")
    expected = {"started": (str, "a time stamp (text)"), "resumed": (int, "a whole number of resumes"),
                "usage": (dict, "an object of usage counts"), "probes_done": (int, "a whole number of probes")}
    for field, (kind, what) in expected.items():
        value = previous.get(field)
        if field not in previous or (value is None and field != "resumed"):
            continue
        if not isinstance(value, kind) or isinstance(value, bool) or (kind is int and value < 0):
            raise fail(path, "", f"expected {what}, got {describe(value)}; fix or remove the field to --resume",
                       field)
    return previous


def new_manifest(config: Any, host: Any, model_spec: str, model_entry: Any, suite: Any, device: str,
                 run_id: str, previous: dict[str, Any]) -> dict[str, Any]:
    """The manifest of a run starting now (`previous`: the manifest of the run it resumes)."""
    return {
        "schema_version": MANIFEST_SCHEMA_VERSION, "run_id": run_id, "argv": list(config.argv),
        "model": model_spec, "model_plugin": f"{model_entry.plugin} ({model_entry.distribution})",
        "suite": suite.name, "suite_description": suite.description,
        "suite_file": {"path": suite.file, "sha256": suite.file_sha256} if suite.file or suite.file_sha256 else None,
        "seed": config.seed, "device": device, "batch_size": config.batch_size,
        "split": config.split, "limit": config.limit,
        "data_dir": str(config.data_dir) if config.data_dir else None,
        "config_digest": config.digest(model_spec, suite),
        "versions": {"vqa-harness": __version__, "python": platform.python_version(),
                     "torch": package_version("torch"),
                     "plugin_distributions": sorted({p.distribution for p in host.loaded})},
        # What the numbers depend on beside code and data: float-arithmetic settings (pinned
        # by harness/__init__.py), the CPU and every installed package (harness/provenance.py).
        "numerics": numerics(), "environment": environment(),
        "plugins": [{"name": p.name, "distribution": p.distribution} for p in host.loaded],
        "plugin_failures": [str(f) for f in host.failures],
        "git_commit": _git_commit(),
        "started": previous.get("started") or now(),
        "resumed": previous.get("resumed", 0) + (1 if previous else 0),
        "world_size": int(os.environ.get("WORLD_SIZE", "1")),
        "status": "running", "resources": {},
        # How many probes results.jsonl holds the rows of (harness.run.execute: a resumed attempt
        # leaves the files of the one before until it has come as far).
        "probes_done": previous.get("probes_done") or 0,
        # The model usage (requests, tokens) of the attempts this run resumes: the run adds its own.
        **({"usage_before_resume": dict(previous["usage"])} if previous.get("usage") else {}),
    }
