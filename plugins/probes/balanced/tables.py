"""Table layouts of the balanced-VQA probes (Goyal et al. 2017), as data.

Train and test conditions are computed at run time and attached to the rows as the tag
`condition` (Goyal's cell: train condition then test condition, e.g. "UB"): the test
condition from the task's dataset, the train condition from the model's training data (a
fitted model's train split, or the training data a pretrained model declares): `U`
unbalanced (VQA v1, toyvqa unbalanced), `B` balanced (VQA v2, toyvqa balanced), `B_half`
(toyvqa-half, vqa2-half).
"""

from __future__ import annotations

from harness.api import Layout
from harness.specs import parse_spec

__all__ = ["condition", "cell_name", "trained_condition", "GOYAL_LAYOUTS", "PAIR_LAYOUTS", "AUDIT_LAYOUTS", "COUNTEREXAMPLE_LAYOUTS"]

GOYAL_COLUMNS = ("UU", "UB", "B_half B", "BB")
ANSWER_TYPES = (("Yes/No", "yes/no"), ("Number", "number"), ("Other", "other"))
NOTE = "Values in %; 95% intervals in brackets."
#: The datasets of Goyal's "B_half" condition (half of balanced train), by exact name: a
#: third-party dataset whose name merely contains "half" ("behalf-qa") is not one of them.
HALF_DATASETS = frozenset({"toyvqa-half", "vqa2-half"})


def condition(spec: str) -> str:
    """'U', 'B', 'B_half' or '' for a dataset spec / train label ('toyvqa:variant=balanced/train')."""
    spec = (spec or "").strip()
    if not spec:
        return ""
    low = spec.lower()
    if low in ("unbalanced", "vqa v1", "vqa1"):
        return "U"
    if low in ("balanced", "vqa v2", "vqa2"):
        return "B"
    data = spec.rsplit("/", 1)[0] if spec.endswith(("/train", "/val", "/test", "/test-dev")) else spec
    try:
        name, options = parse_spec(data)
    except Exception:
        return ""
    if name in HALF_DATASETS:
        return "B_half"
    if name == "vqa2":
        return "B"
    if name == "vqa1":
        return "U"
    if name == "toyvqa":
        return "B" if str(options.get("variant", "unbalanced")) == "balanced" else "U"
    return ""


def trained_condition(train_label: str) -> str:
    """The train condition ('U', 'B', 'B_half'), else the training data as given, else '-'."""
    return condition(train_label) or train_label or "-"


def cell_name(train_label: str, dataset: str) -> str:
    """The Goyal cell of a task: train condition then test condition ('UB', 'B_half B')."""
    train, test = condition(train_label), condition(dataset)
    if not train or not test:
        return f"{train_label or '?'} -> {dataset}"
    return f"{train} {test}" if train == "B_half" else f"{train}{test}"


_CONDITIONS = {c: c for c in GOYAL_COLUMNS}
_ACC_TYPES = {f"vqa_accuracy/answer_type={key}": title for title, key in ANSWER_TYPES}

GOYAL_LAYOUTS = (
    Layout(id="table-1", title="Goyal Table 1: VQA accuracy by train / test condition",
           description="Official VQA accuracy (%, higher is better) of each model per train/test condition "
                       "(U unbalanced ≈ VQA v1, B balanced ≈ VQA v2); a model that relies on language priors "
                       "drops from UU to UB.",
           reference="Goyal et al. 2017, Table 1", rows=("model",), columns=("condition",),
           metrics=("vqa_accuracy",), labels={"condition": _CONDITIONS}, note=NOTE),
    Layout(id="table-3", title="Goyal Table 3: accuracy by answer type and train / test condition",
           description="Official VQA accuracy (%, higher is better) per answer type and train/test condition.",
           reference="Goyal et al. 2017, Table 3", rows=("model", "metric"), columns=("condition",),
           metrics=(*_ACC_TYPES, "vqa_accuracy"),
           labels={"condition": _CONDITIONS, "metric": {**_ACC_TYPES, "vqa_accuracy": "All"}},
           names={"metric": "answer type"}, note=NOTE),
)

PAIR_LAYOUTS = (
    Layout(id="pairs", title="Complementary pairs (Goyal §4)",
           description="Over complementary question pairs (same question, two images, different answers): "
                       "both answered correctly (higher is better) and identical predictions (lower is better: "
                       "the model ignored the image).",
           reference="Goyal et al. 2017, §4", rows=("model", "trained", "data"), columns=("metric",),
           metrics=("pair/both_correct", "pair/identical", "pair/different", "pair/strict_accuracy"),
           labels={"metric": {"pair/both_correct": "both correct", "pair/identical": "identical predictions",
                              "pair/different": "different predictions",
                              "pair/strict_accuracy": "strict pair accuracy"}},
           names={"trained": "trained on", "data": "test data"}, n_column=True, note=NOTE),
)

AUDIT_LAYOUTS = (
    Layout(id="audit", title="Language-prior audit (Goyal §3)",
           description="Model-free (no better direction: the rows describe the data): answer entropy per "
                       "question type weighted by type frequency (bits; higher means weaker language priors) and "
                       "the accuracy of prior-only answer rules (%; lower means the questions need the image more).",
           reference="Goyal et al. 2017, §3 (entropy +56% from VQA v1 to v2)", rows=("data",), columns=("metric",),
           metrics=("audit/answer_entropy", "audit/answer_entropy_change", "audit/prior_accuracy",
                    "audit/qtype_prior_accuracy", "audit/top_prefix_accuracy"),
           labels={"metric": {"audit/answer_entropy": "answer entropy (bits)",
                              "audit/answer_entropy_change": "entropy change vs reference (%)",
                              "audit/prior_accuracy": "Prior",
                              "audit/qtype_prior_accuracy": "question-type prior",
                              "audit/top_prefix_accuracy": "best prefix"}},
           n_column=True, note="Accuracies in %; entropy of the answer distribution per question type, "
                               "weighted by type frequency."),
)

COUNTEREXAMPLE_LAYOUTS = (
    Layout(id="recall", title="Counter-example explanations: Recall@5 (Goyal Table 4)",
           description="Share (%) of questions whose complementary image is ranked in the top 5 of 24 candidates "
                       "(higher is better; the chance level has no direction); paper: Random 20.79, Distance 42.84, VQA model 21.65, their trained "
                       "explainer 43.39.",
           reference="Goyal et al. 2017, Table 4", rows=("model", "trained", "data"), columns=("variant",),
           metrics=("counterexample/recall@5",),
           labels={"variant": {"chance": "chance", "random": "Random", "distance": "Distance", "model": "Model",
                               "trained": "Model (trained)"}},
           names={"trained": "trained on", "data": "test data"}, n_column=True, note=NOTE),
)
