"""The QoU / IoU decoy generator of Chao et al. 2018 (§4.1, §5.1; docs/decoys.md).

For each image-question-target triplet:
1. IoU decoys: targets of the OTHER questions on the same image, walked in a seeded random
   order (one `random.Random` per qa_id, seeded by SHA-256 of (seed, qa_id)). Records are
   walked in qa_id order, so no decoy (IoU, QoU or fill-in) depends on the input's order.
2. QoU decoys: targets of the most similar OTHER questions (cosine of question embeddings,
   see similarity.py), walked best first through the top N (default 10,000). Identical
   question texts are embedded once; neighbours are searched with a growing k (32, 256,
   2048, N) only for the triplets still short of decoys, which gives the same walk as
   sorting all N at once.
3. Each candidate must pass, in order: not equal to / containing / contained in the target
   (after normalization); WUP(candidate, target) < 0.9 (supplementary Eq. 3-4); and the
   same two tests against every decoy already accepted for the triplet (IoU and QoU alike,
   so the combined candidate list has no near-duplicates).
4. Too few: fill from the triplet's original decoys (seeded order), or, for data without
   original decoys, from the 10 most frequent targets; fill-ins pass the same filters and
   are counted. A set that is still short stays short (counted as `short`), never padded.
"""

from __future__ import annotations

import random
import time
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Collection, Iterable, Mapping, Sequence

from harness.errors import DataError, UsageError
from harness.seeding import seeded_random
from vqa_harness_plugins.nlp import wordnet

from .similarity import question_embeddings, question_tokens, ranked_neighbours
from .text import normalize_for_match, normalize_release, overlaps
from .wup import WupScorer

__all__ = [
    "QARecord",
    "DecoyConfig",
    "DecoySet",
    "GenerationStats",
    "DecoyResult",
    "generate_decoys",
    "validate_records",
    "default_wup",
    "K_SCHEDULE",
    "EMPTY_TARGETS",
]

#: Neighbour depths tried in turn for triplets still short of QoU decoys (then top_n).
K_SCHEDULE = (32, 256, 2048)
FREQUENT_TARGETS = 10
#: Policies for a target empty once normalized: an error, or the question left out and counted.
EMPTY_TARGETS = ("error", "skip")
#: First ids kept in the statistics.
SHOWN = 10


@dataclass(frozen=True)
class QARecord:
    """One image-question-target triplet (and the dataset's own decoys, if any)."""

    qa_id: str
    image_id: str
    question: str
    target: str
    orig_decoys: tuple[str, ...] = ()


@dataclass(frozen=True)
class DecoyConfig:
    """Generator settings (all recorded with the output)."""

    n_iou: int = 3
    n_qou: int = 3
    top_n: int = 10_000
    wup_threshold: float = 0.9
    seed: int = 0
    embedding: str = "tfidf"
    dim: int = 128
    block_size: int = 1024
    device: str = "cpu"
    #: Fill-in source: "auto" (original decoys when the record has some, else the most
    #: frequent targets), "orig", "frequent" or "none".
    fill: str = "auto"


@dataclass(frozen=True)
class DecoySet:
    """The decoys of one triplet; `*_sources` name where each came from: the qa_id of the
    source triplet, "orig" or "frequent" (fill-ins)."""

    qa_id: str
    iou: tuple[str, ...]
    qou: tuple[str, ...]
    iou_sources: tuple[str, ...]
    qou_sources: tuple[str, ...]


@dataclass
class GenerationStats:
    """Counts reported with every generation (the leaderboard's generation statistics)."""

    questions: int = 0
    images: int = 0
    unique_questions: int = 0
    iou_from_image: int = 0
    qou_from_questions: int = 0
    fill_orig: int = 0
    fill_frequent: int = 0
    short_iou: int = 0
    short_qou: int = 0
    rejected_overlap: int = 0
    rejected_wup: int = 0
    rejected_mutual: int = 0
    #: Questions left out under empty_targets="skip" (target empty once normalized), first ids.
    skipped_empty_targets: int = 0
    skipped_empty_targets_shown: list[str] = field(default_factory=list)
    neighbour_depth: dict[str, int] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class DecoyResult:
    sets: Mapping[str, DecoySet]
    stats: GenerationStats
    config: DecoyConfig

    def released(self) -> dict[str, dict[str, list[str]]]:
        """The released decoy-file shape: {qa_id: {"IoU_decoys": [...], "QoU_decoys": [...]}}."""
        return {q: {"IoU_decoys": list(s.iou), "QoU_decoys": list(s.qou)} for q, s in self.sets.items()}


