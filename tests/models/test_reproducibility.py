"""The same trained model and the same predictions whatever the process's thread settings, in
separate processes: training on one thread (TRAINING_THREADS), predictions on the `threads`
option's count, with the pinned numerics of harness/__init__.py (MKL's COMPATIBLE branch, AVX2
kernels) and `reproducible_cpu` (no oneDNN, no NNPACK). Machine independence itself was
measured on two CPU models (docs/models.md, "Training"); here the thread settings vary."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from test_cnnlstm import FAST, draw_scenes

SCRIPT = """
import hashlib, json, sys
from pathlib import Path
from harness.types import Example
from vqa_harness_plugins.models.cnnlstm import CNNLSTMModel
from vqa_harness_plugins.models.qonly import QOnlyModel

data = json.loads(Path(sys.argv[1]).read_text())
train = [Example.from_row(r) for r in data["train"]]
val = [Example.from_row(r) for r in data["val"]]
threads = int(sys.argv[2])
out = {}
for cls, options in ((CNNLSTMModel, data["cnn"]), (QOnlyModel, data["qonly"])):
    model = cls(**{**options, "threads": threads})
    model.fit(train, seed=0)
    logp = model.log_probs(val)
    out[cls.name] = hashlib.sha256(logp.numpy().tobytes()).hexdigest()
print(json.dumps(out))
"""


def _train_in_processes(data: Path, *settings: tuple[int, str, Path]) -> list[dict]:
    """One process per (threads, OMP_NUM_THREADS, cache), side by side (the suite uses one of
    CI's two cores; the bits do not depend on what else runs)."""
    procs = [subprocess.Popen([sys.executable, "-c", SCRIPT, str(data), str(threads)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True,
                              env={**os.environ, "OMP_NUM_THREADS": omp, "VQA_HARNESS_CACHE": str(cache)})
             for threads, omp, cache in settings]
    out = []
    for proc in procs:
        stdout, stderr = proc.communicate(timeout=300)
        assert proc.returncode == 0, stderr[-3000:]
        out.append(json.loads(stdout.strip().splitlines()[-1]))
    return out


def test_training_and_predictions_do_not_depend_on_thread_settings(tmp_path: Path) -> None:
    train = draw_scenes(tmp_path / "train", 64, seed=0)
    val = draw_scenes(tmp_path / "val", 24, seed=1)
    data = tmp_path / "data.json"
    data.write_text(json.dumps({
        "train": [ex.to_row() for ex in train], "val": [ex.to_row() for ex in val],
        "cnn": {**FAST, "epochs": 3, "batch_size": 32},
        "qonly": {"epochs": 3, "hidden": 64, "batch_size": 16},
    }))
    # Separate caches: each process trains (a weight-cache hit would prove nothing).
    one, other_omp = _train_in_processes(data, (1, "1", tmp_path / "c1"), (1, "2", tmp_path / "c2"))
    assert one == other_omp and set(one) == {"cnn-lstm", "qonly"}
    # Two threads: the same bits again for that count (not necessarily those of one thread,
    # hence `threads_key` in the prediction fingerprint).
    two, two_other_omp = _train_in_processes(data, (2, "2", tmp_path / "c3"), (2, "1", tmp_path / "c4"))
    assert two == two_other_omp


def test_the_thread_count_is_part_of_the_prediction_fingerprint_but_not_of_the_weights() -> None:
    from vqa_harness_plugins.models.qonly import QOnlyModel

    one, two = QOnlyModel(threads=1), QOnlyModel(threads=2)
    assert one.fingerprint_config() == two.fingerprint_config()  # the weights key's part
    assert one.fingerprint_extra() != two.fingerprint_extra()


def test_a_deferred_fit_keys_its_predictions_by_the_thread_count_too(tmp_path):
    """`threads` changes a trained model's predictions in the last bits (runtime.threads_key):
    a run with threads=2 must not reuse the predictions cached by a one-thread run, also when
    the fit is deferred (the prediction fingerprint is then made from `fit_key`)."""
    from harness.testing import make_host, run_in_process

    host = make_host(builtins=True)
    cache = tmp_path / "cache.sqlite"
    calls = [run_in_process(host, model=spec, suite="vqa-accuracy", tmp_path=tmp_path / spec.replace(",", "_"),
                            limit=20, cache_path=cache, reuse_outputs=False).model_calls
             for spec in ("qonly:epochs=1", "qonly:epochs=1,threads=2", "qonly:epochs=1")]
    assert calls[0] > 0 and calls[1] == calls[0] and calls[2] == 0
