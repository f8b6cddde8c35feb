"""Automatic explanation metrics (docs/e-vil.md): the e-ViL metric bundle.

BLEU-1..4, METEOR, ROUGE-L, CIDEr and SPICE come from `pycocoevalcap`, BERTScore from
`bert_score`. Every metric is computed in ONE batch call over all (candidate, references)
pairs, so METEOR starts one Java process and the PTB tokenizer runs as one Java call for
candidates and references together. Scores are the libraries' own: the corpus value of a
pycocoevalcap scorer (`compute_score(gts, res)[0]`) and the mean BERTScore F1 (the maximum
over the references of each candidate), plus the per-example values for correlations.

Tokenization (`tokenize=`) is an option: "ptb" (pycocoevalcap's Stanford PTBTokenizer with
its punctuation removal, the COCO-caption standard, needs Java), "simple" (lower-case, a
regex tokenizer and the same punctuation removal, no Java) or "none" (texts as given).
BERTScore always sees the raw, untokenized text.

SPICE needs Stanford CoreNLP models that pycocoevalcap downloads on first use; here it is
computed only when they are already present, else it is reported unavailable (never 0).
The paper's combined score (`.evil_score`) is then computed without it.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

from harness.digest import digest_bytes
from harness.errors import DataError, ResourceError
from harness.stats import ordered_sum

from ..nlp import bert_score_name, bertscore_model
from ..nlp.bertscore import check_model_folder
from .java_tools import JAVA_HINT, java, java_env, meteor_scores, pycoco_dir

__all__ = [
    "METRICS",
    "TOKENIZERS",
    "METRIC_LABELS",
    "JAVA_HINT",
    "NLGResult",
    "nlg_scores",
    "ptb_tokenize",
    "simple_tokenize",
    "spice_status",
]

#: Metric identifiers, in the paper's order (Table 6).
METRICS: tuple[str, ...] = (
    "bleu1", "bleu2", "bleu3", "bleu4", "meteor", "rouge_l", "cider", "spice", "bertscore_f1",
)
TOKENIZERS: tuple[str, ...] = ("ptb", "simple", "none")
METRIC_LABELS: dict[str, str] = {
    "bleu1": "BLEU-1", "bleu2": "BLEU-2", "bleu3": "BLEU-3", "bleu4": "BLEU-4",
    "meteor": "METEOR", "rouge_l": "ROUGE-L", "cider": "CIDEr", "spice": "SPICE",
    "bertscore_f1": "BERTScore", "e_vil_score": "e-ViL score",
    "e_vil_score_no_spice": "e-ViL score (no SPICE)",
}

# pycocoevalcap's PTBTokenizer drops these tokens after tokenizing.
_PUNCTUATIONS = frozenset(["''", "'", "``", "`", "-LRB-", "-RRB-", "-LCB-", "-RCB-",
                           ".", "?", "!", ",", ":", "-", "--", "...", ";"])
# Characters Java's line reader treats as line ends; they would shift the line alignment.
_LINE_BREAKS = re.compile(r"[\r\n\u0085\u2028\u2029\x0b\x0c]")
# Words of any script (a "café" is one token), a clitic ('s), or one other character.
_SIMPLE_TOKEN = re.compile(r"'[^\W\d_]+|[^\W_]+|\S")
# PTB turns a straight double quote into `` or '' and then drops it: so does "simple".
_SIMPLE_DROPPED = _PUNCTUATIONS | {'"'}
# PTB also rewrites these to ASCII (curly quotes and guillemets to `` / '' / ` / ', dashes to
# "--", the ellipsis to "...") and so drops them; a curly apostrophe stays an apostrophe.
_SIMPLE_ASCII = str.maketrans({"\u201c": '"', "\u201d": '"', "\u00ab": '"', "\u00bb": '"', "\u2018": "`",
                               "\u2019": "'", "\u201b": "`", "\u2039": "`", "\u203a": "'", "\u2013": "-",
                               "\u2014": "-", "\u2026": "..."})


@dataclass(frozen=True)
class NLGResult:
    """Corpus-level scores, per-example scores, and metrics that could not be computed."""

    n: int
    corpus: Mapping[str, float]
    per_example: Mapping[str, tuple[float, ...]]
    unavailable: Mapping[str, str] = field(default_factory=dict)
    #: What was used (tokenizer, BERTScore model and layers) for the run manifest.
    resources: Mapping[str, str] = field(default_factory=dict)
    #: Seconds per metric (and "tokenize").
    timings: Mapping[str, float] = field(default_factory=dict)


# ------------------------------------------------------------------------ tokenization


def ptb_tokenize(texts: Sequence[str]) -> list[str]:
    """pycocoevalcap's PTB tokenization of every text, in ONE Java call: the same jar, flags,
    working folder and punctuation removal as `pycocoevalcap.tokenizer.PTBTokenizer`, but the
    texts go through stdin (no temporary file inside site-packages). The jar is named relative
    to its folder, as there: an absolute class path broke at a ":" in the venv's path."""
    if not texts:
        return []
    folder = pycoco_dir("tokenizer")
    cmd = [java(), "-Dfile.encoding=UTF-8", "-cp", "stanford-corenlp-3.4.1.jar",
           "edu.stanford.nlp.process.PTBTokenizer", "-preserveLines", "-lowerCase"]
    blob = "\n".join(_LINE_BREAKS.sub(" ", t) for t in texts)
    try:
        proc = subprocess.run(cmd, input=blob.encode("utf-8"), capture_output=True, check=False, cwd=folder,
                              env=java_env())
    except OSError as exc:
        raise ResourceError(f"PTB tokenizer: could not start java ({exc}); {JAVA_HINT}") from None
    lines = proc.stdout.decode("utf-8").split("\n")
    if proc.returncode != 0 or len(lines) < len(texts):
        err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise ResourceError(f"PTB tokenizer (java) failed with exit code {proc.returncode}: "
                            f"{err[-1] if err else 'no output'}; {JAVA_HINT}")
    return [" ".join(w for w in line.rstrip().split(" ") if w not in _PUNCTUATIONS)
            for line in lines[: len(texts)]]


