"""toyvqa: determinism, schema, complementary pairs, priors, caching, plugin registration."""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from harness.errors import HarnessError, UsageError
from harness.host import PluginHost
from harness.metrics import answer_type, normalize_answer, question_type, vqa_accuracy
from harness.types import EXAMPLE_COLUMNS, Example
from vqa_harness_plugins import toy as toy_plugin
from vqa_harness_plugins.datasets import toyvqa
from vqa_harness_plugins.datasets.toyvqa import ToyVQA, build, generate, questions, world
from vqa_harness_plugins.datasets.toyvqa.humans import NUMBER_WORDS
from vqa_harness_plugins.datasets.toyvqa.questions import answer_question

#: Digests of generate("balanced", "val", 0, images=3): rows, and decoded RGB pixels.
ROWS_DIGEST = "740390d178913f47"
PIXELS_DIGEST = "7ef3caee5d415ce3"


def _rows(examples, root: Path | None = None) -> list[dict]:
    out = []
    for ex in examples:
        row = ex.to_row()
        if root is not None and row["image"]:
            row["image"] = Path(row["image"]).relative_to(root).as_posix()
        out.append(row)
    return out


@pytest.fixture(scope="module")
def text_splits() -> dict[tuple[str, str], list[Example]]:
    """Text-only splits (no PNGs) big enough for prior statistics."""
    sizes = {"train": 400, "val": 150}
    return {
        (v, s): list(generate(v, s, 0, images=n).examples)
        for v in build.VARIANTS
        for s, n in sizes.items()
    }


# ------------------------------------------------------------------------ determinism


def test_same_seed_gives_identical_rows_and_png_bytes(tmp_path: Path) -> None:
    a = generate("balanced", "val", 3, images=8, out_dir=tmp_path / "a")
    b = generate("balanced", "val", 3, images=8, out_dir=tmp_path / "b")
    assert _rows(a.examples, tmp_path / "a") == _rows(b.examples, tmp_path / "b")
    files = sorted(p.name for p in (tmp_path / "a" / "images").iterdir())
    assert files == sorted(p.name for p in (tmp_path / "b" / "images").iterdir())
    assert len(files) == len({e.image_id for e in a.examples})
    for name in files:
        png_a = (tmp_path / "a" / "images" / name).read_bytes()
        assert png_a == (tmp_path / "b" / "images" / name).read_bytes()


def test_other_seed_or_split_gives_other_data() -> None:
    base = _rows(generate("unbalanced", "val", 0, images=10).examples)
    other_seed = _rows(generate("unbalanced", "val", 1, images=10).examples)
    other_split = _rows(generate("unbalanced", "train", 0, images=10).examples)
    def texts(rows: list[dict]) -> list[tuple[str, str]]:
        return [(r["question"], r["label"]) for r in rows]

    assert texts(base) != texts(other_seed)
    assert texts(base) != texts(other_split)


def test_golden_digests(tmp_path: Path) -> None:
    """Pins the generator's output: if this fails, bump GENERATOR_VERSION (and the digests).

    Rows and decoded pixels (not PNG bytes, which depend on the zlib build) must be the
    same on every machine.
    """
    from PIL import Image

    data = generate("balanced", "val", 0, images=3, out_dir=tmp_path)
    rows = json.dumps(_rows(data.examples, tmp_path), sort_keys=True).encode()
    pixels = hashlib.sha256()
    for image_id in sorted(data.scenes):
        with Image.open(tmp_path / "images" / f"{image_id}.png") as im:
            pixels.update(im.convert("RGB").tobytes())
    assert build.GENERATOR_VERSION == "1"
    assert hashlib.sha256(rows).hexdigest()[:16] == ROWS_DIGEST
    assert pixels.hexdigest()[:16] == PIXELS_DIGEST


def test_generation_does_not_depend_on_hash_seed() -> None:
    code = (
        "import hashlib, json\n"
        "from vqa_harness_plugins.datasets.toyvqa import generate\n"
        "rows = [e.to_row() for e in generate('balanced', 'train', 5, images=6).examples]\n"
        "print(hashlib.sha256(json.dumps(rows, sort_keys=True).encode()).hexdigest())\n"
    )
    digests = set()
    for hash_seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=hash_seed)
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True, check=True)
        digests.add(out.stdout.strip())
    assert len(digests) == 1


