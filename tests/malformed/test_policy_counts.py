"""What `duplicates=keep-first` / `answers=lenient` accept is recorded in the run: the
manifest's `data_counts` (per dataset spec and split, non-zero counts only) and one line per
dataset in report.md; with the default policies nothing is recorded."""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers_malformed import run_bad, write

from harness.api import Task
from harness.testing import ListDataset, make_host
from harness.types import Example

HEADER = ",pairID,Flickr30kID,hypothesis,gold_label,explanation\n"
CSV = HEADER + "0,p1,1.jpg,A dog.,entailment,e\n1,p2,2.jpg,A cat.,neutral,e\n2,p1,3.jpg,<b>x</b>,neutral,e\n"


def _vqax_entry(n_answers=10):
    return {"question": "Is it red?", "answers": [{"answer": "yes"}] * n_answers, "explanation": ["it is red"],
            "image_id": 393271}


def _run_folder(tmp_path):
    (run,) = (tmp_path / "runs").iterdir()
    return run, json.loads((run / "manifest.json").read_text()), (run / "report.md").read_text()


def test_keep_first_and_lenient_counts_reach_the_manifest_and_report(capsys, tmp_path):
    esnli = write(tmp_path / "esnlive_dev.csv", CSV)
    vqax = write(tmp_path / "vqaX_val.json", json.dumps({"1": _vqax_entry(), "2": _vqax_entry(3),
                                                         "3": _vqax_entry(7)}))
    e_spec, x_spec = f"e-snli-ve:path={esnli},duplicates=keep-first", f"vqa-x:path={vqax},answers=lenient"
    tasks = [Task(e_spec, "dev", ("accuracy",)), Task(x_spec, "val", ("accuracy",))]
    rc, out, err = run_bad(capsys, tmp_path, tasks)
    assert rc == 0, err
    run, manifest, report = _run_folder(tmp_path)
    counts = manifest["data_counts"]
    assert counts[f"{e_spec}/dev"] == {"duplicates": "keep-first", "duplicate_pairIDs": 1,
                                       "duplicate_pairIDs_shown": ["p1"], "note": "1 repeated pairID(s) "
                                       "dropped, the first kept (duplicates=keep-first; e.g. p1)"}
    assert counts[f"{x_spec}/val"]["answer_count_mismatches"] == 2
    assert counts[f"{x_spec}/val"]["answer_count_mismatches_shown"] == ["2", "3"]
    section = report[report.index("## Data accepted under lenient policies"):].split("\n## ")[0]
    lines = [line for line in section.splitlines() if line.startswith("- ")]
    assert len(lines) == 2
    assert "1 repeated pairID(s) dropped, the first kept (duplicates=keep-first; e.g. p1)" in lines[0]
    assert "2 record(s) with other than 10 answers kept (answers=lenient; e.g. 2, 3)" in lines[1]


def test_default_policies_record_nothing(capsys, tmp_path):
    esnli = write(tmp_path / "esnlive_dev.csv", HEADER + "0,p1,1.jpg,A dog.,entailment,e\n")
    rc, out, err = run_bad(capsys, tmp_path, [Task(f"e-snli-ve:path={esnli}", "dev", ("accuracy",))])
    assert rc == 0, err
    run, manifest, report = _run_folder(tmp_path)
    assert "data_counts" not in manifest and "lenient policies" not in report


def test_a_policy_that_accepted_nothing_records_nothing(capsys, tmp_path):
    esnli = write(tmp_path / "esnlive_dev.csv", HEADER + "0,p1,1.jpg,A dog.,entailment,e\n")
    rc, out, err = run_bad(capsys, tmp_path, [Task(f"e-snli-ve:path={esnli},duplicates=keep-first", "dev",
                                                   ("accuracy",))])
    assert rc == 0, err
    run, manifest, report = _run_folder(tmp_path)
    assert "data_counts" not in manifest and "lenient policies" not in report


def test_any_dataset_reports_what_it_accepted_through_the_contract(capsys, tmp_path):
    """The engine knows no policy option: a third-party dataset's `accepted(split)` reaches
    the manifest as it is, and report.md shows its `note` (or, without one, its fields)."""

    class Lenient(ListDataset):
        name = "mine"
        splits = ("val",)
        data = {"val": [Example(id="q1", question="what?", image="", answers=("a",) * 10)]}

        def accepted(self, split):
            return {"blurry_images_kept": 3}

    assert ListDataset().accepted("val") == {}  # the default: nothing accepted
    rc, out, err = run_bad(capsys, tmp_path, [Task("mine", "val", ("accuracy",))], Lenient)
    assert rc == 0, err
    run, manifest, report = _run_folder(tmp_path)
    assert manifest["data_counts"] == {"mine/val": {"blurry_images_kept": 3}}
    assert "- `mine/val`: blurry_images_kept=3" in report


class _Counting(ListDataset):
    """Counts what it let through while loading, as the contract's docstring suggests."""

    name = "counting"
    splits = ("val",)
    data = {"val": [Example(id="q1", question="what?", image="", answers=("a",) * 10)]}
    kept: dict = {}

    def load(self, split):
        type(self).kept[split] = 2
        return super().load(split)

    def accepted(self, split):
        return {"odd_records_kept": self.kept[split]} if split in self.kept else {}


def test_accepted_is_asked_after_the_probes_loaded_the_split(capsys, tmp_path):
    _Counting.kept = {}
    rc, out, err = run_bad(capsys, tmp_path, [Task("counting", "val", ("accuracy",))], _Counting)
    assert rc == 0, err
    assert _run_folder(tmp_path)[1]["data_counts"] == {"counting/val": {"odd_records_kept": 2}}


@pytest.mark.parametrize("value", [np.int64(3), {1, 2}, float("nan")])
def test_an_accepted_value_json_cannot_hold_is_a_warning_not_a_lost_run(capsys, tmp_path, value):
    class Odd(_Counting):
        def accepted(self, split):
            return {"kept": value}

    rc, out, err = run_bad(capsys, tmp_path, [Task("counting", "val", ("accuracy",))], Odd)
    assert rc == 0 and "Traceback" not in err, err
    assert "dataset counting: accepted('val') failed or returned what JSON cannot hold" in err
    run, manifest, report = _run_folder(tmp_path)
    assert manifest["status"] == "complete" and "data_counts" not in manifest
    assert "vqa_accuracy" in (run / "results.jsonl").read_text()


def test_every_builtin_dataset_with_a_policy_option_reports_it():
    """A loader with `duplicates` or `answers` options inherits PolicyCounts.accepted (a
    DatasetPlugin.accepted left in place would record nothing, silently)."""
    from vqa_harness_plugins.validation.accepted import PolicyCounts

    host = make_host(builtins=True)
    with_policy = [e.obj for e in host.datasets if {"duplicates", "answers"} & set(e.obj.options)]
    assert {"e-snli-ve", "vcr", "visual-genome-qa", "visual7w", "vqa-x", "vqa1", "vqa1-mc", "vqa2",
            "vqa2-mc"} <= {cls.name for cls in with_policy}
    for cls in with_policy:
        assert issubclass(cls, PolicyCounts) and cls.accepted is PolicyCounts.accepted, cls.name
