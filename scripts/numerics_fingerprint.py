"""Digests that show whether two machines compute the same bits (docs/models.md,
"Machine-independent numerics").

    python scripts/numerics_fingerprint.py [--epochs 15] [--previous] [--ops-only]

Run it on two machines and compare the JSON lines: `ops` holds a digest per CPU op the toy
trainers use (matrix products, convolutions, the LSTM, BatchNorm, Adam, ...) on fixed inputs
under `reproducible_cpu(1)`; `training` trains `cnn-lstm` on the toy benchmark's balanced
train split (seed 0, `--epochs`, one thread, as the harness does) and digests the data, the
weights and the val answers, with the official VQA accuracy (at 15 epochs: the README's BB
cell for cnn-lstm). `--previous` reproduces the numerics before issue 27 (MKL_CBWR=AVX2,STRICT,
torch's default oneDNN/NNPACK kernels, the per-tensor Adam), which gave other bits on an Intel
and an AMD CPU. Uses VQA_HARNESS_CACHE for the toy data (generated on first use).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import platform
import sys
import time
from typing import Any, Callable, Iterator

PREVIOUS = "--previous" in sys.argv
if PREVIOUS:  # must precede MKL's initialisation, i.e. importing torch (harness sets the pins)
    os.environ.setdefault("MKL_CBWR", "AVX2,STRICT")

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from harness.metrics.vqa import vqa_accuracy  # noqa: E402
from harness.provenance import environment  # noqa: E402
from vqa_harness_plugins.datasets.toyvqa import ToyVQA  # noqa: E402
from vqa_harness_plugins.models import training  # noqa: E402
from vqa_harness_plugins.models.cnnlstm import CNNLSTMModel, decode_images  # noqa: E402
from vqa_harness_plugins.models.runtime import adam, reproducible_cpu  # noqa: E402
from vqa_harness_plugins.models.text import normalizer  # noqa: E402


@contextlib.contextmanager
def _threads_only(threads: int) -> Iterator[None]:
    torch.set_num_threads(threads)
    yield


KERNELS: Callable[[int], Any] = _threads_only if PREVIOUS else reproducible_cpu


def _adam(params: Any, lr: float) -> torch.optim.Optimizer:
    return torch.optim.Adam(params, lr=lr) if PREVIOUS else adam(params, lr)


def det(*shape: int, salt: int = 0) -> torch.Tensor:
    """Fixed inputs from integer arithmetic (no random generator, so no library decides them)."""
    n = int(np.prod(shape))
    i = torch.arange(n, dtype=torch.float64)
    return (torch.remainder(i * 2654435761.0 + salt * 97.0, 1000003.0) / 1000003.0 - 0.5).float().reshape(shape)


def digest(*tensors: torch.Tensor) -> str:
    h = hashlib.sha256()
    for t in tensors:
        h.update(t.detach().contiguous().cpu().numpy().tobytes())
    return h.hexdigest()[:12]


def _with_grads(fn: Callable[..., torch.Tensor], *inputs: torch.Tensor) -> str:
    xs = [x.clone().requires_grad_(True) for x in inputs]
    y = fn(*xs)
    y.backward(det(*y.shape, salt=7))
    return digest(y, *[x.grad for x in xs])


def _lstm() -> str:
    torch.manual_seed(0)
    m = nn.LSTM(64, 128, batch_first=True)
    packed = nn.utils.rnn.pack_padded_sequence(det(20, 9, 64), torch.tensor([9, 3, 5, 7, 9, 1, 2, 4, 6, 8] * 2),
                                               batch_first=True, enforce_sorted=False)
    _, (h, _) = m(packed)
    h.sum().backward()
    return digest(h, *[p.grad for p in m.parameters()])


def _adam_steps() -> str:
    p = nn.Parameter(det(256, 256))
    opt = _adam([p], 3e-3)
    for step in range(3):
        p.grad = det(256, 256, salt=step)
        opt.step()
    return digest(p)


def ops() -> dict[str, str]:
    """A digest per op, forward and backward, on fixed inputs."""
    with KERNELS(1):
        return {
            "matmul": digest(det(512, 600) @ det(600, 700, salt=1), det(48, 128) @ det(128, 128, salt=1)),
            "bmm": digest(torch.bmm(det(8, 64, 96), det(8, 96, 80, salt=1))),
            "linear": _with_grads(F.linear, det(48, 128), det(64, 128, salt=2)),
            "conv2d": _with_grads(lambda x, w: F.conv2d(x, w, padding=1), det(20, 16, 16, 16), det(32, 16, 3, 3, salt=3)),
            "batch_norm": _with_grads(lambda x: F.batch_norm(x, None, None, training=True), det(20, 16, 8, 8)),
            "tanh_exp_sigmoid": digest(torch.tanh(det(1000, 37)), torch.exp(det(1000, 37)), torch.sigmoid(det(1000, 37))),
            "log_softmax": _with_grads(lambda x: F.log_softmax(x * 10, dim=1), det(100, 333)),
            "sqrt": digest(det(1000, 37).abs().sqrt()),
            "lstm": _lstm(),
            "adam": _adam_steps(),
        }


def train(epochs: int) -> dict[str, Any]:
    """cnn-lstm on toyvqa balanced train (seed 0): digests and the BB accuracy on val."""
    toy = ToyVQA(variant="balanced", seed=0)
    train_rows, val = toy.examples("train"), toy.examples("val")
    data = hashlib.sha256()
    for ex in list(train_rows) + list(val):
        data.update(ex.question.encode())
        data.update(json.dumps(list(ex.answers)).encode())
    data.update(decode_images(sorted({ex.image for ex in list(train_rows) + list(val)}), 32).numpy().tobytes())
    model = CNNLSTMModel(epochs=epochs)
    model._norm = normalizer()[1]
    training.adam = _adam  # the trainer's optimizer (the previous numerics: per-tensor Adam)
    start = time.perf_counter()
    with KERNELS(1):
        model._set_vocab(model._make_vocab(train_rows))
        net = model._train(train_rows, 0)
        seconds = time.perf_counter() - start
        net.eval()
        model._net = net
        answers = [a.text for i in range(0, len(val), 256) for a in model.answer(val[i:i + 256])]
    accuracy = float(np.mean([vqa_accuracy(a, list(ex.answers)) for a, ex in zip(answers, val)]))
    weights = hashlib.sha256()
    for name, value in net.state_dict().items():
        weights.update(name.encode())
        weights.update(value.detach().contiguous().numpy().tobytes())
    return {"epochs": epochs, "data": data.hexdigest()[:12], "weights": weights.hexdigest()[:12],
            "answers": hashlib.sha256("\n".join(answers).encode()).hexdigest()[:12],
            "bb_accuracy": round(100 * accuracy, 2), "train_seconds": round(seconds, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--previous", action="store_true", help="the numerics before issue 27")
    parser.add_argument("--ops-only", action="store_true")
    args = parser.parse_args()
    cpu = environment()["cpu"]
    out: dict[str, Any] = {"numerics": "previous" if args.previous else "current", "cpu": cpu["model"],
                           "vendor": cpu["vendor"], "torch": torch.__version__, "python": platform.python_version(),
                           "ops": ops()}
    if not args.ops_only:
        out["training"] = train(args.epochs)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
