"""A model is given its inputs, never the ground truth: before, every model call received the
whole example (the 10 human answers, the label, the explanations, the answer type, the
complementary question's id and every `meta` key, the decoy probe's `mc_target` and toyvqa's
`true_answer` among them), so a plugin could score 100% without looking at anything, and
the prediction cache (keyed by the inputs alone) would have kept such answers. The probes
still see everything."""

from __future__ import annotations

from helpers_core import core_plugins

from harness.api import Model, Probe
from harness.testing import ListDataset, hookimpl, make_host, run_in_process
from harness.types import CANDIDATE_IMAGES, Answer, Example, Suite, Task

COLORS = ("red", "blue", "green", "yellow")


class _Peeker(Model):
    """Answers "red"; keeps (capability, example) of every call."""

    name = "peeker"
    seen: list[tuple[str, Example]] = []

    def check_examples(self, examples):
        _Peeker.seen.extend(("check_examples", ex) for ex in examples)

    def answer(self, batch):
        _Peeker.seen.extend(("answer", ex) for ex in batch)
        return [Answer("red") for _ in batch]

    def score_choices(self, batch):
        _Peeker.seen.extend(("score_choices", ex) for ex in batch)
        return [[1.0] + [0.0] * (len(ex.choices) - 1) for ex in batch]

    def explain(self, batch, answers):
        _Peeker.seen.extend(("explain", ex) for ex in batch)
        return ["because" for _ in batch]

    def score_images(self, batch, answers):
        _Peeker.seen.extend(("score_images", ex) for ex in batch)
        return [[0.0] * len(ex.meta[CANDIDATE_IMAGES]) for ex in batch]


class _AskAll(Probe):
    """Asks every capability; checks that the probe itself still sees the gold."""

    name = "ask-all"
    requires = ("answer",)

    def run(self, ctx):
        examples = list(ctx.examples)
        assert all(ex.answers or ex.label for ex in examples)  # the probe keeps the truth
        ctx.predict(examples, "answer")
        ctx.predict(examples, "answer", variant="mc", show_choices=True)
        ctx.predict(examples, "score_choices")
        ctx.predict(examples, "explain", answers=["red"] * len(examples))
        shown = [ex.with_(meta={**ex.meta, CANDIDATE_IMAGES: [["i9", "/x/i9.png"]]}) for ex in examples]
        ctx.predict(shown, "score_images", answers=["red"] * len(examples))
        return [ctx.row("asked", 1.0, len(examples))]


class _Golden(ListDataset):
    name = "golden"
    input_meta = ("task",)
    data = {"val": [
        Example(id="open", question="what color is the ball?", image="/x/i1.png", image_id="i1",
                answers=("red",) * 10, answer_type="other", question_type="what color is the",
                choices=COLORS, label="red", explanations=("the ball is red",), pair_id="open2",
                meta={"task": "vqa", "true_answer": "red", "mc_target": "red", "decoys": {"orig": ["blue"]}}),
        Example(id="closed", question="a red ball.", image="/x/i2.png", image_id="i2",
                choices=("entailment", "neutral", "contradiction"), label="entailment",
                explanations=("it is red",), meta={"task": "e-snli-ve", "mc_target": "entailment"}),
    ]}
    splits = ("val",)


class _Plugin:
    @hookimpl
    def register_models(self, register):
        register(_Peeker)

    @hookimpl
    def register_probes(self, register):
        register(_AskAll)

    @hookimpl
    def register_datasets(self, register):
        register(_Golden)

    @hookimpl
    def register_suites(self, register):
        register(Suite("golden-suite", "everything asked", (Task("golden", "val", ("ask-all", "accuracy")),)))


def _run(tmp_path):
    plugins, names = core_plugins()
    host = make_host(*plugins, _Plugin(), names=[*names, "golden"])
    _Peeker.seen.clear()
    outcome = run_in_process(host, model="peeker", suite="golden-suite", tmp_path=tmp_path)
    return outcome, list(_Peeker.seen)


def test_no_model_call_is_given_the_ground_truth(tmp_path):
    outcome, seen = _run(tmp_path)
    assert {cap for cap, _ in seen} == {"check_examples", "answer", "score_choices", "explain", "score_images"}
    for cap, ex in seen:
        assert (ex.answers, ex.label, ex.explanations, ex.answer_type, ex.pair_id) == ((), "", (), "", ""), (cap, ex)
        assert ex.meta.get("task") in ("vqa", "e-snli-ve")  # a declared input
        assert not {"true_answer", "mc_target", "decoys"} & set(ex.meta), (cap, ex.id, ex.meta)
        # The inputs stay.
        assert ex.question and ex.image and ex.image_id
    open_q = [ex for cap, ex in seen if ex.id == "open" and cap == "answer"]
    assert open_q[0].question_type == "what color is the"
    # The probe scored against the gold it kept: "red" is right for the open question.
    scores = {r.metric: r.value for r in outcome.rows if r.probe == "accuracy"}
    assert scores["vqa_accuracy"] == 1.0 and scores["vqa_accuracy/answer_type=other"] == 1.0
    assert scores["label_accuracy"] == 0.0  # "red" is not "entailment"


def test_choices_reach_a_model_only_where_they_are_the_task(tmp_path):
    _, seen = _run(tmp_path)
    choices = {}
    for cap, ex in seen:
        choices.setdefault((cap, ex.id), []).append(ex.choices)
    # An open-ended question (it has human answers) is answered and explained without its
    # multiple-choice view, unless the probe shows it; a closed-set one keeps its labels.
    assert choices[("answer", "open")] == [(), COLORS]  # plain, then show_choices
    assert choices[("explain", "open")] == [()]
    assert choices[("score_choices", "open")] == [COLORS]
    # The same inputs with or without show_choices: one call (the cache key holds the choices).
    assert choices[("answer", "closed")] == [("entailment", "neutral", "contradiction")]
    assert choices[("explain", "closed")] == [("entailment", "neutral", "contradiction")]


def test_score_images_keeps_its_candidates(tmp_path):
    _, seen = _run(tmp_path)
    for cap, ex in seen:
        assert (CANDIDATE_IMAGES in ex.meta) == (cap == "score_images")


def test_the_cache_key_is_what_the_model_sees():
    from harness.inputs import model_view

    base = _Golden.data["val"][0]
    model = _Peeker()

    def key(ex, capability="answer"):
        return model.input_key(model_view(ex, capability, _Golden.input_meta), capability)

    # The ground truth changes nothing the model sees: the same key, no second call.
    assert key(base) == key(base.with_(answers=("blue",) * 10, label="blue", meta={**base.meta, "mc_target": "blue"}))
    # A declared input (the task tag a prompt follows) and the shown choices are part of it.
    assert key(base) != key(base.with_(meta={**base.meta, "task": "e-snli-ve"}))
    assert key(base, "score_choices") != key(base.with_(choices=COLORS[:3]), "score_choices")
    # Candidate images are given to every capability (model_view keeps them): so are they keyed.
    shown = [base.with_(meta={**base.meta, CANDIDATE_IMAGES: [[i, f"/x/{i}.png"]]}) for i in ("i8", "i9")]
    assert key(shown[0]) != key(shown[1])
