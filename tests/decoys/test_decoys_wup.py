"""WUP similarity (supplementary Eq. 3-4): the paper's values and NLTK agreement."""

from __future__ import annotations

import pytest

from vqa_harness_plugins.generators.decoys.wup import WupScorer, sequence_wup


@pytest.fixture(scope="module")
def wn():
    from harness.errors import ResourceError
    from vqa_harness_plugins.nlp import wordnet

    try:
        return wordnet()
    except ResourceError as exc:  # pragma: no cover - resources are installed in CI
        pytest.skip(str(exc))


@pytest.fixture(scope="module")
def scorer(wn) -> WupScorer:
    return WupScorer(wn)


def test_paper_values_lady_woman_and_cat_dog(scorer: WupScorer) -> None:
    # Chao et al. 2018 §5.4: "lady" vs "woman" 0.632, "cat" vs "dog" 0.857 (NLTK, WordNet 3.0).
    # Hand computation: lady.n.01 and woman.n.01 share woman.n.01's parent adult.n.01 ...
    # WUP = 2*depth(LCS) / (len1 + len2 + 2*depth) = 12/19 = 0.6316; cat/dog: 24/28 = 0.8571.
    assert scorer.answers("lady", "woman") == pytest.approx(12 / 19)
    assert round(scorer.answers("lady", "woman"), 3) == 0.632
    assert scorer.answers("cat", "dog") == pytest.approx(6 / 7)
    assert round(scorer.answers("cat", "dog"), 3) == 0.857


def test_word_level_is_max_over_noun_and_adjective_synsets(wn, scorer: WupScorer) -> None:
    for a, b in [("lady", "woman"), ("cat", "dog"), ("red", "blue"), ("small", "large"), ("cup", "bowl"),
                 ("two", "three"), ("black", "white"), ("ball", "red"), ("man", "woman"), ("tree", "grass")]:
        ref = max((s.wup_similarity(t) or 0.0)
                  for s in wn.synsets(a) if s.pos() in "nas" for t in wn.synsets(b) if t.pos() in "nas")
        assert scorer.word(a, b) == pytest.approx(ref, abs=1e-12), (a, b)


def test_fast_synset_wup_equals_nltk_on_many_pairs(wn, scorer: WupScorer) -> None:
    import random

    rng = random.Random(0)
    words = ("dog cat lady woman man car bus tree grass sky table chair cup bowl ball star ring box "
             "red blue green small large wooden happy old").split()
    pool = [s for w in words for s in wn.synsets(w) if s.pos() in "nas"]
    nouns = [s for s in pool if s.pos() == "n"]
    for _ in range(150):
        a, b = rng.choice(pool), rng.choice(pool)
        # Include close pairs: a synset and one of its hypernyms' other children.
        assert scorer.synset_wup(a.name(), b.name()) == pytest.approx(a.wup_similarity(b) or 0.0, abs=1e-12)
    for s in nouns[:20]:
        for h in s.hypernyms()[:1]:
            for sib in h.hyponyms()[:3]:
                assert scorer.synset_wup(s.name(), sib.name()) == pytest.approx(s.wup_similarity(sib), abs=1e-12)


def test_sequence_formula_uses_max_of_the_two_products() -> None:
    table = {("cute", "cat"): 0.2, ("a", "cat"): 0.0}

    def word(x: str, y: str) -> float:
        return 1.0 if x == y else table.get((x, y), table.get((y, x), 0.0))

    # "a cute cat" vs "cat": the product over "cat" is 1 (the paper's example), the other 0.
    assert sequence_wup(("a", "cute", "cat"), ("cat",), word) == 1.0
    assert sequence_wup(("cat",), ("a", "cute", "cat"), word) == 1.0
    assert sequence_wup(("cute", "dog"), ("cat",), word) == pytest.approx(0.2)


def test_unknown_words_match_only_themselves(scorer: WupScorer) -> None:
    assert scorer.answers("xqzzy", "xqzzy") == 1.0
    assert scorer.answers("xqzzy", "dog") == 0.0
    assert scorer.answers("a cute cat", "cat") == 1.0
