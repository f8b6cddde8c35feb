"""Decoy generator: filters, sources, ranking, determinism, fill-ins, bad input."""

from __future__ import annotations

import random

import numpy as np
import pytest

from harness.errors import DataError
from harness.types import Example
from vqa_harness_plugins.generators.decoys import (
    DecoyConfig,
    QARecord,
    eq2_rule,
    generate_decoys,
    neutrality,
    normalize_for_match,
    overlaps,
    read_decoy_file,
    variant_choices,
    write_decoy_file,
)
from vqa_harness_plugins.generators.decoys.similarity import question_embeddings, ranked_neighbours
from vqa_harness_plugins.probes.decoys.probe import eq2_scores

SIM = {frozenset(p): v for p, v in {("cat", "kitten"): 0.95, ("red", "dark red"): 0.93, ("dog", "puppy"): 0.92,
                                     ("blue", "navy"): 0.91}.items()}


def fake_wup(a: str, b: str) -> float:
    """A deterministic stand-in for WordNet in generator tests (WordNet itself is tested
    in test_decoys_wup.py): a few near-synonyms score >= 0.9, all else 0.1."""
    if a == b:
        return 1.0
    return SIM.get(frozenset((a, b)), 0.1)


ANSWERS = ["red", "dark red", "blue", "navy", "green", "cat", "kitten", "dog", "puppy", "2", "3", "yes", "no",
           "table", "on the table", "tree", "wood", "metal", "sky", "daytime", "during the daytime"]
QUESTIONS = ["What color is the car?", "What color is the bus?", "What animal is this?", "How many dogs are there?",
             "What is on the table?", "Is it sunny?", "What is the fence made of?", "When was this taken?",
             "What color is the sky?", "What is the cat sitting on?"]


def make_records(n_images: int = 40, seed: int = 0, orig: bool = True) -> list[QARecord]:
    rng = random.Random(seed)
    out = []
    for i in range(n_images):
        for j in range(rng.randint(2, 6)):
            target = rng.choice(ANSWERS)
            decoys = tuple(rng.sample([a for a in ANSWERS if a != target], 3)) if orig else ()
            out.append(QARecord(f"{i}-{j}", f"img{i}", rng.choice(QUESTIONS), target, decoys))
    return out


@pytest.fixture(scope="module")
def records() -> list[QARecord]:
    return make_records()


@pytest.fixture(scope="module")
def result(records):
    return generate_decoys(records, DecoyConfig(seed=3), wup=fake_wup)


def test_no_decoy_equals_contains_or_is_contained_in_target(records, result) -> None:
    for r in records:
        s = result.sets[r.qa_id]
        t = normalize_for_match(r.target)
        for d in s.iou + s.qou:
            assert not overlaps(normalize_for_match(d), t), (r, d)
            assert d not in t and t not in d


def test_every_decoy_is_wup_dissimilar_to_target_and_each_other(records, result) -> None:
    for r in records:
        s = result.sets[r.qa_id]
        all_d = list(s.iou + s.qou)
        for d in all_d:
            assert fake_wup(normalize_for_match(d), normalize_for_match(r.target)) < 0.9
        for i, a in enumerate(all_d):
            for b in all_d[i + 1:]:
                assert fake_wup(a, b) < 0.9 and not overlaps(a, b)
        assert len(s.iou) <= 3 and len(s.qou) <= 3


def test_iou_decoys_are_targets_of_the_same_image(records, result) -> None:
    by_id = {r.qa_id: r for r in records}
    for r in records:
        s = result.sets[r.qa_id]
        for d, src in zip(s.iou, s.iou_sources):
            if src in ("orig", "frequent"):
                continue
            assert src != r.qa_id
            assert by_id[src].image_id == r.image_id
            assert normalize_for_match(by_id[src].target) == normalize_for_match(d)


def test_qou_decoys_follow_the_question_similarity_ranking(records, result) -> None:
    by_id = {r.qa_id: r for r in records}
    index = {r.qa_id: i for i, r in enumerate(records)}
    emb = question_embeddings([r.question for r in records])
    for r in records[:60]:
        s = result.sets[r.qa_id]
        sims = emb[[index[q] for q in s.qou_sources if q in index]] @ emb[index[r.qa_id]]
        # Sources come from other questions, best first (non-increasing similarity) ...
        assert all(a >= b - 1e-6 for a, b in zip(sims, sims[1:])), (r, s)
        for d, src in zip(s.qou, s.qou_sources):
            if src in ("orig", "frequent"):
                continue
            assert src != r.qa_id and normalize_for_match(by_id[src].target) == normalize_for_match(d)
        # ... and no strictly more similar question offered a usable, unused target.
        if s.qou_sources and s.qou_sources[0] not in ("orig", "frequent"):
            best = float(emb[index[s.qou_sources[0]]] @ emb[index[r.qa_id]])
            for other in records:
                if other.qa_id == r.qa_id:
                    continue
                sim = float(emb[index[other.qa_id]] @ emb[index[r.qa_id]])
                if sim > best + 1e-5:
                    t, c = normalize_for_match(r.target), normalize_for_match(other.target)
                    assert overlaps(c, t) or fake_wup(c, t) >= 0.9 or any(
                        overlaps(c, normalize_for_match(d)) or fake_wup(c, d) >= 0.9 for d in s.iou)


