"""The image-ablation probe and its toy suite (docs/image-ablation.md).

`image-ablation`: accuracy of open-ended answers with the real image, a gray image, the
image of another question (seeded derangement) and no question; the drops and the share
of answers that change. Real-data suites list the probe by name (`image-ablation`).
"""

from __future__ import annotations

from harness.api import Suite, Task

from .derange import Derangement, image_derangement
from .probe import CONDITIONS, ImageAblationProbe, answers_changed, paired_drop

__all__ = ["ImageAblationProbe", "ABLATION_TOY_SUITE", "CONDITIONS", "Derangement", "image_derangement",
           "answers_changed", "paired_drop"]

_BALANCED = "toyvqa:variant=balanced"

#: The toy demo: the balanced toy data (complementary pairs make the image necessary). The
#: task has the same key as the `vqa-accuracy` suite's balanced task, so in `--suite toy`
#: the probe joins that task and models are fitted once.
ABLATION_TOY_SUITE = Suite(
    name="image-ablation-toy",
    description="image ablation on the balanced toy benchmark: real / gray / swapped image, no question",
    tasks=(Task(_BALANCED, "val", ("image-ablation",), train=(_BALANCED, "train"), label="balanced"),),
    toy=True,
)
