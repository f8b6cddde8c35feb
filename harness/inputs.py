"""What a model is given, and what a modality ablation removes: an input and everything derived
from it, defined once for every probe (docs/image-ablation.md). Keeping what a dataset computed
from the question (VQA's `question_type`) would let a model keep its accuracy "without the
question" (issue 26). Probes ask through `ProbeContext.ablate`, which knows the task's dataset's
`derived_meta`; `remove_input` is the rule itself. `model_view` is what every model call gets:
the inputs, never the ground truth (docs/architecture.md, "What a model sees")."""

from __future__ import annotations

from typing import Iterable, Mapping, Sequence

from .types import BLANK_IMAGE, CANDIDATE_IMAGES, Example

__all__ = ["ABLATABLE", "ANSWER_FACTORS", "ASSUMPTIONS_TAG", "GOLD_FIELDS", "REMOVED_FIELDS", "model_view",
           "model_views", "remove_input", "remove_inputs"]

#: What can decide a dataset's answers (`DatasetPlugin.answers_depend_on`) and what a probe
#: may assume does not (`Probe.assumes`, harness.run.assumptions), with what each means.
ANSWER_FACTORS: Mapping[str, str] = {
    "color": "the exact colour named in the question",
    "object": "the exact object or shape named by a noun of the question",
    "count": "the exact number named in the question",
    "position": "the exact position or spatial relation named in the question",
}

#: Row tag of a task whose dataset decides its answers by a factor a probe assumes does not
#: (the variants, comma-separated): set by the run, read by the leaderboard.
ASSUMPTIONS_TAG = "assumptions_not_met"

ABLATABLE = ("image", "question")  #: the inputs an ablation can remove

#: Example fields each removal empties: the input and what every dataset derives from it (the
#: image id, which a model or feature file could look the image up by).
REMOVED_FIELDS: Mapping[str, Mapping[str, str]] = {
    "question": {"question": "", "question_type": ""},
    "image": {"image": BLANK_IMAGE, "image_id": ""},
}


def remove_input(example: Example, what: str, meta_keys: Iterable[str] = ()) -> Example:
    """`example` without input `what` ("image" or "question"): `REMOVED_FIELDS[what]` emptied
    (the image becomes the gray `BLANK_IMAGE`) and `meta_keys` (what the dataset computed from
    it) dropped from `meta`; ValueError for another input."""
    if what not in REMOVED_FIELDS:
        raise ValueError(f"cannot remove {what!r}; removable inputs: {', '.join(ABLATABLE)}")
    drop = set(meta_keys)
    changes: dict = dict(REMOVED_FIELDS[what])
    if drop & set(example.meta):
        changes["meta"] = {k: v for k, v in example.meta.items() if k not in drop}
    return example.with_(**changes)


def remove_inputs(examples: Sequence[Example], what: str | Iterable[str],
                  derived_meta: Mapping[str, Sequence[str]] | None = None) -> list[Example]:
    """`remove_input` over `examples`, for one input or several (`("image", "question")`);
    `derived_meta`: the dataset's `DatasetPlugin.derived_meta`."""
    out = list(examples)
    for name in (what,) if isinstance(what, str) else tuple(what):
        keys = tuple((derived_meta or {}).get(name, ()))
        out = [remove_input(ex, name, keys) for ex in out]
    return out


#: Example fields no model is given: the ground truth (human answers, label, explanations) and
#: what was derived from it or from the dataset's structure (the answer type, the id of the
#: complementary question).
GOLD_FIELDS: Mapping[str, object] = {"answers": (), "answer_type": "", "label": "", "explanations": (),
                                     "pair_id": ""}


def model_view(example: Example, capability: str, input_meta: Iterable[str] = (), *,
               show_choices: bool = False) -> Example:
    """`example` as a model call gets it: `GOLD_FIELDS` emptied and only the `meta` keys that
    are inputs (`input_meta`, the dataset's, and `CANDIDATE_IMAGES`). An open-ended question
    (one with human answers) loses its multiple-choice view (VQA v1's 18 choices, toyvqa's
    decoys) except for `score_choices` or when the probe shows it (`show_choices`): the
    candidates would leak the answer space into an open-ended score. A closed-set example
    (labels, no human answers: e-SNLI-VE, VCR) keeps its choices."""
    keep = {*input_meta, CANDIDATE_IMAGES}
    hide_choices = bool(example.answers) and capability != "score_choices" and not show_choices
    return example.with_(choices=() if hide_choices else example.choices,
                         meta={k: v for k, v in example.meta.items() if k in keep}, **GOLD_FIELDS)


def model_views(examples: Iterable[Example], capability: str, dataset: object, *,
                show_choices: bool = False) -> list[Example]:
    """`model_view` of each example of `dataset` (a dataset plugin: its `input_meta`)."""
    shown = getattr(dataset, "input_meta", None) or ()
    return [model_view(ex, capability, shown, show_choices=show_choices) for ex in examples]