def simple_tokenize(text: str) -> str:
    """Lower-case regex tokenization with the PTB punctuation removal (no Java)."""
    tokens = _SIMPLE_TOKEN.findall(_LINE_BREAKS.sub(" ", text).translate(_SIMPLE_ASCII).lower())
    return " ".join(t for t in tokens if t not in _SIMPLE_DROPPED)


def _tokenize(texts: list[str], how: str) -> list[str]:
    if how == "ptb":
        return ptb_tokenize(texts)
    if how == "simple":
        return [simple_tokenize(t) for t in texts]
    if how == "none":
        return [" ".join(_LINE_BREAKS.sub(" ", t).split()) for t in texts]
    raise DataError(f"nlg: unknown tokenize={how!r}; expected one of {', '.join(TOKENIZERS)}")


# ------------------------------------------------------------------------------ SPICE


def spice_status() -> tuple[bool, str]:
    """(available, reason): SPICE needs Java and the Stanford CoreNLP 3.6.0 jars in
    pycocoevalcap/spice/lib (pycocoevalcap would download them; this harness never does)."""
    lib = pycoco_dir("spice") / "lib"
    missing = [n for n in ("stanford-corenlp-3.6.0.jar", "stanford-corenlp-3.6.0-models.jar")
               if not (lib / n).is_file()]
    if missing:
        return False, (f"SPICE needs the Stanford CoreNLP models ({', '.join(missing)}) in {lib}; "
                       "they are downloaded by pycocoevalcap.spice.get_stanford_models() and are absent")
    if shutil.which("java") is None:
        return False, f"SPICE needs `java`; {JAVA_HINT}"
    return True, ""


# ----------------------------------------------------------------------------- scores


