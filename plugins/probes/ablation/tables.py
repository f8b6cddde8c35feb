"""Table layout of the image-ablation probe, as data (docs/image-ablation.md)."""

from __future__ import annotations

from harness.api import Layout

__all__ = ["ABLATION_LAYOUTS", "CONDITION_LABELS"]

CONDITION_LABELS = {"real": "real", "blank": "gray", "swap": "swapped", "no-question": "no question"}
_METRICS = {"vqa_accuracy": "acc.", "label_accuracy": "label acc.", "vqa_accuracy_drop": "drop",
            "label_accuracy_drop": "label drop", "answer_change_rate": "changed"}

ABLATION_LAYOUTS = (
    Layout(
        id="ablation", title="Image ablation on {data}",
        description="Accuracy (%) with the real image, a gray image, another question's image (swapped) and no "
                    "question; drop = real - condition on the same questions, changed = share of answers that "
                    "change. A larger drop/change with a gray or swapped image means the model uses the image.",
        reference="vqa-harness image-ablation probe (Chao et al. 2018's generic ablation, for open-ended answers)",
        split_by=("data",), rows=("model", "train"), columns=("metric", "variant"), metrics=tuple(_METRICS),
        labels={"metric": _METRICS, "variant": CONDITION_LABELS},
        note="Values in %; 95% intervals in brackets (accuracy: bootstrap; drop: paired bootstrap; changed: "
             "Wilson). Swapped images come from a seeded derangement within each question type."),
)