def test_generation_is_deterministic_for_a_seed_and_changes_with_it(records) -> None:
    a = generate_decoys(records, DecoyConfig(seed=3), wup=fake_wup).released()
    b = generate_decoys(list(records), DecoyConfig(seed=3), wup=fake_wup).released()
    c = generate_decoys(records, DecoyConfig(seed=4), wup=fake_wup).released()
    assert a == b
    assert a != c
    # A record's decoys do not depend on input order (per-record seeded RNGs).
    shuffled = list(records)
    random.Random(1).shuffle(shuffled)
    def from_image(res):
        return {k: [d for d, s in zip(v.iou, v.iou_sources) if s not in ("orig", "frequent")]
                for k, v in res.sets.items()}

    d = generate_decoys(shuffled, DecoyConfig(seed=3), wup=fake_wup)
    assert from_image(d) == from_image(generate_decoys(records, DecoyConfig(seed=3), wup=fake_wup))


def test_fill_ins_are_counted_and_come_from_orig_or_frequent() -> None:
    lonely = [QARecord(f"q{i}", f"img{i}", "What color is the car?", ANSWERS[i % 13], ("wood", "metal", "sky"))
              for i in range(26)]
    res = generate_decoys(lonely, DecoyConfig(), wup=fake_wup)
    assert res.stats.iou_from_image == 0  # one question per image: no IoU candidates
    assert res.stats.fill_orig > 0
    for s in res.sets.values():
        assert set(s.iou_sources) <= {"orig"}
        assert set(s.iou) <= {"wood", "metal", "sky"}
    no_orig = [r.__class__(r.qa_id, r.image_id, r.question, r.target) for r in lonely]
    res2 = generate_decoys(no_orig, DecoyConfig(), wup=fake_wup)
    assert res2.stats.fill_frequent > 0 and res2.stats.fill_orig == 0
    total = sum(len(s.iou) for s in res2.sets.values())
    assert total + res2.stats.short_iou == 3 * len(no_orig)


def test_released_shape_round_trips(tmp_path, result) -> None:
    path = write_decoy_file(tmp_path / "d.json", result.released())
    back = read_decoy_file(path)
    assert back == result.released()
    assert set(next(iter(back.values()))) == {"IoU_decoys", "QoU_decoys"}


def test_bad_records_are_reported_with_counts() -> None:
    bad = [QARecord("a", "img", "q?", ""), QARecord("a", "img", "q?", "x"), QARecord("b", "", "q?", "y")]
    with pytest.raises(DataError) as err:
        generate_decoys(bad, wup=fake_wup)
    msg = str(err.value)
    assert "1 with duplicate qa_id" in msg and "1 with empty target" in msg and "1 with empty image_id" in msg


def test_bad_decoy_file(tmp_path) -> None:
    p = tmp_path / "bad.json"
    p.write_text('{"1": {"IoU_decoys": "red"}}')
    with pytest.raises(DataError, match="qa_id 1: field 'IoU_decoys'"):
        read_decoy_file(p)


def test_ranked_neighbours_orders_by_cosine_then_index() -> None:
    emb = np.array([[1, 0], [1, 0], [0.8, 0.6], [0, 1]], dtype=np.float32)
    out = ranked_neighbours(emb, 4, block=2)
    assert out[0].tolist() == [0, 1, 2, 3]
    assert out[1].tolist() == [0, 1, 2, 3]  # tie between rows 0 and 1: lower index first
    assert out[3].tolist()[0] == 3


def test_variants_and_shortcut_audit() -> None:
    decoys = {"orig": ["maybe", "blue"], "iou": ["green", "2"], "qou": ["blue", "yellow"]}
    all_c = variant_choices("red", decoys, "all", key="x")
    assert sorted(all_c) == sorted(["red", "maybe", "blue", "green", "2", "yellow"])  # de-duplicated
    assert variant_choices("red", decoys, "all", key="x") == all_c  # seeded
    assert len(variant_choices("red", decoys, "iou+qou", key="x")) == 5
    # Eq. 2: "maybe" is only ever a decoy, "red" only a target.
    items = [(("red", "maybe", "blue"), "red"), (("blue", "maybe", "red"), "blue")]
    rule = eq2_rule(items)
    assert rule.p_correct("maybe") == 0.0
    assert rule.p_correct("unseen") == 0.5
    assert rule.p_correct("red") == pytest.approx(1 / (1 + 0.5))
    assert rule.expected_hit(("red", "maybe"), "red") == 1.0
    assert rule.expected_hit(("zz", "yy"), "zz") == 0.5  # tie: exact expectation
    assert rule.picks(("zz", "red", "yy")) == ["red"] and rule.picks(("zz", "yy")) == ["zz", "yy"]
    stats = neutrality(items)
    assert stats["decoys_never_target"] == pytest.approx(0.5)


def test_the_eq2_rule_is_scored_like_a_models_pick_on_vqa_scored_data():
    """On VQA multiple choice (`mc_scoring="vqa"`) a pick scores its VQA accuracy against the
    human answers, so the Eq. 2 reference row does too (it used the exact target match)."""
    rule = eq2_rule([(("white", "gray"), "white")] * 3)  # training: "white" always the target
    answers = ("gray",) * 7 + ("white",) * 3
    vqa = Example("q", "what color?", answers=answers, choices=("gray", "white"),
                  meta={"mc_target": "gray", "mc_scoring": "vqa"})
    target = Example("t", "what color?", choices=("gray", "white"), meta={"mc_target": "gray"})
    # white matches 3 of 10 humans: leave-one-out mean (3 x 2/3 + 7 x 1) / 10 = 0.9
    assert eq2_scores(rule, [vqa, target]).tolist() == pytest.approx([0.9, 0.0])
    tied = eq2_rule([(("a", "b"), "a"), (("b", "a"), "b")])  # a and b tie: half of each
    assert eq2_scores(tied, [vqa.with_(choices=("gray", "white"))]).tolist() == pytest.approx([0.5 * (1.0 + 0.9)])

