"""The quality mode: each fault of the paper mode listed in the issue does not recur on its
example (and the paper mode, kept as described, still shows it), Table 1, determinism,
and the counting of rejected candidates."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from helpers_quality import text as _text

from vqa_harness_plugins.generators.counterfactual import (
    KIND_NAMES,
    QUALITY_SKIP_REASONS,
    Perturbation,
    perturb_many,
)

TABLE1 = "Do you see the white small dog?"


def _both(modes, question: str, kind: str) -> tuple[str, str]:
    paper, quality = modes
    return _text(paper.perturb(question)[kind]), _text(quality.perturb(question)[kind])


def test_table1_yields_every_kind_but_the_verb_and_the_deletion_in_quality_mode(modes):
    out = modes[1].perturb(TABLE1)
    assert out["hypernym_noun"].counterfactual == "Do you see the white small animal?"  # basic level
    assert out["hyponym_noun"].counterfactual == "Do you see the white small puppy?"
    # the paper's Table 1 has "fox"; dog and fox lie 0.14 apart, below rule 39's floor
    assert out["sibling_noun"].counterfactual == "Do you see the white small wolf?"
    assert out["synonym_adj"].counterfactual == "Do you see the white little dog?"
    assert out["color_max_common"].counterfactual == "Do you see the black small dog?"
    # rule 57: an object goes only after a progressive ("Do you see?" leaves it missing)
    assert out["deletion_noun"] == "deletion_parse"
    # "see" in context is see.v.01 (perceive by sight), which has no other lemma; Table 1's
    # "watch" is a different sense (see.v.05), so the quality mode skips the verb.
    assert out["synonym_verb"] == "no_replacement"
    assert all(isinstance(out[k], Perturbation) for k in KIND_NAMES if k not in ("synonym_verb", "deletion_noun"))


def test_verb_senses_follow_the_context(modes):
    assert _both(modes, "Is the man praying?", "synonym_verb") == ("Is the man begging?", "no_replacement")
    paper, quality = _both(modes, "Does someone live here?", "synonym_verb")
    assert paper == "Does someone populate here?" and "populate" not in quality
    paper, quality = _both(modes, "What sport is being played?", "synonym_verb")
    assert paper == "What sport is being acted?" and "acted" not in quality


def test_phrasal_verbs_keep_their_particle(modes):
    paper, quality = _both(modes, "Is the laptop turned on?", "synonym_verb")
    assert paper == "Is the laptop changed state on?"
    assert quality == "Is the laptop switched on?"  # turn_on -> switch_on, particle after the verb


def test_inflection_comes_from_lemminflect(modes):
    from vqa_harness_plugins.nlp import word_stats

    stats = word_stats()
    assert stats.inflect("spread", "VBD") == "spread" and modes[0].inflector.inflect("spread", "VBD") == "spreaded"
    assert stats.inflect("run", "VBG") == "running" and stats.inflect("mouse", "NNS") == "mice"
    assert stats.inflect("xyzzyq", "NNS") is None  # unknown to lemminflect: skipped, counted
    out = modes[1].perturb("Is the jam spread on the toast?")
    assert "spreaded" not in json.dumps({k: _text(v) for k, v in out.items()})


def test_hypernyms_are_basic_level_not_abstract(modes):
    assert _both(modes, "What event is this?", "hypernym_noun") == ("What psychological feature is this?", "abstract")
    assert _both(modes, "Is the dog black and white?", "hypernym_noun")[1] == "Is the animal black and white?"


def test_compound_halves_are_never_replaced(modes):
    paper, quality = _both(modes, "Is it night time?", "hypernym_noun")
    assert paper == "Is it night case?" and quality in QUALITY_SKIP_REASONS
    assert perturb_many(modes[1], ["Is it night time?"])[2]["hypernym_noun"]["compound_part"] == 1
    # A compound WordNet lists is replaced whole.
    assert _both(modes, "Is this a traffic light?", "hypernym_noun")[1] == "Is this a light?"


def test_tagger_errors_are_caught(modes):
    assert _both(modes, "Are the sheep wild?", "hypernym_noun") == ("Are the sheep states?", "tag_mismatch")
    assert modes[1].quality.tag_plausible("wild", "n") is False and modes[1].quality.tag_plausible("wild", "a")


def test_rare_and_foreign_hyponyms_are_rejected(modes):
    paper, quality = _both(modes, "Who is the sponsor?", "hyponym_noun")
    assert paper == "Who is the patronne?" and quality == "rare_word"  # ("backer": 0.01 apart, rule 39)
    paper, quality = _both(modes, "What are the people doing?", "hyponym_noun")
    assert paper == "What are the publics doing?" and quality in QUALITY_SKIP_REASONS
    results, counts, rejected = perturb_many(modes[1], ["Who is the sponsor?"])
    assert rejected["hyponym_noun"]["rare_word"] > 0  # patronne, and other rare lemmas


def test_siblings_use_the_sense_in_context(modes):
    paper, quality = _both(modes, "What green vegetable is this?", "sibling_noun")
    assert paper == "What green eater is this?" and "eater" not in quality


def test_adjective_synonyms_are_common_and_in_sense(modes):
    assert _both(modes, "Is this person happy?", "synonym_adj") == ("Is this person felicitous?", "no_replacement")
    assert _both(modes, "Is it cold outside?", "synonym_adj") == ("Is it stale outside?", "no_replacement")


def test_deletion_removes_whole_phrases_and_keeps_a_question(modes):
    # Never the head of a compound; its modifier may go when the head names a kind of it.
    assert _both(modes, "Is this a traffic light?", "deletion_noun") == ("Is this a traffic?", "Is this a light?")
    assert _both(modes, "Is this a hot dog?", "deletion_noun")[1] == "deletion_parse"
    assert _both(modes, "What kind of shoes is the little girl wearing?", "deletion_noun")[1] == \
        "What is the little girl wearing?"
    assert _both(modes, "What is the man holding in his hand?", "deletion_noun")[1] == "What is the man holding?"
    # The article before the cut follows the word now after it (as a substitution's does).
    assert _both(modes, "Is this a baseball event?", "deletion_noun")[1] == "Is this an event?"
    assert _both(modes, "Is there an orange cube?", "deletion_noun")[1] == "Is there a cube?"


def test_colors_already_in_the_question_are_never_chosen(modes):
    # Seeded choice of site may pick either color; over both questions "black and black"
    # appears in paper mode and never in quality mode.
    questions = ["Is the cat black and white?", "Is the dog black and white?"]
    kinds = ("color_max_common", "color_max_uncommon")
    paper = [_text(modes[0].perturb(q)[k]) for q in questions for k in kinds]
    quality = [_text(modes[1].perturb(q)[k]) for q in questions for k in kinds]
    assert any("black and black" in t for t in paper)
    assert not any("black and black" in t or "white and white" in t for t in quality)
    # A color word is a color, even where WordNet lists color + noun as a compound.
    assert _both(modes, "Is the man in the yellow jacket running?", "hypernym_noun")[1] == \
        "Is the man in the yellow coat running?"


def test_every_rejected_candidate_is_counted_by_reason(modes):
    questions = ["Is it night time?", "Are the sheep wild?", "What event is this?", TABLE1]
    results, counts, rejected = perturb_many(modes[1], questions)
    assert rejected["hypernym_noun"]["compound_part"] >= 1 and rejected["hypernym_noun"]["tag_mismatch"] >= 1
    assert rejected["hypernym_noun"]["abstract"] >= 1
    for kind in KIND_NAMES:
        assert sum(counts[kind].values()) == len(questions)
        assert set(counts[kind]) <= {"applied", *QUALITY_SKIP_REASONS}
        assert set(rejected[kind]) <= set(QUALITY_SKIP_REASONS)


_SCRIPT = """
import json, sys
from vqa_harness_plugins.generators.counterfactual import Perturber, perturb_many
qs = json.loads(sys.stdin.read())
out = {}
for mode in ("paper", "quality"):
    res, counts, rej = perturb_many(Perturber(seed=int(sys.argv[1]), mode=mode), qs)
    out[mode] = [{k: (v if isinstance(v, str) else v.to_json()) for k, v in r.items()} for r in res]
print(json.dumps(out, sort_keys=True))
"""


def test_both_modes_are_deterministic_for_a_seed(modes, shared_data):
    data = json.loads((shared_data / "vqax" / "vqaX_val.json").read_text(encoding="utf-8"))
    questions = [row["question"] for row in data.values()][:300]
    root = Path(__file__).resolve().parents[2]

    def run(seed: int, hashseed: str) -> str:
        env = {**os.environ, "PYTHONHASHSEED": hashseed}
        return subprocess.run([sys.executable, "-c", _SCRIPT, str(seed)], input=json.dumps(questions), text=True,
                              capture_output=True, check=True, env=env, cwd=root).stdout

    first = run(0, "1")
    assert first == run(0, "2")  # another process, another hash seed: identical
    assert first != run(1, "1")  # the seed picks among usable sites
