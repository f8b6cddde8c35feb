"""e-ViL human evaluation round trip (Kayser et al. 2021, §4.3, Tables 5 and 6).

`draw_sample`: shuffle all examples of a task with a seed, keep the first `n` correctly
answered ones whose image was not taken yet (unique images). `write_sample_csv` writes them
for annotators: one row per explanation with blank `annotator`, `rating` (yes / weak yes /
weak no / no) and the three shortcomings (mark with x / yes / 1). `read_ratings` reads any
number of filled copies, `summarize` maps ratings to 1, 2/3, 1/3, 0, averages them per
explanation over annotators, and gives human S_E and S_O = S_T * S_E, the share of
evaluations with each shortcoming (Table 5) and the Spearman correlation of every automatic
metric with the per-explanation human score (Table 6).

Spearman's rho and its two-sided p-value come from `scipy.stats.spearmanr` (Pearson's r
of average ranks; the t approximation with n-2 degrees of freedom).
"""

from __future__ import annotations

import csv
import math
import random
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from harness.errors import DataError
from vqa_harness_plugins.metrics.evil_score import e_vil_score
from vqa_harness_plugins.metrics.nlg import METRIC_LABELS, METRICS
from vqa_harness_plugins.validation import csv_rows

__all__ = [
    "RATINGS", "SHORTCOMINGS", "SAMPLE_COLUMNS", "Rating", "HumanSummary",
    "draw_sample", "write_sample_csv", "read_ratings", "missing_rows", "summarize", "spearman", "render_markdown",
]

RATINGS: dict[str, float] = {"yes": 1.0, "weak yes": 2 / 3, "weak no": 1 / 3, "no": 0.0}
#: (column, paper's wording)
SHORTCOMINGS: tuple[tuple[str, str], ...] = (
    ("untrue_to_image", "Untrue to Image"),
    ("lack_of_justification", "Lack of Justification"),
    ("nonsensical", "Non-sensical Sentence"),
)
SAMPLE_COLUMNS = ("item", "example_id", "image_id", "image", "question", "answer", "explanation",
                  "annotator", "rating", *(c for c, _ in SHORTCOMINGS))
_TRUE = {"1", "x", "yes", "y", "true"}
_FALSE = {"", "0", "no", "n", "false"}


@dataclass(frozen=True)
class Rating:
    """One annotator's judgement of one explanation."""

    example_id: str
    annotator: str
    score: float
    shortcomings: tuple[bool, ...]
    #: the filled CSV and its `item` column, to name a row another annotator's copy lacks
    source: str = ""
    item: str = ""


@dataclass(frozen=True)
class HumanSummary:
    s_t: float
    s_e: float
    s_o: float
    n_items: int
    n_ratings: int
    annotators: int
    #: shortcoming column -> share of evaluations that selected it
    shortcomings: Mapping[str, float]
    #: metric -> (rho, p, n)
    correlations: Mapping[str, tuple[float, float, int]]
    unavailable: Mapping[str, str] = field(default_factory=dict)
    per_item: Mapping[str, float] = field(default_factory=dict)
    #: fewest and most ratings of one explanation (unequal: a copy lacks rows, see `missing_rows`)
    ratings_per_item: tuple[int, int] = (0, 0)


def draw_sample(records: Sequence[Mapping[str, Any]], n: int = 300, seed: int = 0) -> list[Mapping[str, Any]]:
    """The paper's sample: seeded shuffle, first `n` correctly answered, unique images."""
    order = list(records)
    random.Random(seed).shuffle(order)
    seen: set[str] = set()
    out = []
    for rec in order:
        if not rec.get("correct") or "explanation" not in rec:
            continue
        image = rec.get("image_id") or rec["id"]
        if image in seen:
            continue
        seen.add(image)
        out.append(rec)
        if len(out) == n:
            break
    return out


