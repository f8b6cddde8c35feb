"""cnn-lstm on tiny synthetic scenes: learns color from pixels, cache, batch invariance."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from harness.errors import DataError, UsageError
from harness.host import PluginHost
from harness.types import BLANK_IMAGE, Example
from vqa_harness_plugins import baselines
from vqa_harness_plugins.models.cnnlstm import CNNLSTMModel, decode_images

COLORS = {
    "red": (220, 30, 30),
    "green": (30, 170, 30),
    "blue": (30, 30, 220),
    "yellow": (230, 220, 30),
}
# Small and quick: 16x16 inputs, few epochs, one thread.
FAST = {
    "epochs": 10,
    "hidden": 32,
    "embed": 16,
    "channels": 8,
    "image_size": 16,
    "batch_size": 16,
    "lr": 0.01,
    "dropout": 0.0,
    "threads": 1,
}


def draw_scenes(folder: Path, n: int, seed: int) -> list[Example]:
    """One colored box per gray image; the question cannot tell the color, the pixels can."""
    from PIL import Image, ImageDraw

    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for i in range(n):
        color = rng.choice(sorted(COLORS))
        image = Image.new("RGB", (32, 32), (128, 128, 128))
        x, y = rng.randint(0, 16), rng.randint(0, 16)
        ImageDraw.Draw(image).rectangle([x, y, x + 13, y + 13], fill=COLORS[color])
        path = folder / f"{i}.png"
        image.save(path)
        question = rng.choice(["what color is the box?", "which color does the box have?"])
        out.append(
            Example(
                id=f"{seed}-{i}",
                question=question,
                image=str(path),
                image_id=str(i),
                answers=(color,) * 10,
                label=color,
            )
        )
    return out


@pytest.fixture(scope="module")
def scenes(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Example], list[Example]]:
    root = tmp_path_factory.mktemp("scenes")
    return draw_scenes(root / "train", 96, seed=0), draw_scenes(root / "val", 40, seed=1)


@pytest.fixture(scope="module")
def trained(scenes, tmp_path_factory: pytest.TempPathFactory) -> CNNLSTMModel:
    mp = pytest.MonkeyPatch()
    mp.setenv("VQA_HARNESS_CACHE", str(tmp_path_factory.mktemp("cache")))
    try:
        model = CNNLSTMModel(**FAST)
        model.fit(scenes[0], seed=0)
    finally:
        mp.undo()
    return model


def test_learns_color_from_the_image(trained: CNNLSTMModel, scenes) -> None:
    val = scenes[1]
    answers = trained.answer(val)
    accuracy = sum(a.text == ex.label for a, ex in zip(answers, val)) / len(val)
    # Chance is 1/4 and the question carries no information.
    assert accuracy >= 0.9
    assert all(sum(a.scores.values()) == pytest.approx(1.0, abs=1e-5) for a in answers)
    choices = [
        ex.with_(choices=(ex.label, "purple", *sorted(set(COLORS) - {ex.label}))) for ex in val[:5]
    ]
    for scores in trained.score_choices(choices):
        assert scores[0] == max(scores) and scores[1] == -1e9


def test_answers_do_not_depend_on_batch_size(trained: CNNLSTMModel, scenes) -> None:
    import torch

    batch = scenes[1][:11] + [
        scenes[1][0].with_(image=BLANK_IMAGE),
        scenes[1][1].with_(question="zzz unknown"),
    ]
    reference = trained.answer(batch)
    ref_logp = trained.log_probs(batch)
    for size in (1, 3, 8):
        got, logp = [], []
        for i in range(0, len(batch), size):
            got += trained.answer(batch[i : i + size])
            logp.append(trained.log_probs(batch[i : i + size]))
        assert [a.text for a in got] == [a.text for a in reference]
        for a, b in zip(got, reference):
            assert all(abs(a.scores[k] - b.scores[k]) < 1e-6 for k in b.scores)
        assert torch.allclose(torch.cat(logp), ref_logp, rtol=1e-6, atol=1e-6)


def test_cache_hit_skips_training(scenes, fresh_cache, monkeypatch: pytest.MonkeyPatch) -> None:
    train = scenes[0][:32]
    options = {**FAST, "epochs": 1}
    first = CNNLSTMModel(**options)
    first.fit(train, seed=0)
    assert first.last_fit_trained

    def boom(*args, **kwargs):
        raise AssertionError("training ran despite cached weights")

    monkeypatch.setattr(CNNLSTMModel, "_train", boom)
    second = CNNLSTMModel(**options)
    second.fit(train, seed=0)
    assert not second.last_fit_trained
    assert second.fingerprint() == first.fingerprint()
    assert second.answer(scenes[1][:4]) == first.answer(scenes[1][:4])


def test_train_key_follows_pixels_config_and_seed(scenes, tmp_path: Path) -> None:
    from PIL import Image

    train = scenes[0][:8]
    model = CNNLSTMModel(**FAST)
    key = model.weights_key(train, 0)
    assert key == CNNLSTMModel(**FAST).weights_key(list(train), 0)
    assert key != model.weights_key(train, 1)
    assert key != CNNLSTMModel(**{**FAST, "hidden": 16}).weights_key(train, 0)
    # Same path, new pixels: the images are training data too.
    copy = tmp_path / "copy.png"
    Image.open(train[0].image).save(copy)
    moved = [train[0].with_(image=str(copy)), *train[1:]]
    before = model.weights_key(moved, 0)
    Image.new("RGB", (32, 32), (0, 0, 0)).save(copy)
    assert model.weights_key(moved, 0) != before


def test_untrained_and_missing_images(scenes, tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="cnn-lstm"):
        CNNLSTMModel().answer(scenes[1][:1])
    with pytest.raises(DataError, match="missing.png"):
        decode_images([str(tmp_path / "missing.png")], 16)
    blank = decode_images([BLANK_IMAGE], 8)
    assert blank.shape == (1, 3, 8, 8) and int(blank.float().std()) == 0


def test_registers_cnn_lstm() -> None:
    host = PluginHost(load_entry_points=False, extra_plugins=[("baselines", baselines)])
    assert not host.failures
    assert "cnn-lstm" in host.models.names()
    assert host.models["cnn-lstm"]().trainable


def test_gradients_are_bit_reproducible_with_two_threads() -> None:
    # Guards against ops whose CPU backward accumulates in thread order (as `x[index]`
    # does): 192 rows share 48 images, big enough for torch to split work across threads.
    import torch

    from vqa_harness_plugins.models.cnnlstm import _net_class
    from vqa_harness_plugins.models.training import reproducible_cpu

    torch.manual_seed(0)
    net = _net_class()(n_words=30, n_answers=20, hidden=128, embed=16, channels=8, dropout=0.0)
    images = torch.randint(0, 256, (48, 3, 32, 32), dtype=torch.uint8)
    rows = torch.arange(192) % 48
    tokens = torch.randint(2, 30, (192, 6))
    lengths = torch.randint(1, 7, (192,))
    grads = []
    with reproducible_cpu(2):
        for _ in range(8):
            net.zero_grad()
            net(images, rows, tokens, lengths).square().sum().backward()
            grads.append(
                torch.cat([p.grad.flatten() for p in net.parameters() if p.grad is not None])
            )
    assert all(torch.equal(g, grads[0]) for g in grads[1:])
