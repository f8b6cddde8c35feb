"""Table layouts of the counterfactual probe (Stoikou et al. 2023), as data: Table 2 (colors),
Table 3 (WordNet kinds and deletion) and the global rules (most and least robust concepts).
Values are percentages; we add the answer-change rate (the only number for data without
answers)."""

from __future__ import annotations

from harness.api import Layout
from vqa_harness_plugins.generators.counterfactual import KINDS

__all__ = ["COUNTERFACTUAL_LAYOUTS"]

_COLOR = {k.id: k.label for k in KINDS if k.relation == "color"}
_WORDNET = {k.id: k.label for k in KINDS if k.relation != "color"}
_NAMES = {"variant": "perturbation", "generator": "generator"}
_METRICS = {"acc_q": "acc_Q", "acc_q_cf": "acc*_Q", "acc_reduction": "acc_Q reduction", "answer_change_rate": "change"}

COUNTERFACTUAL_LAYOUTS = (
    Layout(id="table-2", title="Counterfactual questions: color perturbations",
           description="acc_Q on the questions a perturbation applies to, acc*_Q on their counterfactuals (%), and "
                       "the share of answers that change; Color Maximal should change answers, Color Minimal not.",
           reference="Stoikou et al. 2023, Table 2", rows=("model", "train", "generator", "variant"),
           columns=("data", "metric"),
           metrics=("acc_q", "acc_q_cf", "answer_change_rate"), where={"variant": tuple(_COLOR)},
           labels={"variant": _COLOR, "metric": _METRICS}, names=_NAMES, fmt="pct1",
           note="common: replacement among the colors of the dataset's questions and answers; "
                "uncommon: any matplotlib named color. Distance: CIEDE2000."),
    Layout(id="table-3", title="Counterfactual questions: WordNet perturbations and deletion",
           description="acc_Q, acc*_Q, the relative reduction (acc_Q - acc*_Q) / acc_Q (lower is better) and the "
                       "share of answers that change (lower is better: a robust model keeps its answer).",
           reference="Stoikou et al. 2023, Table 3", rows=("model", "train", "generator", "variant"),
           columns=("data", "metric"),
           metrics=tuple(_METRICS), where={"variant": tuple(_WORDNET)},
           labels={"variant": _WORDNET, "metric": _METRICS}, names=_NAMES, fmt="pct1",
           note="reduction = (acc_Q - acc*_Q) / acc_Q; change = share of answers a* != a. generator: "
                "quality (default) or paper (Stoikou et al. as described), see docs/counterfactual.md."),
    Layout(id="rules", title="Counterfactual global rules: {variant}",
           description="Share (%) of answers unchanged when a concept is replaced (robust = high; under Color "
                       "Maximal, whose answers should change, high = the color is ignored): per model its 3 highest "
                       "(rank 1, 2, 3) and its 3 lowest (the last ranks); all rules are in results.csv.",
           reference="Stoikou et al. 2023, §4 (global explanations)", split_by=("variant",),
           rows=("model", "data", "metric"), columns=(), metric_prefix="unchanged/concept=",
           labels={"variant": {**_COLOR, **_WORDNET}},
           names={"metric": "concept", "rank": "rank (1 = most robust)", "value": "answers unchanged (%)"},
           n_column=True, extremes=3,
           note="Wilson intervals; rules below the probe's min_support are not reported; ties rank by more "
                "questions, then by name. Substitution-level rules (X → Y) are in results.csv."),
)
