"""Table layouts of the `nle` probe (Kayser et al. 2021), as data: the Table 3 layout, the
human-evaluation tables (S_O / S_E, Table 5's shortcomings, Table 6's correlations) and the
automatic metrics. Scores are shown x100, one decimal, as the
paper prints them. Rows carry the tag `task` ("VQA-X (test)"), set by the probe."""

from __future__ import annotations

from harness.api import Layout
from vqa_harness_plugins.metrics.nlg import METRIC_LABELS, METRICS
from vqa_harness_plugins.probes.e_vil.human import SHORTCOMINGS

__all__ = ["EVIL_LAYOUTS", "task_label", "GT_VARIANT"]

GT_VARIANT = "gt"
_NAMES = {"e-snli-ve": "e-SNLI-VE", "vqa-x": "VQA-X", "vcr": "VCR"}


def task_label(dataset: str, split: str) -> str:
    """'VQA-X (test)': the paper's dataset name and the split."""
    base = dataset.split(":")[0]
    return f"{_NAMES.get(base, dataset)} ({split})"


_COMBINED = {"s_o/e_vil_score": "S_O", "s_o/e_vil_score_no_spice": "S_O (no SPICE)", "s_t": "S_T",
             "s_e/e_vil_score": "S_E", "s_e/e_vil_score_no_spice": "S_E (no SPICE)"}
_VARIANTS = {"": "", GT_VARIANT: "GT"}
_AUTO = {"s_t": "S_T", **{f"s_e/{m}": METRIC_LABELS.get(m, m) for m in (*METRICS, "e_vil_score", "e_vil_score_no_spice")}}
_SHORT = {f"shortcoming/{c}": words for c, words in SHORTCOMINGS}
_RHO = {f"spearman/{m}": METRIC_LABELS.get(m, m) for m in (*METRICS, "e_vil_score", "e_vil_score_no_spice")}

EVIL_LAYOUTS = (
    Layout(id="table-3", title="e-ViL: S_O, S_T and S_E per dataset (automatic S_E)",
           description="S_T: task score; S_E: mean explanation score over correctly answered examples; "
                       "S_O = S_T·S_E (all x100, higher is better). GT: each reference scored against the others (a "
                       "model-free reference: no direction).",
           reference="Kayser et al. 2021, Table 3", rows=("model",), columns=("task", "metric"),
           metrics=tuple(_COMBINED), where={"variant": ("", GT_VARIANT)}, labels={"metric": _COMBINED, "variant": _VARIANTS},
           model_free={"variant": (GT_VARIANT,)}, fmt="x100", mean_column="Overall S_E", mean_of="S_E",
           note="S_E = combined automatic e-ViL score (harmonic mean of BERTScore F1 and NGRAMScore) over the "
                "correctly answered examples; without SPICE (unavailable offline) the combined score is "
                "computed without it and named `no SPICE`. Overall S_E = mean S_E over the datasets shown."),
    Layout(id="human", title="e-ViL human evaluation",
           description="Mean human rating of the sampled correctly answered explanations (yes / weak yes / weak no / "
                       "no = 1, 2/3, 1/3, 0; x100, higher is better), from `harness nle import`.",
           reference="Kayser et al. 2021, Table 3 (human)", rows=("model",), columns=("task", "metric"),
           metrics=("s_o/human", "s_e/human"), where={"variant": ("human",)},
           labels={"metric": {"s_o/human": "S_O", "s_e/human": "S_E"}}, fmt="x100",
           mean_column="Overall S_E", mean_of="S_E"),
    Layout(id="shortcomings", title="e-ViL human evaluation: shortcomings of the explanations",
           description="Share (%) of the human evaluations that mark each shortcoming (an annotator may mark several; "
                       "lower is better), from `harness nle import`.",
           reference="Kayser et al. 2021, Table 5", rows=("model", "task"), columns=("metric",),
           metrics=tuple(_SHORT), where={"variant": ("human",)}, labels={"metric": _SHORT}, fmt="pct1"),
    Layout(id="correlation", title="e-ViL: Spearman correlation of the automatic metrics with the human score",
           description="Per explanation of the rated sample: each automatic score against the mean human rating "
                       "(Spearman's rho; it says how far a metric can be trusted on these explanations, not how good "
                       "the model is: no direction).",
           reference="Kayser et al. 2021, Table 6", rows=("model", "metric"), columns=("task",),
           metrics=tuple(_RHO), where={"variant": ("human",)}, labels={"metric": _RHO}, names={"metric": "metric"},
           fmt="num4",
           note="The p-values and the metrics left out (fewer than 3 rated explanations with the score, or a constant "
                "score) are in the `harness nle import` output and `<task>.human.json`."),
    Layout(id="metrics", title="e-ViL automatic metrics (S_E over correctly answered examples, x100)",
           description="Each NLG metric's corpus score on the correctly answered examples (x100, higher is better).",
           reference="Kayser et al. 2021, §5.3.2 (the NLG metrics; its Table 6 gives their correlation with humans)",
           rows=("model", "train", "task"),
           columns=("metric",), metrics=tuple(_AUTO), where={"variant": ("", GT_VARIANT)}, labels={"metric": _AUTO, "variant": _VARIANTS},
           model_free={"variant": (GT_VARIANT,)}, fmt="x100",
           note="Each metric is the pycocoevalcap corpus score (BERTScore: mean F1) on the same pairs."),
)
