"""Lock files (`harness.cache.locks.build_lock`: an empty `.<entry>.lock` beside each cache
entry built under it) stay after the build, one per entry (removing a lock file another
process may be waiting on would let two builders in at once). They are not entries:
`harness cache status` counted them in a kind of plain files (decoys: 2 decoy sets showed as
4 entries), and `harness cache clear` removes them with their kind."""

from __future__ import annotations

from harness.cache.artifacts import cache_status
from harness.cache.locks import build_lock
from harness.paths import tag_cache_folder
from vqa_harness_cli import main


def _decoys(root):
    kind = root / "decoys"
    kind.mkdir(parents=True)
    tag_cache_folder(kind)
    for key in ("aa", "bb"):
        with build_lock(kind / f"{key}.json"):
            (kind / f"{key}.json").write_text("[]", encoding="utf-8")
    with build_lock(kind / "aa.json"):  # built again: the same lock file, none added
        pass
    return kind


def test_lock_files_stay_one_per_entry_and_are_not_counted(tmp_path, monkeypatch, capsys):
    kind = _decoys(tmp_path)
    assert sorted(p.name for p in kind.iterdir() if p.name.endswith(".lock")) == [".aa.json.lock", ".bb.json.lock"]
    (status,) = cache_status(tmp_path)
    assert (status.kind, status.entries) == ("decoys", 2)
    monkeypatch.setenv("VQA_HARNESS_CACHE", str(tmp_path))
    assert main(["cache", "clear", "decoys", "--yes"]) == 0
    assert not kind.exists()  # the lock files went with their kind
