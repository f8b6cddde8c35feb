"""Perturbation generators: Table 1, WordNet validity on real VQA-X questions, colors,
inflection, skips and missing resources."""

from __future__ import annotations

import json

import pytest

from harness.counterfactual import (
    KIND_NAMES,
    KINDS,
    ColorSpace,
    Perturbation,
    Perturber,
    colors_in,
    delta_e2000,
    perturb_many,
    resolve_kinds,
    srgb_to_lab,
)
from harness.errors import ResourceError

TABLE1 = "Do you see the white small dog?"


@pytest.fixture(scope="module")
def perturber() -> Perturber:
    try:
        return Perturber(seed=0)
    except ResourceError as exc:
        pytest.skip(f"NLP resources missing: {exc}")


@pytest.fixture(scope="module")
def vqax(shared_data):
    data = json.loads((shared_data / "vqax" / "vqaX_val.json").read_text(encoding="utf-8"))
    questions = [row["question"] for row in data.values()]
    answers = [a["answer"] for row in data.values() for a in row["answers"]]
    return questions, answers


@pytest.fixture(scope="module")
def vqax_results(vqax, perturber):
    questions, answers = vqax
    p = Perturber(common_colors=colors_in(questions + answers), seed=0, wn=perturber.wn, tagger=perturber.tagger)
    results, counts = perturb_many(p, questions)
    return p, results, counts


def test_table1_example_yields_every_kind(perturber):
    out = perturber.perturb(TABLE1)
    assert set(out) == set(KIND_NAMES)
    for kind, p in out.items():
        assert isinstance(p, Perturbation), (kind, p)
        assert p.counterfactual != TABLE1
    assert out["color_max_common"].counterfactual == "Do you see the black small dog?"
    assert out["hypernym_noun"].counterfactual == "Do you see the white small canine?"
    assert out["synonym_adj"].counterfactual == "Do you see the white little dog?"
    assert out["deletion_noun"].counterfactual == "Do you see the white small?"
    assert out["deletion_noun"].replacement == ""
    # Same question, same seed: same output. The parent is read in WordNet's file order
    # (NLTK's own pointer order changes with the process's hash seed).
    assert perturber.perturb(TABLE1) == out
    dog = perturber.wn.synset("dog.n.01")
    assert [s.name() for s in perturber.lexicon._first_parent(dog)] == ["canine.n.02"]


def test_every_vqax_substitution_is_valid_in_wordnet(vqax_results):
    p, results, counts = vqax_results
    wn = p.wn
    colors = ColorSpace()
    checked = 0
    for res in results:
        for kind in KINDS:
            pert = res[kind.id]
            if not isinstance(pert, Perturbation):
                continue
            checked += 1
            assert pert.counterfactual != pert.question
            if kind.relation == "color":
                assert pert.target in colors.colors and pert.source in colors.colors
                pool = p.pools[kind.pool]
                d = colors.distance(pert.source, pert.target)
                others = [colors.distance(pert.source, c) for c in pool if c != pert.source
                          and colors.distance(pert.source, c) > 1e-9]
                assert d == (max(others) if kind.maximal else min(others))
                continue
            if kind.relation == "delete":
                assert pert.replacement == ""
                assert len(pert.counterfactual.split()) == len(pert.question.split()) - 1
                continue
            senses = wn.synsets(pert.source, kind.pos)
            target = pert.target
            if kind.relation == "synonym":
                ok = any(target in s.lemma_names() for s in senses)
                assert all(s.pos() in ("a", "s") for s in wn.synsets(target, kind.pos)) if kind.pos == "a" else True
            elif kind.relation == "hypernym":
                ok = any(target in h.lemma_names() for s in senses for h in s.hypernyms() + s.instance_hypernyms())
            elif kind.relation == "hyponym":
                ok = any(target in h.lemma_names() for s in senses for h in s.hyponyms())
            else:  # sibling: shares an immediate parent, is not the word's own sense
                ok = any(target in sib.lemma_names() and sib != s
                         for s in senses for parent in s.hypernyms() + s.instance_hypernyms()
                         for sib in parent.hyponyms() + parent.instance_hyponyms())
            assert ok, (kind.id, pert)
            assert target.replace("_", " ").lower() != pert.source.lower()
            # The surface form is a form of the target lemma (inflection restored).
            head = pert.replacement.lower().split()[-1 if kind.pos == "n" else 0]
            lemma_words = target.lower().split("_")
            expected = lemma_words[-1 if kind.pos == "n" else 0]
            assert expected in wn._morphy(head, kind.pos) or head == expected
    assert checked > 5000
    assert counts["hypernym_noun"]["applied"] > 0.8 * len(results)