class _StableText(str):
    """A str whose hash is the same in every process. bert_score batches the distinct texts
    in the order of a `set` sorted by word count, so with Python's per-process string hashes
    the batches (and their padding) change from run to run, and so do the last bits of the
    scores (seen: 1e-9 in a mean F1). With content hashes every run, machine and thread
    count gives the same batches and the same bits (tests/metrics)."""

    __slots__ = ()

    def __hash__(self) -> int:
        return int(digest_bytes(self.encode("utf-8"), 16), 16)


def _bertscore(cands: list[str], refs: list[list[str]], model: str | None, layers: int | None,
               batch_size: int, device: str) -> tuple[list[float], dict[str, str]]:
    import bert_score  # heavy: bert_score imports torch and transformers
    from transformers.utils import logging as hf_logging  # heavy: imported on use

    if model is None:

        model, default_layers = bertscore_model()
        layers = layers or default_layers
    else:  # a folder given (bertscore_model=, "~" as the other checks read it): checked whether or not
        model = str(Path(model).expanduser())  # its layer count is given too
        found, problem = check_model_folder(Path(model))
        if problem:
            raise ResourceError(f"BERTScore model: {problem}")
        layers = layers or found
    # bert_score scores an empty candidate 0 ("setting raw BERTscores to 0"), but with recent
    # transformers its tokenizer call crashes on "", so empty texts never reach it.
    keep = [i for i, c in enumerate(cands) if c.strip() and any(r.strip() for r in refs[i])]
    f1 = [0.0] * len(cands)
    if keep:
        # transformers draws a "Loading weights" bar for every model load, even off a
        # terminal: noise in run logs for a local six-layer model. Off for this call only.
        bars = hf_logging.is_progress_bar_enabled()
        hf_logging.disable_progress_bar()
        try:
            _, _, scores = bert_score.score([_StableText(cands[i]) for i in keep],
                                            [[_StableText(r) for r in refs[i] if r.strip()] for i in keep],
                                            model_type=bert_score_name(model), num_layers=int(layers),
                                            batch_size=batch_size, device=device, verbose=False)
        finally:
            if bars:
                hf_logging.enable_progress_bar()
        for i, v in zip(keep, scores.tolist()):
            f1[i] = float(v)
    return f1, {"bertscore_model": str(model), "bertscore_layers": str(layers)}


