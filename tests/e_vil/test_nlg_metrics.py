"""The metric bundle equals direct pycocoevalcap / bert_score calls on the same inputs."""

from __future__ import annotations

import pytest

from harness.errors import ResourceError
from vqa_harness_plugins.metrics import java_tools, nlg
from vqa_harness_plugins.metrics.evil_score import e_vil_score, harmonic_mean
from vqa_harness_plugins.metrics.nlg import nlg_scores, ptb_tokenize, simple_tokenize

PREDS = ["The man is riding a horse.", "a dog, running in the park!", "", "two kids play football on grass",
         "the sky is blue because it is day", "It's a red car -- parked."]
REFS = [["a man rides a horse", "the man is on a horse"], ["the dog runs in a park"], ["two people"],
        ["children are playing soccer", "kids play a game", "the kids play football"],
        ["it is daytime", "the sky is clear"], ["the car is red", "a red car is parked"]]


def _need_java_and_bertscore() -> None:
    import shutil

    from vqa_harness_plugins.nlp.bertscore import bertscore_status

    if shutil.which("java") is None:
        pytest.skip("java is not installed (apt-get install default-jre-headless)")
    if not bertscore_status().present:
        pytest.skip("the BERTScore model is not installed (harness resources)")


@pytest.fixture(scope="module")
def bundle():
    _need_java_and_bertscore()
    return nlg_scores(PREDS, REFS, metrics=("bleu1", "bleu2", "bleu3", "bleu4", "meteor", "rouge_l", "cider",
                                            "spice", "bertscore_f1"))


@pytest.fixture(scope="module")
def coco_inputs():
    _need_java_and_bertscore()
    from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

    tok = PTBTokenizer()
    res = tok.tokenize({i: [{"caption": p}] for i, p in enumerate(PREDS)})
    gts = tok.tokenize({i: [{"caption": r} for r in rs] for i, rs in enumerate(REFS)})
    return gts, res


def test_ptb_tokenization_matches_pycocoevalcap(coco_inputs):
    gts, res = coco_inputs
    flat = ptb_tokenize(PREDS + [r for rs in REFS for r in rs])
    assert flat[: len(PREDS)] == [res[i][0] for i in range(len(PREDS))]
    assert flat[len(PREDS):] == [r for i in range(len(REFS)) for r in gts[i]]


def test_bleu_rouge_cider_equal_direct_calls(bundle, coco_inputs):
    from pycocoevalcap.bleu.bleu import Bleu
    from pycocoevalcap.cider.cider import Cider
    from pycocoevalcap.rouge.rouge import Rouge

    gts, res = coco_inputs
    bleu, bleu_each = Bleu(4).compute_score(gts, res, verbose=0)
    for k in range(4):
        assert bundle.corpus[f"bleu{k + 1}"] == bleu[k]
        assert list(bundle.per_example[f"bleu{k + 1}"]) == list(bleu_each[k])
    rouge, rouge_each = Rouge().compute_score(gts, res)
    assert bundle.corpus["rouge_l"] == rouge and list(bundle.per_example["rouge_l"]) == list(rouge_each)
    cider, cider_each = Cider().compute_score(gts, res)
    assert bundle.corpus["cider"] == cider and list(bundle.per_example["cider"]) == list(cider_each)


def test_meteor_equals_direct_call(bundle, coco_inputs):
    from pycocoevalcap.meteor.meteor import Meteor

    gts, res = coco_inputs
    scorer = Meteor()
    try:
        score, each = scorer.compute_score(gts, res)
    finally:  # a failed call leaves Meteor's lock held, and its __del__ then blocked the test session
        java_tools.close_meteor(scorer)
    assert bundle.corpus["meteor"] == score
    assert list(bundle.per_example["meteor"]) == each


def test_bertscore_equals_direct_call(bundle):
    import bert_score

    from vqa_harness_plugins.nlp import bert_score_name, bertscore_model

    model, layers = bertscore_model()
    keep = [i for i, p in enumerate(PREDS) if p]
    _, _, f1 = bert_score.score([PREDS[i] for i in keep], [REFS[i] for i in keep], model_type=bert_score_name(model),
                                num_layers=layers, batch_size=64, device="cpu")
    assert [bundle.per_example["bertscore_f1"][i] for i in keep] == f1.tolist()
    # bert_score's own rule for an empty candidate: score 0 (its tokenizer call is bypassed)
    assert bundle.per_example["bertscore_f1"][2] == 0.0
    assert bundle.corpus["bertscore_f1"] == sum(bundle.per_example["bertscore_f1"]) / len(PREDS)
    assert bundle.resources["bertscore_model"] == model