# ----------------------------------------------------------------------------- schema


@pytest.mark.parametrize("variant", build.VARIANTS)
def test_schema(variant: str, tmp_path: Path) -> None:
    examples = generate(variant, "train", 0, images=20, out_dir=tmp_path).examples
    assert len({e.id for e in examples}) == len(examples)
    families = Counter()
    for e in examples:
        fam = e.meta["family"]
        families[fam] += 1
        assert len(e.answers) == 10 and all(isinstance(a, str) and a for a in e.answers)
        assert len(e.explanations) == 3 and len(set(e.explanations)) == 3
        assert len(e.choices) == 4 and len(set(e.choices)) == 4 and e.label in e.choices
        assert e.label == e.meta["true_answer"] == e.meta["mc_target"]
        assert e.answer_type == questions.ANSWER_TYPES[fam] == answer_type(e.answers)
        assert e.question_type == question_type(e.question)
        assert Path(e.image).is_absolute() and Path(e.image).is_file()
        # The label is the consensus: most of the 10 answers normalize to it.
        assert sum(normalize_answer(a) == e.label for a in e.answers) >= 6
        assert vqa_accuracy(e.label, e.answers) == 1.0
        if fam == "existence":
            assert e.label in ("yes", "no")
        elif fam == "counting":
            assert e.label.isdigit()
        elif fam == "color":
            assert e.label in world.COLORS
        else:
            assert e.label in world.NOUNS
        if fam != "existence":
            shown = e.label if fam != "counting" else NUMBER_WORDS[int(e.label)]
            assert any(shown in x or (e.label == "0" and " no " in f" {x} ")
                       for x in e.explanations)
        assert (e.pair_id != "") == (variant == "balanced")
        assert Example.from_row(json.loads(json.dumps(e.to_row()))) == e
    assert set(families) == set(questions.FAMILIES)
    per_image = Counter(e.image_id for e in examples if not e.meta["complement"])
    assert min(per_image.values()) >= 2 and max(per_image.values()) >= 3


def test_answers_show_surface_variation(text_splits) -> None:
    answers = [a for e in text_splits["unbalanced", "train"] for a in e.answers]
    assert {"2", "two", "Two."} <= set(answers)
    assert {"yes", "Yes"} <= set(answers)
    assert any(a.startswith(("a ", "A ")) for a in answers)
    train = text_splits["unbalanced", "train"]
    disagreeing = sum(len({normalize_answer(a) for a in e.answers}) > 1 for e in train)
    assert 0.1 < disagreeing / len(train) < 0.7


def test_question_types_are_official(shared_data: Path) -> None:
    text = (shared_data / "vqa" / "mscoco_question_types.txt").read_text()
    official = {line.strip() for line in text.splitlines() if line.strip()}
    found = {e.question_type for e in generate("balanced", "val", 0, images=60).examples}
    assert found <= official
    # Every template starts with a multi-word official prefix (not a bare "what"/"is").
    assert all(len(t.split()) >= 2 for t in found)


# --------------------------------------------------------------------- balanced pairs


def test_balanced_pairs(tmp_path: Path) -> None:
    data = generate("balanced", "val", 0, images=25, out_dir=tmp_path)
    by_id = {e.id: e for e in data.examples}
    for e in data.examples:
        other = by_id[e.pair_id]
        assert other.pair_id == e.id
        assert other.question == e.question
        assert other.label != e.label
        assert other.image_id != e.image_id
        assert Path(other.image).read_bytes() != Path(e.image).read_bytes()
        assert e.meta["complement"] != other.meta["complement"]
        # A minimal edit: objects that stay in place keep their place, at most one
        # object appears or disappears.
        a, b = data.scenes[e.image_id], data.scenes[other.image_id]
        assert abs(len(a.objects) - len(b.objects)) <= 1
        cells_a, cells_b = {o.cell for o in a.objects}, {o.cell for o in b.objects}
        assert len(cells_a ^ cells_b) <= 1


# ---------------------------------------------------------------------------- priors


