"""Readable names for what the leaderboard prints: dataset specs, directions, doc anchors.

Pure string functions (no plugin knowledge beyond the spec syntax `name:key=value,.../split`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

__all__ = ["readable_spec", "looks_like_spec", "direction_mark", "direction_text", "slug", "DOC_SECTIONS",
           "DOCS_URL_ENV", "METRIC_NAMES", "metric_name"]

#: probe -> the docs page and section that explain its tables (docs/<page>#<anchor>).
DOC_SECTIONS = {
    "accuracy": "metrics.md", "balanced-accuracy": "balanced-vqa.md#probes-and-metrics",
    "pairs": "balanced-vqa.md#probes-and-metrics", "language-prior": "balanced-vqa.md#probes-and-metrics",
    "counter-examples": "balanced-vqa.md#probes-and-metrics", "decoys": "decoys.md#probes-and-suite",
    "decoy-audit": "decoys.md#probes-and-suite", "counterfactual": "counterfactual.md#metrics-result-rows-variant--kind-id",
    "nle": "e-vil.md#scores", "image-ablation": "image-ablation.md#rows",
}
#: Where the docs are published (e.g. a repository's docs/ URL); else the site carries its own
#: copy of the pages it links to (docspages.py).
DOCS_URL_ENV = "VQA_HARNESS_DOCS_URL"

#: Readable names of metric ids that several probes share (a layout's column label, such as
#: "All" or "acc.", is too short out of its table); other ids use their layout label.
METRIC_NAMES = {
    "vqa_accuracy": "VQA accuracy", "vqa_accuracy_lenient": "VQA accuracy (lenient)", "label_accuracy": "label accuracy",
    "vqa_accuracy_drop": "VQA accuracy drop", "label_accuracy_drop": "label accuracy drop",
    "answer_change_rate": "answers changed", "acc_reduction": "relative accuracy reduction",
    "counterexample/recall@5": "Recall@5", "mc_accuracy": "MC accuracy (image + question)",
    "mc_accuracy/QA": "MC accuracy, no image", "mc_accuracy/IA": "MC accuracy, no question",
    "mc_accuracy/A": "MC accuracy, answers only", "random_accuracy": "Random (expected accuracy)",
    "eq2_rule_accuracy": "Eq. 2 rule accuracy", "s_t": "S_T (task score)", "s_e/e_vil_score": "S_E (e-ViL score)",
    "s_e/e_vil_score_no_spice": "S_E (e-ViL score without SPICE)",
}

_SPLITS = ("train", "val", "test", "test-dev", "dev", "dev-eval", "dev-fit", "val-eval", "val-fit")


def looks_like_spec(text: str) -> bool:
    """Whether `text` is a dataset spec ('toyvqa:variant=balanced/val', 'vqa2/val')."""
    return bool(re.match(r"^[A-Za-z0-9_.-]+(:[^/\s]+=[^/\s]*)?(/[A-Za-z0-9_-]+)?$", text or "")) and \
        (":" in text or "/" in text)


def readable_spec(spec: str) -> str:
    """'toyvqa:variant=balanced,images=40/val' -> 'toyvqa (balanced, images=40), val'.

    The `variant` option shows its value alone; other options stay `key=value`; a
    trailing split is kept after a comma. Anything that is not a spec is returned as is.
    """
    if not looks_like_spec(spec):
        return spec
    data, split = spec, ""
    if "/" in spec:
        head, tail = spec.rsplit("/", 1)
        if tail in _SPLITS or re.fullmatch(r"[a-z0-9-]+", tail):
            data, split = head, tail
    name, _, options = data.partition(":")
    shown = []
    for item in filter(None, options.split(",")):
        key, _, value = item.partition("=")
        shown.append(value if key in ("variant", "decoys") else item)
    text = name + (f" ({', '.join(shown)})" if shown else "")
    return text + (f", {split}" if split else "")


def direction_mark(higher_is_better: bool | None) -> str:
    """'↑' (higher is better), '↓' (lower is better) or '' (mixed / unknown)."""
    return "" if higher_is_better is None else ("↑" if higher_is_better else "↓")


def direction_text(marks: set[str]) -> str:
    """The table's one-line direction note from its columns' marks."""
    if marks == {"↑"}:
        return "↑ higher is better"
    if marks == {"↓"}:
        return "↓ lower is better"
    if marks:
        return "↑ / ↓ per column: higher / lower is better"
    return ""


def slug(heading: str) -> str:
    """The anchor GitHub gives a markdown heading ('## Probes and metrics' -> 'probes-and-metrics')."""
    text = heading.strip().lstrip("#").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def metric_name(metric: str, labels: Mapping[str, str] | None = None) -> str:
    """A readable name for a metric id: METRIC_NAMES, else the layout's label, else the id."""
    return METRIC_NAMES.get(metric) or (labels or {}).get(metric) or metric
