"""Goyal et al. 2017 on the official files under --data-dir: `vqa2` and `goyal`.

- `vqa2`: VQA v2 val — official accuracy overall / per answer type / per question type
  with intervals, complementary pairs, counter-example Recall@5, the language-prior audit,
  and the image ablation (real / gray / another question's image / no question).
  `--split test-dev` (or test) scores nothing and writes the evaluation-server results file
  (`artifacts/accuracy/results_official.json`), and the report says so.
- `goyal`: Tables 1 and 3 — test on VQA v1 val (U) and VQA v2 val (B); trainable models
  are trained on VQA v1 train (UU, UB), a seeded half of VQA v2 train's pairs (B_half B)
  and VQA v2 train (BB). A pretrained model declares its training data
  (`--model NAME:...,trained_on=vqa2`) and fills the matching cells (BU, BB); its tasks
  that differ only in training data run once. The audit puts the answer entropy of v1 and
  v2 side by side with the relative change (the paper: +56%). The image ablation (real /
  gray / another question's image / no question) runs on every balanced test task (UB,
  B_half B, BB), like the pairs: does training on balanced data make a model use the image?
"""

from __future__ import annotations

from harness.api import Suite, Task

__all__ = ["VQA2_SUITE", "GOYAL_SUITE"]

VQA2_SUITE = Suite(
    name="vqa2",
    description="VQA v2 val (official files): accuracy by answer and question type, complementary pairs, "
                "counter-example Recall@5, language-prior audit, image ablation; --split test-dev writes the "
                "server file",
    tasks=(Task("vqa2", "val", ("accuracy", "pairs", "counter-examples", "language-prior", "image-ablation"),
                train=("vqa2", "train"), label="VQA v2"),),
)

GOYAL_SUITE = Suite(
    name="goyal",
    description="Goyal et al. 2017 Tables 1 and 3 on VQA v1/v2 (official files): UU, UB, B_half B, BB; "
                "entropy of v1 vs v2; image ablation on the balanced test tasks",
    tasks=(
        Task("vqa1", "val", ("balanced-accuracy", "language-prior"), train=("vqa1", "train"), label="UU"),
        Task("vqa2", "val", ("balanced-accuracy", "pairs", "image-ablation"), train=("vqa1", "train"), label="UB"),
        Task("vqa2", "val", ("balanced-accuracy", "pairs", "image-ablation"), train=("vqa2-half", "train"),
             label="B_half B"),
        Task("vqa2", "val", ("balanced-accuracy", "pairs", "language-prior", "image-ablation"), train=("vqa2", "train"),
             label="BB", probe_options={"language-prior": {"compare_to": "vqa1/val"}}),
    ),
)
