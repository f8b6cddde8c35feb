"""Multiple-choice views shared by the decoy datasets: attach decoy sets, build candidates.

Every MC example carries, in `meta`: `mc_target` (the target text), `decoys`
({"orig", "iou", "qou"} lists), `mc_variant` and `mc_scoring` ("target": the picked
candidate is right when it is the target; "vqa": VQA accuracy of the picked candidate
against the 10 human answers). `choices` is the chosen variant's candidate list.
Generated decoy sets are cached on disk, keyed by the source data and the generator config.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any, Mapping, Sequence

from harness.api import Option
from harness.cache.locks import build_lock
from harness.digest import digest
from harness.errors import DataError
from harness.fileio import atomic_write_text
from harness.paths import cache_dir
from harness.types import Example
from vqa_harness_plugins.generators.decoys import (
    VARIANTS,
    DecoyConfig,
    QARecord,
    generate_decoys,
    normalize_for_match,
    variant_choices,
)
from vqa_harness_plugins.nlp import wordnet_identity

__all__ = ["MC_OPTIONS", "GENERATOR_OPTIONS", "attach_decoys", "generated_decoys", "generation_stats",
           "generation_summary", "check_orig_decoys", "records_of", "decoy_config", "with_generator"]

GENERATOR_OPTIONS: Mapping[str, Option] = {
    "decoy_seed": Option(0, "seed of the decoy generator (IoU order, fill-ins, candidate order)", min=0),
    "top_n": Option(10_000, "QoU: similar questions kept per triplet (the paper's N)", min=1, max=10_000_000),
    "embedding": Option("tfidf", "QoU question embedding", choices=("tfidf", "sentence")),
}
MC_OPTIONS: Mapping[str, Option] = {
    "decoys": Option("orig", "decoy set of `choices`", choices=VARIANTS),
    **GENERATOR_OPTIONS,
}
_CACHE_VERSION = "3"


def decoy_config(config: Mapping[str, Any]) -> DecoyConfig:
    """The generator config from a dataset's options."""
    return DecoyConfig(seed=int(config["decoy_seed"]), top_n=int(config["top_n"]), embedding=config["embedding"])


def records_of(examples: Sequence[Example]) -> list[QARecord]:
    """Triplets of MC-ready examples (target in meta["mc_target"], original decoys in meta)."""
    return [
        QARecord(ex.id, ex.image_id, ex.question, ex.meta["mc_target"], tuple(ex.meta.get("decoys", {}).get("orig", ())))
        for ex in examples
    ]


def check_orig_decoys(examples: Sequence[Example], source: str) -> None:
    """DataError (count and examples) when an original decoy equals its target."""
    bad = [ex.id for ex in examples
           if normalize_for_match(ex.meta["mc_target"]) in {normalize_for_match(d) for d in ex.meta["decoys"]["orig"]}]
    if bad:
        raise DataError(f"{source}: {len(bad)} question(s) list the target among their original decoys "
                        f"(e.g. qa_id {', '.join(bad[:5])}); fix the file, decoys are never patched silently")


def _generator_resources() -> dict[str, Any]:
    """What generated decoys depend on besides their data and config: the WordNet copy the WUP
    filter reads now, by content (NLTK data of the user's comes before the installed copy)."""
    return {"wordnet": wordnet_identity()}


def with_generator(fingerprint: str, generated: bool) -> str:
    """A dataset fingerprint extended by `_generator_resources()` when its decoys are generated
    (probe outputs and `ctx.memo` values then follow the WordNet copy); else unchanged."""
    return digest({"base": fingerprint, **_generator_resources()}) if generated else fingerprint


def _cache_path(config: DecoyConfig, key: Mapping[str, Any]) -> Path:
    entry = {"v": _CACHE_VERSION, "key": key, "config": asdict(config), **_generator_resources()}
    return cache_dir("decoys") / f"{digest(entry)}.json"


def _cached_sets(path: Path) -> dict[str, Any] | None:
    if path.is_file():
        try:
            return json.loads(path.read_text(encoding="utf-8"))["sets"]
        except (OSError, ValueError, KeyError):
            pass  # a damaged cache entry is regenerated
    return None


