"""Where the harness cache is when no variable names it (harness.paths.cache_dir): never a
folder relative to wherever the command happens to run."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from helpers_core import core_plugins

from harness import paths
from harness.errors import UsageError
from harness.testing import make_host, run_in_process
from vqa_harness_cli import main
from vqa_harness_plugins.datasets.toyvqa.build import load_or_generate


@pytest.fixture
def no_cache_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("VQA_HARNESS_CACHE", "XDG_CACHE_HOME", "HOME"):
        monkeypatch.delenv(name, raising=False)


def test_no_home_at_all_is_one_line_naming_the_variable(no_cache_variables, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """HOME unset and a user id without a passwd entry (`docker run --user 12345`): "~" cannot
    be expanded. Before, the cache went to a folder named "~" in the working directory."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(os.path, "expanduser", lambda path: path)  # what it does for such a user
    with pytest.raises(UsageError, match="no home folder.*set VQA_HARNESS_CACHE"):
        paths.cache_dir()
    assert list(tmp_path.iterdir()) == []


def test_a_relative_xdg_cache_home_is_ignored(no_cache_variables, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The XDG base directory spec: a relative path in XDG_CACHE_HOME is invalid and ignored
    (else each working directory would get a cache of its own)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CACHE_HOME", "relative")
    assert paths.cache_dir() == tmp_path / "home" / ".cache" / "vqa-harness"
    assert not (tmp_path / "relative").exists()


def test_an_absolute_xdg_cache_home_is_used(no_cache_variables, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert paths.cache_dir() == tmp_path / "xdg" / "vqa-harness"


def test_a_run_with_a_cache_it_cannot_write_is_one_line_before_a_run_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A read-only harness cache (another user's, a read-only mount) with --cache elsewhere:
    before, every probe failed on its lock file in the cache, each blamed on its plugin, and the
    run ended `failed`. os.access is what the check asks; it is told "no" here, because the
    test may run as root, for whom a mode-555 folder is writable."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("VQA_HARNESS_CACHE", str(cache))
    real = os.access
    monkeypatch.setattr(paths.os, "access", lambda p, mode: False if Path(p) == cache else real(p, mode))
    plugins, names = core_plugins()
    with pytest.raises(UsageError, match=f"^{cache} cannot be used as a folder \\(not writable\\); set VQA_HARNESS_CACHE"):
        run_in_process(make_host(*plugins, names=names), model="echo", suite="tiny-suite", tmp_path=tmp_path)
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


@pytest.mark.parametrize("answer, code, said", [("", 2, "error: no answer on standard input; pass --yes"),
                                                 ("n\n", 1, "nothing removed"), ("y\n", 0, "")])
def test_cache_clear_without_an_answer_is_a_usage_error_not_an_interrupt(
        fresh_cache: Path, monkeypatch: pytest.MonkeyPatch, capsys, answer, code, said) -> None:
    """Standard input closed or empty (a script, a job without a terminal): before, "aborted"
    and exit 130, the code of Ctrl-C; a "no" was 130 too. Nothing is removed unless "y"."""
    paths.cache_dir("toyvqa")
    monkeypatch.setattr("sys.stdin", io.StringIO(answer))
    assert main(["cache", "clear"]) == code
    assert said in capsys.readouterr().err
    assert (fresh_cache / "toyvqa").exists() == (code != 0)


def test_a_relative_cache_variable_is_under_the_working_directory_and_the_toy_data_loads(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """VQA_HARNESS_CACHE=cache (relative): before, the toy benchmark's generation made its
    image paths (absolute) relative to the split's cache folder (relative), and every toy run
    ended with 'plugin toy:toyvqa: load('val') failed: ValueError: ... is not in the subpath'."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("VQA_HARNESS_CACHE", "cache")
    examples, folder = load_or_generate("unbalanced", "val", images=3, size=24)
    assert paths.cache_dir("toyvqa") == tmp_path / "cache" / "toyvqa"
    assert folder.is_absolute() and examples and all(Path(ex.image).is_file() for ex in examples)


def test_a_cache_variable_starting_with_a_tilde_is_under_the_home_folder(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """VQA_HARNESS_CACHE=~/c from a .env or systemd file (no shell to expand it) was the folder
    '~' under the working directory."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("VQA_HARNESS_CACHE", "~/c")
    monkeypatch.setenv("VQA_HARNESS_HOME", "~/h")
    assert paths.cache_dir("toyvqa") == tmp_path / "home" / "c" / "toyvqa"
    assert paths.data_home("nltk_data", create=False) == tmp_path / "home" / "h" / "nltk_data"
    assert not (tmp_path / "~").exists()