def validate_records(records: Sequence[QARecord], source: str, *, empty_targets: str = "error") -> list[str]:
    """DataError (count and examples) for duplicate qa_ids, empty targets or image ids.

    A target empty once normalized ("?", "...") is an error under `empty_targets="error"`;
    under "skip" the qa_ids of such records are returned (in qa_id order), to be left out."""
    if empty_targets not in EMPTY_TARGETS:
        raise UsageError(f"decoys: empty_targets={empty_targets!r} must be {' or '.join(EMPTY_TARGETS)}")
    problems: list[tuple[str, list[str]]] = []
    counts = Counter(r.qa_id for r in records)
    dup = [q for q, c in counts.items() if c > 1]
    if dup:
        problems.append(("duplicate qa_id", dup))
    empty_t = sorted((r.qa_id for r in records if not normalize_for_match(r.target)), key=str)
    if empty_t and empty_targets == "error":
        problems.append(("empty target", empty_t))
    empty_i = [r.qa_id for r in records if not str(r.image_id)]
    if empty_i:
        problems.append(("empty image_id", empty_i))
    if problems:
        what = "; ".join(f"{len(ids)} with {name} (e.g. {', '.join(map(str, ids[:3]))})" for name, ids in problems)
        hint = (" (an answer such as '?' or '...': pass empty_targets=skip, or --empty-targets skip to "
                "`harness decoys generate`, to leave such questions out and count them)") \
            if empty_t and empty_targets == "error" else ""
        raise DataError(f"{source}: cannot generate decoys: {what}{hint}")
    if empty_t and len(empty_t) == len(records):
        raise DataError(f"{source}: cannot generate decoys: every question ({len(records)}) has a target that "
                        f"is empty once normalized (e.g. {', '.join(map(str, empty_t[:3]))})")
    return empty_t


def default_wup() -> Callable[[str, str], float]:
    """The memoized WordNet scorer (needs `harness resources install`)."""
    return WupScorer(wordnet()).answers


def _rng(seed: int, *parts: Any) -> random.Random:
    return seeded_random("decoys", seed, *parts)


class _Picker:
    """Applies the filters and keeps the rejection counts."""

    def __init__(self, wup: Callable[[str, str], float], threshold: float, stats: GenerationStats) -> None:
        self.wup, self.threshold, self.stats = wup, threshold, stats

    def ok(self, cand: str, target: str, accepted: Sequence[str]) -> bool:
        if not cand or overlaps(cand, target):
            self.stats.rejected_overlap += 1
            return False
        if self.wup(cand, target) >= self.threshold:
            self.stats.rejected_wup += 1
            return False
        for d in accepted:
            if overlaps(cand, d) or self.wup(cand, d) >= self.threshold:
                self.stats.rejected_mutual += 1
                return False
        return True


def generate_decoys(records: Sequence[QARecord], config: DecoyConfig = DecoyConfig(), *,
                    wup: Callable[[str, str], float] | None = None, source: str = "records",
                    only: Collection[str] | None = None, empty_targets: str = "error") -> DecoyResult:
    """QoU and IoU decoys for every record (see the module docstring); deterministic for
    `config.seed`. `wup` scores two normalized answers (default: WordNet, memoized).

    `only` (qa_ids): generate for these records alone (`--limit`), the others still being
    the candidates; each such record gets exactly the decoys a run over all records gives
    it (a record's walk depends on the pool, never on which other records are generated).

    `empty_targets="skip"`: a record whose target is empty once normalized is left out (not
    generated for, not a candidate: the others get the decoys of a file without it) and
    counted in the statistics; "error" (default): a DataError."""
    if config.fill not in ("auto", "orig", "frequent", "none"):
        raise UsageError(f"decoys: fill={config.fill!r} must be auto, orig, frequent or none")
    skipped = validate_records(records, source, empty_targets=empty_targets)
    if skipped:
        left_out = set(skipped)
        records = [r for r in records if r.qa_id not in left_out]
    # Walked in qa_id order, so ties (identical questions with different targets, equal
    # cosines, equally frequent targets, two spellings of one answer) never go by file order.
    given = [r.qa_id for r in records]
    records = sorted(records, key=lambda r: str(r.qa_id))  # str: a Python caller may pass ints
    wup = wup or default_wup()
    keep = None if only is None else set(only)
    wanted = [keep is None or r.qa_id in keep for r in records]
    stats = GenerationStats(questions=sum(wanted), skipped_empty_targets=len(skipped),
                            skipped_empty_targets_shown=[str(q) for q in skipped[:SHOWN]])
    picker = _Picker(wup, config.wup_threshold, stats)
    targets = [normalize_for_match(r.target) for r in records]
    released = {}  # match form -> release form (first seen), the string written out
    for r, t in zip(records, targets):
        released.setdefault(t, normalize_release(r.target))
    iou: list[list[tuple[str, str]]] = [[] for _ in records]
    qou: list[list[tuple[str, str]]] = [[] for _ in records]

    def accepted(i: int) -> list[str]:
        return [d for d, _ in iou[i]] + [d for d, _ in qou[i]]

    # -- IoU: other questions on the same image, seeded order.
    t0 = time.perf_counter()
    by_image: dict[str, list[int]] = defaultdict(list)
    for i, r in enumerate(records):
        by_image[str(r.image_id)].append(i)
    stats.images = len(by_image)
    for i, r in enumerate(records):
        if not wanted[i]:
            continue
        # Sorted by qa_id first, so the seeded order does not depend on the input order.
        others = sorted((j for j in by_image[str(r.image_id)] if j != i), key=lambda j: records[j].qa_id)
        _rng(config.seed, "iou", r.qa_id).shuffle(others)
        for j in others:
            if len(iou[i]) >= config.n_iou:
                break
            if picker.ok(targets[j], targets[i], accepted(i)):
                iou[i].append((targets[j], records[j].qa_id))
    stats.iou_from_image = sum(len(x) for x in iou)
    stats.seconds["iou"] = round(time.perf_counter() - t0, 3)

    # -- QoU: targets of the most similar other questions, best first.
    t0 = time.perf_counter()
    _qou_walk(records, targets, config, picker, qou, accepted, stats, wanted)
    stats.qou_from_questions = sum(len(x) for x in qou)
    stats.seconds["qou"] = round(time.perf_counter() - t0, 3)

    # -- Fill-ins.
    t0 = time.perf_counter()
    frequent = [t for t, _ in Counter(targets).most_common(FREQUENT_TARGETS)]
    for i, r in enumerate(records):
        if not wanted[i]:
            continue
        for sets, want, kind in ((iou, config.n_iou, "iou"), (qou, config.n_qou, "qou")):
            if len(sets[i]) >= want:
                continue
            pool, label = _fill_pool(r, frequent, config.fill)
            pool = list(pool)
            _rng(config.seed, "fill", kind, r.qa_id).shuffle(pool)
            for cand in pool:
                if len(sets[i]) >= want:
                    break
                if picker.ok(cand, targets[i], accepted(i)):
                    released.setdefault(cand, cand)
                    sets[i].append((cand, label))
                    if label == "orig":
                        stats.fill_orig += 1
                    else:
                        stats.fill_frequent += 1
            missing = want - len(sets[i])
            if kind == "iou":
                stats.short_iou += missing
            else:
                stats.short_qou += missing
    stats.seconds["fill"] = round(time.perf_counter() - t0, 3)

    by_id = {
        r.qa_id: DecoySet(
            r.qa_id,
            tuple(released[d] for d, _ in iou[i]),
            tuple(released[d] for d, _ in qou[i]),
            tuple(s for _, s in iou[i]),
            tuple(s for _, s in qou[i]),
        )
        for i, r in enumerate(records) if wanted[i]
    }
    return DecoyResult({q: by_id[q] for q in given if q in by_id}, stats, config)


