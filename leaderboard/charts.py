"""Leaderboard charts: grouped bar charts derived from result rows, written as SVG.

Each chart is found by probe and metric names (DESIGN.md §4), and drawn only when its rows
exist. A chart is regenerated only when its input rows changed: the SHA-256 of those rows
(plus the renderer version) is stored next to the SVG in `<id>.sha256`. The SVG itself is
deterministic (fixed `svg.hashsalt`, no date metadata), so a rebuild is byte-identical.

Charts:
- `answer-types`: VQA accuracy by answer type, unbalanced vs balanced test data (Goyal).
- `decoy-ablations`: multiple-choice accuracy per decoy set, one bar per model/ablation (Chao).
- `perturbations`: accuracy reduction and answer-change rate per perturbation kind (Stoikou).
- `evil-scores`: S_T / S_E / S_O per dataset (Kayser).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from harness.types import ResultRow

from .files import write_public as atomic_write_text

__all__ = ["CHARTS", "RENDER_VERSION", "Chart", "Panel", "Series", "derive_charts", "write_charts"]

#: Bump when the drawing code changes, so stored hashes no longer match and charts redraw.
RENDER_VERSION = "2"

DECOY_SETS = ("orig", "iou", "qou", "iou+qou", "all")
DECOY_LABELS = {"orig": "Orig", "iou": "IoU", "qou": "QoU", "iou+qou": "IoU+QoU", "all": "All"}
ANSWER_TYPES = (("", "overall"), ("yes/no", "yes/no"), ("number", "number"), ("other", "other"))
#: S_E metric preference: the paper's combined score first.
EVIL_SE_ORDER = ("e_vil_score", "e_vil_score_no_spice", "bertscore_f1", "meteor", "rouge_l")


@dataclass(frozen=True)
class Series:
    """One bar colour: a value (or None: no bar) per category, with optional intervals."""

    label: str
    values: tuple[float | None, ...]
    low: tuple[float | None, ...]
    high: tuple[float | None, ...]


@dataclass(frozen=True)
class Panel:
    title: str
    ylabel: str
    categories: tuple[str, ...]
    series: tuple[Series, ...]


@dataclass(frozen=True)
class Chart:
    """A chart ready to draw, with the rows it was derived from (for the change hash)."""

    id: str
    title: str
    panels: tuple[Panel, ...]
    inputs: tuple[ResultRow, ...]

    def digest(self) -> str:
        """SHA-256 of the input rows, the drawn data and the renderer version."""
        blob = json.dumps({"version": RENDER_VERSION, "rows": [r.to_json() for r in self.inputs],
                           "panels": repr(self.panels)}, sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()


# ------------------------------------------------------------------------ helpers


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


def answer_type_chart(rows: Sequence[ResultRow]) -> Chart | None:
    """Goyal: accuracy per answer type, one bar per (model, train condition, test condition)."""
    wanted = {"vqa_accuracy": "overall"}
    wanted.update({f"vqa_accuracy/answer_type={k}": label for k, label in ANSWER_TYPES if k})
    used = [r for r in rows if r.metric in wanted and r.unit == "fraction"]
    if not used:
        return None
    probes = {r.probe for r in used}
    groups: dict[str, dict[str, ResultRow]] = {}
    for r in used:
        parts = [r.model]
        if r.train:
            parts.append(f"train {condition(r.train)}")
        parts.append(f"test {condition(r.dataset)}")
        if r.variant:
            parts.append(r.variant)
        if len(probes) > 1:
            parts.append(r.probe)
        groups.setdefault(" · ".join(parts), {})[wanted[r.metric]] = r
    cats = tuple(label for _, label in ANSWER_TYPES if any(label in g for g in groups.values()))
    series = tuple(_series(k, cats, groups[k]) for k in sorted(groups))
    panel = Panel("VQA accuracy by answer type", "accuracy (%)", cats, series)
    return Chart("answer-types", "Accuracy by answer type: unbalanced vs balanced", (panel,), tuple(used))


def _decoy_set(variant: str) -> tuple[str, str] | None:
    """('iou+qou', rest) when the variant names a decoy set, else None."""
    tokens = re.split(r"[/:|,\s]+", variant.strip().lower())
    for i, t in enumerate(tokens):
        if t in DECOY_SETS:
            return t, " ".join(tokens[:i] + tokens[i + 1:]).strip()
    return None


#: Model-free reference rows of the decoy probes, drawn once per decoy set.
DECOY_REFERENCES = {"random_accuracy": "Random", "eq2_rule_accuracy": "Eq. 2 rule"}


def _decoy_label(r: ResultRow, rest: str, multi_data: bool) -> str:
    if r.metric in DECOY_REFERENCES:
        return DECOY_REFERENCES[r.metric] + (f" · {r.dataset}/{r.split}" if multi_data else "")
    base, _, ablation = r.metric.partition("/")  # mc_accuracy/QA: the model with the image blanked
    label = _model_label(r, multi_data)
    label += f" [{ablation}]" if ablation else ""
    label += f" {rest}" if rest else ""
    return label + (f" ({base})" if base != "mc_accuracy" else "")


def decoy_chart(rows: Sequence[ResultRow]) -> Chart | None:
    """Chao: accuracy per decoy set; bars per model and modality ablation, Random, Eq. 2 rule."""
    used = []
    for r in rows:
        base = r.metric.split("/", 1)[0]
        if r.unit == "fraction" and "acc" in base and "=" not in r.metric and _decoy_set(r.variant):
            used.append(r)
    if not used:
        return None
    multi_data = len({(r.dataset, r.split) for r in used}) > 1
    groups: dict[str, dict[str, ResultRow]] = {}
    for r in used:
        dset, rest = _decoy_set(r.variant)  # type: ignore[misc]
        # setdefault: model-free references repeat in every run; the first (sorted) is kept.
        groups.setdefault(_decoy_label(r, rest, multi_data), {}).setdefault(DECOY_LABELS[dset], r)
    cats = tuple(DECOY_LABELS[d] for d in DECOY_SETS if any(DECOY_LABELS[d] in g for g in groups.values()))
    refs = set(DECOY_REFERENCES.values())
    order = sorted(groups, key=lambda k: (k.split(" · ")[0] in refs, k))  # references last
    series = tuple(_series(k, cats, groups[k]) for k in order)
    panel = Panel("Multiple-choice accuracy per decoy set", "accuracy (%)", cats, series)
    return Chart("decoy-ablations", "Modality ablations per decoy set", (panel,), tuple(used))


def perturbation_chart(rows: Sequence[ResultRow]) -> Chart | None:
    """Stoikou: relative accuracy reduction and answer-change rate per perturbation kind."""
    used = [r for r in rows if r.metric in ("acc_reduction", "answer_change_rate") and r.variant]
    if not used:
        return None
    multi_data = len({(r.dataset, r.split) for r in used}) > 1
    kinds = tuple(sorted({r.variant for r in used}))
    panels = []
    for metric, title, ylabel in (
        ("acc_reduction", "Accuracy reduction (acc_Q − acc*_Q) / acc_Q", "reduction (%)"),
        ("answer_change_rate", "Answer-change rate", "answers changed (%)"),
    ):
        groups: dict[str, dict[str, ResultRow]] = {}
        for r in used:
            if r.metric == metric:
                groups.setdefault(_model_label(r, multi_data), {})[r.variant] = r
        if groups:
            panels.append(Panel(title, ylabel, kinds, tuple(_series(k, kinds, groups[k]) for k in sorted(groups))))
    return Chart("perturbations", "Counterfactual questions per perturbation kind", tuple(panels), tuple(used))


def evil_chart(rows: Sequence[ResultRow]) -> Chart | None:
    """Kayser: S_T, S_E and S_O per dataset (S_E by the combined e-ViL score when present)."""
    nle = [r for r in rows if r.metric == "s_t" or r.metric.startswith(("s_e/", "s_o/"))]
    if not nle:
        return None
    present = {r.metric.split("/", 1)[1] for r in nle if r.metric.startswith("s_e/")}
    se_name = next((m for m in EVIL_SE_ORDER if m in present), min(present) if present else "")
    keep = {"s_t", f"s_e/{se_name}", f"s_o/{se_name}"}
    used = [r for r in nle if r.metric in keep]
    datasets = tuple(sorted({f"{r.dataset}/{r.split}" for r in used}))
    panels = []
    for metric, title in (("s_t", "S_T (task score)"), (f"s_e/{se_name}", f"S_E ({se_name})"),
                          (f"s_o/{se_name}", "S_O = S_T · S_E")):
        groups: dict[str, dict[str, ResultRow]] = {}
        for r in used:
            if r.metric == metric:
                label = "references (GT)" if r.variant == "gt" else r.model + (f" · {r.variant}" if r.variant else "")
                groups.setdefault(label, {})[f"{r.dataset}/{r.split}"] = r
        if groups:
            panels.append(Panel(title, "score (×100)", datasets,
                                tuple(_series(k, datasets, groups[k]) for k in sorted(groups))))
    if not panels:
        return None
    return Chart("evil-scores", "e-ViL scores per dataset", tuple(panels), tuple(used))


#: Every chart derivation; each returns None when its rows are absent.
CHARTS: tuple[Callable[[Sequence[ResultRow]], Chart | None], ...] = (
    answer_type_chart, decoy_chart, perturbation_chart, evil_chart,
)


def derive_charts(rows: Sequence[ResultRow]) -> list[Chart]:
    """The charts whose rows exist among `rows` (one suite's rows)."""
    return [c for c in (f(rows) for f in CHARTS) if c is not None]


# ------------------------------------------------------------------------ drawing


def _svg(chart: Chart) -> str:
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    from matplotlib import rc_context

    settings = {"svg.hashsalt": "vqa-harness", "svg.fonttype": "none", "font.size": 9,
                "axes.spines.top": False, "axes.spines.right": False}
    with rc_context(settings):
        n = len(chart.panels)
        ncats = max(len(p.categories) for p in chart.panels)
        width = max(5.0, min(14.0, n * max(3.6, 0.9 * ncats + 1.5)))
        fig, axes = plt.subplots(1, n, figsize=(width, 3.6), squeeze=False)
        cmap = plt.get_cmap("tab10")
        for ax, panel in zip(axes[0], chart.panels):
            k = max(1, len(panel.series))
            bar = 0.8 / k
            for j, s in enumerate(panel.series):
                xs, ys, err_lo, err_hi = [], [], [], []
                for i, v in enumerate(s.values):
                    if v is None:
                        continue
                    xs.append(i - 0.4 + bar * (j + 0.5))
                    ys.append(v)
                    lo, hi = s.low[i], s.high[i]
                    err_lo.append(max(0.0, v - lo) if lo is not None else 0.0)
                    err_hi.append(max(0.0, hi - v) if hi is not None else 0.0)
                ax.bar(xs, ys, width=bar * 0.95, color=cmap(j % 10), label=s.label,
                       yerr=[err_lo, err_hi] if any(err_lo) or any(err_hi) else None,
                       error_kw={"elinewidth": 0.8, "capsize": 2, "ecolor": "#333333"})
            ax.set_xticks(range(len(panel.categories)))
            ax.set_xticklabels(panel.categories, rotation=20 if len(panel.categories) > 4 else 0,
                               ha="right" if len(panel.categories) > 4 else "center")
            if n > 1:  # a single panel is named by the chart's title
                ax.set_title(panel.title, fontsize=9)
            ax.set_ylabel(panel.ylabel)
            ax.grid(axis="y", color="#dddddd", linewidth=0.6)
            ax.set_axisbelow(True)
        handles, labels = axes[0][0].get_legend_handles_labels()
        seen = dict(zip(labels, handles))
        for ax in axes[0][1:]:
            for h, lab in zip(*ax.get_legend_handles_labels()):
                seen.setdefault(lab, h)
        fig.suptitle(chart.title, fontsize=10)
        longest = max((len(label) for label in seen), default=0)
        ncol = max(1, min(len(seen), int(width * 12 // max(12, longest + 4))))
        fig.tight_layout(rect=(0, 0, 1, 0.95))
        # Below the axes; bbox_inches="tight" grows the canvas so nothing is clipped.
        fig.legend(list(seen.values()), list(seen), loc="upper center", bbox_to_anchor=(0.5, 0.0),
                   fontsize=7, ncol=ncol, frameon=False)
        import io

        buf = io.StringIO()
        fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None, "Creator": None})
        plt.close(fig)
    return buf.getvalue()


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
            atomic_write_text(svg, _svg(chart))
            atomic_write_text(stamp, digest + "\n")
        written += [svg, stamp]
    return written
