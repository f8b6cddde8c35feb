"""Chart drawing details a reader trips on: references told apart, direct labels that never
cross or pile up, horizontal category labels, and bar charts narrow enough for a phone."""

from __future__ import annotations

import re

import pytest

from harness.types import ResultRow
from vqa_harness_leaderboard.chartdraw import REFERENCE_STYLES, merge_ends, spread_labels, tick_label
from vqa_harness_leaderboard.charts import ablation_chart, decoy_chart, perturbation_chart


def test_labels_keep_the_order_of_the_line_ends_and_do_not_overlap() -> None:
    ys = [9.5, 30.0, 9.6, 11.0, 19.0, 80.0, 79.0]
    placed = spread_labels(ys, 5.0, 0.0, 90.0)
    order = sorted(range(len(ys)), key=lambda i: ys[i])
    assert [placed[i] for i in order] == sorted(placed)  # same order: leader lines never cross
    gaps = [b - a for a, b in zip(sorted(placed), sorted(placed)[1:])]
    assert min(gaps) >= 5.0 - 1e-9 and 0.0 <= min(placed) and max(placed) <= 90.0
    # Too many labels for the room: the gaps shrink alike, nothing is stacked on one spot.
    crowded = spread_labels([1.0] * 20, 10.0, 0.0, 95.0)
    assert len(set(round(p, 6) for p in crowded)) == 20 and max(crowded) <= 95.0
    # A label of three lines takes three lines of room and stays inside the range.
    tall = spread_labels([0.0, 1.0], 4.0, 0.0, 50.0, [3, 1])
    assert tall[0] >= 4.0 and tall[1] - tall[0] >= 8.0 - 1e-9


def test_lines_ending_on_the_same_value_share_one_label() -> None:
    ends = [(4, 9.5, "image + question", "#1"), (4, 9.5, "no image", "#2"), (4, 9.52, "no question", "#3"),
            (4, 19.0, "Eq. 2 rule", "#4")]
    merged = merge_ends(ends)
    assert [e[2] for e in merged] == ["image + question\n= no image\n= no question = 9.5", "Eq. 2 rule"]
    assert merged[0][3] == "#333333" and merged[1][3] == "#4"
    assert merge_ends([(4, 1.0, "a", "#1"), (3, 1.0, "b", "#2")]) == [(3, 1.0, "b", "#2"), (4, 1.0, "a", "#1")]


def test_category_labels_are_horizontal_and_broken_not_rotated() -> None:
    assert tick_label("IoU+QoU") == "IoU+\nQoU" and tick_label("Orig") == "Orig" and tick_label("yes/no") == "yes/no"
    assert tick_label("other question's image") == "other\nquestion's image"


def _row(model: str, metric: str, variant: str, value: float, probe: str = "decoys") -> ResultRow:
    return ResultRow("r-" + model, model, "s", "toy-mc", "test", probe, variant, metric, value, 100,
                     max(0.0, value - 0.03), value + 0.03, True, "fraction")


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_decoy_chart_draws_random_and_eq2_apart_and_labels_the_same_end_once() -> None:
    pytest.importorskip("matplotlib")
    from vqa_harness_leaderboard.chartdraw import svg_of

    rows = []
    for dset, rand, eq2 in (("orig", 0.25, 0.58), ("iou", 0.25, 0.31), ("iou+qou", 0.11, 0.19)):
        rows += [_row("prior", m, dset, 0.095) for m in ("mc_accuracy", "mc_accuracy/QA", "mc_accuracy/IA")]
        rows += [_row("prior", "random_accuracy", dset, rand), _row("prior", "eq2_rule_accuracy", dset, eq2)]
    chart = decoy_chart(rows)
    assert REFERENCE_STYLES["Random"]["linestyle"] != REFERENCE_STYLES["Eq. 2 rule"]["linestyle"]
    svg = svg_of(chart)
    # Two references, two dash patterns (dashed and dotted), each labelled.
    dashes = set(re.findall(r"stroke-dasharray: ([0-9.,\s]+)", svg))
    assert len(dashes) >= 2, dashes
    assert ">Random<" in svg and ">Eq. 2 rule<" in svg
    # The three inputs end on 9.5: one label names them all, with the value (one text per line).
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", svg)
    assert ["image + question", "= no image", "= no question = 9.5"] == [t for t in texts if "image" in t
                                                                          or "question" in t and "=" in t]
    # Category labels are horizontal (no rotated tick text).
    assert "rotate(-25" not in svg


def test_bar_charts_have_at_most_two_panels_a_row() -> None:
    rows = [ResultRow(f"r-{m}", m, "s", "d", "val", "image-ablation", v, "vqa_accuracy", 0.4, 100, 0.35, 0.45)
            for m in ("a", "b", "c", "d") for v in ("real", "blank", "swap", "no-question")]
    assert ablation_chart(rows).columns == 2
    cf = [ResultRow(f"r-{m}", m, "s", "d", "val", "counterfactual", k, metric, 0.2, 100, 0.1, 0.3)
          for m in ("a", "b", "c") for k in ("hypernym_noun", "color_max_common")
          for metric in ("answer_change_rate", "acc_reduction")]
    chart = perturbation_chart(cf)
    assert chart.columns == 2
    # A row per model: its answers changed, then its accuracy reduction.
    assert [p.title for p in chart.panels[:2]] == ["a: answers changed", "a: accuracy reduction"]
