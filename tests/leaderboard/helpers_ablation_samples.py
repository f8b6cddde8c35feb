"""SYNTHETIC image-ablation runs for the leaderboard tests (see helpers_samples.py): rows whose
values are the means of per-question scores written next to them (so the paired tests of
the reliance table run), and an example file whose pictures are small PNG files of a
sample "dataset" folder (one picture names a file that does not exist)."""

from __future__ import annotations

import math
import random
from pathlib import Path

from PIL import Image

from harness.perexample import write_scores
from harness.project import SCHEMA_VERSION
from harness.rundir import DEFAULT_TASK, safe_name
from harness.showcase import Picture, Shown, write_examples
from harness.types import BLANK_IMAGE

__all__ = ["ABLATION_MODELS", "ablation_rows", "write_ablation_files"]

#: model -> (accuracy with the real image, with a gray image, with another question's image).
ABLATION_MODELS = {"prior": (0.30, 0.30, 0.30), "qonly": (0.50, 0.50, 0.50), "cnn-lstm": (0.62, 0.36, 0.40),
                   "mlp-iqa": (0.60, 0.37, 0.41)}
N = 200
DATA = "toyvqa:variant=balanced"
TRAIN = "toyvqa:variant=balanced/train"


def _vectors(model: str) -> dict[str, list[float]]:
    rng = random.Random(f"ablation/{model}")
    real_p, blank_p, swap_p = ABLATION_MODELS[model]
    real = [float(rng.random() < real_p) for _ in range(N)]
    out = {"real": real}
    for cond, p in (("blank", blank_p), ("swap", swap_p), ("no-question", real_p * 0.5)):
        # An image-blind model answers the same with any image: its scores do not move.
        out[cond] = list(real) if p == real_p and cond != "no-question" else [float(rng.random() < p) for _ in range(N)]
    return out


def _interval(values: list[float]) -> tuple[float, float]:
    m = sum(values) / len(values)
    sd = math.sqrt(sum((v - m) ** 2 for v in values) / max(1, len(values) - 1))
    half = 1.96 * sd / math.sqrt(len(values))
    return m - half, m + half


def _row(run_id: str, model: str, variant: str, metric: str, values: list[float], hib: bool | None) -> dict:
    low, high = _interval(values)
    return {"schema_version": SCHEMA_VERSION, "run_id": run_id, "model": model, "suite": "image-ablation", "dataset": DATA,
            "split": "val", "probe": "image-ablation", "variant": variant, "metric": metric,
            "value": sum(values) / len(values), "n": len(values), "ci_low": low, "ci_high": high,
            "higher_is_better": hib, "unit": "fraction", "train": TRAIN}


def ablation_rows(rng: random.Random, run_id: str, model: str) -> list[dict]:
    """The rows of one model's run (values: the means of the per-question scores)."""
    v = _vectors(model)
    rows = [_row(run_id, model, "real", "vqa_accuracy", v["real"], True)]
    for cond in ("blank", "swap", "no-question"):
        drop = [a - b for a, b in zip(v["real"], v[cond])]
        change = [float(a != b) for a, b in zip(v["real"], v[cond])]
        rows += [_row(run_id, model, cond, "vqa_accuracy", v[cond], None),
                 _row(run_id, model, cond, "vqa_accuracy_drop", drop, True),
                 _row(run_id, model, cond, "answer_change_rate", change, True)]
    return rows


class _Ctx:
    """What `write_scores` / `write_examples` need of a probe context."""

    def __init__(self, path: Path) -> None:
        self.path, self.probe, self.dataset, self.split, self.train = path, "image-ablation", DATA, "val", TRAIN

    def artifact(self, name: str) -> Path:
        # Where a real run puts a probe's files: artifacts/<probe>/<dataset>/<split>/<task>/.
        out = self.path / "artifacts" / self.probe / safe_name(DATA) / "val" / DEFAULT_TASK / name
        out.parent.mkdir(parents=True, exist_ok=True)
        return out


def _png(path: Path, colour: tuple[int, int, int]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (32, 32), colour).save(path)
    return path


def write_ablation_files(path: Path, model: str, images: Path) -> None:
    """Per-question scores and an example file (pictures under `images`) for one run folder."""
    v = _vectors(model)
    ctx = _Ctx(path)
    ids = [f"q{i}" for i in range(N)]
    write_scores(ctx, ids, {"vqa_accuracy": v["real"]}, variant="real")
    for cond in ("blank", "swap", "no-question"):
        write_scores(ctx, ids, {"vqa_accuracy": v[cond], "vqa_accuracy_drop": [a - b for a, b in zip(v["real"], v[cond])],
                                "answer_change_rate": [float(a != b) for a, b in zip(v["real"], v[cond])]},
                     variant=cond)
    red, blue = _png(images / "red.png", (200, 30, 30)), _png(images / "blue.png", (30, 60, 200))
    answers = {"prior": ("yes", "yes", "yes"), "qonly": ("red", "red", "red")}.get(model, ("red", "gray", "blue"))
    write_examples(ctx, "Answers with the real, a gray and another question's image", [
        Shown("q1", "what color is the ball?", (Picture("real image", str(red)), Picture("gray image", BLANK_IMAGE),
                                                Picture("swapped: the image of q7", str(blue))),
              (("answer, real image", answers[0]), ("answer, gray image", answers[1]),
               ("answer, swapped image", answers[2]), ("human answers", "red (10)"))),
        Shown("q2", "is there a cube?", (Picture("real image", str(images / "not-downloaded.png")),),
              (("answer, real image", "yes"),)),
    ])
