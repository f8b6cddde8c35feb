"""The e-ViL explanation metric bundle as a local Hugging Face `evaluate` module.

Load it offline with ``evaluate.load(vqa_harness_plugins.metrics.evaluate_module_path("nle_scores"))``.
The computation is `vqa_harness_plugins.metrics.nlg.nlg_scores` (pycocoevalcap BLEU-1..4, METEOR,
ROUGE-L, CIDEr, SPICE when its models are present; bert_score BERTScore) plus the combined
e-ViL score; metrics that cannot be computed are left out and listed under "unavailable".
"""

from __future__ import annotations

import datasets
import evaluate

from vqa_harness_plugins.metrics.evil_score import e_vil_score
from vqa_harness_plugins.metrics.nlg import METRICS, nlg_scores

_DESCRIPTION = """e-ViL automatic explanation scores (Kayser et al. 2021): corpus-level BLEU-1..4,
METEOR, ROUGE-L, CIDEr, SPICE (pycocoevalcap), mean BERTScore F1 (bert_score, local model),
and the combined score = harmonic mean of BERTScore F1 and the harmonic mean of ROUGE-L,
SPICE, CIDEr and METEOR (named e_vil_score_no_spice when SPICE is unavailable)."""

_KWARGS_DESCRIPTION = """
Args:
    predictions: list of explanations (str).
    references: list of lists of reference explanations.
    metrics: subset of bleu1..4, meteor, rouge_l, cider, spice, bertscore_f1 (default all).
    tokenize: "ptb" (default, Java), "simple" or "none".
    bertscore_model: local model folder (default: harness resources), bertscore_layers: int.
    return_per_example: if True, also return "per_example" scores.
Returns:
    {metric: corpus score, ..., combined name: value, "unavailable": {metric: reason}}
"""

_CITATION = """@inproceedings{kayser2021evil, title={e-ViL: A Dataset and Benchmark for Natural
Language Explanations in Vision-Language Tasks}, author={Kayser, Maxime and Camburu, Oana-Maria
and Salewski, Leonard and Emde, Cornelius and Do, Virginie and Akata, Zeynep and Lukasiewicz,
Thomas}, booktitle={ICCV}, year={2021}}"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class NleScores(evaluate.Metric):
    """`evaluate` wrapper around `vqa_harness_plugins.metrics.nlg.nlg_scores`."""

    def _info(self) -> evaluate.MetricInfo:
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({
                "predictions": datasets.Value("string"),
                "references": datasets.Sequence(datasets.Value("string")),
            }),
            reference_urls=["https://github.com/maximek3/e-ViL"],
        )

    def _compute(self, predictions, references, metrics=METRICS, tokenize="ptb", bertscore_model=None,
                 bertscore_layers=None, return_per_example=False):
        result = nlg_scores(list(predictions), [list(r) for r in references], metrics=tuple(metrics),
                            tokenize=tokenize, bertscore_model=bertscore_model, bertscore_layers=bertscore_layers)
        out = dict(result.corpus)
        combined = e_vil_score(result.corpus)
        if combined is not None:
            out[combined[0]] = combined[1]
        out["unavailable"] = dict(result.unavailable)
        if return_per_example:
            out["per_example"] = {k: list(v) for k, v in result.per_example.items()}
        return out
