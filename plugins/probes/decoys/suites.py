"""Chao et al. 2018 Table 3 on the official files under --data-dir.

One suite per dataset; each task trains (trainable models) and tests on one decoy set, as
the paper's columns do: `decoys-visual7w` (Visual7W telling test: Orig, IoU, QoU, IoU+QoU,
All; the authors' released decoys from visual7w/decoys.json when present, generated
otherwise — the source is a row of the audit), `decoys-vqa1` (VQA v1 val: its 18 choices
as Orig plus generated sets), `decoys-vqa2` (VQA v2 val: generated IoU, QoU, IoU+QoU) and
`decoys-vg` (Visual Genome QA test, generated sets). Every task also runs the model-free
`decoy-audit` (the Eq. 2 shortcut, neutrality, generation statistics).
"""

from __future__ import annotations

from harness.api import Suite, Task
from vqa_harness_plugins.generators.decoys import VARIANT_LABELS, VARIANTS

__all__ = ["decoy_suite", "REAL_DECOY_SUITES"]


def decoy_suite(name: str, dataset: str, variants: tuple[str, ...], test_split: str, description: str,
                *, toy: bool = False) -> Suite:
    """Train and test on each decoy set of `dataset` (one task per set), with the audit."""
    tasks = tuple(
        Task(f"{dataset}:decoys={v}" if ":" not in dataset else f"{dataset},decoys={v}", test_split,
             ("decoys", "decoy-audit"),
             train=(f"{dataset}:decoys={v}" if ":" not in dataset else f"{dataset},decoys={v}", "train"),
             label=VARIANT_LABELS[v], probe_options={"decoys": {"variants": v}, "decoy-audit": {"variants": v}})
        for v in variants
    )
    return Suite(name=name, description=description, tasks=tasks, toy=toy)


REAL_DECOY_SUITES = (
    decoy_suite("decoys-visual7w", "visual7w", VARIANTS, "test",
                "Chao et al. 2018 Table 3 on Visual7W telling (official files): Orig/IoU/QoU/IoU+QoU/All, "
                "ablations, Eq. 2 audit"),
    decoy_suite("decoys-vqa1", "vqa1-mc", VARIANTS, "val",
                "Chao et al. 2018 on VQA v1 val: its 18 choices (Orig) and generated IoU/QoU/IoU+QoU/All"),
    decoy_suite("decoys-vqa2", "vqa2-mc", ("iou", "qou", "iou+qou"), "val",
                "Chao et al. 2018 on VQA v2 val: generated IoU/QoU/IoU+QoU decoys (v2 has no original decoys)"),
    decoy_suite("decoys-vg", "visual-genome-qa", ("iou", "qou", "iou+qou"), "test",
                "Chao et al. 2018 on Visual Genome QA: generated IoU/QoU/IoU+QoU decoys"),
)
