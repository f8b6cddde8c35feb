"""Built-in explainers for the e-ViL suite (docs/e-vil.md), trainable in seconds.

- `retrieval-explainer`: answers by a similarity-weighted vote of the k most similar
  training questions (TF-IDF over word unigrams and bigrams, cosine similarity); explains
  with the reference explanation of the most similar training example whose answer equals
  the answer to justify (the most similar example of any answer when none has it).
- `template-explainer`: the same answers, explanations from fixed templates
  ("the image does not show that <hypothesis>").
- `hypothesis-only`: a text-only label baseline (multinomial naive Bayes over the
  hypothesis / question n-grams; no image), with retrieval explanations.

All three read only the text of the question (hypothesis), never the image: they are
baselines that show how far language priors go. Answers are canonical training answers
(the label, else the most common normalized human answer). See docs/e-vil.md.
"""

from __future__ import annotations

import math
import re
import warnings
from collections import Counter
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Iterator, Mapping, Sequence

from harness.api import Model, Option
from harness.digest import class_source_digest, digest
from harness.errors import DataError, UsageError
from harness.types import Answer, Example

from .text import canonical_answer, ngrams, normalizer, tokenize, train_digest

if TYPE_CHECKING:  # pragma: no cover
    import torch

__all__ = ["TfidfIndex", "RetrievalExplainer", "TemplateExplainer", "HypothesisOnly"]

#: Bump when a change could alter any explainer's output.
EXPLAINER_VERSION = 1



def _closed_set(ex: Example) -> bool:
    """A pick among `choices`. Through the harness a model never sees the human answers and an
    open-ended question comes without its multiple-choice view unless a probe shows it
    (harness.inputs.model_view), so this is "choices were given". Called directly with a
    dataset's examples, an open-ended question (it has human answers) never picks among the
    dataset's MC view (toyvqa, VQA v1)."""
    return bool(ex.choices) and not ex.answers

