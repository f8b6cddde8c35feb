"""Arrow cache for parsed VQA files: parse the JSON once, then memory-map it.

A parsed split is saved with `datasets.Dataset.save_to_disk` under
`harness.paths.cache_dir("vqa-official", <key>)`. The key hashes the loader version, the
dataset name, split and options, and every source file's resolved path, size and
modification time, so editing or replacing a file re-parses it and nothing else does.
The folder is written under a temporary name and renamed into place, with a completion
marker, so an interrupted parse never leaves a cache that looks complete.
"""

from __future__ import annotations

import gc
import json
import os
import shutil
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from harness.digest import digest
from harness.errors import DataError
from harness.paths import cache_dir

if TYPE_CHECKING:  # pragma: no cover
    import datasets

__all__ = ["LOADER_VERSION", "cache_key", "cached_dataset", "example_features", "read_summary"]

#: Bump whenever parsed rows could change for the same files (it keys the cache).
LOADER_VERSION = "5"  # 3: the MultipleChoice file is checked against the OpenEnded one; 4: "." is an empty choice;
# 5: pairs of two different questions or on one image are counted, not paired
MARKER = "COMPLETE.json"


def example_features() -> "datasets.Features":
    """Arrow schema of `Example.to_row()` (explicit, so empty lists keep their type)."""
    import datasets  # heavy: the datasets library takes about 0.5 s; only Arrow tables need it

    text = datasets.Value("string")
    texts = datasets.Sequence(text)
    return datasets.Features({
        "id": text, "question": text, "image_id": text, "image": text, "answers": texts,
        "answer_type": text, "question_type": text, "choices": texts, "label": text,
        "explanations": texts, "pair_id": text, "meta": text,
    })


def _arrow_table(columns: Mapping[str, list]) -> "Any":
    """A pyarrow table with the Example schema, built column by column in C (about 10x
    faster than `datasets.Dataset.from_dict`, which encodes every nested value in Python)."""
    import pyarrow as pa  # heavy: Arrow is loaded only where tables are built

    text, texts = pa.string(), pa.list_(pa.string())
    lists = ("answers", "choices", "explanations")
    fields = [(name, texts if name in lists else text) for name in example_features()]
    return pa.table({name: pa.array(columns[name], type=kind) for name, kind in fields},
                    schema=pa.schema(fields))


def cache_key(name: str, split: str, config: Mapping[str, Any], sources: Sequence[Path]) -> str:
    """Identity of one parsed split: loader version, options and the files' size + mtime."""
    stamps = []
    for path in sources:
        path = Path(path)
        try:
            st = path.stat()
            stamps.append([str(path.resolve()), st.st_size, st.st_mtime_ns])
        except OSError:
            stamps.append([str(path), None, None])
    return digest({"v": LOADER_VERSION, "name": name, "split": split, "config": dict(config), "files": stamps})


def cached_dataset(key: str, build: Callable[[], tuple[dict[str, list], dict[str, Any]]],
                   recheck: Callable[[], str] | None = None) -> tuple["datasets.Dataset", dict[str, Any]]:
    """The cached Arrow dataset for `key`, or `build()` (columns, summary) saved first.

    `recheck` recomputes the key after `build` (the files' stat): a file replaced while it
    was parsed is a DataError, and its content is never stored under the old file's key."""
    import datasets  # heavy: the datasets library takes about 0.5 s; only Arrow tables need it

    folder = cache_dir("vqa-official") / key
    if (folder / MARKER).is_file():
        return datasets.load_from_disk(str(folder)), read_summary(folder)
    # The parsed JSON is millions of small objects that live until the table is built;
    # cyclic GC passes over them cost more than the parse itself, so pause GC meanwhile.
    enabled = gc.isenabled()
    gc.disable()
    try:
        columns, summary = build()
        if recheck is not None and recheck() != key:
            raise DataError(f"{summary.get('dataset', 'dataset')} {summary.get('split', '')}: its files changed on "
                            "disk while they were read (replaced or still being written); run again")
        table = datasets.Dataset(_arrow_table(columns))
        del columns
    finally:
        if enabled:
            gc.enable()
    tmp = folder.parent / f".tmp-{key}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    bars = datasets.is_progress_bar_enabled()
    datasets.disable_progress_bars()  # a save bar per load is noise in run logs
    try:
        table.save_to_disk(str(tmp))
        (tmp / MARKER).write_text(json.dumps(summary, sort_keys=True, indent=1))
        if folder.exists():  # a folder without its marker is not ours to trust
            shutil.rmtree(folder, ignore_errors=True)
        try:
            os.rename(tmp, folder)
        except OSError:
            if not (folder / MARKER).is_file():  # pragma: no cover - not a lost race
                raise
    finally:
        if bars:
            datasets.enable_progress_bars()
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return datasets.load_from_disk(str(folder)), summary


def read_summary(folder: Path) -> dict[str, Any]:
    """The load summary (counts, unknown pair ids) stored beside a cached split."""
    try:
        return json.loads((Path(folder) / MARKER).read_text())
    except (OSError, ValueError):
        return {}
