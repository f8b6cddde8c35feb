"""Charts as the probes declare them (`Display.charts`): points (never lines) across categories,
references told apart, readable panel titles, text of at least 12 px at natural size, one
SVG per panel narrow enough for a phone."""

from __future__ import annotations

import re

import pytest

from harness.host import get_host
from harness.types import ResultRow
from vqa_harness_leaderboard.chartdraw import FONT_PT, REFERENCE_MARKERS, tick_label
from vqa_harness_leaderboard.charts import derive_charts

DISPLAYS = {e.name: e.obj.display() for e in get_host().probes}


def _row(model: str, metric: str, variant: str, value: float, probe: str = "decoys", dataset: str = "toy-mc",
         ci: bool = True, unit: str = "fraction") -> ResultRow:
    return ResultRow("r-" + model, model, "s", dataset, "test", probe, variant, metric, value, 100,
                     max(0.0, value - 0.03) if ci else None, value + 0.03 if ci else None, True, unit)


def _decoy_rows() -> list[ResultRow]:
    rows = []
    for dset, rand, eq2 in (("orig", 0.25, 0.58), ("iou", 0.25, 0.31), ("iou+qou", 0.11, 0.19)):
        rows += [_row("prior", m, dset, 0.095) for m in ("mc_accuracy", "mc_accuracy/QA", "mc_accuracy/IA")]
        rows += [_row("prior", "random_accuracy", dset, rand, ci=False), _row("prior", "eq2_rule_accuracy", dset, eq2,
                                                                             ci=False)]
    return rows


def test_category_labels_are_horizontal_and_broken_not_rotated() -> None:
    assert tick_label("IoU+QoU", 6) == "IoU+\nQoU" and tick_label("Orig") == "Orig" and tick_label("yes/no") == "yes/no"
    assert tick_label("other question's image") == "other\nquestion's\nimage"


def test_decoy_chart_is_points_with_references_apart() -> None:
    (chart,) = derive_charts(_decoy_rows(), DISPLAYS)
    (panel,) = chart.panels
    assert panel.style == "points" and panel.categories == ("Orig", "IoU", "IoU+QoU")
    assert [s.label for s in panel.series] == ["image + question", "no image", "no question", "Random", "Eq. 2 rule"]
    assert panel.references == ("Random", "Eq. 2 rule")
    assert REFERENCE_MARKERS[0] != REFERENCE_MARKERS[1]  # two references never look alike


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_points_are_never_joined_across_categories() -> None:
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from vqa_harness_leaderboard.chartdraw import _points

    (chart,) = derive_charts(_decoy_rows(), DISPLAYS)
    fig, ax = plt.subplots()
    _points(ax, chart.panels[0], (0.0, 60.0))
    drawn = [c for c in ax.containers if c.get_label() in {s.label for s in chart.panels[0].series}]
    assert len(drawn) == 5 and all(c.lines[0].get_linestyle() == "None" for c in drawn)
    plt.close(fig)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_chart_text_is_at_least_12_px_and_a_panel_fits_a_phone() -> None:
    pytest.importorskip("matplotlib")
    from vqa_harness_leaderboard.chartdraw import svgs_of

    rows = _decoy_rows() + [
        ResultRow(f"r-{m}", m, "s", "d", "val", "image-ablation", v, "vqa_accuracy", 0.4, 100, 0.35, 0.45)
        for m in ("a", "b") for v in ("real", "blank", "swap", "no-question")]
    for chart in derive_charts(rows, DISPLAYS):
        for svg in svgs_of(chart):
            width = float(re.search(r'<svg[^>]*width="([0-9.]+)pt"', svg).group(1))
            assert width * 4 / 3 <= 400, (chart.id, width)  # px at natural size: fits a 420 px screen
            sizes = [float(x) for x in re.findall(r"font-size: ([0-9.]+)px", svg)]
            # SVG units are points: 9.5 pt = 12.7 px on screen.
            assert sizes and min(sizes) >= FONT_PT and FONT_PT * 4 / 3 >= 12, (chart.id, sorted(set(sizes)))
            # Horizontal category labels: no text turned by an angle other than 0 or 90 (the value axis title).
            assert {a for a in re.findall(r"rotate\(-?([0-9.]+) ", svg)} <= {"0", "90"}


def test_panels_are_titled_with_readable_names() -> None:
    rows = []
    for model, st, se in (("explainer", 0.7, 0.4), ("template", 0.6, 0.3)):
        rows += [_row(model, "s_t", "", st, probe="nle", dataset="vqa-x"),
                 _row(model, "s_e/e_vil_score_no_spice", "", se, probe="nle", dataset="vqa-x", ci=False, unit="score"),
                 _row(model, "s_o/e_vil_score_no_spice", "", st * se, probe="nle", dataset="vqa-x", ci=False,
                      unit="score"),
                 _row(model, "s_e/bleu4", "", 0.2, probe="nle", dataset="vqa-x", ci=False, unit="score")]
    rows.append(_row("explainer", "s_e/e_vil_score_no_spice", "gt", 0.66, probe="nle", dataset="vqa-x", ci=False,
                     unit="score"))
    (chart,) = derive_charts(rows, DISPLAYS)
    titles = [p.title for p in chart.panels]
    assert titles == ["S_T (task score)", "S_E, e-ViL score (no SPICE)", "S_O = S_T · S_E (e-ViL score (no SPICE))"]
    assert not any("e_vil_score" in t or "s_e/" in t for t in titles)  # no raw ids
    se = chart.panels[1]
    assert se.style == "bars" and se.categories == ("explainer", "template", "references (GT)")
    assert se.references == ("references (GT)",)
    cf = [ResultRow(f"r-{m}", m, "s", "d", "val", "counterfactual", k, metric, 0.2, 100, 0.1, 0.3)
          for m in ("a", "b") for k in ("hypernym_noun", "color_max_common")
          for metric in ("answer_change_rate", "acc_reduction")]
    (chart,) = derive_charts(cf, DISPLAYS)
    assert [(p.title, p.axis) for p in chart.panels[:2]] == [
        ("a · answers changed", "answers changed (%)"), ("a · relative accuracy reduction", "relative accuracy reduction (%)")]
    assert chart.panels[0].categories == ("Color Maximal (common)", "Hypernym Noun")
