"""Ablations remove what they claim: the question with everything derived from it (question
type, the dataset's declared meta), the image with its id (issue 26, finding 2)."""

from __future__ import annotations

from collections import Counter

import pytest

from harness.api import DatasetPlugin, Model
from harness.inputs import REMOVED_FIELDS, remove_input, remove_inputs
from harness.metrics import vqa_accuracy
from harness.testing import ListDataset, hookimpl, make_host, run_in_process
from harness.types import BLANK_IMAGE, Example

#: Question type -> the answer it predicts (the prior over all questions: "yes").
TYPES = {"what color is the": "red", "is there a": "yes", "how many": "2"}


def _split(n: int, offset: int) -> list[Example]:
    out = []
    for i in range(n):
        qtype = list(TYPES)[i % 3] if i % 5 else "is there a"  # "yes" the most common answer
        truth = TYPES[qtype]
        out.append(Example(f"{offset + i}", f"{qtype} thing {i}?", image_id=f"img{offset + i}",
                           image=f"/nowhere/{offset + i}.png", answers=(truth,) * 10, question_type=qtype,
                           meta={"template": qtype, "scene": f"s{i}"}))
    return out


class Types(ListDataset):
    name = "qtype-world"
    splits = ("train", "val")
    data = {"train": _split(60, 0), "val": _split(30, 1000)}
    derived_meta = {"question": ("template",), "image": ("scene",)}


class ImageIdMemory(Model):
    """Remembers each image id's answer: it reads the image only through `image_id`."""

    name = "image-id-memory"

    def fit(self, train, *, seed):
        self.seen = {ex.image_id: ex.answers[0] for ex in train}

    def answer(self, batch):
        return [self.seen.get(ex.image_id, "unknown") for ex in batch]


class Plugin:
    @hookimpl
    def register_datasets(self, register):
        register(Types)

    @hookimpl
    def register_models(self, register):
        register(ImageIdMemory)

    @hookimpl
    def register_suites(self, register):
        from harness.api import Suite, Task

        register(Suite("qtype-ablation", "derived fields", (Task("qtype-world", "val", ("image-ablation",),
                                                                   train=("qtype-world", "val")),)))


@pytest.fixture(scope="module")
def host():
    return make_host(Plugin(), builtins=True, names=["derived-fields-test"])


def _rows(out):
    return {(r.variant, r.metric): r for r in out.rows}


def test_qtype_prior_without_the_question_falls_to_its_prior(host, tmp_path) -> None:
    out = run_in_process(host, model="qtype-prior", suite="qtype-ablation", tmp_path=tmp_path)
    rows = _rows(out)
    val = Types.data["val"]
    assert rows[("real", "vqa_accuracy")].value == 1.0  # the type gives every answer here
    counts = Counter(ex.answers[0] for ex in val)  # trained on val: its prior is val's commonest answer
    prior = min(counts, key=lambda a: (-counts[a], a))
    expected = sum(vqa_accuracy(prior, ex.answers) for ex in val) / len(val)
    assert prior == "yes" and expected < 1.0
    assert rows[("no-question", "vqa_accuracy")].value == pytest.approx(expected)
    assert rows[("no-question", "vqa_accuracy_drop")].value == pytest.approx(1.0 - expected)
    assert rows[("no-question", "answer_change_rate")].value == pytest.approx(1.0 - counts["yes"] / len(val))


def test_a_model_reading_the_image_id_loses_the_image_when_it_is_removed(host, tmp_path) -> None:
    out = run_in_process(host, model="image-id-memory", suite="qtype-ablation", tmp_path=tmp_path)
    rows = _rows(out)
    assert rows[("real", "vqa_accuracy")].value == 1.0
    assert rows[("blank", "vqa_accuracy_drop")].value > 0.5  # with the id kept it was 0: the image leaked


def test_removal_is_defined_by_what_goes() -> None:
    ex = Types.data["val"][0]
    no_q = remove_input(ex, "question", Types.derived_meta["question"])
    assert (no_q.question, no_q.question_type) == ("", "") and "template" not in no_q.meta
    assert no_q.meta["scene"] == ex.meta["scene"] and no_q.image_id == ex.image_id and no_q.answers == ex.answers
    no_i = remove_input(ex, "image", Types.derived_meta["image"])
    assert (no_i.image, no_i.image_id) == (BLANK_IMAGE, "") and "scene" not in no_i.meta
    assert no_i.question == ex.question and no_i.question_type == ex.question_type
    both = remove_inputs([ex], ("image", "question"), Types.derived_meta)[0]
    assert all(getattr(both, f) == v for fields in REMOVED_FIELDS.values() for f, v in fields.items())
    assert both.meta == {}
    with pytest.raises(ValueError, match="cannot remove 'answers'"):
        remove_input(ex, "answers")


def test_built_in_toy_datasets_declare_their_question_derived_meta(host) -> None:
    """What the toy generator computes from the question is declared, so ablations drop it."""
    for name in ("toyvqa", "toyvqa-half", "toyvqa-mc"):
        cls: type[DatasetPlugin] = host.datasets[name]
        assert {"family", "template", "referent"} <= set(cls.derived_meta["question"]), name
