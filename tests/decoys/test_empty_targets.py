"""A question whose target is empty once normalized ("?", "...": real VQA v2 answers nobody
wrote for a test) is refused by default (one line, count, first ids and the option to pass);
`empty_targets=skip` (`--empty-targets skip`) leaves it out of the generation as if it were not
in the file, counts it and names the first ids in the statistics, the load summary, the run's
`data_counts` and report.md. Every other question keeps exactly its decoys."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from test_decoys_generate import fake_wup, make_records

from harness.errors import DataError
from vqa_harness_plugins.generators.decoys import DecoyConfig, QARecord, generate_decoys
from vqa_harness_plugins.validation.accepted import accepted_note

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "suites"))
from helpers_official import write_vqa  # noqa: E402

EMPTY = [QARecord("zz-1", "img0", "What is this?", "?"), QARecord("zz-0", "img1", "Why?", " ... ")]


def test_an_empty_target_is_refused_by_default_with_the_option_named():
    with pytest.raises(DataError) as err:
        generate_decoys(make_records() + EMPTY, wup=fake_wup, source="mine/val")
    msg = str(err.value)
    assert msg.startswith("mine/val: cannot generate decoys: 2 with empty target (e.g. zz-0, zz-1)")
    assert "empty_targets=skip" in msg and "\n" not in msg


def test_skip_leaves_them_out_and_every_other_question_keeps_its_decoys():
    records = make_records()
    alone = generate_decoys(records, DecoyConfig(seed=3), wup=fake_wup)
    skipped = generate_decoys(EMPTY[:1] + records + EMPTY[1:], DecoyConfig(seed=3), wup=fake_wup,
                              empty_targets="skip")
    assert json.dumps(skipped.released()) == json.dumps(alone.released())
    assert skipped.stats.skipped_empty_targets == 2
    assert skipped.stats.skipped_empty_targets_shown == ["zz-0", "zz-1"]
    assert alone.stats.skipped_empty_targets == 0
    with pytest.raises(DataError, match="every question"):
        generate_decoys(EMPTY, wup=fake_wup, empty_targets="skip")


def test_other_problems_stay_errors_under_skip():
    bad = make_records() + EMPTY + [QARecord("zz-0", "img2", "Who?", "a man")]
    with pytest.raises(DataError, match="1 with duplicate qa_id"):
        generate_decoys(bad, wup=fake_wup, empty_targets="skip")


@pytest.fixture
def vqa2_with_empty_targets(tmp_path, fresh_cache, monkeypatch):
    import vqa_harness_plugins.generators.decoys.generate as gen

    monkeypatch.setattr(gen, "default_wup", lambda: fake_wup)
    for split in ("train", "val"):
        write_vqa(tmp_path, version=2, split=split, n_images=6, seed=0)
    path = tmp_path / "vqa2" / "v2_mscoco_val2014_annotations.json"
    data = json.loads(path.read_text())
    for ann, text in zip(data["annotations"][:2], ("?", "...")):
        ann["multiple_choice_answer"] = text
    path.write_text(json.dumps(data))
    return tmp_path


def test_vqa2_mc_refuses_then_skips_and_counts(vqa2_with_empty_targets):
    from vqa_harness_plugins.datasets.multiple_choice.vqa_mc import VQA2MC

    root = vqa2_with_empty_targets
    skip = VQA2MC(data_dir=root, empty_targets="skip")
    examples = skip.load("val")
    by_id = {ex.id: ex for ex in examples}
    assert len(by_id["500000"].choices) == 1 and len(by_id["500010"].choices) >= 2
    accepted = skip.accepted("val")
    assert accepted["empty_targets"] == "skip" and accepted["empty_targets_skipped"] == 2
    assert accepted["empty_targets_skipped_shown"] == ["500000", "500001"]
    assert accepted["note"] == ("2 question(s) whose target is empty once normalized left out of the decoy "
                                "generation (empty_targets=skip; e.g. 500000, 500001)")
    # The strict default is not answered from the skip run's cached generation.
    with pytest.raises(DataError, match="2 with empty target .*empty_targets=skip"):
        VQA2MC(data_dir=root).load("val")
    assert VQA2MC(data_dir=root).accepted("val") == {}


def test_the_note_of_nothing_skipped_is_empty():
    assert accepted_note({"empty_targets_skipped": 0}) == "nothing accepted"


def test_cli_skips_and_reports(vqa2_with_empty_targets, tmp_path):
    from click.testing import CliRunner

    from vqa_harness_plugins.probes.decoys.command import decoys

    root, out, stats = vqa2_with_empty_targets, tmp_path / "d.json", tmp_path / "s.json"
    args = ["generate", "--dataset", "vqa2-mc", "--split", "val", "--data-dir", str(root), "--out", str(out)]
    res = CliRunner().invoke(decoys, args)
    assert isinstance(res.exception, DataError) and "--empty-targets skip" in str(res.exception)
    assert not out.exists()
    res = CliRunner().invoke(decoys, [*args, "--empty-targets", "skip", "--stats", str(stats)])
    assert res.exit_code == 0, res.output
    assert "skipped 2 question(s) with an empty target (e.g. 500000, 500001; not in the file)" in res.output
    data = json.loads(out.read_text())
    assert "500000" not in data and "500001" not in data and len(data) == 10
    assert json.loads(stats.read_text())["skipped_empty_targets"] == 2


def test_a_run_records_the_skipped_questions_in_the_manifest_and_report(vqa2_with_empty_targets, capsys, tmp_path):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "malformed"))
    from helpers_malformed import run_bad

    from harness.api import Task

    spec = "vqa2-mc:decoys=iou,empty_targets=skip"
    rc, out, err = run_bad(capsys, tmp_path, [Task(spec, "val", ("decoys",))], model="prior",
                           data_dir=vqa2_with_empty_targets)
    assert rc == 0, err
    (run,) = (tmp_path / "runs").iterdir()
    counts = json.loads((run / "manifest.json").read_text())["data_counts"][f"{spec}/val"]
    assert counts["empty_targets_skipped"] == 2 and counts["empty_targets_skipped_shown"] == ["500000", "500001"]
    report = (run / "report.md").read_text()
    assert f"- `{spec}/val`: 2 question(s) whose target is empty once normalized left out" in report
