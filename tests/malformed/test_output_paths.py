"""Output paths that cannot be used (a file on the way, a broken symbolic link, a link loop)
are one line and exit 2 before any work, for `harness run --out / --leaderboard`,
`harness leaderboard build --out` and `harness decoys generate --out / --stats`."""

from __future__ import annotations

import os

import pytest
from helpers_malformed import expect_one_line, plugin_for, run_cli, write

from harness.api import Task
from harness.testing import ListDataset
from harness.types import Example


class Tiny(ListDataset):
    name = "tiny"
    splits = ("val",)
    data = {"val": [Example(id=f"v{i}", question=f"Is it {i}?", answers=("yes",) * 10) for i in range(4)]}


def _links(tmp_path):
    os.symlink(tmp_path / "nowhere", tmp_path / "broken")
    os.symlink(tmp_path / "loop2", tmp_path / "loop1")
    os.symlink(tmp_path / "loop1", tmp_path / "loop2")


@pytest.mark.parametrize("out, needle", [("broken", "is a broken symbolic link"), ("broken/runs", "broken symbolic"),
                                         ("loop1", "is a symbolic link loop"), ("loop1/runs", "symbolic link loop")])
def test_run_refuses_a_dangling_link_as_out_or_leaderboard_before_the_run(capsys, tmp_path, out, needle):
    _links(tmp_path)
    plugin = plugin_for([Task("tiny", "val", ("accuracy",))], Tiny)
    target = str(tmp_path / out)
    common = ["run", "--model", "const", "--suite", "bad", "--cache", str(tmp_path / "c.sqlite")]
    result = run_cli(capsys, [*common, "--out", target, "--no-leaderboard"], plugin)
    expect_one_line(result, f"output folder {target}", needle, code=2)
    result = run_cli(capsys, [*common, "--out", str(tmp_path / "runs"), "--leaderboard", target], plugin)
    expect_one_line(result, f"output folder {target}", needle, code=2)
    assert not (tmp_path / "runs").exists()  # refused before the run, not after it
    assert not (tmp_path / "nowhere").exists()  # the check created nothing at the link's target


@pytest.mark.parametrize("out, needle", [("broken", "is a broken symbolic link"), ("loop1", "symbolic link loop")])
def test_leaderboard_build_refuses_a_dangling_link_as_out(capsys, tmp_path, out, needle):
    _links(tmp_path)
    write(tmp_path / "runs" / "r1" / "results.jsonl", "")
    result = run_cli(capsys, ["leaderboard", "build", str(tmp_path / "runs"), "--out", str(tmp_path / out)])
    expect_one_line(result, str(tmp_path / out), needle, code=2)


@pytest.mark.parametrize("option, value, needle", [
    ("--out", "a-file/x.json", "folder of --out"), ("--out", "broken/x.json", "broken symbolic link"),
    ("--stats", "a-file/s.json", "folder of --stats"), ("--stats", "loop1/s.json", "symbolic link loop")])
def test_decoys_generate_checks_its_output_paths_before_generating(capsys, tmp_path, fresh_cache, option, value,
                                                                   needle):
    _links(tmp_path)
    write(tmp_path / "a-file", "x")
    argv = ["decoys", "generate", "--dataset", "toyvqa-mc", "--out", str(tmp_path / "d.json")]
    argv += [option, str(tmp_path / value)] if option == "--stats" else []
    if option == "--out":
        argv[-1] = str(tmp_path / value)
    expect_one_line(run_cli(capsys, argv), needle, str(tmp_path / value.split("/")[0]), code=2)
    assert not (tmp_path / "d.json").exists()  # nothing generated, nothing written
    assert not fresh_cache.exists() or not any(fresh_cache.rglob("*.json"))


@pytest.mark.parametrize("extra, needle", [
    (["--top-n", "-5"], "'--top-n': -5 is not in the range x>=1"),  # was a ValueError traceback
    (["--top-n", "0"], "'--top-n': 0 is not in the range x>=1"),  # was QoU decoys from no question at all
    (["--stats", "SAME"], "is the --out file")])  # the statistics replaced the decoys
def test_decoys_generate_refuses_a_top_n_below_one_and_stats_onto_out(capsys, tmp_path, fresh_cache, extra, needle):
    out = tmp_path / "d.json"
    extra = [str(out) if x == "SAME" else x for x in extra]
    result = run_cli(capsys, ["decoys", "generate", "--dataset", "toyvqa-mc", "--out", str(out), *extra])
    expect_one_line(result, needle, code=2)
    assert not out.exists()


