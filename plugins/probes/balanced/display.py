"""How the leaderboard shows the balanced-VQA probes (Goyal et al. 2017), as data
(harness.display): names, docs, the pairs' image-reliance evidence and the answer-type chart."""

from __future__ import annotations

from harness.api import ChartSpec, Display, Evidence
from vqa_harness_plugins.probes.accuracy import ACCURACY_NAMES, ANSWER_TYPE_CATEGORIES

from .tables import GOYAL_COLUMNS

__all__ = ["BALANCED_DISPLAY", "PAIR_DISPLAY", "AUDIT_DISPLAY", "COUNTEREXAMPLE_DISPLAY"]

DOCS = "balanced-vqa.md#probes-and-metrics"
_CONDITION_NAMES = {"UU": "train U → test U", "UB": "train U → test B", "B_half B": "train B_half → test B",
                    "BB": "train B → test B"}
_TYPES = ANSWER_TYPE_CATEGORIES

BALANCED_DISPLAY = Display(
    title="Balanced VQA accuracy (Goyal Tables 1, 3)", docs=DOCS, metric_names=ACCURACY_NAMES,
    charts=(
        ChartSpec("answer-types", "VQA accuracy by answer type, per train → test condition (U unbalanced, "
                  "B balanced)", axis="VQA accuracy (%)", style="points", metrics=tuple(_TYPES),
                  where={"variant": ("",)}, panels=("model",), categories="metric", series="condition",
                  labels={"metric": _TYPES, "condition": {c: _CONDITION_NAMES[c] for c in GOYAL_COLUMNS}}),
    ),
)

PAIR_DISPLAY = Display(
    title="Complementary pairs (Goyal §4)", docs=DOCS,
    metric_names={"pair/both_correct": "pairs both correct", "pair/identical": "pairs with identical answers",
                  "pair/different": "pairs answered differently", "pair/strict_accuracy": "strict pair accuracy"},
    evidence=(
        Evidence("pairs-different", "Complementary pairs answered differently", "pairs answered differently",
                 ("pair/different",), "",
                 reading="same question, two images with different answers: share answered differently; higher = "
                         "the image is used",
                 source="Goyal et al. 2017, §4", suites="balanced-vqa", order=40,
                 # The reliance table shows the model trained on balanced data where it has one (Goyal's
                 # headline condition); the card lists every training condition.
                 prefer={"trained": ("B", "U", "B_half")}, context={"trained": "train {}"}),
    ),
)

AUDIT_DISPLAY = Display(
    title="Language-prior audit (Goyal §3)", docs=DOCS,
    metric_names={"audit/answer_entropy": "answer entropy (bits)",
                  "audit/answer_entropy_change": "answer entropy change", "audit/prior_accuracy": "prior accuracy",
                  "audit/qtype_prior_accuracy": "question-type prior accuracy",
                  "audit/top_prefix_accuracy": "best prefix accuracy"},
    no_interval={"audit/answer_entropy*": "an entropy of the whole split's answer distribution (no sampling "
                                          "interval is computed)"},
)

COUNTEREXAMPLE_DISPLAY = Display(
    title="Counter-example explanations (Goyal Table 4)", docs=DOCS,
    metric_names={"counterexample/recall@5": "Recall@5"},
    no_interval={"counterexample/recall@5": "the chance level is exact (5 of the candidates), not an estimate"},
)
