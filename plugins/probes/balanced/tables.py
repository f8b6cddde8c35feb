"""Paper-style leaderboard tables for the balanced-VQA probes (Goyal et al. 2017).

Train and test conditions come from the rows: the test condition from the row's dataset,
the train condition from its `train` field (a fitted model's train data, or the training
data a pretrained model declares): `U` unbalanced (VQA v1, toyvqa unbalanced), `B`
balanced (VQA v2, toyvqa balanced), `B_half` (toyvqa-half).
"""

from __future__ import annotations

from typing import Iterable, Sequence

from harness.api import Table
from harness.specs import parse_spec
from harness.types import ResultRow

__all__ = ["condition", "cell_name", "goyal_tables", "pair_table", "audit_table", "counterexample_table"]

GOYAL_COLUMNS = ("UU", "UB", "B_half B", "BB")
ANSWER_TYPES = (("Yes/No", "yes/no"), ("Number", "number"), ("Other", "other"))
NOTE = "Values in %; 95% intervals are in results.csv / results.json."


def condition(spec: str) -> str:
    """'U', 'B', 'B_half' or '' for a dataset spec / train label ('toyvqa:variant=balanced/train')."""
    spec = (spec or "").strip()
    if not spec:
        return ""
    low = spec.lower()
    if low in ("unbalanced", "vqa v1", "vqa1"):
        return "U"
    if low in ("balanced", "vqa v2", "vqa2"):
        return "B"
    data = spec.rsplit("/", 1)[0] if spec.endswith(("/train", "/val", "/test", "/test-dev")) else spec
    try:
        name, options = parse_spec(data)
    except Exception:
        return ""
    if name == "toyvqa-half" or "half" in name:
        return "B_half"
    if name == "vqa2":
        return "B"
    if name == "vqa1":
        return "U"
    if name == "toyvqa":
        return "B" if str(options.get("variant", "unbalanced")) == "balanced" else "U"
    return ""


def cell_name(row: ResultRow) -> str:
    """The Goyal cell of a row: train condition then test condition ('B_half B')."""
    train, test = condition(row.train), condition(row.dataset)
    if not train or not test:
        return f"{row.train or '?'} -> {row.dataset}"
    return f"{train} {test}" if train == "B_half" else f"{train}{test}"


def _pct(row: ResultRow | None) -> str:
    return "-" if row is None else f"{100 * row.value:.2f}"


def _columns(found: Iterable[str]) -> list[str]:
    found = list(dict.fromkeys(found))
    return [c for c in GOYAL_COLUMNS if c in found] + sorted(c for c in found if c not in GOYAL_COLUMNS)


def goyal_tables(rows: Sequence[ResultRow]) -> list[Table]:
    """Goyal Table 1 (models x train/test condition) and Table 3 (by answer type)."""
    acc = {}
    for r in rows:
        if r.metric == "vqa_accuracy" or r.metric.startswith("vqa_accuracy/answer_type="):
            acc[(r.model, cell_name(r), r.metric)] = r
    if not acc:
        return []
    cols = _columns(c for _, c, _ in acc)
    models = sorted({m for m, _, _ in acc})
    t1 = tuple((m, *(_pct(acc.get((m, c, "vqa_accuracy"))) for c in cols)) for m in models)
    body3 = []
    for m in models:
        for title, key in (*ANSWER_TYPES, ("All", "")):
            metric = f"vqa_accuracy/answer_type={key}" if key else "vqa_accuracy"
            body3.append((m, title, *(_pct(acc.get((m, c, metric))) for c in cols)))
    return [
        Table("Goyal Table 1: VQA accuracy by train / test condition (U unbalanced, B balanced)",
              ("model", *cols), t1, NOTE),
        Table("Goyal Table 3: accuracy by answer type and train / test condition",
              ("model", "answer type", *cols), tuple(body3), NOTE),
    ]


def _index(rows: Sequence[ResultRow], key) -> dict:
    out: dict = {}
    for r in rows:
        out.setdefault(key(r), {})[(r.metric, r.variant)] = r
    return out


def pair_table(rows: Sequence[ResultRow]) -> list[Table]:
    """Complementary-pair table: one row per model, train condition and test data."""
    from .pairs import PAIR_METRICS

    idx = _index(rows, lambda r: (r.model, condition(r.train) or r.train or "-", f"{r.dataset}/{r.split}"))
    body = []
    for (model, train, data), cells in sorted(idx.items()):
        n = next((c.n for c in cells.values()), 0)
        body.append((model, train, data, *(_pct(cells.get((m, ""))) for m in PAIR_METRICS), str(n)))
    if not body:
        return []
    return [Table("Complementary pairs (Goyal §4)",
                  ("model", "trained on", "test data", *PAIR_METRICS.values(), "pairs"), tuple(body), NOTE)]


def audit_table(rows: Sequence[ResultRow]) -> list[Table]:
    """Language-prior audit: one row per dataset/split (model-free, so models are merged)."""
    idx = _index(rows, lambda r: f"{r.dataset}/{r.split}")
    body, entropy = [], {}
    for data, cells in sorted(idx.items()):
        h = cells.get(("audit/answer_entropy", ""))
        if h is not None:
            entropy.setdefault(condition(data.rsplit("/", 1)[0]), []).append(h.value)
        body.append((data, "-" if h is None else f"{h.value:.4f}",
                     _pct(cells.get(("audit/prior_accuracy", ""))),
                     _pct(cells.get(("audit/qtype_prior_accuracy", ""))),
                     _pct(cells.get(("audit/top_prefix_accuracy", ""))),
                     str(h.n) if h is not None else "-"))
    if not body:
        return []
    note = "Accuracies in %; entropy of the answer distribution per question type, weighted by type frequency."
    if entropy.get("U") and entropy.get("B"):
        u, b = sum(entropy["U"]) / len(entropy["U"]), sum(entropy["B"]) / len(entropy["B"])
        if u > 0:
            note += f" Balanced vs unbalanced entropy: {100 * (b - u) / u:+.1f}% (Goyal et al.: +56% on VQA)."
    return [Table("Language-prior audit (Goyal §3)",
                  ("data", "answer entropy (bits)", "Prior", "question-type prior", "best prefix", "questions"),
                  tuple(body), note)]


def counterexample_table(rows: Sequence[ResultRow]) -> list[Table]:
    """Counter-example Recall@5 by ranker (Goyal Table 4 layout)."""
    idx = _index(rows, lambda r: (r.model, condition(r.train) or r.train or "-", f"{r.dataset}/{r.split}"))
    body = []
    for (model, train, data), cells in sorted(idx.items()):
        metric = next((m for m, _ in cells), "counterexample/recall@5")
        n = next((c.n for c in cells.values()), 0)
        body.append((model, train, data, *(_pct(cells.get((metric, v))) for v in ("chance", "random",
                     "distance", "model")), str(n)))
    if not body:
        return []
    return [Table("Counter-example explanations: Recall@5 (Goyal Table 4; paper: Random 20.79, "
                  "Distance 42.84, VQA model 21.65)",
                  ("model", "trained on", "test data", "chance", "Random", "Distance", "Model", "questions"),
                  tuple(body), NOTE)]
