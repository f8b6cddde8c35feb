"""The image-reliance card: which rows it gathers (as the built-in probes declare their
evidence, `Probe.display()`), what it leaves out, and how it reads; and `harness report`
showing it (with other runs of the model), few headline numbers and skips."""

from __future__ import annotations

from pathlib import Path

from helpers_samples import write_sample_runs

from harness.fileio import write_jsonl
from harness.host import get_host
from harness.layouts import RowTags
from harness.report import headline_rows
from harness.types import ResultRow
from vqa_harness_cli import main
from vqa_harness_leaderboard.cards import build_cards, card_markdown, declared_evidence, verdict
from vqa_harness_leaderboard.labels import Names
from vqa_harness_leaderboard.tabletypes import TagIndex

#: What the built-in probes declare (a run writes the same into tables.json).
DISPLAYS = {e.name: e.obj.display() for e in get_host().probes}
EVIDENCE = [d.evidence for d in declared_evidence(DISPLAYS)]


def _row(model: str, probe: str, metric: str, value: float, *, variant: str = "", run: str = "r1",
         ci: tuple[float, float] | None = (0.0, 1.0), unit: str = "fraction", suite: str = "s") -> ResultRow:
    return ResultRow(run, model, suite, "toyvqa:variant=balanced", "val", probe, variant, metric, value, 100,
                     None if ci is None else ci[0], None if ci is None else ci[1], True, unit,
                     "toyvqa:variant=balanced/train")


ROWS = [
    _row("seer", "image-ablation", "vqa_accuracy_drop", 0.13, variant="blank", ci=(0.07, 0.19)),
    _row("seer", "image-ablation", "vqa_accuracy_drop", 0.12, variant="swap", ci=(0.06, 0.18)),
    _row("seer", "image-ablation", "answer_change_rate", 0.7, variant="swap"),
    _row("seer", "image-ablation", "vqa_accuracy", 0.42, variant="real"),  # not evidence by itself
    _row("seer", "pairs", "pair/different", 0.28, run="r2", suite="balanced-vqa"),
    _row("seer", "pairs", "pair/identical", 0.72, run="r2", suite="balanced-vqa"),
    _row("seer", "decoys", "mc_accuracy", 0.41, variant="iou+qou", run="r3", suite="decoys"),
    _row("seer", "decoys", "mc_accuracy/QA", 0.27, variant="iou+qou", run="r3", suite="decoys"),
    _row("seer", "decoys", "mc_accuracy", 0.71, variant="orig", run="r3", suite="decoys"),
    _row("seer", "counterfactual", "answer_change_rate", 0.63, variant="color_max_common", run="r4"),
    _row("seer", "counterfactual", "answer_change_rate", 0.52, variant="color_min_common", run="r4"),
    _row("seer", "nle", "s_e/e_vil_score_no_spice", 0.86, run="r5", ci=None, unit="score"),
    _row("seer", "nle", "s_e/bleu4", 0.30, run="r5", ci=None, unit="score"),
    _row("seer", "nle", "s_e/e_vil_score_no_spice", 0.66, variant="gt", run="r5", ci=None, unit="score"),
    _row("blind", "image-ablation", "vqa_accuracy_drop", 0.0, variant="blank", ci=(0.0, 0.0)),
    _row("blind", "image-ablation", "vqa_accuracy_drop", 0.0, variant="swap", ci=(0.0, 0.0)),
    _row("lonely", "accuracy", "vqa_accuracy", 0.5),
]


def test_card_gathers_each_piece_of_evidence_with_its_run() -> None:
    (card,) = build_cards(ROWS, DISPLAYS, ["seer"])
    found = {line.evidence.id: line.rows for line in card.lines}
    assert [line.evidence.id for line in card.lines] == [e.id for e in EVIDENCE]
    assert [(r.metric, r.variant) for r in found["ablation-blank"]] == [("vqa_accuracy_drop", "blank")]
    assert [r.metric for r in found["pairs-different"]] == ["pair/different"]
    assert [r.value for r in found["decoys-with"]] == [0.41] and [r.value for r in found["decoys-without"]] == [0.27]
    assert [r.variant for r in found["color-max"]] == ["color_max_common"]  # Color Minimal is not evidence
    # S_E: the combined score, the model's own (not the references' GT row).
    assert [(r.metric, r.variant, r.value) for r in found["nle-se"]] == [("s_e/e_vil_score_no_spice", "", 0.86)]
    assert card.measured == len(EVIDENCE)
    md = card_markdown(card, Names(DISPLAYS))
    assert "| Accuracy drop, gray image" in md and "| 13.0 " in md and "[7.0, 19.0]" in md and "| r1 " in md
    assert "no interval: a corpus-level score" in md and "r5" in md  # the nle probe's own reason
    assert verdict(card).startswith("uses the image: drop, gray image and drop, swapped image significantly above 0")


