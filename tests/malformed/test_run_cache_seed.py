"""`harness run --cache FILE` where FILE is not a prediction cache, and seeds out of range:
one line before any run folder is created, no traceback."""

from __future__ import annotations

import sqlite3

import pytest
from helpers_malformed import expect_one_line, plugin_for, run_cli, write

from harness.api import Task
from harness.errors import DataError, UsageError
from harness.testing import ListDataset
from harness.types import Example


class Tiny(ListDataset):
    name = "tiny"
    splits = ("val",)
    data = {"val": [Example(id=f"v{i}", question=f"Is it {i}?", answers=("yes",) * 10, label="yes")
                    for i in range(4)]}


def _argv(tmp_path, *extra):
    return ["run", "--model", "const", "--suite", "bad", "--out", str(tmp_path / "runs"), "--no-leaderboard",
            "--device", "cpu", *extra]


@pytest.mark.parametrize("content", [b"not a database at all\n" * 40, b"SQLite format 3\x00" + b"\xff" * 200,
                                     "{\"predictions\": []}\n"], ids=["text", "bad header", "json"])
def test_a_cache_file_that_is_not_sqlite_is_one_line_and_no_run_folder(capsys, tmp_path, content):
    cache = write(tmp_path / "cache.sqlite", content)
    result = run_cli(capsys, _argv(tmp_path, "--cache", str(cache)), plugin_for([Task("tiny", "val", ("accuracy",))],
                                                                                 Tiny))
    expect_one_line(result, str(cache), "not an SQLite prediction cache")
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())
    assert cache.read_bytes() == (content if isinstance(content, bytes) else content.encode())  # left as it was


@pytest.mark.parametrize("schema", ["CREATE TABLE predictions (id TEXT, text TEXT)", "CREATE TABLE users (name TEXT)"],
                         ids=["same table name", "other table"])
def test_an_sqlite_file_of_another_program_is_one_line_and_left_untouched(capsys, tmp_path, schema):
    cache = tmp_path / "other.db"
    with sqlite3.connect(cache) as conn:
        conn.execute(schema)
    before = cache.read_bytes()
    result = run_cli(capsys, _argv(tmp_path, "--cache", str(cache)), plugin_for([Task("tiny", "val", ("accuracy",))],
                                                                                 Tiny))
    expect_one_line(result, str(cache), "not a prediction cache of the harness")
    assert cache.read_bytes() == before and not (tmp_path / "runs").exists()


def test_a_cache_path_under_a_file_is_a_usage_error(capsys, tmp_path):
    write(tmp_path / "a-file", "x")
    cache = tmp_path / "a-file" / "cache.sqlite"
    result = run_cli(capsys, _argv(tmp_path, "--cache", str(cache)), plugin_for([Task("tiny", "val", ("accuracy",))],
                                                                                 Tiny))
    expect_one_line(result, f"prediction cache {cache}", "cannot be opened", "a-file is a file", code=2)
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


def test_an_empty_or_valid_cache_file_is_used(capsys, tmp_path):
    empty = write(tmp_path / "empty.sqlite", b"")
    code, out, err = run_cli(capsys, _argv(tmp_path, "--cache", str(empty)),
                             plugin_for([Task("tiny", "val", ("accuracy",))], Tiny))
    assert code == 0, err
    with sqlite3.connect(empty) as conn:
        assert conn.execute("SELECT COUNT(*) FROM predictions").fetchone()[0] == 4


def test_prediction_cache_errors_directly(tmp_path):
    from harness.cache.predictions import PredictionCache

    with pytest.raises(DataError, match="not an SQLite prediction cache"):
        PredictionCache(write(tmp_path / "x.sqlite", "hello" * 100))
    with pytest.raises(UsageError, match="cannot be opened"):
        PredictionCache(tmp_path)  # a folder


def test_a_cache_file_damaged_inside_is_one_line_naming_it_not_a_probe_failure(capsys, tmp_path):
    """Its header and table list read fine, a page of its predictions does not: the run stops
    with one line naming the file (before: each probe 'failed' with 'DatabaseError: database
    disk image is malformed', blamed on the probe's plugin, and the run ended `complete`)."""
    import json

    plugin = plugin_for([Task("tiny", "val", ("accuracy",))], Tiny)
    cache = tmp_path / "cache.sqlite"
    assert run_cli(capsys, _argv(tmp_path, "--cache", str(cache)), plugin)[0] == 0
    with sqlite3.connect(cache) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        page, root = (conn.execute("PRAGMA page_size").fetchone()[0],
                      conn.execute("SELECT rootpage FROM sqlite_master WHERE name='predictions'").fetchone()[0])
    data = bytearray(cache.read_bytes())
    data[(root - 1) * page:root * page] = b"\xa5" * page
    cache.write_bytes(bytes(data))
    for leftover in cache.parent.glob("cache.sqlite.outputs"):  # so the probe asks the cache again
        import shutil
        shutil.rmtree(leftover)
    expect_one_line(run_cli(capsys, _argv(tmp_path, "--cache", str(cache)), plugin), str(cache), "damaged",
                    code=3)
    [second] = [p for p in (tmp_path / "runs").iterdir() if
                json.loads((p / "manifest.json").read_text())["stats"]["model_calls"] == 0]
    assert json.loads((second / "manifest.json").read_text())["status"] == "failed"


