"""Leaderboard charts: small multiples derived from result rows, written as SVG.

Each chart is found by probe and metric names (docs/leaderboard.md), and drawn only when its rows
exist. Charts are small multiples (one panel per model), at most `MAX_SERIES` series per
panel, labelled directly (chartdraw.py). A chart is regenerated only when its input rows
changed: the SHA-256 of those rows (plus the renderer version) is stored next to the SVG in
`<id>.sha256`. The SVG itself is deterministic, so a rebuild is byte-identical.

Charts:
- `answer-types`: VQA accuracy by answer type per train/test condition, a panel per model (Goyal).
- `decoy-ablations`: multiple-choice accuracy per decoy set, a line per input (image +
  question, no image, no question, answers only) and the Random / Eq. 2 references, a
  panel per model (Chao).
- `perturbations`: answer-change rate and accuracy reduction per perturbation kind, a panel
  per model and metric, a row per model (Stoikou).
- `evil-scores`: S_T / S_E / S_O per model, a panel per score (Kayser).
- `image-ablation`: accuracy with the real, a gray and another question's image and without
  the question, a panel per model.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from harness.types import ResultRow

from .chartdraw import MAX_SERIES, svg_of
from .charttypes import RENDER_VERSION, Chart, Panel, Series
from .files import write_public as atomic_write_text

__all__ = ["CHARTS", "RENDER_VERSION", "Chart", "Panel", "Series", "derive_charts", "write_charts"]


DECOY_SETS = ("orig", "iou", "qou", "iou+qou", "all")
DECOY_LABELS = {"orig": "Orig", "iou": "IoU", "qou": "QoU", "iou+qou": "IoU+QoU", "all": "All"}
ANSWER_TYPES = (("", "overall"), ("yes/no", "yes/no"), ("number", "number"), ("other", "other"))
#: S_E metric preference: the paper's combined score first.
EVIL_SE_ORDER = ("e_vil_score", "e_vil_score_no_spice", "bertscore_f1", "meteor", "rouge_l")
#: Inputs of the decoy probe's generic ablation (metric suffix -> line label).
DECOY_INPUTS = {"": "image + question", "QA": "no image", "IA": "no question", "A": "answers only"}
ABLATION_CONDITIONS = {"real": "real image", "blank": "gray image", "swap": "other question's image",
                       "no-question": "no question"}


def condition(spec: str) -> str:
    """'balanced' / 'unbalanced' / 'half' for a dataset spec, else the spec's name."""
    spec = spec.rsplit("/", 1)[0] if spec.endswith(("/train", "/val", "/test")) else spec
    name = spec.split(":", 1)[0]
    if "half" in name or "variant=half" in spec:
        return "balanced half"
    if "variant=unbalanced" in spec or name in ("vqa1", "vqa-v1"):
        return "unbalanced"
    if "variant=balanced" in spec or name in ("vqa2", "vqa-v2"):
        return "balanced"
    return name


def _scale(r: ResultRow) -> float:
    # Fractions and [0, 1] scores are drawn as percentages, as the papers print them.
    return 100.0 if r.unit in ("fraction", "score") else 1.0


def _series(label: str, categories: Sequence[str], cells: dict[str, ResultRow]) -> Series:
    vals, lo, hi = [], [], []
    for c in categories:
        r = cells.get(c)
        s = _scale(r) if r is not None else 1.0
        vals.append(None if r is None else round(r.value * s, 6))
        lo.append(None if r is None or r.ci_low is None else round(r.ci_low * s, 6))
        hi.append(None if r is None or r.ci_high is None else round(r.ci_high * s, 6))
    return Series(label, tuple(vals), tuple(lo), tuple(hi))


def _model_label(r: ResultRow, multi_data: bool) -> str:
    return f"{r.model} · {r.dataset}/{r.split}" if multi_data else r.model


# ------------------------------------------------------------------------ derivations


_SHORT = {"unbalanced": "U", "balanced": "B", "balanced half": "B_half"}


def _chunks(model: str, series: list[Series]) -> list[tuple[str, tuple[Series, ...]]]:
    """(panel title, series) with at most MAX_SERIES series each."""
    parts = [tuple(series[i:i + MAX_SERIES]) for i in range(0, len(series), MAX_SERIES)] or [()]
    return [(model if len(parts) == 1 else f"{model} ({k + 1}/{len(parts)})", p) for k, p in enumerate(parts)]