def test_nothing_is_invented_for_absent_evidence() -> None:
    blind, lonely = build_cards(ROWS, DISPLAYS, ["blind", "lonely"])
    assert verdict(blind).startswith("no measurable use of the image")
    assert blind.measured == 2
    assert lonely.measured == 0 and verdict(lonely) == ""
    md = card_markdown(lonely)
    assert md.count("not measured") == len(EVIDENCE)
    assert "0.0" not in md  # no number stands in for a missing measurement


def test_headline_numbers_are_a_few_per_probe() -> None:
    from harness.host import PluginHost

    probes = PluginHost(blocked=frozenset()).probes
    shown = headline_rows(ROWS, {e.name: e.obj.headline for e in probes})
    assert ("pair/different" not in [r.metric for r in shown]) and ("pair/identical" in [r.metric for r in shown])
    assert [(r.metric, r.variant) for r in shown if r.probe == "decoys"] == [("mc_accuracy", "orig"),
                                                                             ("mc_accuracy", "iou+qou"),
                                                                             ("mc_accuracy/QA", "iou+qou")]
    assert len(shown) < len(ROWS)


def test_report_shows_the_card_across_runs_and_skips_apart_from_failures(tmp_path: Path, capsys) -> None:
    runs = write_sample_runs(tmp_path / "runs", suites=("balanced-vqa", "counterfactual"))
    cf = next(p for p in runs if p.name.endswith("cnn-lstm-counterfactual"))
    with open(cf / "report.md", "a", encoding="utf-8") as fh:
        fh.write("\n## Probes skipped\n\n- toy/val: `nle` — model 'cnn-lstm' lacks explain\n")
    assert main(["report", str(cf), "--stdout"]) == 0
    md = capsys.readouterr().out
    card = md[md.index("## Image reliance: `cnn-lstm`"):md.index("## Headline numbers")]
    # The card holds this run's color counterfactuals and the balanced-vqa run's pairs (a sibling run).
    assert "Answers changed by Color Maximal" in card and "20250101-000000-cnn-lstm-counterfactual" in card
    assert "Complementary pairs answered differently" in card and "20250101-000000-cnn-lstm-balanced-vqa" in card
    # A capability skip is listed as a skip, not as a failure.
    skipped = md[md.index("## Skipped"):md.index("## Failures")]
    assert "lacks explain" in skipped
    assert "lacks explain" not in md[md.index("## Failures"):]
    html = (cf / "report.html").read_text(encoding="utf-8")
    assert '<li class="skip">' in html and "Does the model use the image?" in html
    # Without other runs at hand (--evidence the run itself) the card has only this run's evidence.
    assert main(["report", str(cf), "--stdout", "--evidence", str(cf)]) == 0
    alone = capsys.readouterr().out
    assert "20250101-000000-cnn-lstm-balanced-vqa" not in alone


def test_sample_rows_stay_as_written(tmp_path: Path) -> None:
    # The card reads results.jsonl only; a run folder with an extra probe's rows still works.
    runs = write_sample_runs(tmp_path / "runs", suites=("counterfactual",))
    write_jsonl(runs[0] / "results.jsonl", [r.to_json() for r in ROWS[:3]])
    assert main(["report", str(runs[0])]) == 0


