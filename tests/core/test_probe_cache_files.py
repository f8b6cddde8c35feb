"""The files of stored probe outputs: a run folder and the cache share them as hard links
(identical prediction files of a run too), so what is linked must hold the same bytes, and an
edit through one link must not be restored as a probe's output."""

from __future__ import annotations

import os
import shutil

from helpers_core import core_plugins, run_rows, run_stats

from harness.fileio import write_jsonl
from harness.rundir import ProbeFiles
from harness.testing import make_host, run_in_process


def test_a_run_file_edited_in_place_is_not_restored_into_later_runs(tmp_path):
    """A run folder's files and the stored output are one file on disk (hard links). An edit
    in place (an editor that keeps links writes in place) changed the stored output too, and
    later runs restored the edited file as the probe's output. The entry is now found changed
    and the probe runs again."""
    plugins, names = core_plugins()
    host = make_host(*plugins, names=names)
    cache = tmp_path / "cache.sqlite"
    first = run_in_process(host, model="echo", suite="tiny-suite", tmp_path=tmp_path / "one", cache_path=cache)
    path = first.rundir.path / "predictions/tiny/val/default/accuracy/answer.jsonl"
    data = path.read_bytes()
    with open(path, "r+b") as fh:  # in place: the inode, and so the stored output, changes
        fh.write(b"{" + b" " * (len(data.splitlines()[0]) - 2) + b"}")
    again = run_in_process(host, model="echo", suite="tiny-suite", tmp_path=tmp_path / "two", cache_path=cache)
    assert run_stats(again)["probe_outputs_reused"] == 0
    third = run_in_process(host, model="echo", suite="tiny-suite", tmp_path=tmp_path / "three", cache_path=cache)
    assert run_stats(third)["probe_outputs_reused"] == 1  # stored again, unedited
    assert (again.rundir.path / "predictions/tiny/val/default/accuracy/answer.jsonl").read_bytes() == data
    assert run_rows(again) == run_rows(first)


def test_identical_prediction_files_of_a_run_share_one_file(tmp_path):
    """A prediction file with the bytes of an earlier one of the run is a hard link to it
    (several probes ask the same questions); other bytes, or an earlier file replaced since,
    give a file of its own. The bytes are those `write_jsonl` writes."""
    shared: dict = {}
    a = ProbeFiles(tmp_path / "p" / "accuracy", tmp_path / "a" / "accuracy", shared)
    b = ProbeFiles(tmp_path / "p" / "pairs", tmp_path / "a" / "pairs", shared)
    rows = [{"example_id": str(i), "answer": f"r\u00e9d {i}"} for i in range(5)]
    first = a.write_predictions("answer", iter(rows))
    same = b.write_predictions("answer", iter(rows))
    other = b.write_predictions("blank", iter(rows[:4]))
    write_jsonl(tmp_path / "plain.jsonl", rows)
    assert first.read_bytes() == same.read_bytes() == (tmp_path / "plain.jsonl").read_bytes()
    assert os.path.samefile(first, same) and not os.path.samefile(first, other)
    # The first file replaced (a new inode): the next copy is not linked to what it became.
    first.unlink()
    first.write_text("changed\n")
    again = b.write_predictions("swap", iter(rows))
    assert again.read_bytes() == (tmp_path / "plain.jsonl").read_bytes()
    assert not os.path.samefile(first, again)


def test_a_stored_output_keeps_its_files_when_the_run_folder_goes(tmp_path):
    """Probe outputs are stored as hard links to the run's files (not copies): removing the
    run folder leaves them, and a re-run restores the same bytes."""
    plugins, names = core_plugins()
    host = make_host(*plugins, names=names)
    first = run_in_process(host, model="echo", suite="tiny-suite", tmp_path=tmp_path)
    rel = "predictions/tiny/val/default/accuracy/answer.jsonl"
    data = (first.rundir.path / rel).read_bytes()
    assert os.stat(first.rundir.path / rel).st_nlink == 2  # the run folder's and the cache's
    shutil.rmtree(first.rundir.path)
    again = run_in_process(host, model="echo", suite="tiny-suite", tmp_path=tmp_path)
    assert run_stats(again)["probe_outputs_reused"] == 1
    assert (again.rundir.path / rel).read_bytes() == data


def test_a_prediction_file_that_holds_other_bytes_since_is_not_linked_though_its_inode_is_the_same(tmp_path):
    """The inode number alone does not say the file is unchanged: the first file's path written
    twice more gets its freed number back at once on ext4, and a file edited in place keeps it.
    A later file with the first version's bytes was linked to what is there now."""
    shared: dict = {}
    a = ProbeFiles(tmp_path / "p" / "a", tmp_path / "x" / "a", shared)
    b = ProbeFiles(tmp_path / "p" / "b", tmp_path / "x" / "b", shared)
    rows = [{"example_id": "1", "answer": "x"}]
    path = a.write_predictions("v", iter(rows))
    inode = path.stat().st_ino
    with open(path, "w", encoding="utf-8") as fh:  # the same inode, other bytes
        fh.write('{"answer": "y", "example_id": "1"}\n')
    assert path.stat().st_ino == inode
    copy = b.write_predictions("v", iter(rows))
    write_jsonl(tmp_path / "plain.jsonl", rows)
    assert copy.read_bytes() == (tmp_path / "plain.jsonl").read_bytes() and not os.path.samefile(path, copy)