def _language_only_accuracy(train: list[Example], val: list[Example]) -> float:
    """Majority train answer per question text, else per question type (an n-gram model)."""
    by_text, by_type = defaultdict(Counter), defaultdict(Counter)
    for e in train:
        by_text[e.question.lower()][e.label] += 1
        by_type[e.question_type][e.label] += 1
    fallback = Counter(e.label for e in train).most_common(1)[0][0]

    def guess(e: Example) -> str:
        for table, key in ((by_text, e.question.lower()), (by_type, e.question_type)):
            if key in table:
                return table[key].most_common(1)[0][0]
        return fallback

    return sum(guess(e) == e.label for e in val) / len(val)


def _weighted_entropy(examples: list[Example]) -> float:
    by_type = defaultdict(Counter)
    for e in examples:
        by_type[e.question_type][e.label] += 1
    total = len(examples)
    out = 0.0
    for counts in by_type.values():
        n = sum(counts.values())
        out += n / total * -sum(c / n * math.log2(c / n) for c in counts.values())
    return out


def test_unbalanced_is_predictable_from_the_question(text_splits) -> None:
    acc = {v: _language_only_accuracy(text_splits[v, "train"], text_splits[v, "val"])
           for v in build.VARIANTS}
    assert acc["unbalanced"] > 0.6
    assert acc["balanced"] < 0.4
    assert acc["unbalanced"] - acc["balanced"] > 0.3
    yes_no = {v: [e.label for e in text_splits[v, "train"] if e.meta["family"] == "existence"]
              for v in build.VARIANTS}
    assert 0.78 < yes_no["unbalanced"].count("yes") / len(yes_no["unbalanced"]) < 0.92
    assert yes_no["balanced"].count("yes") == yes_no["balanced"].count("no")


def test_balanced_answer_entropy_is_higher(text_splits) -> None:
    unb = _weighted_entropy(text_splits["unbalanced", "val"])
    bal = _weighted_entropy(text_splits["balanced", "val"])
    assert bal > unb * 1.1


def test_multiple_choice_shortcut_beats_chance(text_splits) -> None:
    """Chao 2018 Eq. 2 on candidates alone (no image, no question) beats 1/4 by far."""
    for variant in build.VARIANTS:
        target, decoy = Counter(), Counter()
        for e in text_splits[variant, "train"]:
            target[e.label] += 1
            decoy.update(c for c in e.choices if c != e.label)
        # Eq. 2 with K = 3 decoys; 0.5 for a candidate never seen in training.
        score = {c: target[c] / (target[c] + decoy[c] / 3) for c in target | decoy}
        val = text_splits[variant, "val"]
        acc = sum(max(e.choices, key=lambda c: score.get(c, 0.5)) == e.label for e in val)
        assert acc / len(val) > 0.45, variant


# ------------------------------------------------------------------------ vocabulary


def test_colors_are_matplotlib_named_colors() -> None:
    mcolors = pytest.importorskip("matplotlib.colors")
    for name, hexa in world.COLORS.items():
        assert mcolors.CSS4_COLORS[name].upper() == hexa.upper()
    assert world.BACKGROUND not in {toyvqa.render.rgb(name) for name in world.COLORS}
    for odd in toyvqa.humans.ODD_DECOYS["color"]:
        assert odd in mcolors.CSS4_COLORS


def test_words_exist_in_wordnet() -> None:
    try:
        from vqa_harness_plugins.nlp import wordnet

        wn = wordnet()
    except (ImportError, LookupError, OSError, HarnessError) as exc:
        pytest.skip(f"WordNet unavailable: {exc}")
    for noun, sense in world.NOUN_SENSES.items():
        synset = wn.synset(sense)
        assert noun in {name.lower() for name in synset.lemma_names()}
        assert synset.hypernyms()
        siblings = {s for h in synset.hypernyms() for s in h.hyponyms()} - {synset}
        assert siblings, noun
    for color in world.COLORS:
        assert wn.synsets(color), color
    def lemmas(word: str) -> set[str]:
        return {name for synset in wn.synsets(word, "a") for name in synset.lemma_names()}

    assert "little" in lemmas("small") and "big" in lemmas("large")


def test_oracle_answers_every_question_and_synonym_edits(text_splits) -> None:
    data = generate("unbalanced", "val", 0, images=40)
    for e in data.examples:
        scene = data.scenes[e.image_id]
        assert answer_question(scene, e.question) == e.label
        edited = re.sub(r"\bsmall\b", "little", re.sub(r"\blarge\b", "big", e.question))
        assert answer_question(scene, edited) == e.label
    scene = next(iter(data.scenes.values()))
    assert answer_question(scene, "Is there a crimson ball?") is None
    assert answer_question(scene, "Is there a game equipment?") is None


