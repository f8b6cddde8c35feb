"""A tiny suite for whole `harness run`s of the torch models (no toy benchmark): 30 training
and 12 validation questions whose answer the question names."""

from __future__ import annotations

import json
from pathlib import Path

from harness.run import RunConfig, execute_run
from harness.testing import dataset_plugin, make_host
from harness.types import Example
from vqa_harness_plugins import baselines

COLORS = ("red", "blue", "green")


def tiny(n: int, prefix: str) -> list[Example]:
    """Question i names its answer's index: learnable from the question alone."""
    return [Example(id=f"{prefix}{i}", question=f"what color is number {i % 3}?", image_id=str(i),
                    answers=(COLORS[i % 3],) * 10, label=COLORS[i % 3]) for i in range(n)]


def tiny_host():
    import vqa_harness_plugins.vqa as accuracy

    data = dataset_plugin("tiny", {"train": tiny(30, "t"), "val": tiny(12, "v")}, suite="tiny-suite")
    return make_host(accuracy, data, baselines, names=["vqa", "tiny-data", "baselines"])


def run_tiny(tmp_path: Path, model: str = "qonly:epochs=2,hidden=8") -> dict:
    """One run of `model` on the tiny suite (prediction cache and artifact store in
    `tmp_path`); its manifest."""
    config = RunConfig(model=model, suite="tiny-suite", out=tmp_path / "runs", cache_path=tmp_path / "cache.sqlite",
                       device="cpu", progress=False)
    outcome = execute_run(config, tiny_host())
    assert outcome.rows and not outcome.probe_failures
    return json.loads((outcome.rundir.path / "manifest.json").read_text())