def test_spice_is_unavailable_not_zero_and_combined_score_says_so(bundle):
    available, reason = nlg.spice_status()
    if available:
        pytest.skip("SPICE models are installed here")
    assert "spice" not in bundle.corpus and "Stanford CoreNLP" in bundle.unavailable["spice"]
    name, value, parts = e_vil_score(bundle.corpus)
    assert name == "e_vil_score_no_spice" and parts == ("rouge_l", "cider", "meteor")
    c = bundle.corpus
    ngram = 3 / (1 / c["rouge_l"] + 1 / c["cider"] + 1 / c["meteor"])
    assert value == pytest.approx(2 / (1 / c["bertscore_f1"] + 1 / ngram), rel=1e-12)


def test_combined_score_with_spice_and_harmonic_mean_edge_cases():
    scores = {"rouge_l": 0.5, "cider": 1.0, "meteor": 0.25, "spice": 0.2, "bertscore_f1": 0.9}
    name, value, parts = e_vil_score(scores)
    assert name == "e_vil_score" and parts == ("rouge_l", "spice", "cider", "meteor")
    assert value == pytest.approx(harmonic_mean([0.9, harmonic_mean([0.5, 0.2, 1.0, 0.25])]))
    assert harmonic_mean([0.0, 1.0]) == 0.0
    assert e_vil_score({"rouge_l": 0.5}) is None


def test_simple_tokenizer_needs_no_java_and_drops_punctuation():
    assert simple_tokenize("It's a red car -- parked.") == "it 's a red car parked"
    # PTB drops a straight double quote (as `` / ''), and keeps an accented word whole.
    assert simple_tokenize('the sign says "stop" here') == "the sign says stop here"
    assert simple_tokenize("a café by the sea") == "a café by the sea"
    out = nlg_scores(["a b c"], [["a b c"]], metrics=("bleu1", "rouge_l"), tokenize="simple")
    assert out.corpus["rouge_l"] == 1.0


def test_simple_tokenizer_drops_unicode_punctuation_as_ptb_does():
    # PTB rewrites curly quotes, guillemets, en/em dashes and the ellipsis character to their
    # ASCII forms and drops them; a curly apostrophe is an apostrophe ("don’t" -> "do n't").
    text = "“Stop” — she said… «ici» – don’t ‘go’"
    assert simple_tokenize(text) == "stop she said ici don 't go"
    assert simple_tokenize(text) == simple_tokenize('"Stop" -- she said... "ici" - don\'t go')


def test_missing_java_is_a_one_line_resource_error(monkeypatch):
    monkeypatch.setattr(nlg.shutil, "which", lambda name: None)
    with pytest.raises(ResourceError) as err:
        nlg_scores(["a"], [["a"]], metrics=("meteor",), tokenize="simple")
    msg = str(err.value)
    assert "java" in msg and "apt-get install default-jre-headless" in msg and "\n" not in msg
    with pytest.raises(ResourceError, match="java"):
        ptb_tokenize(["a"])


def test_local_evaluate_module_gives_the_bundle_scores():
    import evaluate

    from vqa_harness_plugins.metrics import evaluate_module_path

    module = evaluate.load(evaluate_module_path("nle_scores"))
    metrics = ["bleu1", "bleu4", "rouge_l", "cider"]
    out = module.compute(predictions=PREDS, references=REFS, tokenize="simple", metrics=metrics)
    direct = nlg_scores(PREDS, REFS, metrics=metrics, tokenize="simple")
    assert {m: out[m] for m in metrics} == dict(direct.corpus)
    assert out["unavailable"] == {}


BERTSCORE_SCRIPT = """
import json, random, sys
import torch
torch.set_num_threads(int(sys.argv[1]))
from vqa_harness_plugins.metrics.nlg import nlg_scores
rng = random.Random(0)
words = "the a man woman dog cat red blue bike street sofa window riding sleeps runs near on under".split()
text = lambda: " ".join(rng.choice(words) for _ in range(rng.randint(3, 20)))
preds = [text() for _ in range(150)]
refs = [[text() for _ in range(2)] for _ in range(150)]
out = nlg_scores(preds, refs, metrics=("bertscore_f1",), tokenize="none")
print(json.dumps([v.hex() for v in out.per_example["bertscore_f1"]]))
"""


