"""Table layout of the image-ablation probe, as data (docs/image-ablation.md)."""

from __future__ import annotations

from harness.api import Layout

__all__ = ["ABLATION_LAYOUTS", "CONDITION_LABELS"]

CONDITION_LABELS = {"real": "real image", "blank": "gray image", "swap": "other question's image",
                    "no-question": "no question"}


def _layout(metric: str, name: str) -> Layout:
    return Layout(
        id=f"ablation-{name}", title="Image ablation on {data}",
        description="Accuracy (%) with the real image, a gray image, another question's image and no question; "
                    "drop = real - condition on the same questions and the share of answers that change "
                    "(higher drop/change with a gray or swapped image = the model uses the image).",
        reference="vqa-harness image-ablation probe (the generic ablation of Chao et al. 2018 §4 for "
                  "open-ended answers)",
        split_by=("data",), rows=("model", "train"), columns=("metric", "variant"),
        metrics=(metric, f"{metric}_drop", "answer_change_rate"),
        labels={"metric": {metric: "accuracy", f"{metric}_drop": "drop", "answer_change_rate": "changed"},
                "variant": CONDITION_LABELS},
        note="Values in %; 95% intervals in brackets (drops: paired bootstrap; changed: Wilson). "
             "Swapped images come from a seeded derangement within each question type.")


ABLATION_LAYOUTS = (_layout("vqa_accuracy", "vqa"), _layout("label_accuracy", "label"))
