"""A picture a run recorded whose file this machine cannot even look at (another user's
cache folder, mode 700, when someone else builds the leaderboard; a name this file system
refuses): said in words on the page, not a traceback."""

from __future__ import annotations

from pathlib import Path

from harness.showcase import Picture
from vqa_harness_leaderboard.examples import picture_html


def test_a_picture_whose_path_cannot_be_looked_at_is_said_in_words(tmp_path: Path) -> None:
    """Path.is_file() raises for any error but "not there" (EACCES from a folder of another
    user; here ENAMETOOLONG, which any user gets): before, that ended `harness leaderboard
    build` in a traceback."""
    path = tmp_path / ("x" * 300) / "img.png"
    html = picture_html(Picture("the image", str(path)), tmp_path)
    assert "image not readable on this machine" in html and str(path) in html