# ---------------------------------------------------------------------- plugin, cache


def test_plugin_registers_and_loads(fresh_cache: Path) -> None:
    host = PluginHost(load_entry_points=False, extra_plugins=[("toy", toy_plugin)])
    assert not host.failures
    cls = host.datasets["toyvqa"]
    assert cls is ToyVQA and cls.splits == ("train", "val")
    examples = cls(variant="balanced", images="3", seed="2").load("val")
    first = examples[0]
    assert set(EXAMPLE_COLUMNS) <= set(first.to_row()) and Example.from_row(first.to_row()) == first
    assert first == ToyVQA(variant="balanced", images=3, seed=2).examples("val")[0]
    assert Path(first.image).is_file() and str(first.image).startswith(str(fresh_cache))


def test_options_and_fingerprint(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(UsageError, match="variant"):
        ToyVQA(variant="skewed")
    with pytest.raises(UsageError, match="split"):
        ToyVQA().examples("test")
    base = ToyVQA().fingerprint("val")
    assert base == ToyVQA().fingerprint("val")
    assert base != ToyVQA().fingerprint("train")
    assert base != ToyVQA(variant="balanced").fingerprint("val")
    assert base != ToyVQA(seed=1).fingerprint("val")
    monkeypatch.setattr(toyvqa, "GENERATOR_VERSION", "test-bump")
    assert base != ToyVQA().fingerprint("val")


def test_second_load_reads_the_cache(fresh_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = ToyVQA(images=4).examples("val")

    def boom(*args, **kwargs):
        raise AssertionError("generate() called although the split is cached")

    monkeypatch.setattr(build, "generate", boom)
    again = ToyVQA(images=4).examples("val")
    assert again == first
    assert all(Path(e.image).is_file() for e in again)
    scenes = ToyVQA(images=4).scenes("val")
    oracle = ToyVQA(images=4).oracle("val")
    assert set(scenes) == {e.image_id for e in first}
    assert all(oracle(e.image_id, e.question) == e.label for e in first)


def test_interrupted_generation_leaves_no_complete_cache(
    fresh_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from vqa_harness_plugins.datasets.toyvqa import render

    calls = {"n": 0}
    real_save = render.save_png

    def flaky(img, path):
        calls["n"] += 1
        if calls["n"] == 5:
            raise KeyboardInterrupt  # as if the user pressed Ctrl-C mid-generation
        real_save(img, path)

    monkeypatch.setattr(build, "save_png", flaky)
    with pytest.raises(KeyboardInterrupt):
        ToyVQA(images=6).examples("val")
    folder = build.split_dir("unbalanced", "val", 0, 6, build.DEFAULT_SIZE)
    assert not folder.exists()
    assert not list(folder.parent.glob(".tmp-*"))
    monkeypatch.setattr(build, "save_png", real_save)
    # A folder without its completion marker (e.g. copied half-way) is regenerated.
    folder.mkdir(parents=True)
    (folder / build.EXAMPLES).write_text("{broken\n")
    examples = ToyVQA(images=6).examples("val")
    fresh = generate("unbalanced", "val", 0, images=6, out_dir=fresh_cache / "x")
    assert _rows(examples, folder) == _rows(fresh.examples, fresh_cache / "x")
    assert (folder / build.MARKER).is_file()
    marker = json.loads((folder / build.MARKER).read_text())
    assert marker["sha256"] == hashlib.sha256((folder / build.EXAMPLES).read_bytes()).hexdigest()
    assert marker["examples"] == len(examples)


def test_a_cached_split_cut_at_a_line_end_is_regenerated(fresh_cache: Path) -> None:
    """Its marker says complete; before, the first lines were read as the split (wrong rows)."""
    first = ToyVQA(images=6).examples("val")
    path = build.split_dir("unbalanced", "val", 0, 6, build.DEFAULT_SIZE) / build.EXAMPLES
    path.write_text("".join(path.read_text().splitlines(keepends=True)[:3]))
    assert ToyVQA(images=6).examples("val") == first
