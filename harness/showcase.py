"""A few examples of a probe, with the images the model saw, for the run and model pages; a probe
writes them next to its rows with `write_examples` (the file: docs/architecture.md, "The run
folder"). Only the harness and the readers of run folders (the leaderboard) depend on this."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .digest import digest
from .fileio import atomic_write_text, read_json_files
from .images import GRAY
from .rundir import safe_name
from .types import BLANK_IMAGE

__all__ = ["FORMAT", "EXAMPLES_DIR", "MAX_EXAMPLES", "Picture", "Shown", "Showcase", "write_examples",
           "read_examples", "gray_fill"]

FORMAT = 1
#: Folder (under each probe's artifacts) holding the example files.
EXAMPLES_DIR = "examples"
#: Examples kept per file: a page shows a few, the predictions files have all.
MAX_EXAMPLES = 6


def gray_fill() -> str:
    """The colour of the gray image (`BLANK_IMAGE`) as CSS."""
    return "#" + "".join(f"{c:02x}" for c in GRAY)


@dataclass(frozen=True)
class Picture:
    """One image the model saw: the data's own file (or `BLANK_IMAGE`, with its fill colour)."""

    label: str
    path: str
    fill: str = ""

    def to_json(self) -> dict[str, str]:
        out = {"label": self.label, "path": self.path}
        if self.fill or self.path == BLANK_IMAGE:
            out["fill"] = self.fill or gray_fill()
        return out


@dataclass(frozen=True)
class Shown:
    """One example: its question, the pictures, and labelled lines (answers, candidates)."""

    id: str
    question: str
    pictures: tuple[Picture, ...]
    lines: tuple[tuple[str, str], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "question": self.question, "pictures": [p.to_json() for p in self.pictures],
                "lines": [[a, b] for a, b in self.lines]}


@dataclass(frozen=True)
class Showcase:
    """The examples of one (probe, dataset, split, train, variant) of one run."""

    probe: str
    dataset: str
    split: str
    train: str
    variant: str
    title: str
    examples: tuple[Shown, ...]
    path: str = ""


def write_examples(ctx: Any, title: str, examples: Sequence[Shown], *, variant: str = "") -> Path | None:
    """Write the first `MAX_EXAMPLES` of `examples` for the current task and probe of `ctx`
    (a `harness.api.ProbeContext`) under `title`; None when there are none."""
    kept = list(examples)[:MAX_EXAMPLES]
    if not kept:
        return None
    head = {"probe": ctx.probe, "dataset": ctx.dataset, "split": ctx.split, "train": ctx.train, "variant": variant}
    stem = safe_name(f"{ctx.dataset}-{ctx.split}-{variant or 'all'}")[:80] + "-" + digest(head, 8)
    path = ctx.artifact(f"{EXAMPLES_DIR}/{stem}.json")
    atomic_write_text(path, json.dumps({"format": FORMAT, **head, "title": title,
                                        "examples": [e.to_json() for e in kept]}, ensure_ascii=False) + "\n")
    return path


def _strings(value: Any, where: str, name: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{where}: field {name!r} must be a string")
    return value


def _parse(data: Any, where: str) -> Showcase:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{where}: not an example file (format {FORMAT})")
    head = [_strings(data.get(k), where, k) for k in ("probe", "dataset", "split", "train", "variant", "title")]
    found = data.get("examples")
    if not isinstance(found, list):
        raise ValueError(f"{where}: field 'examples' must be a list")
    shown = []
    for i, ex in enumerate(found):
        at = f"{where}: example {i + 1}"
        if not isinstance(ex, dict) or not isinstance(ex.get("pictures", []), list) \
                or not isinstance(ex.get("lines", []), list):
            raise ValueError(f"{at}: expected an object with 'pictures' and 'lines' lists")
        pictures = tuple(Picture(_strings(p.get("label"), at, "label"), _strings(p.get("path"), at, "path"),
                                 str(p.get("fill") or "")) for p in ex.get("pictures", []) if isinstance(p, dict))
        lines = tuple((str(a), str(b)) for a, b in (ln for ln in ex.get("lines", [])
                                                    if isinstance(ln, list) and len(ln) == 2))
        shown.append(Shown(str(ex.get("id", "")), str(ex.get("question", "")), pictures, lines))
    return Showcase(*head, tuple(shown), where)


def read_examples(run_dir: Path) -> tuple[list[Showcase], list[str]]:
    """Every example file of a run folder (in any task folder of any probe, where
    `write_examples` puts them), and a problem line per unreadable one."""
    root = Path(run_dir) / "artifacts"
    if not root.is_dir():
        return [], []
    return read_json_files(sorted(p for p in root.rglob("*.json") if p.parent.name == EXAMPLES_DIR), _parse)
