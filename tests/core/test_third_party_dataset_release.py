"""A new release of a third-party dataset plugin reads its unchanged files anew: what was computed
from the examples of the release before (a probe's `ctx.memo` values, the weights a model trains
on them) is not served for the new release's examples."""

from __future__ import annotations

import json
import sys
import textwrap

from vqa_harness_cli import main

from harness.testing import fake_entry_points

PLUGIN_SOURCE = textwrap.dedent('''
    """A third-party plugin: a file dataset whose `load` words the questions its own way."""
    import json
    import os
    from pathlib import Path

    from harness.api import DatasetPlugin, Model, Probe, Suite, Task
    from harness.hookspecs import hookimpl

    from harness.types import Example

    WORDING = "WORDING"

    class Squares(DatasetPlugin):
        name = "squares"
        description = "questions from one JSON file"
        splits = ("val",)
        provides = frozenset({"answers", "label"})

        def expected_files(self, split):
            return [Path(os.environ["SQUARES_FILE"])]

        def load(self, split):
            rows = json.loads(self.expected_files(split)[0].read_text())
            return [Example(id=r["id"], question=f"{WORDING} {r['colour']}?", answers=("yes",), label="yes")
                    for r in rows]

    class Yes(Model):
        name = "always-yes"
        description = "answers yes"

        def answer(self, batch):
            return ["yes" for _ in batch]

    class Remembered(Probe):
        name = "remembered-questions"
        description = "share of questions equal to the ones ctx.memo remembered for this data"
        requires = ("answer",)

        def run(self, ctx):
            kept = ctx.memo("questions", {}, lambda: [ex.question for ex in ctx.examples])
            same = sum(a == ex.question for a, ex in zip(kept, ctx.examples))
            return [ctx.row("remembered", same / len(ctx.examples), len(ctx.examples), higher_is_better=None)]

    @hookimpl
    def register_datasets(register):
        register(Squares)

    @hookimpl
    def register_models(register):
        register(Yes)

    @hookimpl
    def register_probes(register):
        register(Remembered)

    @hookimpl
    def register_suites(register):
        register(Suite("squares-suite", "memo over squares", (Task("squares", "val", ("remembered-questions",)),)))
''')


def test_a_new_release_of_a_third_party_dataset_is_read_anew(tmp_path, monkeypatch, fresh_cache):
    """Release 1.1 words its questions otherwise from the same file: the memo of 1.0's questions
    was served to it (`remembered` 0.0), the dataset's fingerprint held no version of it."""
    data = tmp_path / "squares.json"
    data.write_text(json.dumps([{"id": f"q{i}", "colour": c} for i, c in enumerate(("red", "green", "blue"))]))
    monkeypatch.setenv("SQUARES_FILE", str(data))
    pkg = tmp_path / "site" / "squares_plugin"
    pkg.mkdir(parents=True)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    remembered, digests = [], []
    for version, wording in (("1.0", "is it"), ("1.1", "is the square")):
        (pkg / "__init__.py").write_text(PLUGIN_SOURCE.replace('"WORDING"', repr(wording)))
        sys.modules.pop("squares_plugin", None)
        with fake_entry_points(monkeypatch, {"squares": "squares_plugin"}, dist_name="squares", version=version):
            assert main(["run", "--model", "always-yes", "--suite", "squares-suite", "--device", "cpu",
                         "--no-leaderboard", "--cache", str(tmp_path / "c.sqlite"),
                         "--out", str(tmp_path / version)]) == 0
        run = next((tmp_path / version).iterdir())
        rows = [json.loads(x) for x in (run / "results.jsonl").read_text().splitlines()]
        remembered += [r["value"] for r in rows if r["metric"] == "remembered"]
        digests.append(json.loads((run / "manifest.json").read_text())["data"]["squares/val"])
    assert remembered == [1.0, 1.0]  # before: [1.0, 0.0], 1.0's questions remembered for 1.1
    assert digests[0] != digests[1]  # the manifest's data digest tells the releases apart