def test_bertscore_bits_do_not_depend_on_hash_seed_or_threads(tmp_path):
    """bert_score batches the distinct texts in `set` order; with per-process string hashes
    the batches, their padding and the last bits of the scores changed from run to run."""
    import json
    import os
    import subprocess
    import sys

    _need_java_and_bertscore()

    def start(seed: str, threads: int) -> subprocess.Popen:
        env = {**os.environ, "PYTHONHASHSEED": seed}
        return subprocess.Popen([sys.executable, "-c", BERTSCORE_SCRIPT, str(threads)], env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def scores(process: subprocess.Popen) -> list[str]:
        out, err = process.communicate(timeout=300)
        assert process.returncode == 0, err[-3000:]
        return json.loads(out.strip().splitlines()[-1])

    # The three processes run side by side (the suite itself uses one core).
    first, *others = [scores(p) for p in [start("1", 1), start("2", 2), start("3", 1)]]
    assert len(first) == 150 and len(set(first)) > 100
    assert others == [first, first]


def test_cider_and_the_e_vil_score_are_unavailable_on_one_example_not_zero():
    """With one example every CIDEr-D n-gram weight is log(1/1) = 0: the score would be 0 for
    a perfect explanation, and the e-ViL score (a harmonic mean with it) 0 too."""
    from vqa_harness_plugins.metrics.nlg import nlg_scores

    one = nlg_scores(["the man is riding a horse"], [["the man is riding a horse", "a man rides a horse"]],
                     metrics=("rouge_l", "cider"), tokenize="simple")
    assert "cider" not in one.corpus and "one scored example" in one.unavailable["cider"]
    assert one.corpus["rouge_l"] == 1.0
    assert e_vil_score({**one.corpus, "meteor": 1.0, "bertscore_f1": 1.0}) is None
    two = nlg_scores(["the man is riding a horse", "a red car"], [["the man is riding a horse"], ["a red car"]],
                     metrics=("cider",), tokenize="simple")
    assert two.corpus["cider"] > 0


def test_a_bertscore_model_folder_is_checked_also_when_its_layers_are_given(tmp_path):
    from vqa_harness_plugins.metrics.nlg import _bertscore

    with pytest.raises(ResourceError, match="BERTScore model: .*nowhere is not a folder"):
        _bertscore(["a cat"], [["a cat"]], str(tmp_path / "nowhere"), 3, 8, "cpu")


def _model_under(folder, model):
    """The model's files linked into `folder` (a real folder, so resolving it keeps its name)."""
    from pathlib import Path

    folder.mkdir(parents=True)
    for f in Path(model).iterdir():
        (folder / f.name).symlink_to(f)
    return folder


@pytest.mark.parametrize("how", ["variable", "option"])
def test_bertscore_does_not_depend_on_t5_in_the_model_folders_path(bundle, tmp_path, monkeypatch, how):
    # bert_score loads T5EncoderModel whenever "t5" occurs in its model_type, which for a local
    # folder is the whole path: CI's venv under /tmp/tmp.iA5ht5Lu0E/ gave our BERT untrained T5
    # weights (random scores, different at every load) and failed four tests.
    from vqa_harness_plugins.nlp import bertscore_model
    from vqa_harness_plugins.nlp.bertscore import MODEL_ENV

    folder = _model_under(tmp_path / "tmp.iA5ht5Lu0E" / "model", bertscore_model()[0])
    if how == "variable":
        monkeypatch.setenv(MODEL_ENV, str(folder))
        got = nlg_scores(PREDS, REFS, metrics=("bertscore_f1",))
    else:
        got = nlg_scores(PREDS, REFS, metrics=("bertscore_f1",), bertscore_model=str(folder))
    assert got.resources["bertscore_model"] == str(folder)
    assert got.per_example["bertscore_f1"] == bundle.per_example["bertscore_f1"]


@pytest.mark.parametrize("given", ["~/models/minilm", "scibert-minilm"])
def test_bertscore_model_option_relative_or_under_home(bundle, tmp_path, monkeypatch, given):
    # "~/models/minilm": passed the probe's check (which expands "~") and the metric was then
    # reported unavailable ("~/models/minilm is not a folder"). "scibert-minilm", relative to
    # the working folder: bert_score takes a name starting with "scibert" for a SciBERT model
    # to download and failed with KeyError.
    from vqa_harness_plugins.nlp import bertscore_model
    from vqa_harness_plugins.nlp.bertscore import chosen_model_problem

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    folder = _model_under(tmp_path / ("home/models/minilm" if given.startswith("~") else given), bertscore_model()[0])
    assert chosen_model_problem(given) == ""
    got = nlg_scores(PREDS, REFS, metrics=("bertscore_f1",), bertscore_model=given)
    assert got.unavailable == {}
    assert got.per_example["bertscore_f1"] == bundle.per_example["bertscore_f1"]
    assert folder.is_dir()
