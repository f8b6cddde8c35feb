"""prior, qtype-prior, qonly and the shared trainer: values, cache, fingerprints."""

from __future__ import annotations

import math

import pytest

from harness.errors import DataError, UsageError
from harness.host import PluginHost
from harness.types import Example
from vqa_harness_plugins import baselines
from vqa_harness_plugins.models.answers import OUT_OF_VOCAB
from vqa_harness_plugins.models.priors import PriorModel, QTypePriorModel
from vqa_harness_plugins.models.qonly import QOnlyModel
from vqa_harness_plugins.models.text import Vocab, answer_counts, ngrams, normalize, tokenize


def ex(
    i: int, question: str, answer: str, qtype: str = "", answers: tuple[str, ...] | None = None
) -> Example:
    return Example(
        id=str(i),
        question=question,
        answers=answers or (answer,) * 10,
        label=answer,
        question_type=qtype,
    )


def counted_train() -> list[Example]:
    rows = [("is there a dog?", "yes", "is there")] * 5 + [
        ("is there a cat?", "no", "is there")
    ] * 3
    rows += [("how many dogs?", "2", "how many")] * 2
    return [ex(i, q, a, t) for i, (q, a, t) in enumerate(rows)]


# Four question patterns, each with its own answer: learnable from the question alone.
MAPPING = {
    "what color is the sky?": "blue",
    "what color is the grass?": "green",
    "what animal barks?": "dog",
    "is water wet?": "yes",
}


def mapping_train(n: int = 160) -> list[Example]:
    items = list(MAPPING.items())
    return [ex(i, *items[i % len(items)]) for i in range(n)]


# ----------------------------------------------------------------------------- text


def test_tokenize_and_ngrams() -> None:
    assert tokenize("What's the color of the Box?") == [
        "what's",
        "the",
        "color",
        "of",
        "the",
        "box",
    ]
    assert ngrams(["a", "b", "c"], 2) == ["a", "b", "c", "a b", "b c"]


def test_answer_vocab_soft_scores() -> None:
    vocab = Vocab(("2", "3"))
    example = ex(0, "how many?", "2", answers=("two", "2", "2", "3", "4", "2", "2", "3", "2", "2"))
    # "two" normalizes to "2" (official digit processing): 7 x "2", 2 x "3", 1 x "4" (not in vocab).
    assert answer_counts(example, vocab, normalize) == {0: 1.0, 1: pytest.approx(2 / 3)}


# --------------------------------------------------------------------------- priors


def test_prior_picks_majority_and_scores_choices() -> None:
    model = PriorModel()
    model.fit(counted_train(), seed=0)
    [answer] = model.answer([ex(99, "anything at all?", "")])
    assert answer.text == "yes"
    assert answer.scores == pytest.approx({"yes": 0.5, "no": 0.3, "2": 0.2})
    [scores] = model.score_choices([Example(id="q", question="?", choices=("No", "yes", "purple"))])
    assert scores == pytest.approx([math.log(0.3), math.log(0.5), OUT_OF_VOCAB])


def test_qtype_prior_per_type_with_fallback() -> None:
    model = QTypePriorModel()
    model.fit(counted_train(), seed=0)
    answers = model.answer(
        [
            ex(1, "is there x?", "", "is there"),
            ex(2, "how many x?", "", "how many"),
            ex(3, "why?", "", "why"),
        ]
    )
    assert [a.text for a in answers] == ["yes", "2", "yes"]
    assert answers[0].scores == pytest.approx({"yes": 5 / 8, "no": 3 / 8})
    # The question type is part of what this model sees, so it is part of the cache key.
    a, b = ex(1, "q?", "", "is there"), ex(1, "q?", "", "how many")
    assert model.input_key(a, "answer") != model.input_key(b, "answer")


@pytest.mark.parametrize("cls", [PriorModel, QTypePriorModel, QOnlyModel])
def test_predicting_before_fit_is_a_usage_error(cls: type) -> None:
    with pytest.raises(UsageError, match=cls.name):
        cls().answer([ex(0, "is it?", "yes")])


def test_prior_rejects_unlabelled_train() -> None:
    with pytest.raises(DataError, match="prior"):
        PriorModel().fit([Example(id="0", question="q?")], seed=0)


def test_prior_fingerprint_follows_train_data() -> None:
    a, b = PriorModel(), PriorModel()
    a.fit(counted_train(), seed=0)
    b.fit(counted_train()[:-1], seed=0)
    assert a.fingerprint() != b.fingerprint()


# ---------------------------------------------------------------------------- qonly

FAST = {"epochs": 15, "hidden": 32, "batch_size": 16, "lr": 0.01, "threads": 1}


def test_qonly_learns_question_to_answer_mapping(fresh_cache) -> None:
    model = QOnlyModel(**FAST)
    model.fit(mapping_train(), seed=0)
    tests = [ex(i, q, a) for i, (q, a) in enumerate(MAPPING.items())]
    answers = model.answer(tests)
    assert [a.text for a in answers] == list(MAPPING.values())
    assert all(a.scores[a.text] > 0.8 for a in answers)
    assert all(len(a.scores) == 4 and sum(a.scores.values()) == pytest.approx(1.0) for a in answers)
    [scores] = model.score_choices([tests[0].with_(choices=("Blue", "green", "zebra"))])
    assert scores[0] > scores[1] > OUT_OF_VOCAB == scores[2]


