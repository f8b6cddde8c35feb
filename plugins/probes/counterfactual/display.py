"""How the leaderboard shows the counterfactual probe (Stoikou et al. 2023), as data
(harness.display): names, docs, Color Maximal as context on the image-reliance card (a
question perturbation, not image evidence), the perturbation chart, and the rule that a
model which changes no answer at all says nothing about robustness."""

from __future__ import annotations

from harness.api import ChartSpec, Degenerate, Display, Evidence
from vqa_harness_plugins.generators.counterfactual import KINDS

__all__ = ["COUNTERFACTUAL_DISPLAY"]

_KIND_LABELS = {k.id: k.label for k in KINDS}
_COLOR_SETS = {k.id: k.id.rsplit("_", 1)[-1] + " colors" for k in KINDS if k.id.startswith("color_max")}

COUNTERFACTUAL_DISPLAY = Display(
    title="Counterfactual questions (Stoikou et al. 2023)",
    docs="counterfactual.md#metrics-result-rows-variant--kind-id",
    metric_names={"acc_q": "acc_Q (original questions)", "acc_q_cf": "acc*_Q (counterfactual questions)",
                  "acc_reduction": "relative accuracy reduction", "answer_change_rate": "answers changed",
                  "applicable": "questions the perturbation applies to", "coverage": "share of questions perturbed",
                  "unchanged/concept=*": "answers unchanged when the concept is replaced",
                  "unchanged/rule=*": "answers unchanged under the substitution"},
    no_interval={"applicable": "a count of questions, not an estimate",
                 "coverage": "a property of the data (no sampling interval)"},
    evidence=(
        Evidence("color-max", "Answers changed by Color Maximal (question perturbation)", "Color Maximal change",
                 ("answer_change_rate",), "color_max_*",
                 reading="context, not image evidence: the color word in the QUESTION is replaced by the most "
                         "distant color (the image is unchanged); a share above 0 says the model reads that word, "
                         "which a question-only model does too",
                 source="Stoikou et al. 2023, Table 2", suites="counterfactual", role="context", more="", order=80,
                 context={"variant": "{}"}, labels={"variant": _COLOR_SETS}),
    ),
    charts=(
        ChartSpec("perturbations", "Counterfactual questions per perturbation kind (answers changed: higher for "
                  "Color Maximal, lower elsewhere; reduction = (acc_Q - acc*_Q) / acc_Q)", axis="{metric} (%)",
                  style="bars", metrics=("answer_change_rate", "acc_reduction"), panels=("model", "metric", "data"),
                  categories="variant",
                  labels={"variant": _KIND_LABELS, "metric": {"answer_change_rate": "answers changed",
                                                              "acc_reduction": "relative accuracy reduction"}}),
    ),
    degenerate=(
        Degenerate("answer_change_rate", 0.0, ("answer_change_rate", "acc_reduction", "unchanged/*"),
                   "{model} changed no answer under any of the {n} perturbation kinds (answer change 0 everywhere): "
                   "it ignores the words they replace, so its 0 is not robustness"),
    ),
)
