"""Tiny in-test plugins for core tests (no toy benchmark, no network)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from harness.api import Model, Option
from harness.hookspecs import hookimpl
from harness.testing import dataset_plugin
from harness.types import Answer, Example


def tiny_examples(n: int, prefix: str = "q") -> list[Example]:
    colors = ["red", "blue", "green"]
    out = []
    for i in range(n):
        c = colors[i % 3]
        out.append(Example(id=f"{prefix}{i}", question=f"what color is the ball {i}?", image_id=str(i),
                           image=f"/nonexistent/img{i}.png",
                           answers=(c,) * 8 + ("Red.", "two"), answer_type="other",
                           question_type="what color is the", label=c))
    return out


class EchoModel(Model):
    """Answers the color named by the question index; counts calls (class-level)."""

    name = "echo"
    options = {"fail_on": Option("", "example id on which to raise")}
    #: ids of examples in model calls that completed (a call killed mid-way never returned)
    calls: list[str] = []
    #: simulate a kill (KeyboardInterrupt) at the start of a call once this many completed
    stop_after: int = 0

    def answer(self, batch):
        if EchoModel.stop_after and len(EchoModel.calls) >= EchoModel.stop_after:
            raise KeyboardInterrupt
        out = []
        for ex in batch:
            if ex.id == self.config["fail_on"]:
                raise RuntimeError("boom on purpose")
            i = int(ex.id.lstrip("q"))
            out.append(Answer(["red", "blue", "green"][i % 3] if i % 4 else "yellow", {"red": 0.5}))
        EchoModel.calls.extend(ex.id for ex in batch)
        return out

    def fingerprint_extra(self):
        # stop_after / fail_on do not change outputs of successful calls
        return "v1"

    def fingerprint(self):
        from harness.digest import digest as _digest

        return _digest({"model": self.name, "extra": self.fingerprint_extra()})


class ModelPlugin:
    @hookimpl
    def register_models(self, register):
        register(EchoModel)


def core_plugins(n: int = 40):
    import vqa_harness_plugins.vqa as accuracy

    data = dataset_plugin("tiny", {"train": tiny_examples(10, "q"), "val": tiny_examples(n)}, suite="tiny-suite")
    return [accuracy, data, ModelPlugin()], ["vqa", "tiny-data", "echo-model"]


def run_rows(outcome) -> list[str]:
    """A run's result rows as sorted JSON lines, without the run id (to compare two runs)."""
    return sorted(json.dumps({k: v for k, v in r.to_json().items() if k != "run_id"}, sort_keys=True)
                  for r in outcome.rows)


def run_stats(outcome) -> dict:
    """The `stats` of a run's manifest (model calls, probe outputs reused, ...)."""
    return json.loads((outcome.rundir.path / "manifest.json").read_text())["stats"]


def write_suite(tmp_path: Path, text: str, name: str = "suite.yaml") -> Path:
    """A suite file under `tmp_path` holding `text`, dedented."""
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path
