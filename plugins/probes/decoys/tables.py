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
)

AUDIT_LAYOUTS = (
    Layout(id="audit", title="Decoy audit and generation statistics on {base}",
           description="Model-free: the Eq. 2 answer-frequency shortcut (%; near Random is better), neutrality "
                       "of the decoys, and how the decoys were generated.",
           reference="Chao et al. 2018, Eq. 2 and §3", split_by=("base",), rows=("metric",), columns=("variant",),
           labels={"variant": {**_SETS, "": "split"}}, fmt="pct1",
           note="Fractions in %. generation/* rows describe the split's generated decoys."),
)