def generated_decoys(examples: Sequence[Example], config: DecoyConfig, *, key: Mapping[str, Any],
                     source: str, limit: int | None = None,
                     empty_targets: str = "error") -> dict[str, dict[str, list[str]]]:
    """{qa_id: {"iou": [...], "qou": [...]}} from the generator, cached on disk by `key`.

    `limit` (`--limit`): decoys for the first `limit` examples only, every example still a
    candidate, so each gets the decoys of a full generation (whose cache is used when there).
    `empty_targets` (the generator's policy) must be in `key` when it is not the default, so a
    strict load is never answered from a generation that left questions out."""
    full = _cached_sets(_cache_path(config, key))
    only = None
    if limit is not None and limit < len(examples):
        only = [ex.id for ex in examples[:limit]]
        if full is not None:
            return {q: full[q] for q in only if q in full}
        key = {**key, "only": digest(only)}
    path = _cache_path(config, key)
    cached = full if only is None else _cached_sets(path)
    if cached is not None:
        return cached
    with build_lock(path):  # concurrent runs (harness run --jobs) generate a split once
        cached = _cached_sets(path)
        if cached is not None:
            return cached
        result = generate_decoys(records_of(examples), config, source=source, only=only,
                                 empty_targets=empty_targets)
        sets = {q: {"iou": list(s.iou), "qou": list(s.qou), "iou_sources": list(s.iou_sources),
                    "qou_sources": list(s.qou_sources)} for q, s in result.sets.items()}
        atomic_write_text(path, json.dumps({"sets": sets, "stats": result.stats.to_json()}, sort_keys=True))
    return sets


def generation_stats(config: DecoyConfig, key: Mapping[str, Any]) -> dict[str, Any] | None:
    """The statistics saved with a cached generation (None when it is not cached)."""
    path = _cache_path(config, key)
    try:
        return json.loads(path.read_text(encoding="utf-8"))["stats"]
    except (OSError, ValueError, KeyError):
        return None


def generation_summary(config: DecoyConfig, key: Mapping[str, Any]) -> dict[str, Any]:
    """{"generation": statistics of the cached generation} for a loader's `summary()` (what
    decoy-audit reports), {} before the first generation."""
    stats = generation_stats(config, key)
    return {"generation": stats} if stats else {}


def attach_decoys(examples: Sequence[Example], sets: Mapping[str, Mapping[str, Sequence[str]]], *,
                  variant: str, seed: int, scoring: str, source: str,
                  allow_partial: bool = False, orig_hint: str | None = None) -> list[Example]:
    """Examples with `choices` = the variant's candidates and the decoy sets in meta.

    A question whose candidate list would hold only the target is a DataError (count and
    examples) for released decoy files; with `allow_partial` (decoys we generate, where a
    target may have no valid decoy) it is kept as is and the decoy probes leave it out and
    report the count. Even then, an empty decoy set for every question is a DataError.
    `orig_hint` says where the original decoys come from (default: the dataset has none)."""
    out, empty = [], []
    for ex in examples:
        target = ex.meta["mc_target"]
        generated = sets.get(ex.id, {})
        decoys = {"orig": list(ex.meta["decoys"]["orig"]), "iou": list(generated.get("iou", ())),
                  "qou": list(generated.get("qou", ()))}
        choices = variant_choices(target, decoys, variant, key=ex.id, seed=seed)
        if len(choices) < 2:
            empty.append(ex.id)
        meta = {**ex.meta, "decoys": decoys, "mc_variant": variant, "mc_scoring": scoring}
        if "iou_sources" in generated:
            meta["decoy_sources"] = {"iou": list(generated["iou_sources"]), "qou": list(generated["qou_sources"])}
        out.append(ex.with_(choices=choices, meta=meta))
    if empty and (not allow_partial or len(empty) == len(out)):
        hint = "" if variant != "orig" else \
            f" ({orig_hint or 'this dataset has no original decoys: use decoys=iou, qou, iou+qou or all'})"
        raise DataError(f"{source}: {len(empty)} question(s) have no decoys for decoys={variant} "
                        f"(e.g. {', '.join(empty[:5])}){hint}")
    return out
