"""Leaderboard tables of the `nle` probe: Kayser et al. (2021) Table 3 layout and a table of
automatic metrics. Scores are shown x100 (as the paper prints them), one decimal."""

from __future__ import annotations

from typing import Sequence

from harness.api import Table
from harness.types import ResultRow

__all__ = ["evil_tables", "combined_of"]

_GT = "gt"
_NAMES = {"e-snli-ve": "e-SNLI-VE", "vqa-x": "VQA-X", "vcr": "VCR"}
_ORDER = {"vqa-x": 0, "e-snli-ve": 1, "vcr": 2}  # the paper's column order


def _label(dataset: str, split: str) -> str:
    base = dataset.split(":")[0]
    return f"{_NAMES.get(base, dataset)} ({split})"


def combined_of(metrics: set[str]) -> str | None:
    """The combined score present: `e_vil_score`, else `e_vil_score_no_spice`."""
    for name in ("e_vil_score", "e_vil_score_no_spice"):
        if f"s_e/{name}" in metrics:
            return name
    return None


def _fmt(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}"


def evil_tables(rows: Sequence[ResultRow]) -> list[Table]:
    """Table 3 layout (Overall S_E; per dataset S_O, S_T, S_E) plus automatic metrics."""
    from harness.metrics.nlg import METRIC_LABELS, METRICS

    data: dict[str, dict[tuple[str, str], dict[str, float]]] = {}
    gt: dict[tuple[str, str], dict[str, float]] = {}
    trained: dict[tuple[str, tuple[str, str]], str] = {}
    for r in rows:
        key = (r.dataset, r.split)
        if r.variant == _GT:
            gt.setdefault(key, {})[r.metric] = r.value  # model-independent: any run's copy
        elif not r.variant:
            # one row per model (Table 3); each task may have its own training data
            data.setdefault(r.model, {}).setdefault(key, {})[r.metric] = r.value
            trained.setdefault((r.model, key), r.train)
    keys = sorted({k for cells in data.values() for k in cells} | set(gt),
                  key=lambda k: (_ORDER.get(k[0].split(":")[0], 9), k))
    if not keys:
        return []
    combined = {k: combined_of({m for cells in data.values() for m in cells.get(k, {})} | set(gt.get(k, {})))
                for k in keys}
    # The paper's Overall averages its three datasets; toy tasks join only when alone.
    evil_keys = [k for k in keys if k[0].split(":")[0] in _NAMES] or keys
    headers = ["model", "Overall S_E"]
    for k in keys:
        headers += [f"{_label(*k)} S_O", f"{_label(*k)} S_T", f"{_label(*k)} S_E"]
    body = []
    human: dict[str, dict[tuple[str, str], dict[str, float]]] = {}
    for r in rows:
        if r.variant == "human":
            human.setdefault(r.model, {}).setdefault((r.dataset, r.split), {})[r.metric] = r.value
    for model, cells in sorted(data.items()):
        line, s_es = [], []
        for k in keys:
            c, name = cells.get(k, {}), combined[k]
            s_e = c.get(f"s_e/{name}") if name else None
            line += [_fmt(c.get(f"s_o/{name}") if name else None), _fmt(c.get("s_t")), _fmt(s_e)]
            if s_e is not None and k in evil_keys:
                s_es.append(s_e)
        overall = sum(s_es) / len(s_es) if s_es else None
        body.append((model, _fmt(overall), *line))
    if gt:
        line, s_es = [], []
        for k in keys:
            name = combined[k]
            s_e = gt.get(k, {}).get(f"s_e/{name}") if name else None
            line += ["–", "–", _fmt(s_e)]
            if s_e is not None and k in evil_keys:
                s_es.append(s_e)
        body.append(("GT", _fmt(sum(s_es) / len(s_es) if s_es else None), *line))
    no_spice = any(v == "e_vil_score_no_spice" for v in combined.values())
    note = ("S_E = combined automatic e-ViL score (harmonic mean of BERTScore F1 and NGRAMScore) over the "
            "correctly answered examples; S_O = S_T·S_E; GT = each reference scored against the others.")
    if no_spice:
        note += " SPICE was unavailable: the combined score is computed without it (e_vil_score_no_spice)."
    note += " Overall S_E = mean S_E over " + ", ".join(_label(*k) for k in evil_keys) + "."
    tables = [Table("e-ViL (Kayser et al. 2021, Table 3 layout; automatic S_E)", tuple(headers), tuple(body), note)]

    metric_cols = [m for m in (*METRICS, "e_vil_score", "e_vil_score_no_spice")
                   if any(f"s_e/{m}" in c for cells in data.values() for c in cells.values())
                   or any(f"s_e/{m}" in c for c in gt.values())]
    headers2 = ["model", "trained on", "data", "S_T", *(METRIC_LABELS.get(m, m) for m in metric_cols)]
    body2 = []
    for model, cells in sorted(data.items()):
        for k in keys:
            if k in cells:
                c = cells[k]
                body2.append((model, trained.get((model, k)) or "-", _label(*k), _fmt(c.get("s_t")),
                              *(_fmt(c.get(f"s_e/{m}")) for m in metric_cols)))
    for k in keys:
        if k in gt:
            body2.append(("GT", "-", _label(*k), "–", *(_fmt(gt[k].get(f"s_e/{m}")) for m in metric_cols)))
    if human:
        hkeys = sorted({k for cells in human.values() for k in cells}, key=lambda k: (_ORDER.get(k[0].split(":")[0], 9), k))
        headers3 = ["model", "Overall S_E"]
        for k in hkeys:
            headers3 += [f"{_label(*k)} S_O", f"{_label(*k)} S_T", f"{_label(*k)} S_E"]
        body3 = []
        for model, cells in sorted(human.items()):
            line, s_es = [], []
            for k in hkeys:
                c = cells.get(k, {})
                s_e, s_o = c.get("s_e/human"), c.get("s_o/human")
                s_t = data.get(model, {}).get(k, {}).get("s_t")
                line += [_fmt(s_o), _fmt(s_t), _fmt(s_e)]
                if s_e is not None:
                    s_es.append(s_e)
            body3.append((model, _fmt(sum(s_es) / len(s_es) if s_es else None), *line))
        tables.append(Table("e-ViL human evaluation (Kayser et al. 2021, Table 3)", tuple(headers3), tuple(body3),
                            "S_E = mean human score (yes/weak yes/weak no/no = 1, 2/3, 1/3, 0) of the sampled "
                            "correctly answered explanations (harness nle import)."))
    tables.append(Table("e-ViL automatic metrics (S_E over correctly answered examples, x100)",
                        tuple(headers2), tuple(body2),
                        "Each metric is the pycocoevalcap corpus score (BERTScore: mean F1) on the same pairs."))
    return tables
