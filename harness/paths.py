"""Where the harness keeps things: user cache (toy data, trained weights, predictions)."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["cache_dir", "data_home", "RESULTS", "DEFAULT_RUNS", "DEFAULT_LEADERBOARD"]

#: The one home of generated output under the working directory: run folders and the
#: leaderboard. It is never a package (see vqa_harness_cli.publish.check_output_folder).
RESULTS = Path("results")
DEFAULT_RUNS = RESULTS / "runs"
DEFAULT_LEADERBOARD = RESULTS / "leaderboard"


def cache_dir(*parts: str) -> Path:
    """`$VQA_HARNESS_CACHE` or `$XDG_CACHE_HOME/vqa-harness` (default ~/.cache/vqa-harness)."""
    root = os.environ.get("VQA_HARNESS_CACHE")
    if not root:
        root = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "vqa-harness")
    path = Path(root).joinpath(*parts)
    path.mkdir(parents=True, exist_ok=True)
    return path


def data_home(*parts: str) -> Path:
    """`$VQA_HARNESS_HOME` or `$XDG_DATA_HOME/vqa-harness`: installed NLP resources."""
    root = os.environ.get("VQA_HARNESS_HOME")
    if not root:
        root = os.path.join(os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share"), "vqa-harness")
    path = Path(root).joinpath(*parts)
    path.mkdir(parents=True, exist_ok=True)
    return path
