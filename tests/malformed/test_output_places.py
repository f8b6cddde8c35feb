"""Output places a script may name by mistake are one line and exit 2 before any work: a
file output that is a device or a pipe (the atomic writers replaced the node: `compare
--json /dev/full` left /dev/full a regular file), an empty name or a folder (`--json ''`
was an OSError, exit 4), one inside a Python package (`--json harness/x.json` landed in
the source tree); `harness report --out` on the root, in a package or in another run
folder; and a usage error click words over several lines (`harness list`)."""

from __future__ import annotations

import os

import pytest
from helpers_malformed import expect_one_line, run_cli, write


def _places(tmp_path):
    os.mkfifo(tmp_path / "fifo")
    write(tmp_path / "pkg" / "__init__.py", "")
    (tmp_path / "a" / "artifacts").mkdir(parents=True)
    (tmp_path / "b").mkdir()
    return tmp_path


@pytest.mark.parametrize("target, needle", [("fifo", "is not a regular file"), ("", "empty path"),
                                            (".", "is a directory"), ("pkg/x.json", "inside the Python package")])
@pytest.mark.parametrize("command", ["compare", "perturb"])
def test_a_file_output_that_is_a_device_a_folder_or_in_a_package_is_refused(capsys, tmp_path, monkeypatch,
                                                                             target, needle, command):
    _places(tmp_path)
    monkeypatch.chdir(tmp_path)
    if command == "compare":
        argv = ["compare", str(tmp_path / "a"), str(tmp_path / "b"), "--json", target]
    else:
        argv = ["perturb", "--dataset", "toyvqa", "--limit", "2", "--kind", "synonym_adj", "--out", target]
    expect_one_line(run_cli(capsys, argv), needle, code=2)
    assert (tmp_path / "fifo").is_fifo()  # not replaced by a regular file
    assert sorted(p.name for p in (tmp_path / "pkg").iterdir()) == ["__init__.py"]


@pytest.mark.parametrize("out, needle", [("/", "root of the file system"), ("pkg/report", "inside the Python package"),
                                         ("b", "inside the run folder"), ("b/sub", "inside the run folder")])
def test_report_out_on_the_root_in_a_package_or_in_another_run_is_refused(capsys, tmp_path, monkeypatch, out, needle):
    _places(tmp_path)
    for run in ("a", "b"):
        write(tmp_path / run / "manifest.json", '{"status": "complete"}\n')
        write(tmp_path / run / "results.jsonl", "")
    monkeypatch.chdir(tmp_path)
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    expect_one_line(run_cli(capsys, ["report", str(tmp_path / "a"), "--out", out]), "--out", needle, code=2)
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before
    assert not os.path.exists("/report.html")


def test_a_missing_choice_argument_is_one_line(capsys):
    expect_one_line(run_cli(capsys, ["list"]), "Missing argument", "models, datasets", code=2)


def test_compare_refuses_a_number_of_resamples_it_cannot_hold(capsys, tmp_path):
    _places(tmp_path)
    result = run_cli(capsys, ["compare", str(tmp_path / "a"), str(tmp_path / "b"), "--n-boot", str(10**30)])
    expect_one_line(result, "--n-boot", code=2)


@pytest.mark.parametrize("argv", [["export", "toy-vqa2", "--images", "2", "--size", "24", "--split", "val", "--out"],
                                  ["resources", "install", "--target"]])
def test_export_and_resources_install_refuse_a_folder_inside_a_package(capsys, tmp_path, argv):
    """`export toy-vqa2 --out harness/exp` and `resources install --target harness/nltk` wrote into the source tree."""
    _places(tmp_path)
    expect_one_line(run_cli(capsys, [*argv, str(tmp_path / "pkg" / "out")]), "inside the Python package", code=2)
    assert sorted(p.name for p in (tmp_path / "pkg").iterdir()) == ["__init__.py"]


def test_export_refuses_a_folder_inside_a_run_folder(capsys, tmp_path):
    """`export toy-vqa2 --out runs/<id>` wrote vqa2/ and coco/ among the run's own files."""
    run = tmp_path / "runs" / "r1"
    write(run / "manifest.json", "{}")
    write(run / "results.jsonl", "")
    argv = ["export", "toy-vqa2", "--images", "2", "--size", "24", "--split", "val", "--no-images", "--out"]
    expect_one_line(run_cli(capsys, [*argv, str(run / "data")]), f"is inside the run folder {run}", code=2)
    assert sorted(p.name for p in run.iterdir()) == ["manifest.json", "results.jsonl"]


