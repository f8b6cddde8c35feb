"""Digests that show whether two machines compute the same bits (docs/models.md,
"Machine-independent numerics").

    python scripts/numerics_fingerprint.py [--epochs 15] [--previous] [--ops-only]

Run it on two machines and compare the JSON lines (stdout holds only the JSON line; the
trainer's progress goes to stderr, so `> out.json` is valid JSON): `ops` holds a digest per CPU op the toy
trainers use (38: matrix products, convolutions, the LSTM, BatchNorm, Adam per-tensor and
fused, sqrt, softmax, ...; forward and backward) on fixed inputs under `reproducible_cpu(1)`
(the 30 ops of docs/benchmarks.md, "Machine-independent numerics", plus the fused Adam, sqrt
and torch's softmax, whose backward differs between torch 2.11 and 2.13, the attention
models' softmax, which does not, and torch's float64 sqrt beside MCB's correctly rounded one);
`training` trains `cnn-lstm` on the toy benchmark's balanced train split (seed 0, `--epochs`, one thread, as the harness does) and digests the data, the
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
from vqa_harness_plugins.models.runtime import adam, exact_sqrt, reproducible_cpu  # noqa: E402
from vqa_harness_plugins.models.softmax import softmax_lastdim  # noqa: E402
from vqa_harness_plugins.models.text import normalizer  # noqa: E402


@contextlib.contextmanager
def _threads_only(threads: int) -> Iterator[None]:
    torch.set_num_threads(threads)
    yield


KERNELS: Callable[[int], Any] = _threads_only if PREVIOUS else reproducible_cpu


def _trainer_adam(params: Any, lr: float) -> torch.optim.Optimizer:
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
    return h.hexdigest()[:10]


def _grads(fn: Callable[..., torch.Tensor], *inputs: torch.Tensor) -> str:
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
    return digest(h, *[q.grad for q in m.parameters()])


def _embedding() -> str:
    e = nn.Embedding(50, 64, padding_idx=0)
    with torch.no_grad():
        e.weight.copy_(det(50, 64))
    y = e(torch.tensor([[1, 2, 3, 0], [4, 4, 4, 9]]))
    y.backward(det(*y.shape, salt=8))
    return digest(y, e.weight.grad)


def _init() -> str:
    torch.manual_seed(0)
    return digest(nn.Linear(128, 128).weight, nn.Conv2d(16, 32, 3).weight, torch.randperm(1000), torch.rand(1000),
                  torch.randn(1000))


def _dropout() -> str:
    torch.manual_seed(0)
    return digest(F.dropout(torch.ones(64, 1000), 0.1, training=True))


def _adam_steps(fused: bool | None) -> str:
    torch.manual_seed(0)
    p = nn.Parameter(det(256, 256))
    opt = torch.optim.Adam([p], lr=3e-3, fused=fused)
    for step in range(3):
        p.grad = det(256, 256, salt=step)
        opt.step()
    return digest(p)


def _scatter() -> str:
    t = torch.zeros(48, 100)
    t.scatter_add_(1, torch.tensor([[1, 2, 3]] * 48), det(48, 3))
    return digest(t / t.sum(1, keepdim=True))


def _batch_norm(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return F.batch_norm(x, torch.zeros(16), torch.ones(16), w, b, training=True)


def ops() -> dict[str, str]:
    """A digest per op the trainers use (forward and backward), on fixed inputs, one thread."""
    probes: dict[str, Callable[[], str]] = {
        "mm_small": lambda: digest(det(48, 128) @ det(128, 128, salt=1)),
        "mm_large": lambda: digest(det(512, 600) @ det(600, 700, salt=1)),
        "mm_tn": lambda: digest(det(600, 512).t() @ det(600, 700, salt=1)),
        "addmm": lambda: digest(torch.addmm(det(700), det(512, 600), det(600, 700, salt=1))),
        "bmm": lambda: digest(torch.bmm(det(8, 64, 96), det(8, 96, 80, salt=1))),
        "linear_grad": lambda: _grads(lambda x, w: F.linear(x, w), det(48, 128), det(64, 128, salt=2)),
        "conv_nchw": lambda: _grads(lambda x, w: F.conv2d(x, w, padding=1), det(20, 16, 16, 16),
                                    det(32, 16, 3, 3, salt=3)),
        "conv_cl": lambda: _grads(lambda x, w: F.conv2d(x.contiguous(memory_format=torch.channels_last), w, padding=1),
                                  det(20, 3, 32, 32), det(16, 3, 3, 3, salt=3)),
        "conv1x1": lambda: _grads(F.conv2d, det(20, 64, 4, 4), det(128, 64, 1, 1, salt=3), det(128, salt=4)),
        "batchnorm": lambda: _grads(_batch_norm, det(20, 16, 8, 8), det(16, salt=5) + 1, det(16, salt=6)),
        "avgpool": lambda: _grads(lambda x: F.avg_pool2d(x, 2), det(20, 16, 8, 8)),
        "normalize": lambda: _grads(lambda x: F.normalize(x, dim=1), det(20, 64, 4, 4)),
        "tanh": lambda: _grads(torch.tanh, det(1000, 37)),
        "exp": lambda: _grads(torch.exp, det(1000, 37)),
        "log_softmax": lambda: _grads(lambda x: F.log_softmax(x * 10, dim=1), det(100, 333)),
        "sigmoid": lambda: _grads(torch.sigmoid, det(1000, 37)),
        "relu_sum": lambda: _grads(lambda x: torch.relu(x).sum(1), det(100, 4096)),
        "sum_big": lambda: digest(det(1_000_003).sum(), det(1000, 1001).sum(0), det(1000, 1001).sum(1),
                                  det(1000, 1001).mean()),
        "lstm": _lstm,
        "embedding": _embedding,
        "index_select": lambda: _grads(lambda x: x.index_select(0, torch.tensor([0, 2, 2, 1, 0, 3])), det(4, 64, 16)),
        "init_rand": _init,
        "dropout": _dropout,
        "adam": lambda: _adam_steps(None),  # the per-tensor Adam (through torch's float32 sqrt)
        "scatter_add": _scatter,
        "mm_via_sum": lambda: digest((det(48, 128)[:, :, None] * det(128, 128, salt=1)[None]).sum(1)),
        "mm_f64": lambda: digest(det(512, 600).double() @ det(600, 700, salt=1).double()),
        "mv": lambda: digest(det(512, 600) @ det(600, salt=1)),
        "dot": lambda: digest(torch.dot(det(100001), det(100001, salt=1))),
        "mm_tiny": lambda: digest(det(2, 3) @ det(3, 4, salt=1), det(1, 128) @ det(128, 1, salt=1)),
        "adam_fused": lambda: _adam_steps(True),
        "sqrt": lambda: digest((det(256, 256, salt=2).abs()).sqrt()),
        # the attention models' softmax over regions and words (its backward differs between
        # torch 2.11 and 2.13 under the AVX2 kernels: docs/benchmarks.md, "A second CPU")
        "softmax": lambda: _grads(lambda x: torch.softmax(x * 2, dim=-1), det(64, 49)),
        "softmax_wide": lambda: _grads(lambda x: torch.softmax(x * 2, dim=-1), det(64, 100)),
        # the softmax the attention models use since (plugins/models/softmax.py): torch 2.13.0's
        # AVX2 backward written with elementwise ops; the same digest under 2.11 and 2.13
        "softmax_models": lambda: _grads(lambda x: softmax_lastdim(x * 2), det(64, 49)),
        "softmax_models_wide": lambda: _grads(lambda x: softmax_lastdim(x * 2), det(64, 100)),
        # MCB's signed square root in float64: torch's CPU sqrt (MKL's vector math, whose bits
        # differed on an Intel and an AMD CPU) and the correctly rounded one MCB uses since
        "sqrt_f64": lambda: digest((det(256, 256, salt=2).double().abs() * 1e3).sqrt()),
        "exact_sqrt_f64": lambda: digest(exact_sqrt(det(256, 256, salt=2).double().abs() * 1e3)),
    }
    with KERNELS(1):
        return {name: probe() for name, probe in probes.items()}


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
    training.adam = _trainer_adam  # the trainer's optimizer (the previous numerics: per-tensor Adam)
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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--previous", action="store_true", help="the numerics before issue 27")
    parser.add_argument("--ops-only", action="store_true")
    args = parser.parse_args(argv)
    with contextlib.redirect_stdout(sys.stderr):  # progress (the trainer's epoch lines) to stderr
        cpu = environment()["cpu"]
        out: dict[str, Any] = {"numerics": "previous" if args.previous else "current", "cpu": cpu["model"],
                               "vendor": cpu["vendor"], "torch": torch.__version__,
                               "python": platform.python_version(), "ops": ops()}
        if not args.ops_only:
            out["training"] = train(args.epochs)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