def test_a_cache_error_that_is_not_damage_is_not_called_damage(tmp_path):
    """Only what SQLite calls a malformed file is 'damaged; delete it': a closed connection (a
    programming error) must not tell the user to delete a sound cache."""
    from harness.cache.predictions import PredictionCache

    cache = PredictionCache(tmp_path / "cache.sqlite")
    cache.close()
    with pytest.raises(sqlite3.ProgrammingError):
        cache.get_many("fp", ["k"])


def test_a_cache_file_cut_short_is_called_damaged_with_what_to_do(capsys, tmp_path):
    plugin = plugin_for([Task("tiny", "val", ("accuracy",))], Tiny)
    cache = tmp_path / "cache.sqlite"
    assert run_cli(capsys, _argv(tmp_path, "--cache", str(cache)), plugin)[0] == 0
    with sqlite3.connect(cache) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    cache.write_bytes(cache.read_bytes()[:4096])  # a copy or a disk that stopped after the first page
    expect_one_line(run_cli(capsys, _argv(tmp_path, "--cache", str(cache)), plugin), str(cache),
                    "is damaged (database disk image is malformed); move it aside or delete it")


@pytest.mark.parametrize("seed", ["-5", "-1", "4294967296", "1.5", "abc"])
def test_bad_seeds_are_refused_before_any_work(capsys, tmp_path, seed):
    result = run_cli(capsys, _argv(tmp_path, "--cache", str(tmp_path / "c.sqlite"), "--seed", seed),
                     plugin_for([Task("tiny", "val", ("accuracy",))], Tiny))
    expect_one_line(result, "--seed", code=2)
    assert not (tmp_path / "runs").exists()


def test_run_config_refuses_negative_seeds():
    from harness.run import RunConfig

    with pytest.raises(UsageError, match=r"seed -5 must be an integer from 0 to 4294967295"):
        RunConfig(model="const", suite="bad", seed=-5)
    with pytest.raises(UsageError, match="seed True"):
        RunConfig(model="const", suite="bad", seed=True)
    assert RunConfig(model="const", suite="bad", seed=2**32 - 1).seed == 2**32 - 1


def test_mcb_dim_has_a_sane_upper_bound(capsys, tmp_path):
    argv = _argv(tmp_path, "--cache", str(tmp_path / "c.sqlite"))
    argv[argv.index("const")] = "mcb:mcb_dim=1000000"
    result = run_cli(capsys, argv, plugin_for([Task("tiny", "val", ("accuracy",))], Tiny))
    expect_one_line(result, "model 'mcb'", "mcb_dim=1000000 is out of range", code=2)
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("argv", [["run", "--model", "const", "--suite", "bad", "--no-leaderboard"],
                                  ["cache", "status"]], ids=["run", "cache status"])
def test_a_harness_cache_variable_naming_a_file_is_one_line(capsys, tmp_path, monkeypatch, argv):
    monkeypatch.setenv("VQA_HARNESS_CACHE", str(write(tmp_path / "a-file", "x")))
    monkeypatch.chdir(tmp_path)
    result = run_cli(capsys, argv, plugin_for([Task("tiny", "val", ("accuracy",))], Tiny))
    expect_one_line(result, "a file is in the way", "set VQA_HARNESS_CACHE", code=2)


@pytest.mark.parametrize("size", ["512MB", "\u00b2"])  # "²" passes str.isdigit(), not int()
def test_an_image_cache_size_that_is_not_a_number_is_one_line_before_any_work(capsys, tmp_path, monkeypatch, size):
    monkeypatch.setenv("VQA_HARNESS_IMAGE_CACHE_MB", size)
    result = run_cli(capsys, _argv(tmp_path, "--cache", str(tmp_path / "c.sqlite")),
                     plugin_for([Task("tiny", "val", ("accuracy",))], Tiny))
    expect_one_line(result, f"VQA_HARNESS_IMAGE_CACHE_MB={size!r}", "whole number of megabytes", code=2)
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("argv", [
    ["perturb", "--dataset", "toyvqa"], ["decoys", "generate", "--dataset", "toyvqa-mc"],
    ["nle", "sample", "."], ["export", "toy-vqa2"]])
@pytest.mark.parametrize("seed", ["-1", "4294967296"])
def test_every_command_takes_the_seeds_run_takes(capsys, tmp_path, argv, seed):
    """A seed `harness run` refuses is refused by the other seeded commands too, before any
    work (before: -1 and 10^20 were accepted by perturb, decoys, nle sample and export)."""
    result = run_cli(capsys, [*argv, "--out", str(tmp_path / "o"), "--seed", seed])
    expect_one_line(result, "--seed", code=2)
    assert not (tmp_path / "o").exists()
