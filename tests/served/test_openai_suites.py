"""`openai` against a real `transformers serve` with tiny local LLaVAs: the toy accuracy,
image-ablation, a decoy and the e-ViL toy suites write rows and an image-reliance card; a
re-run sends no request; usage lands in the manifest and the report."""

from __future__ import annotations

import json
from pathlib import Path

from harness.host import PluginHost
from harness.testing import run_in_process
from vqa_harness_cli.suitefiles import load_suite_file

DECOY_SUITE = """\
name: decoys-iou-qou
description: Chao et al. 2018 on the toy benchmark, the IoU+QoU decoy set only
toy: true
tasks:
- label: IoU+QoU
  dataset: toyvqa-mc
  options: {decoys: iou+qou}
  split: val
  probes: [decoys]
  probe_options:
    decoys: {variants: iou+qou}
"""


def _spec(server, **extra) -> str:
    options = {"base_url": server.base_url, "model": str(server.folder), "concurrency": 4, "max_tokens": 3,
               "explain_max_tokens": 4, **extra}
    return "openai:" + ",".join(f"{k}={v}" for k, v in options.items())


def _manifest(outcome) -> dict:
    return json.loads((outcome.rundir.path / "manifest.json").read_text())


def _predictions(outcome) -> list[dict]:
    return [json.loads(line) for path in sorted((outcome.rundir.path / "predictions").rglob("*.jsonl"))
            for line in path.read_text().splitlines()]


def _key(suite) -> str:
    """A registered suite by its name, the suite file's by its file name."""
    return suite if isinstance(suite, str) else Path(getattr(suite, "file", suite)).name


def test_four_suites_rows_card_usage_and_a_silent_rerun(servers, tmp_path: Path, capsys):
    host = PluginHost(blocked=frozenset())
    yes, says_b = _spec(servers["yes"]), _spec(servers["B"])
    suite_file = tmp_path / "decoys-iou-qou.yaml"
    suite_file.write_text(DECOY_SUITE)
    # The ablation on 6 questions: a card's verdict needs rows over at least MIN_PAIRED (6).
    plan = [(yes, "vqa-accuracy", 4), (yes, "image-ablation-toy", 6), (yes, "e-vil-toy", 6),
            (says_b, load_suite_file(suite_file, host), 4)]
    first = {}
    for spec, suite, limit in plan:
        out = run_in_process(host, model=spec, suite=suite, tmp_path=tmp_path, limit=limit)
        assert out.exit_code == 0 and out.rows, (suite, out.probe_failures)
        usage = _manifest(out)["usage"]
        # Every example sent was answered once; nothing retried on a healthy server.
        assert usage["requests"] == usage["attempts"] == out.model_calls > 0, (suite, usage)
        assert usage["prompt_tokens"] > 0 and usage["completion_tokens"] > 0
        first[_key(suite)] = out

    answers = [p for p in _predictions(first["vqa-accuracy"]) if p["capability"] == "answer"]
    yes_no = [p for p in answers if p.get("answer") in ("yes",)]
    assert answers and all(p["answer"] in ("yes", "yes yes yes") for p in answers)
    assert yes_no  # the toy benchmark has yes/no questions; their answers went through the closed rules
    assert _manifest(first["vqa-accuracy"])["usage"]["closed_by_generation"] >= 1  # serve returns no logprobs

    # e-ViL: explanations are asked for the correctly answered examples only.
    explained = [p for p in _predictions(first["e-vil-toy"]) if p["capability"] == "explain"]
    assert explained and all(p["explanation"] == "yes yes yes yes" for p in explained)
    assert any(r.metric.startswith("s_e") or r.metric.startswith("s_o") for r in first["e-vil-toy"].rows)

    # Decoys through score_choices: the lettered prompt, the letter written ("B") read as a one-hot.
    decoys = first[_key(suite_file)]
    scored = [p for p in _predictions(decoys) if p["capability"] == "score_choices"]
    assert scored and all(p["choice_scores"][1] == 0.0 and max(p["choice_scores"]) == 0.0
                          and sum(s == 0.0 for s in p["choice_scores"]) == 1 for p in scored)
    usage = _manifest(decoys)["usage"]
    assert usage["choices_by_letter"] == usage["requests"] and not usage.get("choices_unanswered")
    assert "from the letter written" in (decoys.rundir.path / "report.md").read_text()

    # Usage in report.md, and an image-reliance card from the ablation run.
    ablation = first["image-ablation-toy"]
    report = (ablation.rundir.path / "report.md").read_text()
    assert f"- model usage: requests {ablation.model_calls}," in report
    from vqa_harness_cli import main

    assert main(["report", str(ablation.rundir.path), "--stdout"]) == 0
    card = capsys.readouterr().out
    card = card[card.index("## Image reliance: `openai:"):card.index("## Headline numbers")]
    # The always-"yes" model ignores its image, and the card says so from the ablation rows.
    assert "no measurable use of the image" in card and "Accuracy drop, gray image" in card

    # A re-run (new run folders, same cache) sends nothing and writes the same rows.
    for spec, suite, limit in plan:
        again = run_in_process(host, model=spec, suite=suite, tmp_path=tmp_path, limit=limit, reuse_outputs=False)
        usage = _manifest(again)["usage"]
        assert again.model_calls == 0 and usage["attempts"] == 0 and usage["requests"] == 0, suite
        assert sorted((r.metric, r.variant, r.value) for r in again.rows) == \
            sorted((r.metric, r.variant, r.value) for r in first[_key(suite)].rows)