def test_every_evidence_row_has_its_own_label_and_color_maximal_is_not_image_evidence() -> None:
    from dataclasses import replace

    from vqa_harness_leaderboard.cards import row_label
    from vqa_harness_leaderboard.modelpages import card_html

    half, unbalanced = "toyvqa-half/train", "toyvqa:variant=unbalanced/train"
    rows = [replace(ROWS[4], train=t) for t in (half, unbalanced, ROWS[4].train)]
    rows += [_row("seer", "counterfactual", "answer_change_rate", v, variant=k, run="r4")
             for k, v in (("color_max_common", 0.6), ("color_max_uncommon", 0.5))]
    (card,) = build_cards(rows, DISPLAYS, ["seer"])
    # The pairs probe tags each task with its train condition (a run writes it into tables.json).
    tags = TagIndex({"r2": [RowTags("pairs", r.dataset, r.split, r.train, {"trained": c})
                            for r, c in zip(rows[:3], ("B_half", "U", "B"))]})
    html = card_html(card, {}, tags=tags)
    labels = [lab for lab in __import__("re").findall(r'<th scope="row"[^>]*>([^<]*)<', html)]
    assert "Complementary pairs answered differently (train B_half)" in labels
    assert "Complementary pairs answered differently (train U)" in labels
    assert "Complementary pairs answered differently (train B)" in labels
    assert "Answers changed by Color Maximal (question perturbation; common colors)" in labels
    assert "Answers changed by Color Maximal (question perturbation; uncommon colors)" in labels
    assert '<th scope="row"></th>' not in html and '<th scope="row"><small' not in html  # no blank label
    assert '<small class="reading">same question, two images' in html  # how to read it: on the card, not hover
    md = card_markdown(card, tags=tags)
    assert "(train B_half)" in md and "(question perturbation; uncommon colors)" in md
    # Without the tags, the rows are still told apart, by their training data.
    assert "(trained on toyvqa-half, train)" in card_markdown(card)
    # One row alone keeps the plain name.
    ev = next(e for e in EVIDENCE if e.id == "pairs-different")
    assert card.lines[[d.id for d in EVIDENCE].index("pairs-different")].rows
    assert row_label(ev, ROWS[4], [ROWS[4]]) == ev.label
    # The reading text does not suggest image use; the verdict never reads question perturbations.
    color = next(e for e in EVIDENCE if e.id == "color-max")
    assert "not image evidence" in color.reading and "looks at colors" not in color.reading
    assert not color.direct and {e.id for e in EVIDENCE if e.direct} == {"ablation-blank", "ablation-swap"}
    assert verdict(card) == ""  # answers change under Color Maximal, but no image ablation: no verdict
    blind = [r for r in ROWS if r.model == "blind"] + [replace(r, model="blind") for r in rows[3:]]
    assert verdict(build_cards(blind, DISPLAYS, ["blind"])[0]).startswith("no measurable use of the image")


def test_across_runs_the_newest_row_comes_first_as_the_tables_show_it() -> None:
    """`--all-runs`: two runs of one model measure the same thing; the reliance table and the
    card read the newest run first, like the suite tables (the oldest was shown before)."""
    from vqa_harness_leaderboard.reliance import reliance_table

    old = _row("seer", "image-ablation", "vqa_accuracy_drop", 0.10, variant="blank", run="20250101-000000-seer")
    new = _row("seer", "image-ablation", "vqa_accuracy_drop", 0.30, variant="blank", run="20250301-000000-seer")
    (card,) = build_cards([old, new], DISPLAYS, ["seer"])
    lines = {line.evidence.id: line.rows for line in card.lines}
    assert [r.value for r in lines["ablation-blank"]] == [0.30, 0.10]
    table = reliance_table([old, new], DISPLAYS)
    (cells,) = table.cells
    assert [c.row.value for c in cells if c.row is not None] == [0.30] and cells[0].of == 2


def test_two_models_whose_file_names_would_coincide_get_their_own_pages() -> None:
    from vqa_harness_leaderboard.modelpages import model_href

    a, b = model_href("predictions:path=runs/a.json"), model_href("predictions:path=runs_a.json")
    assert a != b and a.startswith("models/predictions_path=runs_a.json-") and a.endswith(".html")
    assert model_href("mlp-a") == "models/mlp-a.html"  # a name that is a file name stays as it is


def test_models_tied_at_the_top_of_a_column_are_all_marked_top() -> None:
    from vqa_harness_leaderboard.reliance import reliance_table

    rows = [_row(m, "image-ablation", "vqa_accuracy_drop", 0.0, variant="blank", ci=(0.0, 0.0))
            for m in ("blind-a", "blind-b")]
    table = reliance_table(rows, DISPLAYS)
    marks = [row[0].mark for row in table.cells]
    assert marks == ["top", "top"]  # not whichever model sorted first
