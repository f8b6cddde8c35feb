"""Probe outputs as content-addressed artifacts: a re-run whose key matches restores them, with
no data loaded and no prediction read (what the key holds: docs/architecture.md, "The caches")."""

from __future__ import annotations

import json
import math
import os
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from ..digest import digest, source_digest
from ..fileio import NAME_BYTES, atomic_write_bytes
from ..types import ResultRow
from .artifacts import ArtifactStore
from .contents import file_content
from ..locations import Locations
from .locks import build_lock

__all__ = ["ProbeOutput", "ProbeOutputCache", "KIND"]

KIND = "probe-outputs"
#: Stands for the run folder's path inside stored report text.
RUN_TOKEN = "<<run-folder>>"


@dataclass
class ProbeOutput:
    """Everything one (task, probe) produced, as the run folder needs it."""

    rows: list[ResultRow]
    sections: list[str] = field(default_factory=list)
    missing: list[tuple[str, str]] = field(default_factory=list)
    resources: dict[str, Any] = field(default_factory=dict)
    tags: dict[str, str] = field(default_factory=dict)
    #: Files the probe wrote, relative to the run folder.
    files: list[str] = field(default_factory=list)
    #: Other data the probe read: "spec/split" -> fingerprint, checked again before reuse.
    reads: dict[str, str] = field(default_factory=dict)


class ProbeOutputCache:
    """Stores and restores `ProbeOutput`s in the artifact store."""

    def __init__(self, store: ArtifactStore | None = None, locations: Locations | None = None) -> None:
        self.store = store or ArtifactStore()
        #: The folders an output may name (its images): stored as tokens, restored as they are now.
        self.locations = locations or Locations({})

    @staticmethod
    def key(*, model_fingerprint: str, probe: str, probe_class: type, options: dict[str, Any], dataset: str,
            dataset_fingerprint: str, split: str, task: str, limit: int | None, train: str, train_fingerprint: str,
            labelled: bool, seed: int, modules: Sequence[str],
            settings: Mapping[str, Any] | None = None, images: str = "") -> dict[str, Any]:
        """The identity of one probe output; `task`: `harness.rundir.task_folder`; `settings`:
        `Probe.cache_settings()`; `images`: `images_key` of the task's image files (their bytes)
        for a model that looks at them, else ""."""
        return {"model": model_fingerprint, "probe": probe, "task": task,
                "probe_class": f"{probe_class.__module__}.{probe_class.__qualname__}", "options": options,
                "dataset": dataset, "dataset_fp": dataset_fingerprint, "split": split, "limit": limit,
                "train": train, "train_fp": train_fingerprint, "labelled": labelled, "seed": seed,
                "code": source_digest(modules), **({"settings": dict(settings)} if settings else {}),
                **({"images": images} if images else {})}

    def images_key(self, paths: Sequence[str]) -> str:
        """A digest of each image file's bytes (`file_content`: read once, then remembered; the run
        saves them after each task) and its path with its folder as a token (`Locations.path`):
        the same for the folder moved, another for an image rewritten, whatever its modification
        time."""
        return digest([[self.locations.path(p), file_content(p)] for p in paths])

    def get(self, key: dict[str, Any], run_dir: Path, *, run_id: str, model: str, suite: str,
            fingerprint: Callable[[str, str], str]) -> ProbeOutput | None:
        """Restore an entry into `run_dir` (files linked or copied); None when absent, or when
        data the probe read besides its task (`fingerprint(spec, split)`) has changed."""
        if not self.store.has(KIND, key):
            return None
        folder = self.store.folder(KIND, key)
        try:
            stored = (folder / "output.json").read_bytes()
            blob = self.locations.restore(stored)
            if blob is None:  # it names a folder this run was not given (--data-dir)
                return None
            text = blob.decode("utf-8")  # read once, parsed twice below
            reads = json.loads(text).get("reads", {})
            if any(fingerprint(*name.rsplit("/", 1)) != fp for name, fp in reads.items()):
                return None
        except Exception:  # unreadable entry, or a dataset that cannot say its fingerprint now
            return None
        try:
            data = json.loads(text.replace(_in_json(RUN_TOKEN), _in_json(str(run_dir))))
            rows = [ResultRow.from_json({**r, "run_id": run_id, "model": model, "suite": suite}) for r in data["rows"]]
            if not all(_sound(r) for r in rows):  # a probe never stores such a row: the entry is damaged
                raise ValueError("a stored row is not a finite number")
            stamps = data.get("stamps", {})  # absent from entries stored before they were recorded
            for rel in data["files"]:
                if rel in stamps and _stamp(folder / "files" / rel) != stamps[rel]:
                    raise ValueError(f"{rel} changed since it was stored")  # edited in place through a run's link
            # Files naming a folder of `Locations` (stored as copies): written naming it as it is now.
            located = {rel: self.locations.restore((folder / "files" / rel).read_bytes())
                       for rel in data.get("located", ())}
            if None in located.values():  # a folder this run was not given
                return None
            for rel in data["files"]:
                if rel in located:
                    atomic_write_bytes(Path(run_dir) / rel, located[rel])
                else:
                    _place(folder / "files" / rel, Path(run_dir) / rel)
        except (OSError, ValueError, KeyError, TypeError):
            with build_lock(folder):  # damaged: removed (not while another process builds it)
                shutil.rmtree(folder, ignore_errors=True)
            return None  # the probe runs again
        return ProbeOutput(rows, list(data["sections"]), [tuple(m) for m in data["missing"]],
                           dict(data["resources"]), dict(data["tags"]), list(data["files"]), dict(data["reads"]))

    def put(self, key: dict[str, Any], run_dir: Path, output: ProbeOutput) -> None:
        """Store an output; its files are hard-linked from `run_dir` (copied where links are not
        possible), as `get` links them back (docs/architecture.md, "The run folder": why); a file
        naming a folder of `self.locations` (a picture's path) is stored as a copy naming its token."""
        def write(folder: Path) -> None:
            located = []
            for rel in output.files:
                blob = (Path(run_dir) / rel).read_bytes()
                tokens = self.locations.store(blob)
                if tokens == blob:
                    _place(Path(run_dir) / rel, folder / "files" / rel)
                else:
                    (folder / "files" / rel).parent.mkdir(parents=True, exist_ok=True)
                    (folder / "files" / rel).write_bytes(tokens)
                    located.append(rel)
            stamps = {rel: _stamp(folder / "files" / rel) for rel in output.files}
            rows = [{k: v for k, v in r.to_json().items() if k not in ("run_id", "model", "suite")}
                    for r in output.rows]
            text = json.dumps({
                "rows": rows, "sections": output.sections, "missing": [list(m) for m in output.missing],
                "resources": output.resources, "tags": output.tags, "files": output.files,
                "reads": output.reads, "stamps": stamps, **({"located": located} if located else {}),
            }, ensure_ascii=False, default=str)
            # Report text may name files of this run: stored with a placeholder for the folder.
            text = _run_folder(run_dir).sub(lambda _: _in_json(RUN_TOKEN), text)
            # A path Python could not decode, in the report, as atomic_writer writes it (not a raise).
            (folder / "output.json").write_bytes(self.locations.store(text.encode("utf-8", NAME_BYTES)))

        self.store.entry(KIND, key, write)


