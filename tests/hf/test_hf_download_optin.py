"""Downloads are opt-in: without download=true the hub is never asked for weights (no network:
`snapshot_download` is replaced by a recorder)."""

from __future__ import annotations

import huggingface_hub
import pytest

from harness.errors import UsageError
from vqa_harness_plugins.models.hf.loading import resolve_source


@pytest.fixture
def hub(monkeypatch, tmp_path):
    """A fake `snapshot_download`: nothing is cached; a real fetch "succeeds" into tmp_path."""
    calls = []

    def snapshot_download(repo_id, revision=None, local_files_only=False, **kw):
        calls.append({"repo": repo_id, "local_files_only": local_files_only})
        if local_files_only:
            raise FileNotFoundError("not in the cache")
        folder = tmp_path / "snap" / "abc123"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "config.json").write_text("{}")
        return str(folder)

    monkeypatch.setattr(huggingface_hub, "snapshot_download", snapshot_download)
    return calls


def test_a_hub_id_missing_from_the_cache_is_never_downloaded_by_default(hub, monkeypatch):
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    with pytest.raises(UsageError) as err:
        resolve_source("model 'hf-vqa'", "org/some-vqa-model")
    message = str(err.value)
    assert "download=true" in message and "path=/local/folder" in message and "\n" not in message
    assert hub == [{"repo": "org/some-vqa-model", "local_files_only": True}]  # the cache only


def test_download_true_fetches_and_offline_mode_says_so(hub, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(UsageError, match="download=true, but the hub is switched off"):
        resolve_source("model 'hf-vqa'", "org/some-vqa-model", download=True)
    assert all(c["local_files_only"] for c in hub)
    monkeypatch.delenv("HF_HUB_OFFLINE")
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    source = resolve_source("model 'hf-vqa'", "org/some-vqa-model", download=True)
    assert source.hub_id == "org/some-vqa-model" and source.revision == "abc123"
    assert hub[-1] == {"repo": "org/some-vqa-model", "local_files_only": False}


def test_the_download_option_is_off_and_outside_the_fingerprint():
    from vqa_harness_plugins.models.features.hf_vision import HFVisionFeatures
    from vqa_harness_plugins.models.hf.base import COMMON_OPTIONS

    assert COMMON_OPTIONS["download"].default is False and not COMMON_OPTIONS["download"].fingerprint
    assert HFVisionFeatures.options["download"].default is False