def test_colors_are_named_and_ordered_by_ciede2000():
    # Sharma, Wu & Dalal (2005) test pairs.
    assert delta_e2000((50, 2.6772, -79.7751), (50, 0, -82.7485)) == pytest.approx(2.0425, abs=1e-4)
    assert delta_e2000((50, 2.5, 0), (73, 25, -18)) == pytest.approx(27.1492, abs=1e-4)
    assert delta_e2000((50, 0, 0), (50, -1, 2)) == pytest.approx(2.3669, abs=1e-4)
    assert srgb_to_lab("#FFFFFF")[0] == pytest.approx(100, abs=1e-3)
    cs = ColorSpace()
    assert cs.replacement("white", cs.colors, maximal=True)[0] == "black"
    # Aliases (same RGB) are never a replacement.
    assert cs.replacement("gray", ["grey", "red"], maximal=False)[0] == "red"
    assert cs.replacement("gray", ["grey"], maximal=False) is None


def test_inflection_is_restored_or_skipped(perturber):
    out = perturber.perturb("Who is running with the dogs?")
    assert out["hypernym_noun"].counterfactual == "Who is running with the canines?"
    assert out["hyponym_noun"].replacement.endswith("s")
    inf = perturber.inflector
    assert inf.inflect("run", "VBG") == "running"
    assert inf.inflect("stop", "VBD") == "stopped"
    assert inf.inflect("see", "VBD") is None  # saw / seen: tense not recoverable
    assert inf.inflect("mouse", "NNS") == "mice"
    assert inf.inflect("pick_up", "VBZ") == "picks up"
    assert inf.inflect("hot_dog", "NNS") == "hot dogs"
    # Capitalization and the indefinite article follow the new word.
    assert perturber.perturb("Is the woman riding a horse?")["hypernym_noun"].counterfactual == \
        "Is the woman riding an equine?"


def test_bad_questions_are_skipped_and_counted(perturber):
    results, counts = perturb_many(perturber, ["", "   ", "¿Qué color tiene el perro?",
                                               "Welche Farbe hat der Hund?", "Is it?"])
    assert all(r == "empty" for r in results[0].values()) and all(r == "empty" for r in results[1].values())
    assert all(r == "non_english" for r in results[2].values())
    assert all(r == "non_english" for r in results[3].values())
    assert results[4]["hypernym_noun"] == "no_site"  # no noun: skipped, never an empty change
    assert counts["deletion_noun"]["empty"] == 2 and counts["deletion_noun"]["non_english"] == 2


def test_unknown_kind_names_near_matches():
    from harness.errors import UsageError

    with pytest.raises(UsageError, match="did you mean"):
        resolve_kinds("hypernym")
    assert resolve_kinds("all") == KINDS
    assert [k.id for k in resolve_kinds("synonym_adj,deletion_noun")] == ["synonym_adj", "deletion_noun"]


def test_missing_wordnet_names_the_install_command(monkeypatch):
    from harness.resources import wordnet_corpus

    monkeypatch.setattr(wordnet_corpus._READERS, "_roots", {})
    monkeypatch.setattr(wordnet_corpus._READERS, "_locate", lambda target: None)
    with pytest.raises(ResourceError, match="harness resources install"):
        Perturber()
