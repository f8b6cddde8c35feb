"""Decoys (Chao et al. 2018): the `decoys` and `decoy-audit` probes, their table layouts,
the toy `decoys` suite and the `harness decoys generate` command. See docs/decoys.md."""

from __future__ import annotations

from harness.api import Suite, Task
from harness.decoys import VARIANT_LABELS, VARIANTS

from .probe import ABLATIONS, DecoyAuditProbe, DecoyProbe, mc_variant_examples, pick_scores

__all__ = ["DecoyProbe", "DecoyAuditProbe", "DECOYS_SUITE", "ABLATIONS", "mc_variant_examples", "pick_scores"]

DECOYS_SUITE = Suite(
    toy=True,
    name="decoys",
    description="Chao et al. 2018 on the toy benchmark: train and test on each decoy set, ablations, audit",
    tasks=tuple(
        Task(f"toyvqa-mc:decoys={v}", "val", ("decoys", "decoy-audit"), train=(f"toyvqa-mc:decoys={v}", "train"),
             label=VARIANT_LABELS[v], probe_options={"decoys": {"variants": v}, "decoy-audit": {"variants": v}})
        for v in VARIANTS
    ),
)