def _run_folder(run_dir: Path) -> re.Pattern[str]:
    """The run folder in stored JSON text where it is a path: the whole of one or its start,
    neither inside another path ("/mnt/out/run-1") nor the start of a longer name (a sibling
    "/out/run-12", "/out/run-1.bak", "/out/run-1#2"): those are kept as they are. Prose cannot
    tell a name going on after a space or a comma ("/out/run-1 (2)") from the end of a
    sentence's path: such a sibling is still read as the run folder."""
    return re.compile(r"(?:(?<=\\[ntr])|(?<![\w.~/-]))" + re.escape(_in_json(str(run_dir)))
                      + r"(?![\w~+@=#%-]|\.\w)")


def _in_json(text: str) -> str:
    """`text` as the stored JSON holds it (a non-ASCII "é" as itself, not as an escape)."""
    return json.dumps(text, ensure_ascii=False)[1:-1]


def _place(source: Path, target: Path) -> None:
    """Hard-link `source` to `target` (copy across file systems); the run folder then holds
    the same bytes as a run that computed them."""
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists():
        target.unlink()
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def _stamp(path: Path) -> list[int]:
    """Size and modification time of a stored file: a run folder's file is the same file on
    disk (a hard link), so an edit in place there shows here."""
    st = path.stat()
    return [st.st_size, st.st_mtime_ns]


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _sound(row: ResultRow) -> bool:
    """What the run checks of a probe's rows before it stores them: finite numbers."""
    return _number(row.value) and isinstance(row.n, int) and not isinstance(row.n, bool) and all(
        v is None or _number(v) for v in (row.ci_low, row.ci_high))
