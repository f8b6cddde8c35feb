"""`counterexample-explainer`: Goyal et al. 2017's counter-example explanation model (§5).

Three parts, trained together:

1. Shared base: a joint QI embedding q * v (point-wise product) of an image branch (the
   grid regions, each l2-normalized -> linear -> tanh, summed over regions -> linear ->
   tanh; the paper uses a global CNN vector) and an LSTM question branch (last state ->
   linear -> tanh). It runs on the image I and on each of the K candidate images.
2. Answering head: one fully connected layer over QI(I) -> softmax over the answers,
   trained with cross entropy (VQA soft targets, as the shared trainer); `answer`.
3. Explaining head: the QI embedding of each candidate and the answer A to explain (a
   learned answer embedding) are mapped linearly into a common space; their inner
   product gives one number per candidate; a fully connected layer over the K numbers
   (candidates in ascending distance to I, so it can learn a distance prior; initialized
   to the identity) gives the scores S(I_i). Loss: the pairwise hinge ranking loss
   max(0, M - (S(I') - S(I_i))) over the K - 1 other candidates (their mean, i.e. the
   paper's sum with lambda / (K - 1)), added to the cross entropy with weight lambda.
   `score_images` returns S for the candidates in `example.meta[CANDIDATE_IMAGES]`.

Training data follow the paper's: for each training question whose complementary question
asks it on another image I', the candidates are the K nearest training images to I in the
neighbour feature space (option `neighbour_features`: the counter-example probe's built-in
`pixels` features or the same feature file as its `features` option), and the question is
used only when I' is among them (Goyal's annotators picked I' from those K). The answer to
explain is the question's ground-truth answer (the paper's footnote 4).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from harness.api import Option
from harness.digest import digest
from harness.errors import DataError, UsageError
from harness.metrics.rule import canonical_answer
from harness.types import CANDIDATE_IMAGES, Example
from vqa_harness_plugins.models.features.candidates import (
    BUILTIN,
    builtin_features,
    load_feature_file,
)
from vqa_harness_plugins.models.features.files import file_stamp

from .choice_training import optimise
from .grid_base import GRID_OPTIONS, GridAnswerModel, layers, trainer_option
from .runtime import reproducible_cpu, to_device
from .sizes import SizedModel, Sizes
from .training import _shuffled_batches

if TYPE_CHECKING:  # pragma: no cover
    import torch

__all__ = ["CounterExampleExplainer", "explanation_sets"]


def explanation_sets(train: Sequence[Example], features: dict[str, np.ndarray], k: int
                     ) -> dict[int, list[str]]:
    """Train row -> its K candidate image ids in ascending distance to its image (ties by
    id), for rows whose complementary image is among them (Goyal's I' in I_NN)."""
    ids = sorted(features)
    if len(ids) <= k:
        return {}
    matrix = np.stack([features[i] for i in ids])
    pos = {i: n for n, i in enumerate(ids)}
    by_id = {ex.id: ex for ex in train}
    nearest: dict[str, list[str]] = {}
    out: dict[int, list[str]] = {}
    for row, ex in enumerate(train):
        pair = by_id.get(ex.pair_id)
        if pair is None or pair.image_id == ex.image_id or ex.image_id not in pos or pair.image_id not in pos:
            continue
        if ex.image_id not in nearest:
            dist = np.sqrt(((matrix - matrix[pos[ex.image_id]]) ** 2).sum(axis=1))
            order = np.lexsort((np.arange(len(ids)), dist))  # distance, then id order
            nearest[ex.image_id] = [ids[n] for n in order if ids[n] != ex.image_id][:k]
        if pair.image_id in nearest[ex.image_id]:
            out[row] = nearest[ex.image_id]
    return out


class CounterExampleExplainer(SizedModel, GridAnswerModel):
    """Goyal et al. 2017 §5: answering head + counter-example explaining head (score_images)."""

    name = "counterexample-explainer"
    description = ("Goyal 2017 §5 counter-example explainer: shared Q x I base, answering head, explaining head "
                   "ranking K candidate images (hinge loss)")
    # Goyal et al. give K; their shared base is "similar to" d-LSTM+nI, whose code
    # (VQA_LSTM_CNN) uses a 1,024-d common embedding and 200-d word encodings.
    size_presets = Sizes(toy={"hidden": 128, "embed": 64, "k": 24}, paper={"hidden": 1024, "embed": 200, "k": 24},
                         source="Goyal et al. 2017: K = 24; the rest from d-LSTM+nI's code, which their base follows")
    options = size_presets.options({
        **{k: v for k, v in GRID_OPTIONS.items() if k != "sentinel"},  # no attention: no sentinel
        "hidden": trainer_option("hidden", 128, "size of the QI embedding and of the explaining space"),
        "epochs": trainer_option("epochs", 15, "passes over the train split"),
        "batch_size": trainer_option("batch_size", 32, "training batch size in questions (each with I and K candidates)"),
        "k": Option(24, "candidate images per question", min=2, max=10_000),
        "margin": Option(1.0, "margin M of the pairwise hinge ranking loss", min=0.0, max=1e6),
        "lam": Option(1.0, "weight lambda of the (mean) hinge loss against the cross entropy", min=0.0, max=1e6),
        "neighbour_features": Option("pixels", "features that order candidates by distance: 'pixels' (the "
                                     "counter-example probe's built-in) or the probe's feature file"),
        "optimizer": Option("adam", "'adam' (warm-up + cosine) or 'sgd' (momentum 0.9)", choices=("adam", "sgd")),
        "dropout": trainer_option("dropout", 0.1, "dropout before the answer layer"),
    })

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._neighbours: dict[str, np.ndarray] = {}
        self._table: dict[str, np.ndarray] | None = None
        self.loss_history: list[float] = []
        self.explained = 0  # training questions with an explanation set (the last fit that trained)

    @property
    def uses_images(self) -> bool:  # type: ignore[override]
        """True when the grid or the neighbour features are read from image files."""
        return self.grid.reads_image_files or str(self.config["neighbour_features"]) == "pixels"

    # ---- neighbour features (the probe's)
    def _neighbour(self, image_id: str, path: str) -> np.ndarray:
        spec = str(self.config["neighbour_features"])
        if spec != BUILTIN:
            if self._table is None:
                self._table = load_feature_file(Path(spec))
            if image_id not in self._table:
                raise DataError(f"{spec}: no neighbour features for image {image_id}")
            return self._table[image_id]
        vec = self._neighbours.get(path)
        if vec is None:
            feats, missing = builtin_features({image_id: path})
            if missing:
                raise DataError(f"model {self.name!r}: image file not found or unreadable: {missing[0]}")
            vec = self._neighbours[path] = feats[image_id]
        return vec

    def _neighbour_source(self) -> Any:
        spec = str(self.config["neighbour_features"])
        # The file's size and mtime, and for a .npy its id list's (which row is which image).
        stat = None if spec == "pixels" or not Path(spec).is_file() else file_stamp(spec)
        return [spec, stat]

    def weights_key(self, train: Sequence[Example], seed: int) -> str:
        """The grid key plus the neighbour features and the complementary pairs."""
        return digest({"base": super().weights_key(train, seed), "neighbours": self._neighbour_source(),
                       "pairs": [ex.pair_id for ex in train]})

    def _fit_key(self, train_fingerprint: str, seed: int) -> Any:
        """The grid model's fit key plus the neighbour features (pairs are in the data)."""
        return {**super()._fit_key(train_fingerprint, seed), "neighbours": self._neighbour_source()}

    # ---- training
    def _train(self, train: Sequence[Example], seed: int) -> "torch.nn.Module":
        import torch  # heavy: torch takes seconds to import; only code that computes needs it
        import torch.nn.functional as F  # heavy: imported on use

        cfg, k = self.config, int(self.config["k"])
        keep, ans_ids, ans_scores = self._targets(train)
        images = {ex.image_id: ex for ex in train}
        feats = {i: self._neighbour(i, ex.image) for i, ex in images.items()}
        sets = explanation_sets(train, feats, k)
        self.explained = self.vocab["explained"] = len(sets)  # saved with the vocabulary
        firsts = list(images.values())
        self.grid.check(firsts)
        bank_np, _ = self.grid.bank(firsts)
        bank = torch.from_numpy(bank_np)
        slot = {ex.image_id: n for n, ex in enumerate(firsts)}
        tokens, lengths = self._tokens(train)
        image_of = torch.tensor([slot[ex.image_id] for ex in train], dtype=torch.long)
        explain_ans = {row: self.answers.get(canonical_answer(train[row], self._norm), len(self.answers))
                       for row in sets}
        by_id = {ex.id: ex for ex in train}
        comp = {row: sets[row].index(by_id[train[row].pair_id].image_id) for row in sets}
        gen = torch.Generator().manual_seed(seed)
        size = max(1, int(cfg["batch_size"]))
        plan = [[sel for sel in _shuffled_batches(len(keep), size, None, gen) if len(sel) >= 1]
                for _ in range(int(cfg["epochs"]))]
        margin, lam = float(cfg["margin"]), float(cfg["lam"])
        device = self.train_device

        def loss_of(net: Any, sel: torch.Tensor) -> torch.Tensor:
            rows = keep[sel]
            target = torch.zeros(len(sel), len(self.answers))
            target.scatter_add_(1, ans_ids[sel], ans_scores[sel])
            target /= target.sum(1, keepdim=True)
            length = lengths[rows]
            toks = tokens[rows, : int(length.max())]
            explain = [(j, int(r)) for j, r in enumerate(rows.tolist()) if r in sets]
            cand = torch.tensor([[slot[c] for c in sets[r]] for _, r in explain], dtype=torch.long).reshape(-1, k)
            needed = torch.cat([image_of[rows], cand.flatten()])
            distinct, inverse = torch.unique(needed, return_inverse=True)
            inputs = to_device([bank[distinct], inverse[: len(rows)], inverse[len(rows):].reshape(-1, k),
                                torch.tensor([j for j, _ in explain], dtype=torch.long), toks, length,
                                torch.tensor([explain_ans[r] for _, r in explain], dtype=torch.long), target], device)
            logits, scores = net.both(*inputs[:-1])
            loss = -(inputs[-1] * F.log_softmax(logits, dim=1)).sum(1).mean()
            if explain:
                (pos,) = to_device([torch.tensor([comp[r] for _, r in explain], dtype=torch.long)], device)
                best = scores.gather(1, pos[:, None])
                others = torch.ones_like(scores, dtype=torch.bool).scatter_(1, pos[:, None], False)
                hinge = torch.clamp(margin - (best - scores), min=0.0)[others].reshape(len(explain), k - 1)
                loss = loss + lam * hinge.mean()
            return loss

        net, self.loss_history = optimise(self._new_net, plan, loss_of, seed=seed, lr=float(cfg["lr"]),
                                          optimizer=str(cfg["optimizer"]), desc=f"train {self.name}", device=device)
        return net

    def _new_net(self) -> "torch.nn.Module":
        v, cfg = self.vocab, self.config
        return _net_class()(n_words=len(v["words"]), grid_dim=v["grid_dim"], n_answers=len(self.answers),
                            embed=int(cfg["embed"]), hidden=int(cfg["hidden"]), k=int(cfg["k"]),
                            dropout=float(cfg["dropout"]))

    # ---- inference
    def score_images(self, batch: Sequence[Example], answers: Sequence[str]) -> list[list[float]]:
        """S(I_i) per candidate image, in the order given (higher: better counter-example)."""
        import torch  # heavy: torch takes seconds to import; only code that computes needs it

        net = self._ensure_net()
        if not self.vocab.get("explained"):
            raise UsageError(f"model {self.name!r} was trained on data without complementary pairs (no question "
                             "has its complementary image among its k nearest): its explaining head is untrained")
        k = int(self.config["k"])
        orders, flat = [], []
        for ex in batch:
            cands = [(str(c[0]), str(c[1])) for c in ex.meta.get(CANDIDATE_IMAGES, ())]
            if len(cands) != k:
                raise ValueError(f"model {self.name!r} ranks k={k} candidate images, got {len(cands)} "
                                 f"(use the same k for the model and the probe)")
            query = self._neighbour(ex.image_id, ex.image)
            dist = [float(np.sqrt(((self._neighbour(i, p) - query) ** 2).sum())) for i, p in cands]
            # Ties in distance keep the given order (the probe passes a seeded random order);
            # never image ids, which can name the complement (toyvqa's "...-c1").
            order = sorted(range(k), key=lambda j: (dist[j], j))
            orders.append(order)
            flat += [ex.with_(id=f"{ex.id}@{cands[j][0]}", image_id=cands[j][0], image=cands[j][1]) for j in order]
        ids = [self.answers.get(self._norm(a), len(self.answers)) for a in answers]
        device = getattr(self, "device", "cpu")
        with reproducible_cpu(self.config["threads"]), torch.no_grad():
            self.grid.check(flat)
            bank, where = self.grid.bank(flat)
            tokens, lengths = self._tokens(batch)
            scores = net.explain(torch.from_numpy(bank).to(device),
                                       torch.from_numpy(where).reshape(len(batch), k).to(device),
                                       tokens.to(device), lengths.to(device),
                                       torch.tensor(ids, dtype=torch.long, device=device)).float().cpu()
        out = []
        for row, order in zip(scores.tolist(), orders):
            given = [0.0] * k
            for position, j in enumerate(order):
                given[j] = row[position]
            out.append(given)
        return out


