"""`hf-vqa` on tiny local ViLT (classifier) and BLIP (generator) checkpoints, offline."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from helpers_hf import ANSWERS

from harness.cache.predictions import PredictionCache
from harness.errors import ResourceError, UsageError
from harness.run.predictor import Predictor

pytest.importorskip("transformers")


def _model(path: Path, **options):
    from vqa_harness_plugins.models.hf import HFVQAModel

    model = HFVQAModel(path=str(path), **options)
    model.setup("cpu")
    return model


def _predict(model, examples, capability, batch_size, tmp_path, answers=None):
    cache = PredictionCache(tmp_path / f"cache-{capability}-{batch_size}.sqlite")
    runner = Predictor(model, cache=cache, batch_size=batch_size, progress=False)
    preds = runner.predict(examples, capability, answers=answers)
    cache.close()
    return preds, runner.stats


def test_classifier_answers_scores_and_choice_logits(tiny_vilt, toy_examples):
    import torch
    from transformers import ViltForQuestionAnswering

    from vqa_harness_plugins.models.hf.base import OUT_OF_LABELS

    model = _model(tiny_vilt)
    assert model.kind == "classifier" and model.capabilities() == {"answer", "score_choices"}
    batch = [ex.with_(choices=("red", "Blue.", "zebra")) for ex in toy_examples[:4]]
    answers = model.answer(batch)
    for ans in answers:
        ranked = list(ans.scores.values())
        assert ans.text in ANSWERS and ans.text == next(iter(ans.scores))
        assert ranked == sorted(ranked, reverse=True) and all(0 < p < 1 for p in ranked)  # sigmoid (ViLT)
    assert len({a.text for a in model.answer(toy_examples)}) > 1, "random model should not be constant"
    scores = model.score_choices(batch)
    # The logit of the candidate's label, straight from the model on the same inputs.
    net = ViltForQuestionAnswering.from_pretrained(tiny_vilt).eval()
    prepared = model._prepare(batch, "answer", [""] * 4)
    with torch.inference_mode():
        logits = net(**prepared.inputs).logits
    for row, s in zip(logits, scores):
        assert s[0] == pytest.approx(float(row[ANSWERS.index("red")]), abs=1e-5)
        assert s[1] == pytest.approx(float(row[ANSWERS.index("blue")]), abs=1e-5)  # normalized match
        assert s[2] == OUT_OF_LABELS
    assert model.notes["choices_outside_labels"] == 4
    assert "4 of 12 candidate answers scored by this process are not among the labels" in model.report_notes()
    assert _model(tiny_vilt).report_notes() == ""  # nothing scored, nothing to say
    with pytest.raises(UsageError):
        model.explain(batch, ["red"] * 4)


@pytest.mark.parametrize("fixture", ["tiny_vilt", "tiny_blip"])
def test_batch_size_invariance(fixture, request, toy_examples, tmp_path):
    """Batch sizes 1, 3 and 8 (and length bucketing) give identical answers and scores."""
    model = _model(request.getfixturevalue(fixture), max_new_tokens=3)
    examples = [ex.with_(choices=("red", "yes", "2 red")) for ex in toy_examples[:13]]
    runs = {bs: _predict(model, examples, "answer", bs, tmp_path)[0] for bs in (1, 3, 8)}
    choice_runs = {bs: _predict(model, examples, "score_choices", bs, tmp_path)[0] for bs in (1, 3, 8)}
    model.config["bucket"] = True
    streamed = {}
    for idx, preds in model.predict_stream(examples, "answer", batch_size=8):
        streamed.update(zip(idx, preds))
    runs["bucketed"] = [streamed[i] for i in range(len(examples))]
    base = runs[1]
    for preds in runs.values():
        assert [p.answer for p in preds] == [p.answer for p in base]
        for p, q in zip(preds, base):
            if q.answer_scores:
                assert p.answer_scores.keys() == q.answer_scores.keys()
                assert np.allclose(list(p.answer_scores.values()), list(q.answer_scores.values()), atol=1e-5)
    for preds in choice_runs.values():
        assert np.allclose([p.choice_scores for p in preds], [p.choice_scores for p in choice_runs[1]], atol=1e-4)


def test_generator_answer_loglik_and_explain(tiny_blip, toy_examples):
    import torch

    model = _model(tiny_blip, max_new_tokens=4)
    assert model.kind == "generator" and model.capabilities() == {"answer", "score_choices", "explain"}
    batch = [ex.with_(choices=("red", "blue square")) for ex in toy_examples[:3]]
    texts = list(model.answer(batch))
    assert all(isinstance(t, str) and t and len(t.split()) <= 4 for t in texts)
    scores = model.score_choices(batch)
    assert all(len(s) == 2 and all(math.isfinite(v) and v < 0 for v in s) for s in scores)
    # Candidate log-likelihood = sum of log P(token) for "[DEC] red [SEP]", checked by hand.
    ex = batch[0]
    prepared = model._prepare([ex], "answer", [""])
    with torch.inference_mode():
        q, mask = model._encode_question(prepared.inputs)
        ids = torch.tensor([[model.net.decoder_start_token_id, model.tokenizer.convert_tokens_to_ids("red"), 3]])
        logits = model.net.text_decoder(input_ids=ids, encoder_hidden_states=q, encoder_attention_mask=mask).logits
        logp = torch.log_softmax(logits[0, :-1].float(), -1)
        expected = float(logp[0, ids[0, 1]] + logp[1, ids[0, 2]])
    assert scores[0][0] == pytest.approx(expected, abs=1e-4)
    explanations = model.explain(batch, texts)
    assert len(explanations) == 3 and all(isinstance(e, str) for e in explanations)


def test_bad_image_errors_for_that_example_only(tiny_vilt, toy_examples, tmp_path):
    bad = tmp_path / "broken.jpg"
    bad.write_bytes(b"not an image")
    examples = list(toy_examples[:5])
    examples[2] = examples[2].with_(image=str(bad))
    model = _model(tiny_vilt)
    preds, stats = _predict(model, examples, "answer", 4, tmp_path)
    assert [p.ok for p in preds] == [True, True, False, True, True]
    assert str(bad) in preds[2].error and "hf-vqa" in preds[2].error and stats.errors == 1
    streamed = [p for _, ps in model.predict_stream(examples, "answer", batch_size=4) for p in ps]
    assert sorted(p.example_id for p in streamed if not p.ok) == [examples[2].id]


def test_hub_id_not_cached_offline_is_one_line_usage_error(monkeypatch, tmp_path):
    from vqa_harness_plugins.models.hf import HFVQAModel

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    with pytest.raises(UsageError) as info:
        HFVQAModel(path="dandelin/vilt-b32-finetuned-vqa")
    message = str(info.value)
    assert "\n" not in message and "not in the local Hugging Face cache" in message and "path=" in message
    with pytest.raises(UsageError, match="does not exist"):
        HFVQAModel(path=str(tmp_path / "nowhere"))
    assert HFVQAModel.options["trust_remote_code"].default is False


def test_oom_backoff_halves_and_reports():
    import torch

    from vqa_harness_plugins.models.hf.pipeline import Backoff

    calls = []

    def forward(a, b):
        calls.append(b - a)
        if b - a > 3:
            raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 2 GiB")
        return list(range(a, b))

    backoff = Backoff()
    assert backoff.run(10, forward) == list(range(10))
    assert backoff.events == [(10, 5), (5, 2)] and backoff.limit == 2
    with pytest.raises(ResourceError, match="batch of 1"):
        Backoff(limit=1).run(1, lambda a, b: (_ for _ in ()).throw(torch.cuda.OutOfMemoryError("out of memory")))
    with pytest.raises(ValueError):  # other errors are not swallowed
        Backoff().run(2, lambda a, b: (_ for _ in ()).throw(ValueError("boom")))


def test_harness_run_vqa_accuracy_on_tiny_vilt(tiny_vilt, tmp_path):
    """`harness run --model hf-vqa:path=<tiny ViLT> --suite vqa-accuracy --limit 20`, offline."""
    from harness.host import reset_host
    from vqa_harness_cli import main

    reset_host(None)
    code = main(["run", "--model", f"hf-vqa:path={tiny_vilt}", "--suite", "vqa-accuracy", "--limit", "20",
                 "--device", "cpu", "--out", str(tmp_path / "runs"), "--cache", str(tmp_path / "c.sqlite"),
                 "--no-leaderboard", "--batch-size", "7"])
    reset_host(None)
    assert code == 0
    import json

    (run_dir,) = list((tmp_path / "runs").iterdir())
    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    overall = [r for r in rows if r["metric"] == "vqa_accuracy"]
    assert len(overall) == 2 and all(r["n"] == 20 and 0 <= r["value"] <= 1 for r in overall)


def test_an_earlier_image_size_option_does_not_leak_into_the_next_model_on_the_checkpoint(tiny_vilt, toy_examples):
    """The loaded processor is shared by the instances on one checkpoint (one model in memory);
    a later instance without `image_size=` uses the checkpoint's size, not the one an earlier
    `--model ...,image_size=32` set (its answers were cached under the default's fingerprint)."""
    from vqa_harness_plugins.models.hf import HFVQAModel, base

    base._LOADED.clear()
    alone = HFVQAModel(path=str(tiny_vilt))
    alone.setup("cpu")
    native, answers = alone.image_size, [a.text for a in alone.answer(toy_examples[:8])]
    base._LOADED.clear()
    small = HFVQAModel(path=str(tiny_vilt), image_size=32)
    small.setup("cpu")
    assert small.image_size == 32 != native
    after = HFVQAModel(path=str(tiny_vilt))
    after.setup("cpu")
    assert after.image_size == native and [a.text for a in after.answer(toy_examples[:8])] == answers


def test_option_mistakes_are_one_line_when_the_model_is_made(tiny_blip, tiny_llava):
    from vqa_harness_plugins.models.hf import HFVLMModel, HFVQAModel

    with pytest.raises(UsageError, match=r"explain_prompt=.*may use only \{question\} and \{answer\}"):
        HFVQAModel(path=str(tiny_blip), explain_prompt="why is {answr} right")
    with pytest.raises(UsageError, match="max_length"):  # hf-vqa's question truncation only
        HFVLMModel(path=str(tiny_llava), max_length=1)


def _top_answers_one_row(logits, labels, score_fn, k):
    """The definition: each row on its own, a full stable sort (the code before the batched one)."""
    x = logits.astype(np.float64)
    if score_fn == "sigmoid":
        probs = 1.0 / (1.0 + np.exp(-x))
    else:
        shifted = np.exp(x - logits.max())
        probs = shifted / shifted.sum()
    order = np.argsort(-probs, kind="stable")[:k]
    return labels[int(np.argmax(logits))], [(labels[int(i)], float(probs[int(i)])) for i in order]


@pytest.mark.parametrize("score_fn", ["sigmoid", "softmax"])
def test_batched_top_answers_equal_a_full_sort_row_by_row(score_fn):
    """Same labels, same order, same float64 bits as a full sort of each row: ties (rounded
    logits) go to the lower label id, NaN and inf rows fall back to the full sort."""
    from vqa_harness_plugins.models.hf.vqa import classifier_answers

    rng = np.random.default_rng(0)
    with np.errstate(all="ignore"):
        for trial in range(60):
            m = int(rng.choice([1, 3, 100, 3129]))
            logits = (rng.normal(size=(int(rng.integers(1, 9)), m)) * rng.choice([0.01, 1, 300])).astype(np.float32)
            if trial % 3 == 0:
                logits = np.round(logits)
            if trial % 7 == 0:
                logits[0, : min(m, 12)] = np.nan
            if trial % 5 == 0:  # fewer NaNs than k (10): the partial sort must fall back too
                logits[-1, rng.choice(m, size=min(m, int(rng.integers(1, 10))), replace=False)] = np.nan
            if trial % 11 == 0:
                logits[0, :] = np.inf
            labels = [f"a{i}" for i in range(m)]
            for k in (0, 1, 10, m + 1):
                got = [(a.text, list(a.scores.items())) for a in classifier_answers(logits, labels, score_fn, k)]
                want = [_top_answers_one_row(row, labels, score_fn, k) for row in logits]
                assert repr(got) == repr(want), (trial, k)