def answer_type_chart(rows: Sequence[ResultRow]) -> Chart | None:
    """Goyal: accuracy per answer type, a panel per model, a line per train -> test condition."""
    wanted = {"vqa_accuracy": "overall"}
    wanted.update({f"vqa_accuracy/answer_type={k}": label for k, label in ANSWER_TYPES if k})
    # Variants are other conditions (e.g. the image ablation's gray image), not answer types.
    used = [r for r in rows if r.metric in wanted and r.unit == "fraction" and not r.variant]
    if not used:
        return None
    by_model: dict[str, dict[str, dict[str, ResultRow]]] = {}
    for r in sorted(used, key=lambda r: (r.probe != "balanced-accuracy", r.probe, r.run_id)):
        test = condition(r.dataset)
        label = f"test {_SHORT.get(test, test)}"
        if r.train:
            train = condition(r.train)
            label = f"train {_SHORT.get(train, train)} → " + label
        if r.variant:
            label += f" ({r.variant})"
        # setdefault: the same cell from two probes (accuracy, balanced-accuracy) is drawn once.
        by_model.setdefault(r.model, {}).setdefault(label, {}).setdefault(wanted[r.metric], r)
    cats = tuple(label for _, label in ANSWER_TYPES if any(label in g for m in by_model.values() for g in m.values()))
    panels = []
    for model in sorted(by_model):
        series = [_series(k, cats, by_model[model][k]) for k in sorted(by_model[model])]
        for title, chunk in _chunks(model, series):
            panels.append(Panel(title, "VQA accuracy (%)", cats, chunk, xlabel="answer type"))
    return Chart("answer-types", "VQA accuracy by answer type, per train → test condition (U unbalanced, "
                 "B balanced)", tuple(panels), tuple(used))


def _decoy_set(variant: str) -> tuple[str, str] | None:
    """('iou+qou', rest) when the variant names a decoy set, else None."""
    tokens = re.split(r"[/:|,\s]+", variant.strip().lower())
    for i, t in enumerate(tokens):
        if t in DECOY_SETS:
            return t, " ".join(tokens[:i] + tokens[i + 1:]).strip()
    return None


#: Model-free reference rows of the decoy probes, drawn in every panel.
DECOY_REFERENCES = {"random_accuracy": "Random", "eq2_rule_accuracy": "Eq. 2 rule"}


def decoy_chart(rows: Sequence[ResultRow]) -> Chart | None:
    """Chao: accuracy per decoy set, a panel per model (and dataset): a line per input, and
    the model-free Random and Eq. 2 rule references."""
    used = []
    for r in rows:
        base, _, ablation = r.metric.partition("/")
        if r.unit == "fraction" and "=" not in r.metric and _decoy_set(r.variant) and (
                (base == "mc_accuracy" and ablation in DECOY_INPUTS) or r.metric in DECOY_REFERENCES):
            used.append(r)
    if not used:
        return None
    multi_data = len({r.dataset.split(":")[0] for r in used}) > 1
    refs: dict[str, dict[str, dict[str, ResultRow]]] = {}  # data -> label -> set -> row
    models: dict[tuple[str, str], dict[str, dict[str, ResultRow]]] = {}
    for r in sorted(used, key=lambda r: r.run_id):
        dset, rest = _decoy_set(r.variant)  # type: ignore[misc]
        data = r.dataset.split(":")[0] + (f" {rest}" if rest else "")
        if r.metric in DECOY_REFERENCES:
            refs.setdefault(data, {}).setdefault(DECOY_REFERENCES[r.metric], {}).setdefault(DECOY_LABELS[dset], r)
        else:
            label = DECOY_INPUTS[r.metric.partition("/")[2]]
            models.setdefault((r.model, data), {}).setdefault(label, {})[DECOY_LABELS[dset]] = r
    cats = tuple(DECOY_LABELS[d] for d in DECOY_SETS if any(r.variant and _decoy_set(r.variant)[0] == d
                                                            for r in used))  # type: ignore[index]
    panels = []
    order = list(DECOY_INPUTS.values())
    for (model, data), groups in sorted(models.items()):
        series = [_series(k, cats, groups[k]) for k in order if k in groups]
        series += [_series(k, cats, v) for k, v in sorted((refs.get(data) or {}).items())]
        for title, chunk in _chunks(model + (f" · {data}" if multi_data else ""), series):
            panels.append(Panel(title, "multiple-choice accuracy (%)", cats, chunk, xlabel="decoy set"))
    return Chart("decoy-ablations", "Multiple-choice accuracy per decoy set, with and without the image "
                 "(IoU+QoU: neither input alone suffices)", tuple(panels), tuple(used),
                 references=tuple(DECOY_REFERENCES.values()))


def perturbation_chart(rows: Sequence[ResultRow], labels: Mapping[str, str] | None = None) -> Chart | None:
    """Stoikou: answer-change rate and relative accuracy reduction per perturbation kind, a
    panel per model and metric."""
    used = [r for r in rows if r.metric in ("acc_reduction", "answer_change_rate") and r.variant
            and r.probe != "image-ablation"]
    if not used:
        return None
    multi_data = len({(r.dataset, r.split) for r in used}) > 1
    labels = labels or {}
    present = {r.variant for r in used}
    ids = [v for v in labels if v in present] + sorted(present - set(labels))
    kinds = tuple(labels.get(v, v) for v in ids)
    groups: dict[tuple[str, str], dict[str, ResultRow]] = {}
    for r in used:
        groups.setdefault((_model_label(r, multi_data), r.metric), {})[labels.get(r.variant, r.variant)] = r
    panels = []
    # One row per model: its answers changed, then its accuracy reduction (two panels a row).
    for model in sorted({m for m, _ in groups}):
        for metric, name, xlabel in (("answer_change_rate", "answers changed", "answers changed (%)"),
                                     ("acc_reduction", "accuracy reduction", "relative accuracy reduction (%)")):
            if (model, metric) in groups:
                panels.append(Panel(f"{model}: {name}", "", kinds, (_series(model, kinds, groups[(model, metric)]),),
                                    xlabel=xlabel, style="hbar"))
    return Chart("perturbations", "Counterfactual questions per perturbation kind (change: higher for Color "
                 "Maximal, lower elsewhere; reduction = (acc_Q - acc*_Q) / acc_Q)", tuple(panels), tuple(used),
                 columns=min(2, len(panels)))


