"""Leaderboard layouts of the counterfactual probe: Stoikou Tables 2 and 3, global rules.

Table 2 (colors): per perturbation (Color Maximal / Minimal), acc_Q and acc*_Q with common
and with uncommon replacement colors, per dataset. Table 3 (WordNet kinds and deletion):
acc_Q, acc*_Q and the acc_Q reduction per dataset. We add the answer-change rate (the only
number for data without answers). Values are percentages; intervals are in CSV/JSON.
"""

from __future__ import annotations

from typing import Sequence

from harness.api import Table
from harness.perturb import KINDS
from harness.types import ResultRow

__all__ = ["counterfactual_tables"]

_LABEL = {k.id: k.label for k in KINDS}
_TABLE3 = [k.id for k in KINDS if k.relation != "color"]


def _v(row: ResultRow | None) -> str:
    return "-" if row is None else f"{100 * row.value:.1f}"


def counterfactual_tables(rows: Sequence[ResultRow], rules_per_end: int = 3) -> list[Table]:
    """The three tables (an empty layout is left out)."""
    index: dict[tuple[str, str, str, str, str], ResultRow] = {}
    datasets: list[str] = []
    models: list[tuple[str, str]] = []
    for r in rows:
        data = f"{r.dataset}/{r.split}"
        index[(r.model, r.train, data, r.variant, r.metric)] = r
        if data not in datasets:
            datasets.append(data)
        if (r.model, r.train) not in models:
            models.append((r.model, r.train))
    datasets.sort()
    models.sort()

    def get(model, data, kind, metric):
        return index.get((model[0], model[1], data, kind, metric))

    tables: list[Table] = []
    # -- Table 2: colors
    head2 = ["model", "trained on", "perturbation"]
    for d in datasets:
        head2 += [f"acc_Q % {d}", f"acc*_Q % common {d}", f"acc*_Q % uncommon {d}",
                  f"change % common {d}", f"change % uncommon {d}"]
    body2 = []
    for m in models:
        for label, stem in (("Color Maximal", "color_max"), ("Color Minimal", "color_min")):
            cells = []
            for d in datasets:
                common, uncommon = f"{stem}_common", f"{stem}_uncommon"
                acc = get(m, d, common, "acc_q") or get(m, d, uncommon, "acc_q")
                cells += [_v(acc), _v(get(m, d, common, "acc_q_cf")), _v(get(m, d, uncommon, "acc_q_cf")),
                          _v(get(m, d, common, "answer_change_rate")), _v(get(m, d, uncommon, "answer_change_rate"))]
            if any(c != "-" for c in cells):
                body2.append((m[0], m[1] or "-", label, *cells))
    if body2:
        tables.append(Table("counterfactual — color perturbations (Stoikou et al. 2023, Table 2)",
                            tuple(head2), tuple(body2),
                            note="common: replacement among the colors of the dataset's questions and answers; "
                                 "uncommon: any matplotlib named color. Distance: CIEDE2000."))
    # -- Table 3: WordNet kinds and deletion
    head3 = ["model", "trained on", "perturbation"]
    for d in datasets:
        head3 += [f"acc_Q % {d}", f"acc*_Q % {d}", f"acc_Q reduction % {d}", f"change % {d}"]
    body3 = []
    for m in models:
        for kind in _TABLE3:
            cells = []
            for d in datasets:
                cells += [_v(get(m, d, kind, "acc_q")), _v(get(m, d, kind, "acc_q_cf")),
                          _v(get(m, d, kind, "acc_reduction")), _v(get(m, d, kind, "answer_change_rate"))]
            if any(c != "-" for c in cells):
                body3.append((m[0], m[1] or "-", _LABEL[kind], *cells))
    if body3:
        tables.append(Table("counterfactual — WordNet perturbations (Stoikou et al. 2023, Table 3)",
                            tuple(head3), tuple(body3),
                            note="reduction = (acc_Q - acc*_Q) / acc_Q; change = share of answers a* != a."))
    # -- Global rules: most and least robust concepts per kind
    body4 = []
    for m in models:
        for d in datasets:
            for kind in _LABEL:
                found = sorted((r for (mm, tt, dd, vv, met), r in index.items()
                                if (mm, tt, dd, vv) == (m[0], m[1], d, kind) and met.startswith("unchanged/concept=")),
                               key=lambda r: (-r.value, -r.n, r.metric))
                if not found:
                    continue
                ends = found[:rules_per_end] + [r for r in found[::-1][:rules_per_end] if r not in found[:rules_per_end]]
                for i, r in enumerate(ends):
                    concept = r.metric.split("=", 1)[1]
                    ci = "" if r.ci_low is None else f" [{100 * r.ci_low:.1f}, {100 * r.ci_high:.1f}]"
                    body4.append((m[0], d, _LABEL[kind], "most" if i < min(rules_per_end, len(found)) else "least",
                                  f"{concept} → any", str(r.n), f"{100 * r.value:.1f}{ci}"))
    if body4:
        tables.append(Table("counterfactual — global rules (answer unchanged by original concept)",
                            ("model", "data", "perturbation", "robust", "rule", "n", "unchanged % [95% CI]"),
                            tuple(body4),
                            note="Wilson intervals; rules below the probe's min_support are not reported. "
                                 "Substitution-level rules (X → Y) are in results.csv."))
    return tables
