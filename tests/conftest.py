"""Test-wide isolation: every cache and resource folder points into a temporary tree.

No test touches the network or the user's caches. NLP resources installed by
`harness resources install` (README set-up) are found through VQA_HARNESS_HOME when the
environment already sets it; otherwise through the default data home.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
SHARED_DATA = SHARED / "data"


def _env_base(root: Path) -> Path:
    """The folder of the tests' caches: `<root>/.test-cache` (git-ignored, kept between runs).

    Its path must not contain ".py": `evaluate` names a module's metadata file by cutting the
    module path at the first ".py" and adding ".json", so under `.pytest_cache` it wrote
    `<root>/.json`. A checkout whose path holds ".py" gets a folder under the system's
    temporary directory instead.
    """
    base = root / ".test-cache"
    if ".py" in str(base):
        base = Path(tempfile.gettempdir()) / "vqa-harness-test-cache"
    assert ".py" not in str(base), base
    return base


def pytest_configure(config: pytest.Config) -> None:
    base = _env_base(Path(config.rootpath))
    base.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("HF_HOME", str(base / "hf"))
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["HF_DATASETS_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ.setdefault("MPLCONFIGDIR", str(base / "mpl"))
    # One cache for the whole session (toy data is generated once); tests that need a
    # clean cache use the `fresh_cache` fixture.
    os.environ.setdefault("VQA_HARNESS_CACHE", str(base / "cache"))
    os.environ.setdefault("TQDM_DISABLE", "1")


@pytest.fixture
def fresh_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty VQA_HARNESS_CACHE for this test."""
    path = tmp_path / "cache"
    monkeypatch.setenv("VQA_HARNESS_CACHE", str(path))
    return path


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """../shared/data (real e-SNLI-VE, VQA-X, question types); skip if absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is not present")
    return SHARED_DATA
