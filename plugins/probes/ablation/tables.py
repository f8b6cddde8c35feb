"""Table layouts of the image-ablation probe, as data (docs/image-ablation.md): accuracy per
condition, then the drops and answer changes (two tables, each narrow enough to read)."""

from __future__ import annotations

from harness.api import Layout

__all__ = ["ABLATION_LAYOUTS", "CONDITION_LABELS"]

CONDITION_LABELS = {"real": "real", "blank": "gray", "swap": "swapped", "no-question": "no question"}
_ACCURACY = {"vqa_accuracy": "acc.", "label_accuracy": "label acc."}
_EFFECTS = {"vqa_accuracy_drop": "drop", "label_accuracy_drop": "label drop", "answer_change_rate": "changed"}
_REFERENCE = "vqa-harness image-ablation probe (Chao et al. 2018's generic ablation, for open-ended answers)"

ABLATION_LAYOUTS = (
    Layout(
        id="ablation-accuracy", title="Image ablation on {data}: accuracy per condition",
        description="Accuracy (%) with the real image (higher is better), a gray image, another question's image "
                    "(swapped) and no question (no better direction: a question-only model keeps its accuracy with a "
                    "gray image); a model that uses the image loses accuracy without it.",
        reference=_REFERENCE, split_by=("data",), rows=("model", "train"), columns=("metric", "variant"),
        metrics=tuple(_ACCURACY), labels={"metric": _ACCURACY, "variant": CONDITION_LABELS},
        note="Values in %; 95% bootstrap intervals in brackets. Swapped images come from a seeded derangement "
             "within each question type."),
    Layout(
        id="ablation-effect", title="Image ablation on {data}: drop and changed answers",
        description="Drop = accuracy(real) - accuracy(condition) on the same questions (points) and the share of "
                    "answers that change (%); larger with a gray or swapped image = the model uses the image.",
        reference=_REFERENCE, split_by=("data",), rows=("model", "train"), columns=("metric", "variant"),
        metrics=tuple(_EFFECTS), labels={"metric": _EFFECTS, "variant": CONDITION_LABELS},
        note="95% intervals in brackets: drops by the paired bootstrap (questions resampled once for both "
             "conditions), changed answers by the Wilson interval."),
)
