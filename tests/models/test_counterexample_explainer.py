"""The counter-example explainer (Goyal et al. 2017 §5) on tiny grid data: explanation sets
by hand, shapes, a seed fixes the model, the loss goes down, scores, answers and answer
log-probabilities do not depend on the batch size, scores not on the order the candidates
come in."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from helpers_grid import COLORS, SHAPES, grid_of, write_grids

from harness.types import BLANK_IMAGE, CANDIDATE_IMAGES, Example
from vqa_harness_plugins.models.counterexample import CounterExampleExplainer, explanation_sets

K = 4
TINY = {"hidden": 16, "embed": 8, "batch_size": 16, "epochs": 20, "lr": 0.01, "k": K, "threads": 1}


def _pairs(n: int, seed: int, prefix: str) -> tuple[list[Example], dict, dict]:
    """n scenes and their complements (same shape, another color, 0.1 away in neighbour
    space); the question asks the color of the shape."""
    rng = random.Random(seed)
    examples, grids, points = [], {}, {}
    for i in range(n):
        shape, cell = rng.randrange(2), rng.randrange(4)
        colors = rng.sample(range(4), 2)
        point = np.array([rng.uniform(0, 10), rng.uniform(0, 10)])
        for side, color in zip(("", "c"), colors):
            image = f"{prefix}{i}{side}"
            grids[image] = grid_of(color, shape, cell)
            points[image] = point + (0.1 if side else 0.0)
        qid = f"{prefix}q{i}"
        for side, color, other in (("", colors[0], "c"), ("c", colors[1], "")):
            examples.append(Example(id=qid + side, question=f"what color is the {SHAPES[shape]}?",
                                    image_id=f"{prefix}{i}{side}", image=f"/nonexistent/{prefix}{i}{side}.png",
                                    answers=(COLORS[color],) * 10, label=COLORS[color], pair_id=qid + other))
    return examples, grids, points


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> dict:
    root = tmp_path_factory.mktemp("explainer")
    train, g1, p1 = _pairs(40, 0, "t")
    val, g2, p2 = _pairs(12, 1, "v")
    points = {**p1, **p2}
    ids = sorted(points)
    neighbours = root / "neighbours.npz"
    np.savez(neighbours, ids=np.array(ids), features=np.stack([points[i] for i in ids]))
    options = {**TINY, "grid": write_grids(root / "grids.npz", {**g1, **g2}), "neighbour_features": str(neighbours)}
    # Candidates of a val question: its complement and K-1 other val images, in a fixed order.
    queries = []
    val_images = sorted(p2)
    for n, ex in enumerate(val[::2]):
        others = [i for i in val_images if i not in (ex.image_id, ex.image_id + "c")][n % 5: n % 5 + K - 1]
        cands = [others[0], ex.image_id + "c", *others[1:]]
        queries.append(ex.with_(meta={CANDIDATE_IMAGES: [[c, f"/nonexistent/{c}.png"] for c in cands]}))
    return {"train": train, "queries": queries, "options": options}


def test_explanation_sets_are_the_k_nearest_with_the_complement() -> None:
    train = [Example(id="a", question="q", image_id="i0", pair_id="b"),
             Example(id="b", question="q", image_id="i1", pair_id="a"),
             Example(id="c", question="q", image_id="i2", pair_id="d"),
             Example(id="d", question="q", image_id="i9", pair_id="c"),
             Example(id="e", question="q", image_id="i3")]
    feats = {f"i{n}": np.array([float(n)]) for n in (0, 1, 2, 3, 4, 9)}
    sets = explanation_sets(train, feats, 2)
    # a (i0): i1, i2, its complement i1 among them; b (i1): i0 and i2 tie at 1, id order;
    # c (i2): i1, i3 (tie, id order) without its complement i9; d (i9): i4, i3 without i2;
    # e has no pair.
    assert sets == {0: ["i1", "i2"], 1: ["i0", "i2"]}


def test_explainer_trains_ranks_and_is_reproducible(data, fresh_cache) -> None:
    model = CounterExampleExplainer(**data["options"])
    assert model.capabilities() == {"answer", "score_choices", "score_images", "fit"}
    model.fit(data["train"], seed=0)
    assert model.explained == len(data["train"])  # every complement is the nearest image
    history = model.loss_history
    assert len(history) == TINY["epochs"] and history[-1] < 0.5 * history[0]
    queries = data["queries"]
    answers = [q.label for q in queries]
    scores = model.score_images(queries, answers)
    assert [len(s) for s in scores] == [K] * len(queries)
    # The complement (position 1) is the best counter-example for most questions.
    assert np.mean([int(np.argmax(s)) == 1 for s in scores]) >= 0.75
    assert len(model.answer(queries)) == len(queries)
    # Same seed on an empty cache: identical; another seed: different.
    fresh_cache.rename(fresh_cache.with_name("old-cache"))
    again = CounterExampleExplainer(**data["options"])
    again.fit(data["train"], seed=0)
    assert again.loss_history == history and again.score_images(queries, answers) == scores
    other = CounterExampleExplainer(**data["options"])
    other.fit(data["train"], seed=1)
    assert not np.allclose(other.score_images(queries, answers), scores)


def test_scores_ignore_batch_size_and_candidate_order(data, fresh_cache) -> None:
    model = CounterExampleExplainer(**data["options"])
    model.fit(data["train"], seed=0)
    queries = data["queries"]
    answers = [q.label for q in queries]
    whole = model.score_images(queries, answers)
    singles = [s for q, a in zip(queries, answers) for s in model.score_images([q], [a])]
    assert np.allclose(whole, singles, atol=1e-6)
    flipped = [q.with_(meta={CANDIDATE_IMAGES: q.meta[CANDIDATE_IMAGES][::-1]}) for q in queries]
    assert np.allclose([s[::-1] for s in model.score_images(flipped, answers)], whole, atol=1e-6)
    # Another answer to explain changes the scores; an unknown one is allowed.
    assert not np.allclose(model.score_images(queries, ["purple"] * len(queries)), whole)
    with pytest.raises(ValueError, match="k=4 candidate images, got 3"):
        short = queries[0].with_(meta={CANDIDATE_IMAGES: queries[0].meta[CANDIDATE_IMAGES][:3]})
        model.score_images([short], answers[:1])


def test_answers_and_log_probs_ignore_batch_size(data, fresh_cache) -> None:
    model = CounterExampleExplainer(**data["options"])
    model.fit(data["train"], seed=0)
    # The questions on their images and on their complements, a blank image, an unknown word.
    queries = data["queries"]
    batch = [*queries, *(q.with_(image_id=q.image_id + "c", image=q.image.replace(".png", "c.png")) for q in queries),
             queries[0].with_(image=BLANK_IMAGE), queries[1].with_(question="zzz of the box?")]
    whole = model.log_probs(batch).numpy()
    assert whole.shape == (len(batch), len(model.answers))
    answers = [a.text for a in model.answer(batch)]
    for size in (1, 3, 4):
        parts = np.concatenate([model.log_probs(batch[i: i + size]).numpy() for i in range(0, len(batch), size)])
        assert np.allclose(parts, whole, atol=1e-6)
        assert [a.text for i in range(0, len(batch), size) for a in model.answer(batch[i: i + size])] == answers
    # The answering head reads the image: a question and its complement mostly differ.
    n = len(queries)
    assert sum(a != b for a, b in zip(answers[:n], answers[n: 2 * n])) >= n // 2


def test_missing_neighbour_features_name_the_image(data, fresh_cache, tmp_path: Path) -> None:
    from harness.errors import DataError

    model = CounterExampleExplainer(**data["options"])
    model.fit(data["train"], seed=0)
    bad = data["queries"][0].with_(image_id="nowhere")
    with pytest.raises(DataError, match="nowhere"):
        model.score_images([bad], ["red"])


def test_without_complementary_pairs_the_explaining_head_refuses(data, fresh_cache) -> None:
    from harness.errors import UsageError

    model = CounterExampleExplainer(**data["options"])
    model.fit([ex.with_(pair_id="") for ex in data["train"]], seed=0)
    assert model.explained == 0 and model.answer(data["queries"][:1])
    with pytest.raises(UsageError, match="without complementary pairs"):
        model.score_images(data["queries"][:1], ["red"])