def nlg_scores(
    predictions: Sequence[str],
    references: Sequence[Sequence[str]],
    *,
    metrics: Sequence[str] = METRICS,
    tokenize: str = "ptb",
    bertscore_model: str | None = None,
    bertscore_layers: int | None = None,
    batch_size: int = 64,
    device: str = "cpu",
) -> NLGResult:
    """Score each prediction against its references with every metric in `metrics`.

    One batch call per metric; `tokenize` applies to the pycocoevalcap metrics. A metric
    that cannot be computed (SPICE or BERTScore without its model) is in `unavailable` with
    a reason.
    Raises ResourceError when Java is missing for METEOR or PTB tokenization.
    """
    unknown = [m for m in metrics if m not in METRICS]
    if unknown:
        raise DataError(f"nlg: unknown metric(s) {', '.join(unknown)}; known: {', '.join(METRICS)}")
    if len(predictions) != len(references):
        raise DataError(f"nlg: {len(predictions)} predictions but {len(references)} reference lists")
    for i, refs in enumerate(references):
        if isinstance(refs, str) or len(refs) == 0:
            raise DataError(f"nlg: example {i} needs a non-empty list of references")
    preds = [p if isinstance(p, str) else "" for p in predictions]
    refs = [[str(r) for r in rs] for rs in references]
    n = len(preds)
    corpus: dict[str, float] = {}
    per: dict[str, tuple[float, ...]] = {}
    unavailable: dict[str, str] = {}
    timings: dict[str, float] = {}
    resources: dict[str, str] = {"nlg_tokenize": tokenize}
    if n == 0:
        return NLGResult(0, {}, {}, {m: "no examples to score" for m in metrics}, resources, {})

    coco = [m for m in metrics if m != "bertscore_f1"]
    if "cider" in coco and n < 2:
        # CIDEr-D weighs n-grams by their document frequency over the scored examples'
        # references: with one example every weight is log(1/1) = 0 and the score 0 whatever
        # the text (the official code's value, but not a measurement).
        unavailable["cider"] = ("one scored example: CIDEr-D's n-gram weights come from document frequencies "
                                "over the scored examples, and with one example every weight is 0")
        coco.remove("cider")
    if "spice" in coco:
        ok, reason = spice_status()
        if not ok:
            unavailable["spice"] = reason
            coco.remove("spice")
    if coco:
        t0 = time.perf_counter()
        flat = _tokenize(preds + [r for rs in refs for r in rs], tokenize)
        timings["tokenize"] = time.perf_counter() - t0
        res = {i: [flat[i]] for i in range(n)}
        gts, pos = {}, n
        for i, rs in enumerate(refs):
            gts[i] = flat[pos : pos + len(rs)]
            pos += len(rs)
        _coco_scores(coco, gts, res, corpus, per, timings)
    if "bertscore_f1" in metrics:
        t0 = time.perf_counter()
        try:
            f1, used = _bertscore(preds, refs, bertscore_model, bertscore_layers, batch_size, device)
        except ResourceError as exc:  # no usable model: like SPICE, the other metrics stand
            unavailable["bertscore_f1"] = str(exc)
            return NLGResult(n, corpus, per, unavailable, resources, timings)
        timings["bertscore_f1"] = time.perf_counter() - t0
        corpus["bertscore_f1"] = float(ordered_sum(f1) / n)
        per["bertscore_f1"] = tuple(f1)
        resources.update(used)
    return NLGResult(n, corpus, per, unavailable, resources, timings)


def _coco_scores(wanted, gts, res, corpus, per, timings) -> None:
    if any(m.startswith("bleu") for m in wanted):
        from pycocoevalcap.bleu.bleu import Bleu  # heavy: pycocoevalcap, imported where it is used

        t0 = time.perf_counter()
        score, scores = Bleu(4).compute_score(gts, res, verbose=0)
        for k in range(4):
            if f"bleu{k + 1}" in wanted:
                corpus[f"bleu{k + 1}"] = float(score[k])
                per[f"bleu{k + 1}"] = tuple(float(s) for s in scores[k])
        timings["bleu"] = time.perf_counter() - t0
    if "meteor" in wanted:
        t0 = time.perf_counter()
        score, scores = meteor_scores(gts, res)
        corpus["meteor"], per["meteor"] = score, tuple(scores)
        timings["meteor"] = time.perf_counter() - t0
    if "rouge_l" in wanted:
        from pycocoevalcap.rouge.rouge import Rouge  # heavy: imported on use

        t0 = time.perf_counter()
        score, scores = Rouge().compute_score(gts, res)
        corpus["rouge_l"], per["rouge_l"] = float(score), tuple(float(s) for s in scores)
        timings["rouge_l"] = time.perf_counter() - t0
    if "cider" in wanted:
        from pycocoevalcap.cider.cider import Cider  # heavy: imported on use

        t0 = time.perf_counter()
        score, scores = Cider().compute_score(gts, res)
        corpus["cider"], per["cider"] = float(score), tuple(float(s) for s in scores)
        timings["cider"] = time.perf_counter() - t0
    if "spice" in wanted:
        from pycocoevalcap.spice.spice import Spice  # heavy: imported on use

        t0 = time.perf_counter()
        try:
            score, scores = Spice().compute_score(gts, res)
        except (OSError, subprocess.CalledProcessError) as exc:
            raise ResourceError(f"SPICE (java) failed: {exc}; {JAVA_HINT}") from None
        corpus["spice"] = float(score)
        per["spice"] = tuple(float(s["All"]["f"]) for s in scores)
        timings["spice"] = time.perf_counter() - t0