def write_sample_csv(path: Path, sample: Sequence[Mapping[str, Any]]) -> None:
    """One row per sampled explanation, rating columns left blank for the annotator."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=SAMPLE_COLUMNS)
        writer.writeheader()
        for k, rec in enumerate(sample, start=1):
            writer.writerow({"item": k, "example_id": rec["id"], "image_id": rec.get("image_id", ""),
                             "image": rec.get("image", ""), "question": rec.get("question", ""),
                             "answer": rec.get("answer") or "", "explanation": rec.get("explanation", ""),
                             "annotator": "", "rating": "", **{c: "" for c, _ in SHORTCOMINGS}})


def read_ratings(paths: Sequence[Path], known: Mapping[str, Mapping[str, Any]] | None = None) -> list[Rating]:
    """Ratings from filled CSVs; a blank `annotator` is the file's stem. One-line DataError
    naming file, row and field for a missing column, unknown rating or shortcoming value,
    unknown example id or a duplicate (example, annotator). With `known` (the run's records
    by id), a rated example must be one the run answered correctly (human S_E, like S_E,
    averages over those only), and a row's `explanation`, where the CSV has that column,
    must be the run's: a copy filled for another model's sample would otherwise be scored
    as this model's explanations."""
    out: list[Rating] = []
    seen: dict[tuple[str, str], str] = {}
    needed = ("example_id", "annotator", "rating", *(c for c, _ in SHORTCOMINGS))
    for path in map(Path, paths):
        for row_no, row in csv_rows(path, needed, "a filled copy of `harness nle sample`'s CSV"):
            out.append(_rating(path, row_no, row, known, seen))
    if not out:
        raise DataError(f"{', '.join(map(str, paths))}: no ratings found")
    return out


def _rating(path, row_no, row, known, seen) -> Rating:
    where = f"{path}: row {row_no}"
    ex_id = (row.get("example_id") or "").strip()
    if not ex_id or (known is not None and ex_id not in known):
        raise DataError(f"{where}: field 'example_id': {ex_id!r} is not an example of this run's task")
    if known is not None:
        _check_rated_record(where, ex_id, row, known[ex_id])
    raw = " ".join((row.get("rating") or "").strip().lower().replace("_", " ").split())
    if raw not in RATINGS:
        raise DataError(f"{where}: field 'rating': {raw!r} is not one of {', '.join(RATINGS)}")
    flags = []
    for col, _ in SHORTCOMINGS:
        value = (row.get(col) or "").strip().lower()
        if value not in _TRUE | _FALSE:
            raise DataError(f"{where}: field {col!r}: {value!r} is not a mark (use x/yes/1, or leave blank)")
        flags.append(value in _TRUE)
    annotator = (row.get("annotator") or "").strip() or Path(path).stem
    key = (ex_id, annotator)
    if key in seen:
        raise DataError(f"{where}: field 'annotator': {annotator!r} already rated {ex_id!r} ({seen[key]})")
    seen[key] = where
    return Rating(ex_id, annotator, RATINGS[raw], tuple(flags), str(path), (row.get("item") or "").strip())


def missing_rows(ratings: Sequence[Rating], shown: int = 5) -> list[str]:
    """One warning per filled CSV that has no row for an explanation rated less often than
    the most rated one while the other CSVs rate it (a row deleted from an annotator's copy).
    Such an explanation's score is the mean of the ratings it has."""
    by_item: dict[str, list[Rating]] = {}
    for r in ratings:
        by_item.setdefault(r.example_id, []).append(r)
    most = max((len(v) for v in by_item.values()), default=0)
    sources = list(dict.fromkeys(r.source for r in ratings))
    lacking: dict[str, list[str]] = {}
    for ex_id, rs in by_item.items():
        if len(rs) < most:
            item = next((r.item for r in rs if r.item), "")
            label = f"{ex_id!r} (item {item})" if item else repr(ex_id)
            for src in sources:
                if all(r.source != src for r in rs):
                    lacking.setdefault(src, []).append(label)
    out = []
    for src, labels in lacking.items():
        more = f" and {len(labels) - shown} more" if len(labels) > shown else ""
        out.append(f"warning: {src}: no row for {', '.join(labels[:shown])}{more}, which other files rate; "
                   "each explanation's score is the mean of the ratings it has")
    return out


def _check_rated_record(where: str, ex_id: str, row: Mapping[str, Any], rec: Mapping[str, Any]) -> None:
    """The rated example is one `draw_sample` could have drawn from this run, with its text."""
    if not rec.get("correct") or "explanation" not in rec:
        raise DataError(f"{where}: field 'example_id': {ex_id!r} was not answered correctly by this run's model "
                        "(human S_E averages over correctly answered examples; is the file for another run?)")
    if "explanation" in row and _words(row["explanation"]) != _words(rec["explanation"]):
        raise DataError(f"{where}: field 'explanation': {_words(row['explanation'])[:60]!r} is not this run's "
                        f"explanation of {ex_id!r} ({_words(rec['explanation'])[:60]!r}); is the file for another run?")


def _words(text: Any) -> str:
    # Spreadsheets may re-wrap or pad a cell; the words are what the annotator judged.
    return " ".join(str(text or "").split())