def test_qonly_weight_cache_hit_skips_training(
    fresh_cache, monkeypatch: pytest.MonkeyPatch
) -> None:
    train = mapping_train()
    first = QOnlyModel(**FAST)
    first.fit(train, seed=0)
    assert first.last_fit_trained
    folder = first.weights_dir(first.weights_key(train, 0))
    assert (folder / "weights.pt").is_file() and (folder / "vocab.json").is_file()
    assert folder.parent == fresh_cache / "models" / "qonly"

    def boom(*args, **kwargs):
        raise AssertionError("training ran despite cached weights")

    monkeypatch.setattr(QOnlyModel, "_train", boom)
    second = QOnlyModel(**FAST)
    second.fit(train, seed=0)
    assert not second.last_fit_trained
    assert second.fingerprint() == first.fingerprint()
    probe = [ex(0, "what animal barks?", "dog")]
    assert second.answer(probe) == first.answer(probe)


def test_corrupt_cache_entry_is_retrained(fresh_cache) -> None:
    train = mapping_train(40)
    model = QOnlyModel(**{**FAST, "epochs": 1})
    model.fit(train, seed=0)
    (model.weights_dir(model.weights_key(train, 0)) / "weights.pt").write_bytes(b"not a checkpoint")
    again = QOnlyModel(**{**FAST, "epochs": 1})
    again.fit(train, seed=0)
    assert again.last_fit_trained


def test_an_entry_found_damaged_at_the_first_prediction_is_retrained_there(fresh_cache) -> None:
    """A vocabulary that is not JSON passes `looks_saved`, so the fit is deferred; the harness
    predicts under `torch.inference_mode`, where the retraining must still compute gradients."""
    import torch

    train, probe = mapping_train(40), [ex(0, "what animal barks?", "dog")]
    model = QOnlyModel(**{**FAST, "epochs": 1})
    model.fit(train, seed=0)
    want = model.answer(probe)
    (model.weights_dir(model.weights_key(train, 0)) / "vocab.json").write_text("garbage\n")
    again = QOnlyModel(**{**FAST, "epochs": 1})
    again.fit(train, seed=0)
    assert not again.last_fit_trained  # deferred: the entry looked complete
    with torch.inference_mode():
        assert again.answer(probe) == want
    assert again.last_fit_trained


def test_fingerprint_changes_with_config_data_and_seed(fresh_cache) -> None:
    train = mapping_train(40)
    quick = {**FAST, "epochs": 1}

    def fingerprint(options: dict, data: list[Example], seed: int) -> str:
        model = QOnlyModel(**options)
        model.fit(data, seed=seed)
        return model.fingerprint()

    base = fingerprint(quick, train, 0)
    assert fingerprint(quick, train, 0) == base
    others = {
        fingerprint({**quick, "hidden": 16}, train, 0),
        fingerprint(quick, train[:-1], 0),
        fingerprint(quick, [train[0].with_(answers=("no",) * 10), *train[1:]], 0),
        fingerprint(quick, train, 1),
    }
    assert base not in others and len(others) == 4
    assert QOnlyModel(**quick).fingerprint() != base  # untrained differs from trained


def test_qonly_training_is_deterministic(fresh_cache, monkeypatch: pytest.MonkeyPatch) -> None:
    train = mapping_train(40)
    probe = [ex(0, "what color is the sky?", "blue"), ex(1, "never seen words", "")]
    runs = []
    for sub in ("a", "b"):  # separate caches: both actually train
        monkeypatch.setenv("VQA_HARNESS_CACHE", str(fresh_cache / sub))
        model = QOnlyModel(**{**FAST, "epochs": 2})
        model.fit(train, seed=3)
        assert model.last_fit_trained
        runs.append(model.answer(probe))
    assert runs[0] == runs[1]


def test_qonly_answers_do_not_depend_on_batch_size(fresh_cache) -> None:
    model = QOnlyModel(**{**FAST, "epochs": 3})
    model.fit(mapping_train(), seed=0)
    questions = [
        *MAPPING,
        "what color is the dog?",
        "is the sky wet?",
        "",
        "sky grass",
        "barks barks",
    ]
    batch = [ex(i, q, "") for i, q in enumerate(questions * 2)]
    reference = model.answer(batch)
    ref_logp = model.log_probs(batch)
    for size in (1, 3, 8):
        got, logp = [], []
        for i in range(0, len(batch), size):
            got += model.answer(batch[i : i + size])
            logp.append(model.log_probs(batch[i : i + size]))
        assert [a.text for a in got] == [a.text for a in reference]
        for a, b in zip(got, reference):
            assert a.scores.keys() == b.scores.keys()
            assert all(abs(a.scores[k] - b.scores[k]) < 1e-6 for k in a.scores)
        import torch

        assert torch.allclose(torch.cat(logp), ref_logp, rtol=1e-6, atol=1e-6)


def test_unknown_option_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="qonly"):
        QOnlyModel(layers=3)
    assert QOnlyModel(epochs="4").config["epochs"] == 4


# --------------------------------------------------------------------------- plugin


def test_registers_the_three_baselines() -> None:
    host = PluginHost(load_entry_points=False, extra_plugins=[("baselines", baselines)])
    assert not host.failures
    assert host.models.names() == ["cnn-lstm", "counterexample-explainer", "hiecoatt", "mcb", "prior", "qonly",
                                   "qtype-prior"]
    assert all(host.models[name]().trainable for name in host.models.names())
