"""Table layouts of the decoy probes (Chao et al. 2018), as data.

Rows carry the tag `base`: the task's dataset spec without its `decoys=` option, so one
Table 3 per dataset gathers every decoy set (the columns).
"""

from __future__ import annotations

from harness.api import Layout
from vqa_harness_plugins.generators.decoys import VARIANT_LABELS, VARIANTS

__all__ = ["DECOY_LAYOUTS", "AUDIT_LAYOUTS"]

_SETS = {v: VARIANT_LABELS[v] for v in VARIANTS}
METRIC = "mc_accuracy"

DECOY_LAYOUTS = (
    Layout(id="table-3", title="Decoys: multiple-choice accuracy (%) on {base}",
           description="Share (%) of questions whose picked candidate is the target (VQA data: its VQA accuracy), "
                       "per decoy set; higher is better with image and question (the rows with an input blanked and "
                       "the Random / Eq. 2 references have no better direction). A shortcut-free model needs image "
                       "and question.",
           reference="Chao et al. 2018, Table 3", split_by=("base",), rows=("model", "metric"), columns=("variant",),
           metrics=(METRIC, f"{METRIC}/QA", f"{METRIC}/IA", f"{METRIC}/A", "random_accuracy", "eq2_rule_accuracy"),
           labels={"variant": _SETS,
                   "metric": {METRIC: "image + question", f"{METRIC}/QA": "[QA: no image]",
                              f"{METRIC}/IA": "[IA: no question]", f"{METRIC}/A": "[A: answers only]",
                              "random_accuracy": "Random", "eq2_rule_accuracy": "Eq. 2 rule"}},
           model_free={"metric": ("random_accuracy", "eq2_rule_accuracy")}, names={"metric": "input"}, fmt="pct1",
           note="Each column is trained (trainable models) and tested on the same decoy set. "
                "[QA]/[IA]/[A]: the model with the image blanked / the question emptied / both. "
                "Random: expected accuracy of a uniform pick; Eq. 2 rule: the answer-frequency "
                "shortcut counted on the training split."),
    Layout(id="unmatched", title="Decoys: answers matching no candidate (%) on {base}",
           description="Models that answer in words (no choice scores): share (%) of questions whose answer matched "
                       "none of the candidates under the VQA normalization; such a question scores 0 in Table 3, so "
                       "a high share means Table 3 measures the answer format as much as the decoys. Lower is better.",
           reference="not in the paper: how the open answers were matched to the candidates",
           split_by=("base",), rows=("model", "metric"), columns=("variant",),
           metrics=tuple(f"mc_unmatched_rate{s}" for s in ("", "/QA", "/IA", "/A")),
           labels={"variant": _SETS,
                   "metric": {"mc_unmatched_rate": "image + question", "mc_unmatched_rate/QA": "[QA: no image]",
                              "mc_unmatched_rate/IA": "[IA: no question]", "mc_unmatched_rate/A": "[A: answers only]"}},
           names={"metric": "input"}, fmt="pct1"),
)

_AUDIT_METRICS = {"eq2_rule_accuracy": "Eq. 2 rule (%)", "random_accuracy": "Random (%)",
                  "neutrality/decoys_never_target": "decoys never a target (%)",
                  "neutrality/decoy_use_vs_chance": "decoy use vs chance (ratio; 1 = neutral)",
                  "neutrality/mean_abs_dev": "mean |share - chance| (fraction)",
                  "candidates_per_question": "candidates per question"}
_GENERATION = {"generation/iou/orig": "IoU decoys from the original candidates",
               "generation/iou/generated": "IoU decoys generated", "generation/qou/orig": "QoU decoys from the original candidates",
               "generation/qou/generated": "QoU decoys generated", "generation/iou/frequent": "IoU decoys from frequent answers",
               "generation/qou/frequent": "QoU decoys from frequent answers",
               "generation/short_iou": "questions short of IoU decoys", "generation/short_qou": "questions short of QoU decoys",
               "generation/rejected_overlap": "candidates rejected: overlap with the target",
               "generation/rejected_wup": "candidates rejected: WUP similarity",
               "generation/rejected_mutual": "candidates rejected: too similar to each other",
               "generation/unique_questions": "unique questions"}

# One unit per column: a decoy set per row, a measure per column (its unit in its header); the
# generation counts (one per dataset, shared by every decoy set) in a table of their own.
AUDIT_LAYOUTS = (
    Layout(id="audit", title="Decoy audit on {base}",
           description="Model-free (no better direction): the Eq. 2 answer-frequency shortcut (%; near Random is "
                       "better) and the neutrality of the decoys (how often a decoy is also some question's target).",
           reference="Chao et al. 2018, Eq. 2 and §3", split_by=("base",), rows=("variant",), columns=("metric",),
           metrics=tuple(_AUDIT_METRICS), labels={"variant": _SETS, "metric": _AUDIT_METRICS},
           names={"variant": "decoy set"}, fmt="pct1",
           note="Each column has one unit (in its header). Eq. 2 rule and Random are exact shares of the split's "
                "questions: no interval."),
    Layout(id="generation", title="Decoy generation on {base}",
           description="How the decoys of the split were made (counts over the split's questions): decoys taken from "
                       "the original candidates or generated, candidates rejected by each filter.",
           reference="Chao et al. 2018, §3", split_by=("base",), rows=("metric",), columns=(),
           metric_prefix="generation/", where={"variant": ("",)}, labels={"metric": _GENERATION},
           names={"metric": "count of", "value": "count"}, fmt="count",
           note="Counts, not estimates: no interval. generation/source=* says whether the decoys come from "
                "released files or were generated here."),
)