def summarize(records: Sequence[Mapping[str, Any]], ratings: Sequence[Rating], s_t: float) -> HumanSummary:
    """Human S_E (mean over explanations of the mean rating), S_O = S_T * S_E, Table 5 shares
    and Table 6 correlations against the per-example automatic scores in `records`."""

    by_item: dict[str, list[float]] = {}
    for r in ratings:
        by_item.setdefault(r.example_id, []).append(r.score)
    per_item = {k: float(np.mean(v)) for k, v in by_item.items()}
    counts = [len(v) for v in by_item.values()]
    s_e = float(np.mean(list(per_item.values())))
    shares = {col: float(np.mean([r.shortcomings[j] for r in ratings])) for j, (col, _) in enumerate(SHORTCOMINGS)}
    auto: dict[str, dict[str, float]] = {}
    for rec in records:
        if rec["id"] in per_item and rec.get("scores"):
            scores = dict(rec["scores"])
            combined = e_vil_score(scores)
            if combined is not None:
                scores[combined[0]] = combined[1]
            auto[rec["id"]] = scores
    correlations: dict[str, tuple[float, float, int]] = {}
    unavailable: dict[str, str] = {}
    metrics = sorted({m for s in auto.values() for m in s}, key=_metric_order)
    for m in metrics:
        ids = [k for k in per_item if m in auto.get(k, {})]
        if len(ids) < 3:
            unavailable[m] = f"only {len(ids)} rated explanations have this score"
            continue
        rho, p = spearman([auto[k][m] for k in ids], [per_item[k] for k in ids])
        if math.isnan(rho):
            unavailable[m] = "undefined: the metric or the human score is constant over the sample"
        else:
            correlations[m] = (rho, p, len(ids))
    return HumanSummary(s_t, s_e, s_t * s_e, len(per_item), len(ratings), len({r.annotator for r in ratings}),
                        shares, correlations, unavailable, per_item, (min(counts), max(counts)))


def _metric_order(m: str) -> tuple[int, str]:
    return (METRICS.index(m) if m in METRICS else len(METRICS), m)


# ------------------------------------------------------------------------ Spearman


def spearman(x: Sequence[float], y: Sequence[float]) -> tuple[float, float]:
    """(rho, two-sided p) from `scipy.stats.spearmanr` (average ranks, t approximation);
    nan for constant input."""

    from scipy.stats import spearmanr  # heavy: scipy, imported where it is used

    a, b = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if len(a) != len(b) or len(a) < 3:
        raise DataError(f"spearman: needs two equal-length samples of at least 3, got {len(a)} and {len(b)}")
    if np.ptp(a) == 0 or np.ptp(b) == 0:
        return float("nan"), float("nan")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = spearmanr(a, b)
    return float(result.statistic), float(result.pvalue)


# ------------------------------------------------------------------------ report


def render_markdown(summary: HumanSummary, title: str) -> str:
    """Human S_E / S_O, the shortcomings (Table 5) and correlations (Table 6) as markdown."""
    s = summary
    low, high = s.ratings_per_item
    uneven = f", {low} to {high} ratings per explanation" if low != high else ""
    lines = [f"## Human evaluation: {title}", "",
             f"{s.n_items} explanations, {s.n_ratings} ratings by {s.annotators} annotators{uneven} "
             "(yes / weak yes / weak no / no = 1, 2/3, 1/3, 0; averaged per explanation).", "",
             "| S_O | S_T | S_E (human) |", "|---|---|---|",
             f"| {100 * s.s_o:.1f} | {100 * s.s_t:.1f} | {100 * s.s_e:.1f} |", "",
             "Shortcomings (share of evaluations; Kayser et al. Table 5):", "",
             "| " + " | ".join(label for _, label in SHORTCOMINGS) + " |", "|---|---|---|",
             "| " + " | ".join(f"{100 * s.shortcomings[c]:.1f}%" for c, _ in SHORTCOMINGS) + " |", "",
             "Spearman correlation with the human score (Kayser et al. Table 6):", "",
             "| metric | rho | p-value | n |", "|---|---|---|---|"]
    for m, (rho, p, n) in s.correlations.items():
        lines.append(f"| {METRIC_LABELS.get(m, m)} | {rho:.3f} | {p:.3g} | {n} |")
    for m, reason in s.unavailable.items():
        lines.append(f"| {METRIC_LABELS.get(m, m)} | - | - | {reason} |")
    return "\n".join(lines) + "\n"