class TfidfIndex:
    """L2-normalized TF-IDF vectors of n-grams (smooth idf), as a torch sparse matrix.

    Hand-written on purpose rather than scikit-learn's TfidfVectorizer (not a dependency):
    it tokenizes with the models' own `tokenize`/`ngrams` (so retrieval sees exactly what
    the answer models see), and the matrix is a torch sparse tensor whose similarity
    search runs in chunks on the run's device (GPU when there is one).
    """

    def __init__(self, texts: Sequence[str], n_max: int = 2, min_count: int = 1) -> None:
        docs = [Counter(ngrams(tokenize(t), n_max)) for t in texts]
        df = Counter(g for d in docs for g in d)
        vocab = sorted(g for g, c in df.items() if c >= min_count)
        self.n_max = n_max
        self.index = {g: i for i, g in enumerate(vocab)}
        n = len(texts)
        self.idf = [math.log((1 + n) / (1 + df[g])) + 1.0 for g in vocab]
        self.matrix = self._encode(docs)  # (n, V) sparse CSR

    def _encode(self, docs: Sequence[Counter]) -> "torch.Tensor":
        import torch  # heavy: torch takes seconds to import; only code that computes needs it

        crow, col, val = [0], [], []
        for d in docs:
            items = sorted((self.index[g], c * self.idf[self.index[g]]) for g, c in d.items() if g in self.index)
            norm = math.sqrt(sum(v * v for _, v in items)) or 1.0
            col += [i for i, _ in items]
            val += [v / norm for _, v in items]
            crow.append(len(col))
        with warnings.catch_warnings():  # "sparse CSR support is in beta": noise for users
            warnings.simplefilter("ignore", UserWarning)
            return torch.sparse_csr_tensor(
                torch.tensor(crow, dtype=torch.int64), torch.tensor(col, dtype=torch.int64),
                torch.tensor(val, dtype=torch.float64), size=(len(docs), max(1, len(self.index))),
                check_invariants=False)

    def vectors(self, texts: Sequence[str]) -> "torch.Tensor":
        """Sparse (len(texts), V) rows for new texts (unknown n-grams ignored)."""
        return self._encode([Counter(ngrams(tokenize(t), self.n_max)) for t in texts])

    def similarities(self, texts: Sequence[str]) -> "Iterator[tuple[int, torch.Tensor]]":
        """Yield (offset, dense sims of shape (chunk, n_train)) for consecutive chunks of `texts`."""
        n_train = self.matrix.shape[0]
        chunk = max(1, min(256, 20_000_000 // max(1, n_train)))
        for start in range(0, len(texts), chunk):
            q = self.vectors(texts[start : start + chunk]).to_dense()
            yield start, (self.matrix @ q.T).T  # float64: ties and sums do not depend on chunking


class _TextNeighbours(Model):
    """Shared by the explainers: the TF-IDF index of training questions and their answers."""

    options: ClassVar[Mapping[str, Option]] = {
        "k": Option(10, "neighbours that vote for the answer", min=1, max=10_000),
        "ngram": Option(2, "longest word n-gram of the TF-IDF features", min=1, max=10),
        "threads": Option(1, "torch CPU threads while the harness calls the model (0: torch default); one is "
                             "fastest for these sparse lookups (docs/benchmarks.md)", min=0, max=1024,
                          fingerprint=False),
    }

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._index: TfidfIndex | None = None
        self._trained: str | None = None
        self._norm: Callable[[str], str] = str

    def fit(self, train: Sequence[Example], *, seed: int) -> None:
        """Index the training questions (deterministic: `seed` is unused)."""
        if not train:
            raise DataError(f"model {self.name!r}: the train split is empty")
        norm_name, self._norm = normalizer()
        self._answers = [canonical_answer(ex, self._norm) for ex in train]
        if not any(self._answers):
            raise DataError(f"model {self.name!r}: the train split has no labels or answers")
        self._explanations = [ex.explanations[0] if ex.explanations else "" for ex in train]
        self._index = TfidfIndex([ex.question for ex in train], n_max=int(self.config["ngram"]))
        self._by_answer: dict[str, list[int]] = {}
        for i, a in enumerate(self._answers):
            if a and self._explanations[i]:
                self._by_answer.setdefault(a, []).append(i)
        self._trained = digest({"train": train_digest(train, extra=lambda ex: list(ex.explanations)),
                                "normalizer": norm_name, "version": EXPLAINER_VERSION})

    def fingerprint_extra(self) -> Any:
        return {"trained": self._trained}

    def fit_key(self, train_fingerprint: str, seed: int) -> Any:
        """Indexing is deterministic: the training data, the normalizer and the code fix it."""
        return {"train": train_fingerprint, "normalizer": normalizer()[0], "version": EXPLAINER_VERSION,
                "code": class_source_digest(type(self))}

    def input_key(self, example: Example, capability: str, extra: str = "") -> str:
        # `answer` picks among the choices of closed-set tasks (VCR, e-SNLI-VE labels).
        choices = list(example.choices) if _closed_set(example) else []
        return super().input_key(example, capability, f"{extra}\x00choices={choices}")

    def _need_index(self) -> TfidfIndex:
        if self._index is None:
            raise UsageError(f"model {self.name!r} is trainable and has not been trained: it needs a train "
                             "split (a suite task with `train`, or call fit(train, seed=...) first)")
        return self._index

    # ---- answers: similarity-weighted vote of the k nearest training questions
    def answer(self, batch: Sequence[Example]) -> list[Answer]:
        """The answer with the largest summed similarity among the k nearest questions."""
        import torch  # heavy: torch takes seconds to import; only code that computes needs it

        index, k = self._need_index(), max(1, int(self.config["k"]))
        out: list[Answer] = []
        for _, sims in index.similarities([ex.question for ex in batch]):
            top = torch.topk(sims, k=min(k, sims.shape[1]), dim=1, sorted=True)
            for vals, ids in zip(top.values.tolist(), top.indices.tolist()):
                votes: dict[str, float] = {}
                for v, i in zip(vals, ids):
                    if self._answers[i]:
                        votes[self._answers[i]] = votes.get(self._answers[i], 0.0) + v
                out.append(self._pick(batch[len(out)], votes, [self._answers[i] for i in ids]))
        return out

    def _pick(self, ex: Example, votes: dict[str, float], ranked: list[str]) -> Answer:
        if _closed_set(ex):
            # Multiple choice: the choice with the most vote mass, first choice on ties.
            mass = [votes.get(self._norm(c), 0.0) for c in ex.choices]
            best = max(range(len(mass)), key=lambda j: (mass[j], -j))
            return Answer(ex.choices[best], {c: m for c, m in zip(ex.choices, mass)})
        if not votes or max(votes.values()) <= 0:
            fallback = next((a for a in ranked if a), self._answers[0])
            return Answer(fallback)
        ranked_votes = sorted(votes.items(), key=lambda kv: (-kv[1], kv[0]))
        total = sum(votes.values())
        return Answer(ranked_votes[0][0], {a: v / total for a, v in ranked_votes[:10]})

    # ---- retrieval explanations
    def retrieve(self, batch: Sequence[Example], answers: Sequence[str]) -> list[str]:
        """Reference explanation of the most similar training example with the same answer."""
        index = self._need_index()
        out: list[str] = []
        for start, sims in index.similarities([ex.question for ex in batch]):
            for j in range(sims.shape[0]):
                row = sims[j]
                group = self._by_answer.get(self._norm(answers[start + j]))
                if group:
                    best = group[int(row[group].argmax())]
                else:  # nobody in training gave this answer: the most similar example overall
                    has = [i for i, e in enumerate(self._explanations) if e]
                    best = has[int(row[has].argmax())] if has else None
                out.append(self._explanations[best] if best is not None else "")
        return out


class RetrievalExplainer(_TextNeighbours):
    """k-NN answers, retrieved reference explanations."""

    name = "retrieval-explainer"
    description = "k-NN (TF-IDF) answers + the explanation of the most similar train example with that answer"

    def explain(self, batch: Sequence[Example], answers: Sequence[str]) -> list[str]:
        """The retrieved reference explanation for each (example, answer)."""
        return self.retrieve(batch, answers)


_AUX = re.compile(r"^(is|are|was|were|does|do|did|can|could|will|would|should|has|have|had)\s+", re.I)


def _statement(question: str) -> str:
    text = question.strip().rstrip("?.! ").strip()
    text = _AUX.sub("", text)
    return text[:1].lower() + text[1:]


class TemplateExplainer(_TextNeighbours):
    """k-NN answers, explanations from fixed templates (no retrieval)."""

    name = "template-explainer"
    description = "k-NN (TF-IDF) answers + template explanations ('the image does not show that ...')"

    def explain(self, batch: Sequence[Example], answers: Sequence[str]) -> list[str]:
        """A template sentence built from the question (hypothesis) and the answer."""
        out = []
        for ex, ans in zip(batch, answers):
            h = _statement(ex.question)
            a = ans.strip().lower()
            if a == "entailment":
                out.append(f"the image shows that {h}")
            elif a == "contradiction":
                out.append(f"the image does not show that {h}")
            elif a == "neutral":
                out.append(f"the image does not tell whether {h}")
            elif a == "yes":
                out.append(f"the image shows {h}")
            elif a == "no":
                out.append(f"the image does not show {h}")
            else:
                out.append(f"the answer is {a} because the image shows {a}")
        return out


class HypothesisOnly(_TextNeighbours):
    """Text-only label baseline: multinomial naive Bayes over n-grams; retrieval explanations."""

    name = "hypothesis-only"
    description = "hypothesis/question-only naive Bayes label classifier (no image) + retrieval explanations"
    options: ClassVar[Mapping[str, Option]] = {
        **_TextNeighbours.options,
        "alpha": Option(1.0, "Laplace smoothing of the n-gram counts", min=1e-9, max=1e6),
        "max_answers": Option(1000, "classes: the most frequent canonical train answers", min=1, max=1_000_000),
    }

    def fit(self, train: Sequence[Example], *, seed: int) -> None:
        """Count n-grams per class (exact; `seed` is unused) and index for retrieval."""
        import torch  # heavy: torch takes seconds to import; only code that computes needs it

        super().fit(train, seed=seed)
        counts = Counter(a for a in self._answers if a)
        self._classes = sorted(counts, key=lambda a: (-counts[a], a))[: int(self.config["max_answers"])]
        cls_index = {c: i for i, c in enumerate(self._classes)}
        n_max = int(self.config["ngram"])
        vocab: dict[str, int] = {}
        rows: list[tuple[int, Counter]] = []
        for ex, a in zip(train, self._answers):
            if a in cls_index:
                grams = Counter(ngrams(tokenize(ex.question), n_max))
                for g in grams:
                    vocab.setdefault(g, len(vocab))
                rows.append((cls_index[a], grams))
        per_class = [Counter() for _ in self._classes]
        prior = torch.zeros(len(self._classes), dtype=torch.float64)
        for c, grams in rows:
            prior[c] += 1
            per_class[c].update(grams)
        feats = torch.zeros(len(self._classes), max(1, len(vocab)), dtype=torch.float64)
        for c, grams in enumerate(per_class):
            if grams:
                cols = torch.tensor([vocab[g] for g in grams], dtype=torch.int64)
                feats[c, cols] = torch.tensor(list(grams.values()), dtype=torch.float64)
        alpha = float(self.config["alpha"])
        self._vocab = vocab
        self._loglik = torch.log(feats + alpha) - torch.log(feats.sum(1, keepdim=True) + alpha * feats.shape[1])
        self._logprior = torch.log(prior / prior.sum())

    def answer(self, batch: Sequence[Example]) -> list[Answer]:
        """argmax_c log P(c) + sum_g count(g) log P(g | c); among the choices when given."""
        import torch  # heavy: torch takes seconds to import; only code that computes needs it

        self._need_index()
        n_max = int(self.config["ngram"])
        x = torch.zeros(len(batch), self._loglik.shape[1], dtype=torch.float64)
        for r, ex in enumerate(batch):
            for g, n in Counter(ngrams(tokenize(ex.question), n_max)).items():
                if g in self._vocab:  # unseen n-grams carry no evidence
                    x[r, self._vocab[g]] += n
        logp = torch.log_softmax(x @ self._loglik.T + self._logprior, dim=1)
        out = []
        for ex, row in zip(batch, logp.tolist()):
            dist = dict(zip(self._classes, row))
            if _closed_set(ex):
                scores = [dist.get(self._norm(c), -math.inf) for c in ex.choices]
                best = max(range(len(scores)), key=lambda j: (scores[j], -j))
                out.append(Answer(ex.choices[best], {c: math.exp(s) for c, s in zip(ex.choices, scores)}))
            else:
                ranked = sorted(dist.items(), key=lambda kv: (-kv[1], kv[0]))[:10]
                out.append(Answer(ranked[0][0], {a: math.exp(v) for a, v in ranked}))
        return out

    def explain(self, batch: Sequence[Example], answers: Sequence[str]) -> list[str]:
        """The retrieved reference explanation for each (example, answer)."""
        return self.retrieve(batch, answers)
