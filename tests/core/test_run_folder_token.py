"""Stored probe outputs name the run folder with a token, restored as the folder of the run
that reuses them. Only the run folder itself, or a path inside it, is the run folder: before,
"/out/run-1" was replaced as text, so a sibling "/out/run-12/..." was stored as the token and
"2/..." and restored into run "/new/run-7" as "/new/run-72/..."."""

from __future__ import annotations

from harness.cache.artifacts import ArtifactStore
from harness.cache.outputs import ProbeOutput, ProbeOutputCache
from harness.types import ResultRow


def _round_trip(tmp_path, sections):
    cache = ProbeOutputCache(ArtifactStore(tmp_path / "store"))
    first, later = tmp_path / "out" / "run-1", tmp_path / "new" / "run-7"
    first.mkdir(parents=True)
    later.mkdir(parents=True)
    row = ResultRow(run_id="a", model="m", suite="s", dataset="d", split="val", probe="p", variant="",
                    metric="x", value=1.0, n=1)
    cache.put({"k": 1}, first, ProbeOutput([row], [s.format(run=first, out=first.parent) for s in sections]))
    got = cache.get({"k": 1}, later, run_id="b", model="m", suite="s", fingerprint=lambda *_: "")
    return got.sections, later


def test_paths_in_the_run_folder_are_restored_in_the_new_one_and_others_are_kept(tmp_path):
    sections, later = _round_trip(tmp_path, [
        "see {run}/report.md", "the run: {run}", '"{run}"', "{run}", "done: {run}.",
        "two lines\n{run}/a",
        # kept: a sibling, longer names beginning with the run folder's, a path inside another
        "sibling {out}/run-12/a.json", "{out}/run-1x", "{out}/run-1.bak/a", "{out}/run-1#2/a",
        "{out}/run-1%2/a", "/mnt{run}/b",
    ])
    out = tmp_path / "out"
    assert sections == [
        f"see {later}/report.md", f"the run: {later}", f'"{later}"', f"{later}", f"done: {later}.",
        f"two lines\n{later}/a",
        f"sibling {out}/run-12/a.json", f"{out}/run-1x", f"{out}/run-1.bak/a", f"{out}/run-1#2/a",
        f"{out}/run-1%2/a", f"/mnt{tmp_path}/out/run-1/b",
    ]
