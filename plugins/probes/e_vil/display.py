"""How the leaderboard shows the `nle` probe (Kayser et al. 2021), as data (harness.display):
names, docs, S_E as context on the image-reliance card, the score chart, and why S_E and S_O
have no interval (corpus-level scores)."""

from __future__ import annotations

from harness.api import ChartSpec, Display, Evidence
from vqa_harness_plugins.metrics.nlg import METRIC_LABELS, METRICS

from .tables import GT_VARIANT

__all__ = ["EVIL_DISPLAY"]

#: S_E metric preference: the paper's combined score first.
_SE_ORDER = ("e_vil_score", "e_vil_score_no_spice", "bertscore_f1", "meteor", "rouge_l")
_NAMES = {"s_t": "S_T (task score)", "n_correct": "correctly answered examples",
          "empty_explanations": "empty explanations",
          **{f"s_e/{m}": f"S_E, {METRIC_LABELS.get(m, m)}" for m in (*METRICS, "e_vil_score", "e_vil_score_no_spice")},
          **{f"s_o/{m}": f"S_O, {METRIC_LABELS.get(m, m)}" for m in (*METRICS, "e_vil_score", "e_vil_score_no_spice")},
          "s_e/human": "S_E (human)", "s_o/human": "S_O (human)"}
_CORPUS = ("a corpus-level score of the explanations (the NLG metrics score the whole set at once), so the "
           "probe gives no interval")

EVIL_DISPLAY = Display(
    title="e-ViL explanations (Kayser et al. 2021)", docs="e-vil.md#scores", metric_names=_NAMES,
    no_interval={"s_e/*": _CORPUS, "s_o/*": _CORPUS, "n_correct": "a count", "empty_explanations": "a count"},
    evidence=(
        Evidence("nle-se", "S_E of explanations", "S_E", ("s_e/e_vil_score", "s_e/e_vil_score_no_spice"), "",
                 reading="automatic explanation score over correctly answered examples (x100, higher is better)",
                 source="Kayser et al. 2021, Table 3", suites="e-vil-toy, e-vil", role="context", more="", order=90),
    ),
    charts=(
        ChartSpec("evil-scores", "e-ViL scores (x100, higher is better; GT: references scored against each other)",
                  axis="score (x100)", style="bars", metrics=("s_t",) + tuple(f"s_{k}/{m}" for m in _SE_ORDER
                                                                              for k in ("e", "o")),
                  alternatives=tuple((f"s_e/{m}", f"s_o/{m}") for m in _SE_ORDER), where={"variant": ("", GT_VARIANT)},
                  panels=("metric", "task"), categories="model",
                  labels={"metric": {"s_t": "S_T (task score)",
                                     **{f"s_e/{m}": f"S_E, {METRIC_LABELS.get(m, m)}" for m in _SE_ORDER},
                                     **{f"s_o/{m}": f"S_O = S_T · S_E ({METRIC_LABELS.get(m, m)})" for m in _SE_ORDER}},
                          "variant": {GT_VARIANT: "references (GT)"}},
                  references={"variant": (GT_VARIANT,)}),
    ),
)