def evil_chart(rows: Sequence[ResultRow]) -> Chart | None:
    """Kayser: S_T, S_E and S_O per model (S_E by the combined e-ViL score when present), a panel per score."""
    nle = [r for r in rows if r.metric == "s_t" or r.metric.startswith(("s_e/", "s_o/"))]
    if not nle:
        return None
    present = {r.metric.split("/", 1)[1] for r in nle if r.metric.startswith("s_e/")}
    se_name = next((m for m in EVIL_SE_ORDER if m in present), min(present) if present else "")
    keep = {"s_t", f"s_e/{se_name}", f"s_o/{se_name}"}
    used = [r for r in nle if r.metric in keep]
    multi = len({(r.dataset, r.split) for r in used}) > 1
    panels = []
    for metric, title in (("s_t", "S_T (task score)"), (f"s_e/{se_name}", f"S_E ({se_name})"),
                          (f"s_o/{se_name}", "S_O = S_T · S_E")):
        cells: dict[str, ResultRow] = {}
        for r in used:
            if r.metric == metric:
                label = "references (GT)" if r.variant == "gt" else r.model + (f" · {r.variant}" if r.variant else "")
                cells.setdefault(label + (f" · {r.dataset}/{r.split}" if multi else ""), r)
        if cells:
            cats = tuple(sorted(cells, key=lambda c: (c.startswith("references"), c)))
            panels.append(Panel(title, "", cats, (_series(title, cats, cells),), xlabel="score (x100)", style="hbar"))
    if not panels:
        return None
    return Chart("evil-scores", "e-ViL scores (x100, higher is better; GT: references scored against each other)",
                 tuple(panels), tuple(used), references=("references (GT)",))


def ablation_chart(rows: Sequence[ResultRow]) -> Chart | None:
    """Image ablation: accuracy per condition, a panel per model (and dataset)."""
    used = [r for r in rows if r.probe == "image-ablation" and r.metric in ("vqa_accuracy", "label_accuracy")
            and r.variant in ABLATION_CONDITIONS]
    if not used:
        return None
    multi = len({(r.dataset, r.split) for r in used}) > 1
    groups: dict[str, dict[str, ResultRow]] = {}
    for r in sorted(used, key=lambda r: r.run_id):
        groups.setdefault(_model_label(r, multi), {})[ABLATION_CONDITIONS[r.variant]] = r
    cats = tuple(ABLATION_CONDITIONS.values())
    panels = tuple(Panel(model, "", cats, (_series(model, cats, groups[model]),), xlabel="accuracy (%)",
                         style="hbar") for model in sorted(groups))
    return Chart("image-ablation", "Accuracy with the real image, a gray image, another question's image and "
                 "no question (a model that uses the image loses accuracy without it)", panels, tuple(used),
                 columns=min(2, len(panels)))


#: Every chart derivation; each returns None when its rows are absent.
CHARTS: tuple[Callable[[Sequence[ResultRow]], Chart | None], ...] = (
    ablation_chart, answer_type_chart, decoy_chart, perturbation_chart, evil_chart,
)


def derive_charts(rows: Sequence[ResultRow], variant_labels: Mapping[str, Mapping[str, str]] | None = None) -> list[Chart]:
    """The charts whose rows exist among `rows` (one suite's rows); `variant_labels` (probe ->
    variant -> display name, from the runs' table layouts) names the perturbation kinds."""
    labels = variant_labels or {}
    out = []
    for f in CHARTS:
        chart = perturbation_chart(rows, labels.get("counterfactual")) if f is perturbation_chart else f(rows)
        if chart is not None:
            out.append(chart)
    return out


# ------------------------------------------------------------------------ writing


def write_charts(charts: Sequence[Chart], folder: Path, prefix: str) -> list[Path]:
    """Write `<folder>/<prefix>-<id>.svg` (+ `.sha256`), redrawing only changed charts."""
    folder = Path(folder)
    written = []
    for chart in charts:
        svg = folder / f"{prefix}-{chart.id}.svg"
        stamp = folder / f"{prefix}-{chart.id}.sha256"
        digest = chart.digest()
        current = stamp.read_text(encoding="utf-8").strip() if stamp.is_file() else ""
        if current != digest or not svg.is_file():
            atomic_write_text(svg, svg_of(chart))
            atomic_write_text(stamp, digest + "\n")
        written += [svg, stamp]
    return written
