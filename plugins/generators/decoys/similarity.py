"""Question embeddings and exact cosine top-N neighbours, in blocks with torch.

Embeddings (`embedding=`):
- "tfidf" (default): TF-IDF over lower-cased word unigrams (integers 0-10 spelled out, as
  the paper does before word2vec), l2-normalized. When the vocabulary is larger than
  `dim`, the TF-IDF matrix is reduced to `dim` components by a truncated SVD (LSA,
  `torch.svd_lowrank`, seeded) and re-normalized, so the all-pairs product stays cheap.
- "sentence": mean-pooled all-MiniLM-L6-v2 (the local model of `harness resources`),
  a local sentence-embedding model; ResourceError when it is not installed.

Neighbours: scores = E_block @ E.T for blocks of rows (on GPU when asked and present),
top-k per row, then sorted by (score rounded to 1e-6, descending; index, ascending) so
that the order of near-ties does not depend on the BLAS kernel.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Sequence

import numpy as np

from harness.errors import ResourceError, UsageError
from vqa_harness_plugins.nlp import bertscore_model

__all__ = ["EMBEDDINGS", "question_embeddings", "ranked_neighbours", "question_tokens"]

EMBEDDINGS = ("tfidf", "sentence")
_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def question_tokens(text: str) -> list[str]:
    """Lower-cased word tokens with integers 0-10 written as words (supplementary A.1)."""
    out = []
    for tok in _TOKEN.findall(text.lower()):
        if tok.isdigit() and int(tok) <= 10:
            tok = _NUMBER_WORDS[int(tok)]
        out.append(tok)
    return out


def question_embeddings(texts: Sequence[str], *, embedding: str = "tfidf", dim: int = 128,
                        seed: int = 0) -> np.ndarray:
    """One l2-normalized float32 row per text."""
    if embedding == "tfidf":
        return _tfidf(texts, dim, seed)
    if embedding == "sentence":
        return _sentence(texts)
    raise UsageError(f"decoys: embedding {embedding!r} must be one of {', '.join(EMBEDDINGS)}")


def _tfidf(texts: Sequence[str], dim: int, seed: int) -> np.ndarray:
    """TF-IDF rows (smooth idf, l2-normalized), reduced by a seeded truncated SVD when the
    vocabulary exceeds `dim`.

    Hand-written on purpose rather than scikit-learn's TfidfVectorizer and TruncatedSVD
    (scikit-learn is not a dependency): it tokenizes with `question_tokens` (the paper's
    spelled-out numbers), and the sparse matrix and its SVD are torch's, seeded without
    touching the global generator, so the decoys do not depend on a scikit-learn version.
    It is not shared with the explainers' `TfidfIndex` (vqa_harness_plugins), which uses the
    models' tokenizer and n-grams in float64: merging them would change both outputs.
    """
    import torch  # heavy: torch takes seconds to import; only code that computes needs it

    docs = [question_tokens(t) for t in texts]
    df: Counter[str] = Counter()
    for d in docs:
        df.update(set(d))
    vocab = {w: i for i, w in enumerate(sorted(df))}
    n = len(docs)
    idf = np.array([math.log((1 + n) / (1 + df[w])) + 1.0 for w in sorted(df)], dtype=np.float32)
    rows, cols, vals = [], [], []
    for r, d in enumerate(docs):
        for w, c in Counter(d).items():
            rows.append(r)
            cols.append(vocab[w])
            vals.append(c * idf[vocab[w]])
    vals_np = np.asarray(vals, dtype=np.float32)
    rows_np = np.asarray(rows, dtype=np.int64)
    norms = np.zeros(n, dtype=np.float32)
    np.add.at(norms, rows_np, vals_np**2)
    vals_np = vals_np / np.sqrt(np.maximum(norms[rows_np], 1e-12))
    v = max(len(vocab), 1)
    if v <= dim:
        dense = np.zeros((n, v), dtype=np.float32)
        dense[rows_np, np.asarray(cols, dtype=np.int64)] = vals_np
        return dense
    sparse = torch.sparse_coo_tensor(
        torch.from_numpy(np.stack([rows_np, np.asarray(cols, dtype=np.int64)])), torch.from_numpy(vals_np), (n, v),
        check_invariants=False,
    ).coalesce()
    gen_state = torch.random.get_rng_state()
    torch.random.default_generator.manual_seed(seed)  # svd_lowrank draws a random test matrix (the CPU's: all restored)
    try:
        u, s, _ = torch.svd_lowrank(sparse, q=dim, niter=4)
    finally:
        torch.random.set_rng_state(gen_state)
    emb = (u * s).numpy().astype(np.float32)
    emb /= np.maximum(np.linalg.norm(emb, axis=1, keepdims=True), 1e-12)
    return emb


def _sentence(texts: Sequence[str]) -> np.ndarray:
    import torch  # heavy: torch takes seconds to import; only code that computes needs it

    try:
        path, _ = bertscore_model()
    except ResourceError as exc:
        raise ResourceError(f"decoys: embedding=sentence needs the local sentence model: {exc}") from None
    from transformers import (  # heavy: imported on use
        AutoModel,
        AutoTokenizer,
    )  # heavy: transformers takes seconds; only the Hugging Face models need it

    tok = AutoTokenizer.from_pretrained(str(path))
    model = AutoModel.from_pretrained(str(path)).eval()
    out = []
    with torch.inference_mode():
        for i in range(0, len(texts), 256):
            enc = tok(list(texts[i : i + 256]), padding=True, truncation=True, return_tensors="pt")
            hidden = model(**enc).last_hidden_state
            mask = enc["attention_mask"].unsqueeze(-1).float()
            out.append(((hidden * mask).sum(1) / mask.sum(1).clamp(min=1)).numpy())
    emb = np.concatenate(out).astype(np.float32) if out else np.zeros((0, 384), np.float32)
    emb /= np.maximum(np.linalg.norm(emb, axis=1, keepdims=True), 1e-12)
    return emb


def ranked_neighbours(emb: np.ndarray, k: int, *, rows: Sequence[int] | None = None, block: int = 1024,
                      device: str = "cpu") -> np.ndarray:
    """For each row in `rows` (default all), the indices of its `k` most cosine-similar rows
    of `emb` (itself included), best first; ties by index."""
    import torch  # heavy: torch takes seconds to import; only code that computes needs it

    n = emb.shape[0]
    k = min(k, n)
    rows_arr = np.arange(n) if rows is None else np.asarray(rows, dtype=np.int64)
    out = np.zeros((len(rows_arr), k), dtype=np.int64)
    if k == 0 or len(rows_arr) == 0:
        return out
    all_t = torch.from_numpy(np.ascontiguousarray(emb)).to(device)
    for b in range(0, len(rows_arr), block):
        idx = torch.from_numpy(rows_arr[b : b + block]).to(device)
        scores = all_t[idx] @ all_t.T
        # A little slack so that near-ties at the cut-off are resolved by index below.
        kk = min(n, k + 8)
        top_s, top_i = torch.topk(scores, kk, dim=1)
        top_s = torch.round(top_s.double() * 1e6)
        # Sort by (-score, index): lexicographic via a stable two-pass sort.
        order = torch.argsort(top_i, dim=1, stable=True)
        top_s, top_i = torch.gather(top_s, 1, order), torch.gather(top_i, 1, order)
        order = torch.argsort(-top_s, dim=1, stable=True)
        top_i = torch.gather(top_i, 1, order)[:, :k]
        out[b : b + len(idx)] = top_i.cpu().numpy()
    return out