@pytest.mark.parametrize("argv, option", [(["run", "--suite", "toy", "--no-leaderboard", "--model"], "--model"),
                                          (["perturb", "--out", "x.jsonl", "--dataset"], "--dataset"),
                                          (["decoys", "generate", "--out", "x.json", "--dataset"], "--dataset")])
def test_an_empty_plugin_name_names_its_option(capsys, tmp_path, monkeypatch, argv, option):
    """`--model ''` (an unset shell variable) said only "empty name in spec ''"."""
    monkeypatch.chdir(tmp_path)
    for spec in ("", ":epochs=1"):
        expect_one_line(run_cli(capsys, [*argv, spec]), f"'{option}'", "empty name", code=2)
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("name, needle", [("loop/x", "symbolic link loop"), ("a" * 300, "File name too long")])
def test_resources_install_target_on_a_link_loop_or_a_name_too_long_is_one_line(capsys, tmp_path, name, needle):
    """The package check of --target raised RuntimeError (a link loop) and OSError (a name too long), exit 4."""
    os.symlink(tmp_path / "loop", tmp_path / "loop")
    expect_one_line(run_cli(capsys, ["resources", "install", "--target", str(tmp_path / name)]), "--target",
                    needle, code=2)


def test_a_file_output_that_is_a_symbolic_link_is_refused(capsys, tmp_path, monkeypatch):
    """`perturb --out /dev/stdout > rows.jsonl` (a link to the redirected file): the atomic rename
    replaced the link itself with a regular file and the redirect got nothing, exit 0."""
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "rows.jsonl", "")
    os.symlink(tmp_path / "rows.jsonl", tmp_path / "out")
    argv = ["perturb", "--dataset", "toyvqa", "--limit", "2", "--kind", "synonym_adj", "--out", "out"]
    expect_one_line(run_cli(capsys, argv), "is a symbolic link", code=2)
    assert os.path.islink(tmp_path / "out")


@pytest.mark.parametrize("argv", [["run", "--model", "prior", "--suite", "toy", "--out"],
                                  ["run", "--model", "prior", "--suite", "toy", "--leaderboard"],
                                  ["run", "--model", "prior", "--suite", "toy", "--data-dir"],
                                  ["leaderboard", "build", "--out"], ["export", "toy-vqa2", "--out"],
                                  ["resources", "install", "--target"]])
def test_an_empty_folder_is_refused_not_read_as_the_current_one(capsys, tmp_path, monkeypatch, argv):
    """`--out "$OUT"` with OUT unset: click.Path read '' as the current folder, and the runs, the
    leaderboard, the export or the resources were written there."""
    monkeypatch.chdir(tmp_path)
    expect_one_line(run_cli(capsys, [*argv, ""]), f"'{argv[-1]}'", "empty path", code=2)
    assert not any(tmp_path.iterdir())


def test_every_path_option_of_every_command_refuses_an_empty_path():
    """Built-in and plugin commands alike take paths through harness.specs.Place."""
    import click

    from harness.specs import Place
    from vqa_harness_cli import cli

    def walk(command):
        yield command
        if isinstance(command, click.Group):
            ctx = click.Context(command)
            for name in command.list_commands(ctx):
                yield from walk(command.get_command(ctx, name))

    paths = [(c.name, p.name, p.type) for c in walk(cli) for p in c.params if isinstance(p.type, click.Path)]
    assert len(paths) >= 26
    assert [(command, name) for command, name, kind in paths if not isinstance(kind, Place)] == []


def test_a_path_given_after_an_equals_sign_with_a_tilde_means_the_home_folder(tmp_path, monkeypatch):
    """`--out=~/runs` (the shell does not expand a tilde after '='): the folder checks looked at
    ~/runs in the home folder, and the files went to a folder named '~' in the current one."""
    from pathlib import Path

    from harness.specs import Place

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert Place(path_type=Path).convert("~/runs", None, None) == tmp_path / "home" / "runs"
    assert Place(path_type=Path).convert("a~/runs", None, None) == Path("a~/runs")
