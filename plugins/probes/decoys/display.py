"""How the leaderboard shows the decoy probes (Chao et al. 2018), as data (harness.display):
names, docs, the decoy accuracy with and without the image as image-reliance evidence, and
the decoy-set chart."""

from __future__ import annotations

from harness.api import ChartSpec, Display, Evidence
from vqa_harness_plugins.generators.decoys import VARIANT_LABELS, VARIANTS

__all__ = ["DECOY_DISPLAY", "AUDIT_DISPLAY"]

DOCS = "decoys.md#probes-and-suite"
_INPUTS = {"mc_accuracy": "image + question", "mc_accuracy/QA": "no image", "mc_accuracy/IA": "no question",
           "mc_accuracy/A": "answers only"}
_REFERENCES = {"random_accuracy": "Random", "eq2_rule_accuracy": "Eq. 2 rule"}
_EXACT = {"random_accuracy": "the expected accuracy of a uniform pick: exact, not an estimate",
          "eq2_rule_accuracy": "the shortcut rule's share of the split's questions, counted exactly (model-free)"}
_NAMES = {"mc_accuracy": "MC accuracy (image + question)", "mc_accuracy/QA": "MC accuracy, no image",
          "mc_accuracy/IA": "MC accuracy, no question", "mc_accuracy/A": "MC accuracy, answers only",
          "mc_unmatched_rate*": "answers matching no candidate", "random_accuracy": "Random (expected accuracy)",
          "eq2_rule_accuracy": "Eq. 2 rule accuracy"}

DECOY_DISPLAY = Display(
    title="Decoys (Chao et al. 2018, Table 3)", docs=DOCS, metric_names=_NAMES, no_interval=_EXACT,
    evidence=(
        Evidence("decoys-with", "IoU+QoU accuracy with the image", "decoys IoU+QoU, with image", ("mc_accuracy",),
                 "iou+qou",
                 reading="multiple choice where neither the question nor the image alone suffices; compare with the "
                         "next line",
                 source="Chao et al. 2018, Table 3", suites="decoys", order=50),
        Evidence("decoys-without", "IoU+QoU accuracy without the image", "decoys IoU+QoU, no image",
                 ("mc_accuracy/QA",), "iou+qou",
                 reading="the same model with the image blanked; far below the line above = the image is used",
                 source="Chao et al. 2018, Table 3 (generic ablation)", suites="decoys", more="", order=60),
    ),
    charts=(
        ChartSpec("decoy-ablations", "Multiple-choice accuracy per decoy set, with and without the image "
                  "(IoU+QoU: neither input alone suffices); gray: the model-free Random and Eq. 2 references",
                  axis="multiple-choice accuracy (%)", style="points", metrics=(*_INPUTS, *_REFERENCES),
                  panels=("model", "base"), categories="variant", series="metric",
                  labels={"variant": {v: VARIANT_LABELS[v] for v in VARIANTS}, "metric": {**_INPUTS, **_REFERENCES}},
                  references={"metric": tuple(_REFERENCES)}),
    ),
)

AUDIT_DISPLAY = Display(
    title="Decoy audit (Chao et al. 2018)", docs=DOCS,
    metric_names={**{k: v for k, v in _NAMES.items() if k in _REFERENCES}, "candidates_per_question": "candidates per question",
                  "neutrality/decoy_use_vs_chance": "decoy use vs chance", "neutrality/decoys_never_target":
                  "decoys never a target", "neutrality/mean_abs_dev": "mean |share - chance|",
                  "generation/*": "decoy generation count"},
    no_interval={**_EXACT, "candidates_per_question": "a mean over every question of the split (exact)",
                 "neutrality/*": "a property of the split's decoys, computed exactly", "generation/*": "a count"},
)
