"""Examples with the images the model saw, on run and model pages (harness.showcase files).

A probe writes a few examples next to its rows (`harness.showcase.write_examples`): the
question, the pictures (the image; both images of a complementary pair; the gray and the
swapped image of the ablation; the image beside the decoys' candidates) and labelled lines
(answers per condition, candidates). The page shows each picture as a thumbnail loaded from
the data's own file, by a path relative to the page: nothing is copied into the site. A file
that is not on the machine building the site is said in words with its path (no stand-in
image); the gray image is drawn in its fill colour, which is exactly what the model saw.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from harness.showcase import Picture, Showcase, read_examples
from harness.types import BLANK_IMAGE

from .html import esc, file_url
from .labels import Names, readable_spec
from .runs import RunInfo

__all__ = ["examples_html", "picture_html", "showcases", "THUMB_PX"]

#: Thumbnail width on the page (CSS px); the image file itself is not resized or copied.
THUMB_PX = 112


def picture_html(picture: Picture, page_dir: Path | None) -> str:
    """One thumbnail: the data's file (relative to the page), the gray fill, or why not."""
    label = f"<figcaption>{esc(picture.label)}</figcaption>"
    if picture.path == BLANK_IMAGE:
        fill = picture.fill or "#808080"
        return (f'<figure class="thumb"><div class="gray" style="background:{esc(fill)}" role="img" '
                f'aria-label="{esc(picture.label)}: a uniform gray image ({esc(fill)})"></div>{label}</figure>')
    path = Path(picture.path) if picture.path else None
    try:
        found = path is not None and path.is_file()
        why = "image not on this machine"
    except OSError:  # is_file() says False only for "not there": here another user's folder, say
        found, why = False, "image not readable on this machine"
    if not found:
        said = f"<code>{esc(picture.path)}</code>" if picture.path else "no path recorded"
        return f'<figure class="thumb"><div class="missing">{why}: {said}</div>{label}</figure>'
    src = file_url(os.path.relpath(path.resolve(), Path(page_dir).resolve()).replace(os.sep, "/")
                   if page_dir is not None else path.resolve().as_posix())
    return (f'<figure class="thumb"><a href="{esc(src)}"><img src="{esc(src)}" alt="{esc(picture.label)}" '
            f'width="{THUMB_PX}" loading="eager"></a>{label}</figure>')


def _example_html(shown, page_dir: Path | None) -> str:
    pictures = "".join(picture_html(p, page_dir) for p in shown.pictures)
    lines = "".join(f"<dt>{esc(a)}</dt><dd>{esc(b)}</dd>" for a, b in shown.lines)
    return (f'<article class="example"><p class="q">{esc(shown.question)} <small class="muted">({esc(shown.id)})'
            f'</small></p><div class="pictures">{pictures}</div><dl class="answers">{lines}</dl></article>')


def showcases(runs: Sequence[RunInfo]) -> list[tuple[RunInfo, Showcase]]:
    """Every example file of `runs` (unreadable files are skipped: the run page lists its files)."""
    out = []
    for info in runs:
        found, _ = read_examples(info.path)
        out += [(info, s) for s in found]
    return out


def examples_html(runs: Sequence[RunInfo], page_dir: Path | None, *, names: Names | None = None,
                  per_file: int = 3, heading: str = "h2") -> str:
    """A section of examples with thumbnails for `runs` ('' when no probe wrote any)."""
    found = showcases(runs)
    if not found:
        return ""
    names = names or Names()
    # The direct evidence first (the ablation's images), as the probes order their evidence.
    rank = {p: min(e.order for e in d.evidence) for p, d in names.displays.items() if d.evidence}
    found = sorted(found, key=lambda f: (rank.get(f[1].probe, 10_000), f[1].probe))
    parts = [f"<{heading}>Examples, with the images the model saw</{heading}>",
             '<p class="muted">A few examples per probe, as the probes recorded them; thumbnails are the data\'s own '
             "image files (not copied into the site: a file not on this machine is named instead); click one for "
             "the full image. All predictions are in each run's predictions/ folder.</p>"]
    for info, show in found:
        where = readable_spec(f"{show.dataset}/{show.split}")
        trained = f" · trained on {readable_spec(show.train)}" if show.train else ""
        parts.append(f'<section class="examples"><h3>{esc(show.title)}</h3><p class="spec muted">'
                     f"{esc(names.probe(show.probe))} · {esc(where)}{esc(trained)} · run {esc(info.run_id)}</p>"
                     + "".join(_example_html(s, page_dir) for s in show.examples[:per_file]) + "</section>")
    return "\n".join(parts)
