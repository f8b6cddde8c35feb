"""CLI behaviour and a third-party plugin package found through (faked) entry points."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from vqa_harness_cli import main

PLUGIN_SOURCE = textwrap.dedent('''
    """A third-party plugin: one model, one dataset, one suite."""
    from harness.api import Model, Option, Suite, Task
    from harness.hookspecs import hookimpl
    from harness.testing import ListDataset
    from harness.types import Example

    class ShoutModel(Model):
        name = "shout"
        description = "answers yes, loudly"
        options = {"word": Option("yes", "the answer")}

        def answer(self, batch):
            return [self.config["word"] for _ in batch]

    class YesNo(ListDataset):
        name = "yesno"
        splits = ("val",)
        data = {"val": [Example(id=str(i), question=f"is there a cat {i}?", answers=("yes",) * 10,
                                answer_type="yes/no", question_type="is there a") for i in range(6)]}

    @hookimpl
    def register_models(register):
        register(ShoutModel)

    @hookimpl
    def register_datasets(register):
        register(YesNo)

    @hookimpl
    def register_suites(register):
        register(Suite("yesno-suite", "third-party suite", (Task("yesno", "val", ("accuracy",)),)))
''')


@pytest.fixture
def third_party(tmp_path, monkeypatch):
    from harness.testing import fake_entry_points

    pkg = tmp_path / "site" / "shout_plugin"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(PLUGIN_SOURCE)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    with fake_entry_points(monkeypatch, {"shout": "shout_plugin"}, dist_name="vqa-harness-shout", version="1.2.3"):
        yield  # a fresh host inside, and after


def test_third_party_plugin_is_listed_and_runs(third_party, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["list", "models"]) == 0
    out = capsys.readouterr().out
    assert "shout" in out and "answers yes, loudly" in out
    assert main(["plugins"]) == 0
    assert "vqa-harness-shout 1.2.3" in capsys.readouterr().out
    code = main(["run", "--model", "shout", "--suite", "yesno-suite", "--device", "cpu",
                 "--cache", str(tmp_path / "c.sqlite")])
    assert code == 0
    run = next((tmp_path / "results" / "runs").iterdir())
    rows = [json.loads(x) for x in (run / "results.jsonl").read_text().splitlines()]
    assert [r["value"] for r in rows if r["metric"] == "vqa_accuracy"] == [1.0]
    manifest = json.loads((run / "manifest.json").read_text())
    assert "vqa-harness-shout 1.2.3" in manifest["versions"]["plugin_distributions"]
    assert (tmp_path / "results" / "leaderboard" / "index.md").read_text().count("shout") >= 1


def test_unknown_names_exit_2_with_near_matches(third_party, capsys):
    assert main(["run", "--model", "shuot", "--suite", "yesno-suite"]) == 2
    assert "unknown model 'shuot'; did you mean: shout?" in capsys.readouterr().err
    assert main(["run", "--model", "shout", "--suite", "yesno-suit"]) == 2
    assert "did you mean: yesno-suite" in capsys.readouterr().err


def test_bad_model_option_lists_accepted_options(third_party, capsys):
    assert main(["run", "--model", "shout:colour=red", "--suite", "yesno-suite"]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err == "error: model 'shout' does not accept option(s) colour; accepted: word"


def test_help_is_fast_and_imports_nothing_heavy():
    code = ("import sys; from vqa_harness_cli import main; main(['--help']); "
            "heavy = [m for m in ('torch', 'datasets', 'nltk', 'transformers') if m in sys.modules]; "
            "print('HEAVY', heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "HEAVY []" in out.stdout and "run" in out.stdout


def test_a_new_release_of_a_third_party_model_is_asked_again(tmp_path, monkeypatch):
    """Its name and options unchanged, a new release of a plugin (other answers, version 1.2.4)
    was served the cached predictions of 1.2.3: the fingerprint held no version of it."""
    from harness.testing import fake_entry_points

    pkg = tmp_path / "site" / "shout_plugin"
    pkg.mkdir(parents=True)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.chdir(tmp_path)
    accuracy = []
    for version, word in (("1.2.3", "yes"), ("1.2.4", "no")):
        (pkg / "__init__.py").write_text(PLUGIN_SOURCE.replace('self.config["word"] for', f'"{word}" for'))
        sys.modules.pop("shout_plugin", None)
        with fake_entry_points(monkeypatch, {"shout": "shout_plugin"}, dist_name="vqa-harness-shout", version=version):
            assert main(["run", "--model", "shout", "--suite", "yesno-suite", "--device", "cpu", "--no-leaderboard",
                         "--cache", str(tmp_path / "c.sqlite"), "--out", str(tmp_path / version)]) == 0
        run = next((tmp_path / version).iterdir())
        rows = [json.loads(x) for x in (run / "results.jsonl").read_text().splitlines()]
        accuracy += [r["value"] for r in rows if r["metric"] == "vqa_accuracy"]
    assert accuracy == [1.0, 0.0]  # before: [1.0, 1.0], 1.2.3's answers