def _fill_pool(r: QARecord, frequent: list[str], fill: str) -> tuple[Iterable[str], str]:
    orig = [normalize_for_match(d) for d in r.orig_decoys]
    if fill == "none":
        return [], "none"
    if fill == "orig" or (fill == "auto" and orig):
        return orig, "orig"
    return frequent, "frequent"


def _qou_walk(records, targets, config: DecoyConfig, picker: _Picker, qou, accepted, stats, wanted) -> None:
    if config.n_qou <= 0:
        return
    # Identical questions (after tokenization) share one embedding row.
    keys = [" ".join(question_tokens(r.question)) for r in records]
    group_of: dict[str, int] = {}
    members: list[list[int]] = []
    for i, key in enumerate(keys):
        g = group_of.setdefault(key, len(group_of))
        if g == len(members):
            members.append([])
        members[g].append(i)
    stats.unique_questions = len(members)
    # Per group: its distinct targets in record order, with the first record giving each.
    group_targets: list[list[tuple[str, int]]] = []
    for m in members:
        seen: dict[str, int] = {}
        for j in m:
            seen.setdefault(targets[j], j)
        group_targets.append(list(seen.items()))
    texts = [records[m[0]].question for m in members]
    emb = question_embeddings(texts, embedding=config.embedding, dim=config.dim, seed=config.seed)
    limit = min(config.top_n, len(members))
    pending = [g for g, m in enumerate(members) if any(wanted[i] for i in m)]  # groups with a member still short
    done_depth = 0
    for k in (*[k for k in K_SCHEDULE if k < limit], limit):
        if not pending:
            break
        neigh = ranked_neighbours(emb, k, rows=pending, block=config.block_size, device=config.device)
        still = []
        for row, g in enumerate(pending):
            short = False
            for i in members[g]:
                if not wanted[i] or len(qou[i]) >= config.n_qou:
                    continue
                # Resume the walk where the previous (shallower) pass stopped.
                for h in neigh[row, done_depth:]:
                    for cand, j in group_targets[h]:
                        if j == i:
                            continue
                        if picker.ok(cand, targets[i], accepted(i)):
                            qou[i].append((cand, records[j].qa_id))
                            if len(qou[i]) >= config.n_qou:
                                break
                    if len(qou[i]) >= config.n_qou:
                        break
                short = short or len(qou[i]) < config.n_qou
            if short:
                still.append(g)
        stats.neighbour_depth[str(k)] = len(pending)
        pending, done_depth = still, k
