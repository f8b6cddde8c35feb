"""VQA accuracy as a local Hugging Face `evaluate` module.

Load it offline with ``evaluate.load(vqa_harness_plugins.metrics.evaluate_module_path("vqa_accuracy"))``.
The computation is `harness.metrics.vqa` (official GT-Vision-Lab/VQA algorithm); pass
``lenient=True`` for the separately named, non-official ``vqa_accuracy_lenient``.
"""

from __future__ import annotations

import datasets
import evaluate

from harness.errors import DataError
from harness.metrics.vqa import (
    LENIENT_METRIC_NAME,
    METRIC_NAME,
    vqa_accuracy_batch,
    vqa_accuracy_lenient_batch,
)

_DESCRIPTION = """Official VQA accuracy: per question min(1, #humans agreeing / 3) averaged
over the leave-one-out subsets of the human answers, with the official answer normalization
(applied only when the human answers differ). Values are fractions in [0, 1]."""

_KWARGS_DESCRIPTION = """
Args:
    predictions: list of predicted answers (str).
    references: list of lists of human answers (10 per question for VQA).
    lenient: if True, always normalize (non-official `vqa_accuracy_lenient`).
    return_per_question: if True, also return the per-question values.
Returns:
    {"vqa_accuracy": mean} (or {"vqa_accuracy_lenient": mean}), plus "per_question".
Examples:
    >>> metric = evaluate.load(path)
    >>> metric.compute(predictions=["2"], references=[["2", "two", "3"] + ["2"] * 7])
    {'vqa_accuracy': 1.0}
"""

_CITATION = """@inproceedings{antol2015vqa, title={VQA: Visual Question Answering},
author={Antol, Stanislaw and Agrawal, Aishwarya and Lu, Jiasen and Mitchell, Margaret and
Batra, Dhruv and Zitnick, C. Lawrence and Parikh, Devi}, booktitle={ICCV}, year={2015}}"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class VqaAccuracy(evaluate.Metric):
    """`evaluate` wrapper around `harness.metrics.vqa_accuracy_batch`."""

    def _info(self) -> evaluate.MetricInfo:
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(
                {
                    "predictions": datasets.Value("string"),
                    "references": datasets.Sequence(datasets.Value("string")),
                }
            ),
            reference_urls=["https://github.com/GT-Vision-Lab/VQA"],
        )

    def _compute(self, predictions, references, lenient=False, return_per_question=False):
        if len(predictions) == 0:
            raise DataError("vqa_accuracy: no predictions, the mean is undefined")
        score = vqa_accuracy_lenient_batch if lenient else vqa_accuracy_batch
        values = score(list(predictions), [list(r) for r in references])
        out = {LENIENT_METRIC_NAME if lenient else METRIC_NAME: float(values.mean())}
        if return_per_question:
            out["per_question"] = values.tolist()
        return out
