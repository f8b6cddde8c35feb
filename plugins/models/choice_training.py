"""Multiple-choice training for grid models (Chao et al. 2018, supplementary A.1 and A.4).

`GridChoiceModel` turns a grid model's joint image-question embedding (the "context") into
a candidate scorer: [l2(context), l2(question features), l2(candidate features)] -> one
hidden layer (batch norm before ReLU, dropout 0.5) -> one logit per candidate. Training
minimizes the binary logistic loss of "is this candidate the target" over the target and 3
decoys of one decoy set per triplet (`mlp.training_decoys`, A.4), 100 triplets per
mini-batch. Question and candidate features come from a text feature extractor (option
`text_features`, `hashed-bow` by default, as for the MLPs; the paper averages word2vec).
Only `score_choices`: the network scores candidates, it has no answer vocabulary to answer
from. `optimise` is the seeded training loop shared with the counter-example explainer.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np

from harness.api import Model, Option
from harness.digest import digest
from harness.errors import DataError, UsageError
from harness.features import resolve_features
from harness.paths import tqdm_disabled
from harness.types import Example

from .grid_base import GRID_OPTIONS, GridAnswerModel, trainer_option
from .mlp import _l2_rows, _target, training_decoys
from .runtime import adam, device_kind, reproducible_cpu, seeded, to_device
from .training import Take

if TYPE_CHECKING:  # pragma: no cover
    import torch

__all__ = ["GridChoiceModel", "CHOICE_OPTIONS", "optimise", "TRIPLETS_PER_BATCH"]

TRIPLETS_PER_BATCH = 100

CHOICE_OPTIONS: dict[str, Option] = {
    **GRID_OPTIONS,
    "text_features": Option("hashed-bow", "text feature extractor for the question and candidate features of "
                            "the MLP head (hashed-bow[:dim=N], sentence)"),
    "mc_hidden": Option(1024, "hidden units of the A.1 MLP head", min=1, max=65_536),
    # A.4's SGD (momentum 0.9, lr 0.01) reached 64% on the toy IoU+QoU set in 15 epochs where
    # Adam reached 99% (docs/models.md), so the toy default is Adam; optimizer=sgd,lr=0.01 is A.4.
    "optimizer": Option("adam", "'adam' (warm-up + cosine) or 'sgd' (A.4: momentum 0.9, learning rate / 10 "
                        "after 2/3 of the steps)", choices=("adam", "sgd")),
    "lr": trainer_option("lr", 0.003, "peak learning rate (A.4 with sgd: 0.01)"),
    "batch_size": trainer_option("batch_size", TRIPLETS_PER_BATCH, "triplets per mini-batch (A.4: 100; 4 candidates each)"),
}


def optimise(make_net: Callable[[], "torch.nn.Module"], plan: list[list[Any]],
             loss_of: Callable[["torch.nn.Module", Any], "torch.Tensor"], *, seed: int, lr: float,
             optimizer: str, desc: str, device: str = "cpu") -> tuple["torch.nn.Module", list[float]]:
    """Train `make_net()` on `device` over `plan` (epochs of batches); (net, mean loss per
    epoch). `loss_of` moves its batch to the network's device (`runtime.to_device`).

    Weight init and dropout are seeded under `fork_rng` (the caller's RNG is untouched).
    'sgd': momentum 0.9, learning rate divided by 10 after 2/3 of the steps (A.4's stepped
    policy); 'adam': warm-up over 5% of the steps, then cosine decay (training.py's schedule).
    """
    import torch  # heavy: torch takes seconds to import; only code that computes needs it
    from tqdm.auto import tqdm  # heavy: tqdm takes about 40 ms; only progress bars need it

    total = max(1, sum(map(len, plan)))
    disable = True if tqdm_disabled() else None
    history: list[float] = []
    with seeded(seed, device):
        net = make_net()
        if device_kind(device) != "cpu":
            net = net.to(device)
        if optimizer == "sgd":
            opt: Any = torch.optim.SGD(net.parameters(), lr=lr, momentum=0.9)
            cut = (2 * total) // 3
            rule: Callable[[int], float] = lambda step: 1.0 if step < cut else 0.1  # noqa: E731
        elif optimizer == "adam":
            opt = adam(net.parameters(), lr)
            warmup = max(1, total // 20)
            rule = lambda step: (min(1.0, (step + 1) / warmup)  # noqa: E731
                                 * 0.5 * (1 + math.cos(math.pi * min(step, total) / total)))
        else:

            raise UsageError(f"{desc}: optimizer={optimizer!r} must be 'sgd' or 'adam'")
        sched = torch.optim.lr_scheduler.LambdaLR(opt, rule)
        with tqdm(total=total, desc=desc, unit="step", disable=disable, leave=False) as bar:
            for batches in plan:
                net.train()
                losses = []
                for batch in batches:
                    loss = loss_of(net, batch)
                    opt.zero_grad(set_to_none=True)
                    loss.backward()
                    opt.step()
                    sched.step()
                    losses.append(float(loss.item()))
                    bar.update(1)
                history.append(float(np.mean(losses)) if losses else float("nan"))
    return net, history


class GridChoiceModel(GridAnswerModel):
    """Candidate scoring over a grid model's context; subclasses build the network, which
    maps (grids, image rows, tokens, lengths, question features, candidates [B, C, Da],
    mask [B, C]) to logits [B, C]."""

    options = CHOICE_OPTIONS
    #: Not an open-ended model: the network scores given candidates only.
    answer = Model.answer  # type: ignore[assignment]

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._text_extractor: Any = None
        self.loss_history: list[float] = []

    # ---- text features
    def _extractor(self) -> Any:
        if self._text_extractor is None:
            resolve = self.feature_resolver or resolve_features
            self._text_extractor = resolve(self.config["text_features"], "text", owner=f"model {self.name!r}")
        return self._text_extractor

    def _text(self, texts: Sequence[str]) -> np.ndarray:
        return _l2_rows(self._extractor().encode(list(texts)))

    def weights_key(self, train: Sequence[Example], seed: int) -> str:
        """The grid key plus the text extractor and every training candidate list."""
        return digest({"base": super().weights_key(train, seed), "text": self._extractor().fingerprint(),
                       "choices": [[ex.choices, ex.meta.get("decoys"), ex.meta.get("mc_variant"),
                                    ex.meta.get("mc_target")] for ex in train]})

    def _fit_key(self, train_fingerprint: str, seed: int) -> Any:
        """The grid model's fit key plus the text extractor."""
        return {**super()._fit_key(train_fingerprint, seed), "text": self._extractor().fingerprint()}

    def _build_vocab(self, train: Sequence[Example]) -> dict[str, Any]:
        return {**super()._build_vocab(train), "text_dim": int(self._text(["a"]).shape[1])}

    def _encode(self, examples: Sequence[Example]) -> Take:
        import torch  # heavy: torch takes seconds to import; only code that computes needs it

        base = super()._encode(examples)
        questions = torch.from_numpy(self._text([ex.question for ex in examples]))

        def take(idx: torch.Tensor) -> tuple[torch.Tensor, ...]:
            return (*base(idx), questions[idx])

        return take

    # ---- training (A.4)
    def _train(self, train: Sequence[Example], seed: int) -> "torch.nn.Module":
        import torch  # heavy: torch takes seconds to import; only code that computes needs it
        import torch.nn.functional as F  # heavy: imported on use

        usable = [ex for ex in train if len(ex.choices) >= 2 and _target(ex) in ex.choices]
        if not usable:
            raise DataError(f"model {self.name!r}: no training example has `choices` containing its target "
                            "(train on a multiple-choice dataset, e.g. toyvqa-mc)")
        take = self._encode(usable)
        device = self.train_device
        texts = sorted({c for ex in usable for c in ex.choices})
        table = torch.from_numpy(self._text(texts))
        index = {t: i for i, t in enumerate(texts)}
        rng = np.random.default_rng(seed)
        size = max(1, int(self.config["batch_size"]))
        plan = []
        for _ in range(int(self.config["epochs"])):
            order = rng.permutation(len(usable))
            epoch = []
            for b in range(0, len(order), size):
                rows = order[b: b + size]
                if len(rows) < 2:
                    continue  # batch norm needs more than one triplet
                cands = [[index[_target(usable[i])]] + [index[d] for d in training_decoys(usable[i], rng)]
                         for i in rows]
                epoch.append((torch.from_numpy(rows.astype(np.int64)), cands))
            plan.append(epoch)

        def loss_of(net: Any, batch: Any) -> torch.Tensor:
            rows, cands = batch
            ids, mask = _pad(cands)
            mask, *inputs = to_device([mask, *take(rows), table[ids]], device)
            logits = net(*inputs, mask)
            target = torch.zeros_like(logits)
            target[:, 0] = 1.0
            return F.binary_cross_entropy_with_logits(logits[mask], target[mask])

        net, self.loss_history = optimise(self._new_net, plan, loss_of, seed=seed, lr=float(self.config["lr"]),
                                          optimizer=str(self.config["optimizer"]), desc=f"train {self.name}",
                                          device=device)
        return net

    # ---- inference
    def score_choices(self, batch: Sequence[Example]) -> list[list[float]]:
        """One logit per candidate (higher: more likely the target); [] without choices."""
        import torch  # heavy: torch takes seconds to import; only code that computes needs it

        net = self._ensure_net()
        out: list[list[float]] = [[] for _ in batch]
        rows = [i for i, ex in enumerate(batch) if ex.choices]
        if not rows:
            return out
        device = getattr(self, "device", "cpu")
        subset = [batch[i] for i in rows]
        texts = sorted({c for ex in subset for c in ex.choices})
        table = torch.from_numpy(self._text(texts))
        index = {t: i for i, t in enumerate(texts)}
        ids, mask = _pad([[index[c] for c in ex.choices] for ex in subset])
        with reproducible_cpu(self.config["threads"]), torch.no_grad():
            take = self._encode(subset)
            inputs = [t.to(device) for t in take(torch.arange(len(subset)))]
            logits = net(*inputs, table[ids].to(device), mask.to(device)).float().cpu()
        for r, i in enumerate(rows):
            out[i] = logits[r, : len(batch[i].choices)].tolist()
        return out


def _pad(cands: list[list[int]]) -> tuple["torch.Tensor", "torch.Tensor"]:
    """Candidate ids padded to the longest list [B, C] (0 past the end) and the mask."""
    import torch  # heavy: torch takes seconds to import; only code that computes needs it

    width = max(len(c) for c in cands)
    ids = torch.zeros(len(cands), width, dtype=torch.long)
    mask = torch.zeros(len(cands), width, dtype=torch.bool)
    for r, c in enumerate(cands):
        ids[r, : len(c)] = torch.tensor(c, dtype=torch.long)
        mask[r, : len(c)] = True
    return ids, mask