@pytest.mark.parametrize("argv", [
    ["perturb", "--dataset", "toyvqa", "--limit", "2", "--kind", "synonym_adj", "--out", "RUN/results.jsonl"],
    ["decoys", "generate", "--dataset", "toyvqa-mc", "--out", "RUN/artifacts/d.json"],
    ["decoys", "generate", "--dataset", "toyvqa-mc", "--out", "d.json", "--stats", "RUN/manifest.json"]])
def test_an_output_file_inside_a_run_folder_is_refused_before_the_work(capsys, tmp_path, fresh_cache, argv):
    """`perturb --out runs/<id>/results.jsonl` replaced the run's result rows with its JSONL."""
    run = tmp_path / "runs" / "20260101-000000-const-toy"
    write(run / "manifest.json", '{"status": "complete"}\n')
    write(run / "results.jsonl", '{"metric": "m"}\n')
    (run / "artifacts").mkdir()
    argv = [a.replace("RUN", str(run)) if a.startswith("RUN") else str(tmp_path / a) if a == "d.json" else a
            for a in argv]
    expect_one_line(run_cli(capsys, argv), f"is inside the run folder {run}", code=2)
    assert (run / "results.jsonl").read_text() == '{"metric": "m"}\n'
    assert (run / "manifest.json").read_text() == '{"status": "complete"}\n'
    assert not (tmp_path / "d.json").exists() and not (run / "artifacts" / "d.json").exists()


class Filed(Tiny):
    """A dataset read from a file (as vqa2, visual7w, ... are): `expected_files` names it."""

    name = "filed"
    data = {"val": [Example(id=f"v{i}", image_id=f"i{i}", question=f"Is the red ball {i}?", answers=("yes",) * 10, label="yes",
                            choices=("yes", "no", "two", "red")) for i in range(4)]}

    def expected_files(self, split):
        return [self.data_dir / f"{split}.json"]


@pytest.mark.parametrize("argv", [
    ["perturb", "--dataset", "filed", "--split", "val", "--kind", "synonym_adj", "--out", "INPUT"],
    ["decoys", "generate", "--dataset", "filed", "--split", "val", "--out", "INPUT"],
    ["decoys", "generate", "--dataset", "filed", "--split", "val", "--out", "d.json", "--stats", "INPUT"]])
def test_an_output_file_that_is_the_datasets_own_input_is_refused_before_the_work(capsys, tmp_path, fresh_cache,
                                                                                  argv):
    """`perturb --dataset vqa2 --out <data-dir>/vqa2/..._questions.json` replaced the questions it read."""
    write(tmp_path / "data" / "val.json", "the questions\n")
    os.link(tmp_path / "data" / "val.json", tmp_path / "linked.json")  # the same file under another name
    for target in (tmp_path / "data" / "val.json", tmp_path / "data" / ".." / "linked.json"):
        args = [str(target) if a == "INPUT" else str(tmp_path / a) if a == "d.json" else a for a in argv]
        result = run_cli(capsys, [*args, "--data-dir", str(tmp_path / "data")], plugin_for([], Filed))
        expect_one_line(result, f"is the file dataset 'filed' reads for its val split", code=2)
        assert (tmp_path / "data" / "val.json").read_text() == "the questions\n"
        assert not (tmp_path / "d.json").exists()


@pytest.mark.parametrize("out", ["runs/r1", "runs/r1/lb", "runs/r1/artifacts/site"])
def test_leaderboard_build_refuses_an_out_inside_a_run_folder(capsys, tmp_path, out):
    """`--out runs/<id>/lb` wrote the whole site into the run folder (exit 0): the run folder is
    the run's record (and its artifacts/ are read back as the run's); one line, exit 2."""
    write(tmp_path / "runs" / "r1" / "manifest.json", '{"run_id": "r1", "status": "complete"}')
    write(tmp_path / "runs" / "r1" / "results.jsonl", "")
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    result = run_cli(capsys, ["leaderboard", "build", str(tmp_path / "runs"), "--out", str(tmp_path / out)])
    expect_one_line(result, str(tmp_path / out), "inside the run folder", code=2)
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before  # nothing written
