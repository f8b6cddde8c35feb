"""The run-report section of the counterfactual probe (markdown)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Mapping, Sequence

from harness.report import md_cell
from vqa_harness_plugins.generators.counterfactual import Kind, skip_reasons

from .metrics import KindSummary, Pair, Rule, changed

__all__ = ["render"]


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}"


def _ci(ci: tuple[float, float] | None) -> str:
    return "" if ci is None else f" [{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]"


def render(
    kinds: Sequence[Kind],
    counts: Mapping[str, Counter],
    total: int,
    summaries: Mapping[str, tuple[KindSummary, list[Pair], list[Rule], list[Rule]]],
    common: Sequence[str],
    local_path: Path,
    *,
    top: int,
    mode: str = "paper",
    rejected: Mapping[str, Counter] | None = None,
) -> str:
    """Coverage and skips, rejected candidates, per-kind metrics, telling local
    explanations, global rules."""
    reasons = skip_reasons(mode)
    out = [f"Counterfactual questions over {total} questions, generator mode `{mode}`; common colors of "
           f"this data: {', '.join(common) or '(none: common color kinds do not apply)'}. "
           "Color distance: CIEDE2000.", "",
           "Questions skipped per kind, by reason (the most frequent reason among the question's "
           "candidates, docs/counterfactual.md rule 9):", ""]
    out += ["| kind | applies | coverage % | " + " | ".join(f"skip: {r}" for r in reasons)
            + " | n | change % [95% CI] | acc_Q % | acc*_Q % | reduction % |",
            "|---" * (4 + len(reasons) + 4) + "|"]
    for k in kinds:
        c = counts[k.id]
        s = summaries.get(k.id, (None,))[0]
        cells = [k.label, str(c["applied"]), f"{100 * c['applied'] / max(total, 1):.1f}"]
        cells += [str(c[r]) for r in reasons]
        if s is None:
            cells += ["0", "-", "-", "-", "-"]
        else:
            cells += [str(s.n), _pct(s.change_rate) + _ci(s.change_ci), _pct(s.acc_q), _pct(s.acc_q_cf),
                      _pct(s.reduction)]
        out.append("| " + " | ".join(cells) + " |")
    if rejected and any(rejected.get(k.id) for k in kinds):
        out += ["", "Candidates rejected on the way (every candidate word or phrase, by reason; "
                "docs/counterfactual.md):", "",
                "| kind | " + " | ".join(reasons[2:]) + " |", "|---" * (1 + len(reasons) - 2) + "|"]
        for k in kinds:
            c = rejected.get(k.id, Counter())
            out.append(f"| {k.label} | " + " | ".join(str(c[r]) for r in reasons[2:]) + " |")
    out += ["", f"All local explanations: `{local_path}`.", ""]
    telling = []
    for k in kinds:
        if k.id not in summaries:
            continue
        telling += [(k, p) for p in summaries[k.id][1][:top]]
    if telling:
        out += ["Most telling local explanations (Color Maximal: answer kept although the color "
                "changed; other kinds: answer changed, largest accuracy drop first):", "",
                "| kind | X → Y | q → q* | a → a* |", "|---|---|---|---|"]
        for k, p in telling:
            out.append(f"| {k.label} | {md_cell(p.source)} → {md_cell(p.target or '∅')} | {md_cell(p.question)} → "
                       f"{md_cell(p.counterfactual)} | {md_cell(p.answer)} → {md_cell(p.cf_answer)} |")
        out.append("")
    rules_lines = []
    for k in kinds:
        if k.id not in summaries:
            continue
        concept_rules = summaries[k.id][2]
        if not concept_rules:
            continue
        most, least = concept_rules[:top], concept_rules[::-1][:top]
        rules_lines.append(f"- {k.label}: most robust " + "; ".join(_rule(r) for r in most)
                           + " — least robust " + "; ".join(_rule(r) for r in least))
    if rules_lines:
        out += ["Global rules (answer unchanged, by original concept, Wilson 95% CI):", ""] + rules_lines
    else:
        out.append("No global rule reaches the minimum support (option `min_support`).")
    return "\n".join(out)


def _rule(r: Rule) -> str:
    tgt = "any" if r.target == "*" else r.target
    return f"{r.source} → {tgt}: unchanged in {100 * r.rate:.0f}% (n = {r.n}){_ci(r.ci)}"


def most_telling(kind: Kind, summary: KindSummary, pairs: Sequence[Pair]) -> list[Pair]:
    """The pairs the report shows first: Color Maximal answers kept, else answers changed with
    the largest accuracy drop (ties by example id)."""
    accs = summary.per_pair_acc or tuple((0.0, 0.0) for _ in pairs)
    if kind.relation == "color" and kind.maximal:
        picked = [(-a, p.example_id, p) for p, (a, _) in zip(pairs, accs) if not changed(p.answer, p.cf_answer)]
    else:
        picked = [(-(a - b), p.example_id, p) for p, (a, b) in zip(pairs, accs) if changed(p.answer, p.cf_answer)]
    return [p for *_, p in sorted(picked, key=lambda t: (t[0], t[1]))]
