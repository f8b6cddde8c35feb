"""How the leaderboard shows the image-ablation probe, as data (harness.display): its name,
docs, image-reliance evidence (the direct test: accuracy without the image) and chart."""

from __future__ import annotations

from harness.api import ChartSpec, Display, Evidence

__all__ = ["ABLATION_DISPLAY"]

_METRICS = ("vqa_accuracy_drop", "label_accuracy_drop")
_SUITES = "toy (image-ablation-toy), real VQA suites"
_CONDITIONS = {"real": "real image", "blank": "gray image", "swap": "other question's image",
               "no-question": "no question"}

ABLATION_DISPLAY = Display(
    title="Image ablation",
    docs="image-ablation.md#rows",
    metric_names={"vqa_accuracy": "VQA accuracy", "label_accuracy": "label accuracy",
                  "vqa_accuracy_drop": "VQA accuracy drop (points)", "label_accuracy_drop": "label accuracy drop (points)",
                  "answer_change_rate": "answers changed"},
    evidence=(
        Evidence("ablation-blank", "Accuracy drop, gray image", "drop, gray image", _METRICS, "blank",
                 reading="points lost when the image is replaced by gray; > 0: the answers need the image",
                 source="image-ablation probe", suites=_SUITES, role="direct", order=10),
        Evidence("ablation-swap", "Accuracy drop, another question's image", "drop, swapped image", _METRICS, "swap",
                 reading="points lost with the image of another question of the same type; > 0: the answers "
                         "follow the image",
                 source="image-ablation probe", suites=_SUITES, role="direct", order=20),
        Evidence("ablation-swap-change", "Answers changed, another question's image", "answers changed, swapped image",
                 ("answer_change_rate",), "swap",
                 reading="share of answers that change when the image is swapped; 0: the image is ignored",
                 source="image-ablation probe", suites=_SUITES, order=30),
    ),
    charts=(
        ChartSpec("image-ablation", "Accuracy with the real image, a gray image, another question's image and no "
                  "question (a model that uses the image loses accuracy without it)", axis="accuracy (%)",
                  style="bars", metrics=("vqa_accuracy", "label_accuracy"),
                  alternatives=(("vqa_accuracy",), ("label_accuracy",)), where={"variant": tuple(_CONDITIONS)},
                  panels=("model", "data", "train"), categories="variant", labels={"variant": _CONDITIONS}),
    ),
)
