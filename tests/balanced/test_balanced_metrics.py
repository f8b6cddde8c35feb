"""Pair metrics, entropies, priors, prefixes and Recall@5 against hand-computed values."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from harness.stats import wilson_interval
from harness.types import Example
from vqa_harness_plugins.models.features.candidates import nearest_candidates, question_rng, rank
from vqa_harness_plugins.probes.balanced.counterexamples import model_scores, select_questions
from vqa_harness_plugins.probes.balanced.metrics import (
    answer_entropy_by_type,
    answer_score,
    answer_scores,
    canonical_answer,
    entropy_bits,
    find_pairs,
    fit_priors,
    pair_outcomes,
    predictive_prefixes,
    prior_accuracies,
    question_words,
    recall_at_k,
)
from vqa_harness_plugins.probes.balanced.tables import cell_name, condition


def ex(id_, label, answers=None, pair="", qtype="", question="q?", image=""):
    return Example(id=id_, question=question, label=label, answers=tuple(answers or [label] * 10),
                   pair_id=pair, question_type=qtype, image_id=image or id_)


def test_pair_outcomes_hand_computed():
    a1, b1 = ex("a1", "yes", pair="b1"), ex("b1", "no", pair="a1")
    a2, b2 = ex("a2", "red", ["red"] * 2 + ["blue"] * 8, pair="b2"), ex("b2", "blue", pair="a2")
    a3, b3 = ex("a3", "2", pair="b3"), ex("b3", "3", pair="a3")
    outs = pair_outcomes([(a1, b1), (a2, b2), (a3, b3)],
                         [("Yes", "no"), ("red", "blue"), ("two", "two")])
    # pair 1: "Yes" normalizes to "yes" -> correct; but humans all say "yes" so the official
    # VQA accuracy compares raw strings: "Yes" scores 0 -> strict 0.
    assert [o.both_correct for o in outs] == [True, True, False]
    assert [o.identical for o in outs] == [False, False, True]
    # pair 2: acc(red | 2 humans "red") = mean over 10 of min(1, others/3): 2*(1/3) + 8*(2/3)... /10
    acc_red = (2 * (1 / 3) + 8 * min(1, 2 / 3)) / 10
    assert outs[1].strict_accuracy == pytest.approx(min(acc_red, 1.0))
    assert outs[0].strict_accuracy == 0.0
    # pair 3: "two" -> "2" matches a3 (acc 1) but not b3 (acc 0)
    assert outs[2].strict_accuracy == 0.0


def test_find_pairs_counts_dangling_partners():
    exs = [ex("a", "x", pair="b"), ex("b", "y", pair="a"), ex("c", "z", pair="gone"), ex("d", "w")]
    pairs, dangling = find_pairs(exs)
    assert pairs == [(0, 1)] and dangling == 1


def test_entropy_hand_computed():
    assert entropy_bits({"yes": 5, "no": 5}) == pytest.approx(1.0)
    assert entropy_bits({"a": 1, "b": 1, "c": 1, "d": 1}) == pytest.approx(2.0)
    assert entropy_bits({"yes": 4}) == 0.0
    assert entropy_bits({"yes": 3, "no": 1}) == pytest.approx(-(0.75 * math.log2(0.75) + 0.25 * math.log2(0.25)))
    per, weighted = answer_entropy_by_type(["yes", "no", "yes", "no", "red", "red"],
                                           ["is", "is", "is", "is", "what", "what"])
    assert per == {"is": (pytest.approx(1.0), 4), "what": (0.0, 2)}
    assert weighted == pytest.approx(4 / 6)


def test_canonical_answer_uses_label_then_majority():
    assert canonical_answer(ex("a", "The Dog")) == "dog"
    assert canonical_answer(Example(id="b", question="?", answers=("two", "2", "3"))) == "2"


def test_priors_and_prefixes_hand_computed():
    train = [ex(f"t{i}", "yes", qtype="is there a") for i in range(3)] + \
            [ex(f"u{i}", "red", qtype="what color is the") for i in range(2)]
    fit = fit_priors(train)
    assert fit.prior == "yes" and fit.by_type == {"is there a": "yes", "what color is the": "red"}
    test = [ex("x", "no", qtype="is there a"), ex("y", "red", qtype="what color is the")]
    prior, typed = prior_accuracies(fit, test)
    assert prior.tolist() == [0.0, 0.0] and typed.tolist() == [0.0, 1.0]
    qs = [ex(f"d{i}", "yes" if i < 9 else "no", question="Do you see a cat?") for i in range(10)] + \
         [ex(f"w{i}", c, question="What is it?") for i, c in enumerate("abcdefghij")]
    stats = predictive_prefixes(qs, min_count=10, max_words=4)
    best = stats[0]
    assert (best.answer, best.count, best.accuracy) == ("yes", 10, pytest.approx(0.9))
    assert {s.prefix for s in stats if s.accuracy == pytest.approx(0.9)} == {"do", "do you", "do you see",
                                                                            "do you see a"}


def test_recall_at_k_and_ranking_hand_computed():
    assert recall_at_k([["a", "b", "c"], ["c", "b", "a"]], ["c", "a"], k=2).tolist() == [0.0, 0.0]
    assert recall_at_k([["a", "b", "c"], ["c", "b", "a"]], ["b", "b"], k=2).tolist() == [1.0, 1.0]
    ids = ["q", "c", "n1", "n2", "n3", "far"]
    m = np.array([[0.0], [5.0], [1.0], [2.0], [3.0], [100.0]])
    cands, dist = nearest_candidates("q", "c", ids, m, k=4)
    assert cands == ["c", "n1", "n2", "n3"] and dist["c"] == 5.0
    ranked = rank(cands, dist, random.Random(0))
    assert ranked == ["n1", "n2", "n3", "c"]
    assert recall_at_k([ranked], ["c"], k=3).tolist() == [0.0]
    assert model_scores("yes", {"no": 0.7, "yes": 0.2}) == 0.2
    assert model_scores("Yes.", {"yes": 0.2}) == 0.2
    assert model_scores("maybe", {"yes": 0.2}) == float("-inf")


def test_random_ranker_recall_at_5_is_at_chance_on_a_large_set():
    rng = np.random.default_rng(0)
    n_images, n_questions, k = 400, 4000, 24
    ids = [f"img{i}" for i in range(n_images)]
    matrix = rng.normal(size=(n_images, 8))
    hits = []
    for q in range(n_questions):
        a, b = rng.choice(n_images, size=2, replace=False)
        cands, _ = nearest_candidates(ids[a], ids[b], ids, matrix, k)
        assert len(cands) == k
        ranked = rank(cands, None, question_rng(0, f"random/{q}"))
        hits.append(ids[b] in ranked[:5])
    low, high = wilson_interval(sum(hits), len(hits))
    assert low <= 5 / 24 <= high


def test_select_questions_needs_a_complement_on_another_image():
    exs = [ex("a", "x", pair="b", image="i1"), ex("b", "y", pair="a", image="i2"),
           ex("c", "x", pair="d", image="i3"), ex("d", "y", pair="c", image="i3"), ex("e", "z")]
    assert select_questions(exs, 0, 0) == [0, 1]
    assert len(select_questions(exs, 1, 0)) == 1


@pytest.mark.parametrize("spec, cond", [
    ("toyvqa:variant=unbalanced/train", "U"), ("toyvqa:variant=balanced,images=60/train", "B"),
    ("toyvqa-half:images=60/train", "B_half"), ("vqa2", "B"), ("vqa1/val", "U"), ("toyvqa", "U"),
    ("balanced", "B"), ("", ""), ("something-else", ""), ("vqa2-half:data_dir=d/train", "B_half"),
    ("behalf-qa/train", ""), ("half-moon-vqa", ""),
])
def test_conditions_from_specs(spec, cond):
    assert condition(spec) == cond


def test_cell_names():
    assert cell_name("toyvqa:variant=unbalanced/train", "toyvqa:variant=balanced") == "UB"
    assert cell_name("toyvqa-half/train", "toyvqa:variant=balanced") == "B_half B"
    assert cell_name("", "vqa2") == "? -> vqa2"


def test_the_mean_entropy_is_correctly_rounded_so_every_python_gives_its_bits():
    """Python 3.12's sum() compensates rounding and 3.11's does not, so a plain sum gave the
    language-prior audit's mean entropy other last bits on the second machine (Python 3.12);
    math.fsum is correctly rounded on every version. The data are one where the plain sum
    is off by one unit in the last place."""
    import math
    import random

    rng = random.Random(0)
    types = [f"t{rng.randrange(6)}" for _ in range(60)]
    answers = [f"a{rng.randrange(5)}" for _ in range(60)]
    per, weighted = answer_entropy_by_type(answers, types)
    terms = [h * n for h, n in per.values()]
    assert weighted == math.fsum(terms) / 60
    assert weighted == 2.040956263315305


def test_fewer_than_four_human_answers_are_scored_by_exact_match_not_vqa_accuracy():
    """docs/metrics.md, "Which accuracy": one human answer caps VQA accuracy at 0, so pairs,
    priors and prefixes score such questions by an exact match with their canonical answer."""
    a, b = ex("a", "", ["yes"], pair="b"), ex("b", "", ["No"], pair="a")
    (out,) = pair_outcomes([(a, b)], [("yes", "no")])
    assert out.both_correct and out.strict_accuracy == 1.0  # VQA accuracy gave 0.0
    fit = fit_priors([a, b, ex("c", "", ["yes"])])
    prior, _ = prior_accuracies(fit, [a, b])
    assert prior.tolist() == [1.0, 0.0]
    qs = [ex(f"d{i}", "", ["yes"], question="Do you see a cat?") for i in range(10)]
    assert predictive_prefixes(qs, min_count=10, max_words=1)[0].accuracy == 1.0
    assert answer_score("yes", Example("e", "q?")) == 0.0  # nothing to match: not a hit


def _mixed_examples(n: int, seed: int = 3) -> list[Example]:
    """Questions scored by both rules: 10 human answers with stray spacing, case and
    punctuation (VQA accuracy), one to three answers or a label only (exact match), none."""
    rng = random.Random(seed)
    pool = ["yes", "Yes ", "no", "two", "2", "a dog", "dog.", "red", "Red", "it's", "its", ""]
    out = []
    for k in range(n):
        kind = rng.randrange(4)
        answers = [rng.choice(pool) for _ in range((10, rng.randint(1, 3), 0, 10)[kind])]
        label = rng.choice(pool) if kind in (1, 2) else ""
        out.append(Example(id=f"q{k}", question=rng.choice(["What is it?", "Is it red?", "How many dogs?"]),
                           label=label, answers=tuple(answers), question_type=rng.choice(["what", "is", ""])))
    return out


def test_batched_answer_scores_equal_the_per_question_rule_value_for_value():
    examples = _mixed_examples(600)
    rng = random.Random(4)
    answers = [rng.choice(["yes", "YES", "2", "two", "dog", "a dog.", "red", "its", " no ", "", "."]) for _ in examples]
    batched = answer_scores(answers, examples)
    assert batched.dtype == np.float64
    assert batched.tolist() == [answer_score(a, e) for a, e in zip(answers, examples)]
    assert answer_scores([], []).shape == (0,)
    with pytest.raises(ValueError, match="2 answers for 1 examples"):
        answer_scores(["a", "b"], examples[:1])


def test_pairs_priors_and_prefixes_equal_the_per_question_definitions():
    """The batched probes give the numbers the per-question definitions give (module doc)."""
    examples = _mixed_examples(400)
    rng = random.Random(5)
    preds = [(rng.choice(["yes", "2", "dog"]), rng.choice(["no", "two", "red"])) for _ in range(200)]
    pairs = [(examples[2 * k], examples[2 * k + 1]) for k in range(200)]
    for o, (a, b), (pa, pb) in zip(pair_outcomes(pairs, preds), pairs, preds):
        assert type(o.strict_accuracy) is float
        assert o.strict_accuracy == min(answer_score(pa, a), answer_score(pb, b))
    fit = fit_priors(examples[:200])
    prior, typed = prior_accuracies(fit, examples)
    scored = [e for e in examples if e.answers]
    assert prior.tolist() == [answer_score(fit.prior, e) for e in scored]
    assert typed.tolist() == [answer_score(fit.by_type.get(e.question_type, fit.prior), e) for e in scored]
    stats = predictive_prefixes(examples, min_count=5, top=50)
    assert stats
    for s in stats:
        group = [e for e in examples if " ".join(question_words(e.question)[:len(s.prefix.split())]) == s.prefix]
        assert s.count == len(group)
        assert s.accuracy == float(np.mean([answer_score(s.answer, e) for e in group]))