@functools.cache
def _net_class() -> type:
    import torch  # heavy: torch takes seconds to import; only code that computes needs it
    import torch.nn as nn  # heavy: torch takes seconds to import; only code that computes needs it
    import torch.nn.functional as F  # heavy: imported on use

    L = layers()

    class ExplainerNet(nn.Module):
        def __init__(self, *, n_words: int, grid_dim: int, n_answers: int, embed: int, hidden: int, k: int,
                     dropout: float) -> None:
            super().__init__()
            self.question = L.QuestionLSTM(n_words, embed, hidden)
            self.q_proj = nn.Linear(hidden, hidden)
            self.region = nn.Linear(grid_dim, hidden)
            self.image = nn.Linear(hidden, hidden)
            self.answer_head = nn.Sequential(nn.Dropout(dropout), nn.Linear(hidden, n_answers))
            self.answer_embed = nn.Embedding(n_answers + 1, hidden)  # the last row: an unknown answer
            with torch.no_grad():
                self.answer_embed.weight[-1].zero_()
            self.explain_qi = nn.Linear(hidden, hidden)
            self.explain_a = nn.Linear(hidden, hidden)
            self.rank = nn.Linear(k, k)
            with torch.no_grad():
                self.rank.weight.copy_(torch.eye(k))
                self.rank.bias.zero_()

        def images(self, bank: torch.Tensor) -> torch.Tensor:
            """One vector per image [U, H]: regions -> linear, tanh -> sum -> linear, tanh."""
            regions = torch.tanh(self.region(F.normalize(bank.float(), dim=-1)))
            return torch.tanh(self.image(regions.sum(1)))

        def q(self, tokens: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
            return torch.tanh(self.q_proj(self.question(tokens, lengths)[1]))

        def scores(self, v: torch.Tensor, q: torch.Tensor, answer_ids: torch.Tensor) -> torch.Tensor:
            """S [B, K] from candidate image vectors v [B, K, H], questions q [B, H], answers [B]."""
            qi = self.explain_qi(q[:, None, :] * v)
            a = self.explain_a(self.answer_embed(answer_ids))
            return self.rank((qi * a[:, None, :]).sum(-1))

        def forward(self, bank: torch.Tensor, inverse: torch.Tensor, tokens: torch.Tensor,
                    lengths: torch.Tensor) -> torch.Tensor:
            v = self.images(bank).index_select(0, inverse)
            return self.answer_head(self.q(tokens, lengths) * v)

        def explain(self, bank: torch.Tensor, cand: torch.Tensor, tokens: torch.Tensor, lengths: torch.Tensor,
                    answer_ids: torch.Tensor) -> torch.Tensor:
            """S for candidates `cand` [B, K] (rows of `bank`), distance-ordered."""
            b, k = cand.shape
            v = self.images(bank).index_select(0, cand.reshape(-1)).reshape(b, k, -1)
            return self.scores(v, self.q(tokens, lengths), answer_ids)

        def both(self, bank: torch.Tensor, image_rows: torch.Tensor, cand: torch.Tensor, explain_rows: torch.Tensor,
                 tokens: torch.Tensor, lengths: torch.Tensor, answer_ids: torch.Tensor) -> tuple[Any, Any]:
            """Training: answer logits of every row and S of the rows `explain_rows` (one image pass)."""
            images = self.images(bank)
            q = self.q(tokens, lengths)
            logits = self.answer_head(q * images.index_select(0, image_rows))
            if len(explain_rows) == 0:
                return logits, logits.new_zeros(0, cand.shape[1])
            b, k = cand.shape
            v = images.index_select(0, cand.reshape(-1)).reshape(b, k, -1)
            return logits, self.scores(v, q.index_select(0, explain_rows), answer_ids)

    return ExplainerNet
