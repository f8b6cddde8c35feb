"""The toy decoy benchmark: telling questions, the toy object detector, A.4 decoy sampling,
and the effect of Chao et al. Table 3 on a small toy world."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from harness.types import BLANK_IMAGE, Example
from vqa_harness_plugins.generators.decoys import eq2_rule

IMAGES = 200


@pytest.fixture(scope="module")
def toy_sets():
    from harness.errors import ResourceError
    from vqa_harness_plugins.datasets.multiple_choice import ToyVQAMC

    try:
        return {v: (ToyVQAMC(images=IMAGES, decoys=v).load("train"), ToyVQAMC(images=IMAGES, decoys=v).load("val"))
                for v in ("orig", "iou+qou")}
    except ResourceError as exc:  # pragma: no cover
        pytest.skip(str(exc))


def test_telling_questions_have_no_yes_no_and_flat_targets(toy_sets) -> None:
    train, _ = toy_sets["orig"]
    assert {ex.meta["family"] for ex in train} == {"color", "object", "counting"}
    targets = Counter(ex.meta["mc_target"] for ex in train)
    assert "yes" not in targets and "no" not in targets
    # No target dominates (toyvqa's "yes" was 30% of all targets): the most frequent is
    # under 10% of the questions, with 8 nouns, 10 colors and counts 0-5 in play.
    assert max(targets.values()) / len(train) < 0.1 and len(targets) >= 22
    per_image = Counter(ex.image_id for ex in train)
    assert min(per_image.values()) >= 5  # enough other targets on an image for 3 IoU decoys
    assert len({ex.question for ex in train if ex.image_id == train[0].image_id}) == per_image[train[0].image_id]


def test_eq2_rule_is_near_chance_on_iou_qou_and_far_above_it_on_orig(toy_sets) -> None:
    def rule_and_chance(variant: str) -> tuple[float, float]:
        train, val = toy_sets[variant]
        rule = eq2_rule([(ex.choices, ex.meta["mc_target"]) for ex in train])
        acc = np.mean([rule.expected_hit(ex.choices, ex.meta["mc_target"]) for ex in val])
        return float(acc), float(np.mean([1 / len(ex.choices) for ex in val]))

    orig, orig_chance = rule_and_chance("orig")
    both, both_chance = rule_and_chance("iou+qou")
    assert orig > orig_chance + 0.2  # the human-style shortcut
    assert both < both_chance + 0.06  # IoU + QoU decoys close it (the paper: 17.7 vs 14.3)


def test_object_detector_recovers_every_toy_scene() -> None:
    from harness.images import load_image
    from vqa_harness_plugins.datasets.toyvqa import ToyVQA
    from vqa_harness_plugins.models.features.toy import (
        OBJECT_FEATURES,
        detect_objects,
        toy_object_features,
    )

    for variant in ("balanced", "unbalanced"):
        data = ToyVQA(variant=variant, images=30)
        scenes = data.scenes("val")
        paths = {ex.image_id: ex.image for ex in data.examples("val")}
        for image_id, scene in scenes.items():
            found = detect_objects(np.asarray(load_image(paths[image_id]).convert("RGB")))
            assert sorted(found) == sorted((o.noun, o.color, o.size, o.cell) for o in scene.objects), image_id
    vec = toy_object_features(next(iter(paths.values())))
    assert vec.shape == (OBJECT_FEATURES,) and abs(float(np.linalg.norm(vec)) - 1) < 1e-6
    assert not toy_object_features(BLANK_IMAGE).any()


def _mc(variant: str, decoys: dict[str, list[str]]) -> Example:
    from vqa_harness_plugins.generators.decoys import variant_choices

    return Example(id="q", question="?", choices=variant_choices("t", decoys, variant, key="q"), label="t",
                   meta={"mc_target": "t", "mc_variant": variant, "decoys": decoys})


def test_training_decoys_come_from_one_decoy_set_per_triplet() -> None:
    from vqa_harness_plugins.models.mlp import training_decoys

    sets = {"orig": ["o1", "o2", "o3"], "iou": ["i1", "i2", "i3"], "qou": ["q1", "q2", "q3"]}
    rng = np.random.default_rng(0)
    seen = Counter()
    for _ in range(300):
        picked = training_decoys(_mc("iou+qou", sets), rng)
        part = {p for p, ds in sets.items() if set(picked) <= set(ds)}
        assert len(picked) == 3 and part in ({"iou"}, {"qou"})
        seen.update(part)
    assert seen["iou"] > 100 and seen["qou"] > 100
    all_parts = Counter()
    for _ in range(300):
        picked = training_decoys(_mc("all", sets), rng)
        all_parts.update(p for p, ds in sets.items() if set(picked) <= set(ds))
    assert set(all_parts) == {"orig", "iou", "qou"}
    # 3 of VQA's 17 original decoys; without decoy sets in meta, 3 of the other choices.
    many = _mc("orig", {"orig": [f"d{i}" for i in range(17)]})
    assert len(set(training_decoys(many, rng))) == 3
    plain = Example(id="p", question="?", choices=("t", "a", "b", "c", "d"), label="t")
    picked = training_decoys(plain, rng)
    assert len(picked) == 3 and "t" not in picked
    a, b = np.random.default_rng(5), np.random.default_rng(5)
    assert training_decoys(_mc("all", sets), a) == training_decoys(_mc("all", sets), b)


def test_mlp_ablations_show_the_table_3_effect_on_iou_qou(toy_sets) -> None:
    """Chao Table 3 in small: with IoU+QoU decoys, answers alone are near chance and only
    image + question resolve the candidates (each partial model leaves half the decoys)."""
    from vqa_harness_plugins.models.mlp import MLPA, MLPIA, MLPIQA, MLPQA

    train, val = toy_sets["iou+qou"]
    acc = {}
    for cls in (MLPA, MLPQA, MLPIA, MLPIQA):
        model = cls(hidden=256, epochs=12)
        model.fit(train, seed=0)
        scores = model.score_choices(val)
        acc[cls.name] = float(np.mean([ex.choices[int(np.argmax(s))] == ex.meta["mc_target"]
                                       for ex, s in zip(val, scores)]))
    chance = float(np.mean([1 / len(ex.choices) for ex in val]))
    assert acc["mlp-a"] < chance + 0.08, acc
    assert acc["mlp-iqa"] > max(acc["mlp-qa"], acc["mlp-ia"]) + 0.1, acc
