"""The image-ablation probe: derangements, hand-computed rows and intervals, and real models
on tiny colored-box scenes (a question-only model shows no drop, the CNN+LSTM a clear one)."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from harness.inputs import remove_inputs
from harness.perexample import read_scores
from harness.testing import dataset_plugin, make_host, run_in_process, use_host
from harness.types import BLANK_IMAGE, Example, Prediction, ResultRow
from vqa_harness_plugins.probes.ablation import ImageAblationProbe, image_derangement, paired_drop

COLORS = {"red": (220, 30, 30), "green": (30, 170, 30), "blue": (30, 30, 220), "yellow": (230, 220, 30)}
CNN_FAST = "cnn-lstm:epochs=10,hidden=32,embed=16,channels=8,image_size=16,batch_size=16,lr=0.01,dropout=0.0,threads=1"


# ------------------------------------------------------------------ derangements


def test_derangement_gives_every_question_another_image_within_its_type() -> None:
    images = ["a", "a", "b", "b", "c", "c", "d", "e", "e", "f"]
    types = ["color"] * 6 + ["count"] * 4
    plan = image_derangement(images, types, seed=3)
    assert plan.left_out == 0 and plan.within_group == 10 and plan.across_groups == 0
    for i, d in enumerate(plan.donor):
        assert d is not None and images[d] != images[i] and types[d] == types[i]
    assert image_derangement(images, types, seed=3) == plan  # seeded
    assert image_derangement(images, types, seed=4) != plan


def test_derangement_pools_types_that_cannot_be_deranged_and_leaves_out_the_impossible() -> None:
    # Type "one" has both questions on one image and "solo"/"solo2" one question each: the
    # four are pooled and deranged across types.
    images = ["a", "a", "b", "c", "d", "e", "f"]
    types = ["one", "one", "solo", "solo2", "many", "many", "many"]
    plan = image_derangement(images, types, seed=0)
    assert (plan.within_group, plan.across_groups, plan.left_out) == (3, 4, 0)
    for i, d in enumerate(plan.donor):
        assert images[d] != images[i]
    # Three questions on one image out of four: no assignment exists for all of them.
    plan = image_derangement(["a", "a", "a", "b"], None, seed=0)
    assert plan.left_out == 4 and set(plan.donor) == {None}


# ------------------------------------------------------------------ hand-computed rows


def test_paired_drop_interval_by_hand() -> None:
    assert paired_drop(np.array([1.0, 1.0, 0.3]), np.array([0.5, 0.5, -0.2]), seed=0) == (0.5, 0.5, 0.5)
    # Differences (1, 0): resampled means are 0, 0.5, 1 with probability 1/4, 1/2, 1/4, so the
    # 2.5% and 97.5% quantiles are 0 and 1.
    drop, low, high = paired_drop(np.array([1.0, 0.0]), np.array([0.0, 0.0]), seed=0, n_boot=4000)
    assert (drop, low, high) == (0.5, 0.0, 1.0)


@dataclass
class FakeContext:
    """A ProbeContext whose model answers from a script: condition -> answers by example id."""

    examples: list[Example]
    script: dict[str, dict[str, str]]
    tmp: Path
    labelled: bool = True
    seed: int = 0
    probe: str = "image-ablation"
    dataset: str = "hand"
    split: str = "val"
    train: str = ""
    model_inputs: frozenset[str] | None = None
    rows_made: list[ResultRow] = field(default_factory=list)
    missing: list[tuple[str, str]] = field(default_factory=list)
    reports: list[str] = field(default_factory=list)

    def predict(self, examples, capability, *, variant="", answers=None, show_choices=False):
        by_id = self.script[variant or "real"]
        return [Prediction(ex.id, capability, answer=by_id[ex.id]) if by_id[ex.id] is not None
                else Prediction(ex.id, capability, error="plugin scripted: failed") for ex in examples]

    def row(self, metric, value, n, *, ci=None, variant="", higher_is_better=True, unit="fraction", dataset=None):
        return ResultRow("run", "m", "s", self.dataset, self.split, self.probe, variant, metric, value, n,
                         None if ci is None else ci[0], None if ci is None else ci[1], higher_is_better, unit)

    def report(self, markdown: str) -> None:
        self.reports.append(markdown)

    def metric_unavailable(self, metric: str, reason: str) -> None:
        self.missing.append((metric, reason))

    def artifact(self, name: str) -> Path:
        path = self.tmp / "artifacts" / self.probe / name
        path.parent.mkdir(parents=True, exist_ok=True)
        return path

    def tag(self, name: str, value: str) -> None:  # pragma: no cover - unused
        pass

    def ablate(self, examples, remove):
        return remove_inputs(examples, remove)


def test_rows_and_intervals_by_hand(tmp_path: Path) -> None:
    # Four questions on four images, each answered "red" by all 10 humans. With the real
    # image every answer is right; with the gray image one is; the swapped image changes one
    # answer; without the question all four change.
    exs = [Example(id=f"q{i}", question="what color is the box?", image=f"img{i}.png", image_id=str(i),
                   answers=("red",) * 10, question_type="what color") for i in range(4)]
    script = {"real": {f"q{i}": "red" for i in range(4)},
              "blank": {"q0": "red", "q1": "gray", "q2": "gray", "q3": "gray"},
              "swap": {"q0": "red", "q1": "blue", "q2": "red", "q3": "red"},
              "no-question": {f"q{i}": "yes" for i in range(4)}}
    ctx = FakeContext(exs, script, tmp_path)
    rows = {(r.variant, r.metric): r for r in ImageAblationProbe().run(ctx)}
    assert rows[("real", "vqa_accuracy")].value == 1.0
    assert rows[("blank", "vqa_accuracy")].value == 0.25
    assert rows[("blank", "vqa_accuracy_drop")].value == 0.75
    blank_change = rows[("blank", "answer_change_rate")]
    assert (blank_change.value, blank_change.n) == (0.75, 4)
    assert blank_change.ci_low == pytest.approx(0.300641842582402) and blank_change.ci_high == pytest.approx(0.9544127391902995)
    assert rows[("swap", "vqa_accuracy")].value == 0.75
    assert rows[("swap", "answer_change_rate")].value == 0.25
    assert rows[("no-question", "answer_change_rate")].value == 1.0
    no_q = rows[("no-question", "vqa_accuracy_drop")]
    assert (no_q.value, no_q.ci_low, no_q.ci_high) == (1.0, 1.0, 1.0)
    assert ctx.missing == []
    # The per-example scores average to the rows (what `harness compare` pairs up).
    found, problems = read_scores(tmp_path)
    assert problems == []
    by_variant: dict[str, dict[str, tuple]] = {}
    for scores in found:
        assert scores.ids == ("q0", "q1", "q2", "q3")
        by_variant.setdefault(scores.variant, {}).update(scores.scores)
    assert sorted(by_variant) == ["blank", "no-question", "real", "swap"]
    blank = by_variant["blank"]
    assert blank["vqa_accuracy"] == (1.0, 0.0, 0.0, 0.0)
    assert blank["vqa_accuracy_drop"] == (0.0, 1.0, 1.0, 1.0)
    assert blank["answer_change_rate"] == (0.0, 1.0, 1.0, 1.0)
    for (variant, metric), row in rows.items():
        assert sum(by_variant[variant][metric]) / 4 == pytest.approx(row.value)


def test_a_failed_prediction_is_never_read_as_a_drop(tmp_path: Path) -> None:
    exs = [Example(id=f"q{i}", question="what color?", image=f"img{i}.png", image_id=str(i),
                   answers=("red",) * 10, question_type="what color") for i in range(4)]
    script = {"real": {f"q{i}": "red" for i in range(4)},
              "blank": {"q0": "red", "q1": None, "q2": None, "q3": "gray"},  # two failures
              "swap": {f"q{i}": None for i in range(4)},  # all failed: no swap rows at all
              "no-question": {f"q{i}": "red" for i in range(4)}}
    ctx = FakeContext(exs, script, tmp_path)
    rows = {(r.variant, r.metric): r for r in ImageAblationProbe().run(ctx)}
    drop = rows[("blank", "vqa_accuracy_drop")]
    assert (drop.value, drop.n) == (0.5, 2)  # q0 kept its answer, q3 lost it; q1, q2 left out
    assert not any(v == "swap" for v, _ in rows)
    assert any("swap" in m and "failed on every question" in r for m, r in ctx.missing)
    assert any("blank: 2 question(s) left out" in r for r in ctx.reports)


def test_conditions_a_model_cannot_see_are_not_run(tmp_path: Path) -> None:
    exs = [Example(id=f"q{i}", question="what color?", image=f"img{i}.png", image_id=str(i),
                   answers=("red",) * 10, question_type="what color") for i in range(4)]
    script = {"real": {f"q{i}": "red" for i in range(4)}, "no-question": {f"q{i}": "yes" for i in range(4)}}
    ctx = FakeContext(exs, script, tmp_path, model_inputs=frozenset({"question"}))  # e.g. MLP-QA
    rows = {(r.variant, r.metric) for r in ImageAblationProbe().run(ctx)}
    assert {v for v, _ in rows} == {"real", "no-question"}
    assert [m for m, _ in ctx.missing] == ["vqa_accuracy_drop (blank)", "vqa_accuracy_drop (swap)"]
    assert all("does not read the image" in r for _, r in ctx.missing)


# ------------------------------------------------------------------ real models


def _scenes(folder: Path, n: int, seed: int) -> list[Example]:
    """One colored box per gray image: the question cannot tell the color, the pixels can."""
    from PIL import Image, ImageDraw

    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for i in range(n):
        color = rng.choice(sorted(COLORS))
        image = Image.new("RGB", (32, 32), (128, 128, 128))
        x, y = rng.randint(0, 16), rng.randint(0, 16)
        ImageDraw.Draw(image).rectangle([x, y, x + 13, y + 13], fill=COLORS[color])
        image.save(folder / f"{i}.png")
        question = rng.choice(["what color is the box?", "which color does the box have?"])
        out.append(Example(id=f"{seed}-{i}", question=question, image=str(folder / f"{i}.png"), image_id=f"{seed}-{i}",
                           answers=(color,) * 10, question_type="what color", answer_type="other"))
    return out


@pytest.fixture(scope="module")
def box_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("boxes")
    plugin = dataset_plugin("boxes", {"train": _scenes(root / "train", 96, 0), "val": _scenes(root / "val", 40, 1)},
                            suite="boxes-ablation", probes=("image-ablation",))
    host = make_host(plugin, builtins=True)
    mp = pytest.MonkeyPatch()
    mp.setenv("VQA_HARNESS_CACHE", str(root / "cache"))
    out = {}
    try:
        with use_host(host):
            for name, spec in (("qonly", "qonly:epochs=3,threads=1"), ("cnn-lstm", CNN_FAST)):
                outcome = run_in_process(host, model=spec, suite="boxes-ablation", tmp_path=root / name)
                assert outcome.exit_code == 0, outcome.probe_failures
                out[name] = outcome
    finally:
        mp.undo()
    return out


def _by(outcome) -> dict[tuple[str, str], ResultRow]:
    return {(r.variant, r.metric): r for r in outcome.rows}


def test_a_question_only_model_shows_no_drop_and_no_answer_change(box_runs) -> None:
    rows = _by(box_runs["qonly"])
    for cond in ("blank", "swap"):
        drop, change = rows[(cond, "vqa_accuracy_drop")], rows[(cond, "answer_change_rate")]
        assert (drop.value, drop.ci_low, drop.ci_high) == (0.0, 0.0, 0.0)
        assert change.value == 0.0 and change.n == 40
        assert rows[(cond, "vqa_accuracy")].value == rows[("real", "vqa_accuracy")].value


def test_the_cnn_lstm_shows_a_clear_drop(box_runs) -> None:
    rows = _by(box_runs["cnn-lstm"])
    assert rows[("real", "vqa_accuracy")].value >= 0.8
    for cond in ("blank", "swap"):
        drop = rows[(cond, "vqa_accuracy_drop")]
        assert drop.value >= 0.4 and drop.ci_low > 0.2, drop
        assert rows[(cond, "answer_change_rate")].value >= 0.4
    # The swap kept the question type and never reused a question's own image.
    outcome = box_runs["cnn-lstm"]
    swap = [json.loads(line) for line in (outcome.rundir.path / "predictions" / "boxes" / "val" / "default"
                                          / "image-ablation" / "swap.jsonl").read_text().splitlines()]
    assert len(swap) == 40
    assert "40 of 40 questions got the image of another question of the same question type" in \
        (outcome.rundir.path / "report.md").read_text()


def test_blank_condition_uses_the_gray_sentinel() -> None:
    # The gray image is the harness's sentinel, which every image-reading model decodes as gray.
    from harness.images import load_image

    assert load_image(BLANK_IMAGE, (4, 4)).getpixel((0, 0)) == (128, 128, 128)


def test_accuracy_under_an_ablated_input_has_no_better_direction(box_runs, capsys) -> None:
    # A question-only model keeps its accuracy with a gray image: that is not "better" than a
    # model that uses the image. Only the real-image accuracy and the drops have a direction.
    from vqa_harness_cli import main
    from vqa_harness_leaderboard import collect, tables_of
    from vqa_harness_leaderboard.paired import ScoreIndex
    from vqa_harness_leaderboard.sigmarks import mark_table

    rows = _by(box_runs["qonly"])
    assert rows[("real", "vqa_accuracy")].higher_is_better is True
    for cond in ("blank", "swap", "no-question"):
        assert rows[(cond, "vqa_accuracy")].higher_is_better is None
        assert rows[(cond, "vqa_accuracy_drop")].higher_is_better is True
    qonly, cnn = (box_runs[k].rundir.path for k in ("qonly", "cnn-lstm"))
    assert main(["compare", str(qonly), str(cnn), "--n-boot", "500", "--probe", "image-ablation", "--wide"]) == 0
    lines = capsys.readouterr().out.splitlines()

    def better(variant: str, metric: str) -> str:
        line = next(ln for ln in lines if f"| {variant} " in ln and f"| {metric} " in ln)
        return line.strip().strip("|").split("|")[-1].strip()

    assert better("blank", "vqa_accuracy") == "-" and better("swap", "vqa_accuracy") == "-"
    assert better("real", "vqa_accuracy") == "B"  # the CNN+LSTM, significantly
    # The leaderboard: no arrow on the ablated columns, and none of their cells is bold.
    table = next(t for t in tables_of([qonly, cnn]).values() for t in t if t.layout_id == "ablation-accuracy")
    table = mark_table(table, ScoreIndex(collect([qonly, cnn]).runs)).compact()
    heads = dict(zip(table.headers, table.directions))
    assert heads["real"] == "↑" and heads["gray"] == heads["swapped"] == heads["no question"] == ""
    gray = table.headers.index("gray")
    assert all(m[gray][0] == "" and "best" not in m[gray][1] for m in table.marks)  # the row-above test only
    assert any(m[table.headers.index("real")][0] == "best" for m in table.marks)
