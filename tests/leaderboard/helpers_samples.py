"""Sample run folders with rows shaped like each suite's, for tests and site previews.

The values are SYNTHETIC (seeded pseudo-random numbers, labelled so in every manifest and
report): they exist to exercise the leaderboard's tables, charts and pages, never to be
quoted. Real numbers come from `harness run`.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

from helpers_ablation_samples import ABLATION_MODELS, ablation_rows, write_ablation_files

from harness.fileio import atomic_write_json, write_jsonl
from harness.project import SCHEMA_VERSION

__all__ = ["SAMPLE_NOTE", "write_sample_runs"]

SAMPLE_NOTE = "SYNTHETIC sample run written by the tests' helpers_samples (not a measurement)"

_U, _B = "toyvqa:variant=unbalanced", "toyvqa:variant=balanced"
_KINDS = ("color_max_common", "color_min_common", "synonym_adj", "hypernym_noun", "sibling_noun", "deletion_noun")
_DECOY_SETS = ("orig", "iou", "qou", "iou+qou", "all")
_CONCEPTS = ("red", "blue", "green", "ball", "cube", "box", "ring", "star")


def _row(rng: random.Random, run_id: str, model: str, suite: str, dataset: str, split: str, probe: str,
         metric: str, value: float, n: int = 200, *, variant: str = "", unit: str = "fraction", train: str = "",
         ci: bool = True, higher_is_better: bool = True) -> dict:
    half = 0.02 + 0.03 * rng.random() if ci and unit == "fraction" else None
    return {"schema_version": SCHEMA_VERSION, "run_id": run_id, "model": model, "suite": suite,
            "dataset": dataset, "split": split, "probe": probe, "variant": variant, "metric": metric,
            "value": round(value, 6), "n": n,
            "ci_low": round(max(0.0, value - half), 6) if half else None,
            "ci_high": round(min(1.0, value + half), 6) if half else None,
            "higher_is_better": higher_is_better, "unit": unit, "train": train}


def _balanced(rng: random.Random, run_id: str, model: str) -> Iterator[dict]:
    for label, data, train in (("UU", _U, _U), ("UB", _B, _U), ("BB", _B, _B)):
        base = 0.35 + 0.2 * rng.random() - (0.08 if label == "UB" else 0.0)
        yield _row(rng, run_id, model, "balanced-vqa", data, "val", "balanced-accuracy", "vqa_accuracy", base,
                   train=f"{train}/train")
        for at, shift in (("yes/no", 0.3), ("number", -0.1), ("other", -0.05)):
            yield _row(rng, run_id, model, "balanced-vqa", data, "val", "balanced-accuracy",
                       f"vqa_accuracy/answer_type={at}", min(1.0, max(0.0, base + shift)), train=f"{train}/train")
        if data == _B:
            both = 0.1 + 0.3 * rng.random()
            yield _row(rng, run_id, model, "balanced-vqa", data, "val", "pairs", "pair/both_correct", both, 100,
                       train=f"{train}/train")
            same = 0.3 + 0.3 * rng.random()
            yield _row(rng, run_id, model, "balanced-vqa", data, "val", "pairs", "pair/identical", same, 100,
                       train=f"{train}/train", higher_is_better=False)
            yield _row(rng, run_id, model, "balanced-vqa", data, "val", "pairs", "pair/different", 1 - same, 100,
                       train=f"{train}/train")


def _decoys(rng: random.Random, run_id: str, model: str) -> Iterator[dict]:
    uses_image = model.endswith(("ia", "iqa"))
    for i, dset in enumerate(_DECOY_SETS):
        shortcut = 0.55 - 0.1 * i if not uses_image else 0.45
        value = max(0.15, min(0.95, shortcut + 0.1 * rng.random()))
        yield _row(rng, run_id, model, "decoys", "toy-mc", "test", "decoys", "mc_accuracy", value, 500, variant=dset)
        if model == "mlp-iqa":  # the generic ablation: the same model with the image blanked
            yield _row(rng, run_id, model, "decoys", "toy-mc", "test", "decoys", "mc_accuracy/QA",
                       value * 0.8, 500, variant=dset)
        yield _row(rng, run_id, model, "decoys", "toy-mc", "test", "decoys", "random_accuracy", 1 / (4 + 3 * (i > 0)),
                   500, variant=dset, ci=False)


def _counterfactual(rng: random.Random, run_id: str, model: str) -> Iterator[dict]:
    for kind in _KINDS:
        acc = 0.5 + 0.2 * rng.random()
        cf = acc * (0.6 + 0.35 * rng.random())
        yield _row(rng, run_id, model, "counterfactual", _U, "val", "counterfactual", "applicable", 40, 200,
                   variant=kind, unit="count", ci=False)
        yield _row(rng, run_id, model, "counterfactual", _U, "val", "counterfactual", "acc_q", acc, 40, variant=kind)
        yield _row(rng, run_id, model, "counterfactual", _U, "val", "counterfactual", "acc_q_cf", cf, 40, variant=kind)
        yield _row(rng, run_id, model, "counterfactual", _U, "val", "counterfactual", "acc_reduction",
                   (acc - cf) / acc, 40, variant=kind, higher_is_better=False)
        yield _row(rng, run_id, model, "counterfactual", _U, "val", "counterfactual", "answer_change_rate",
                   0.1 + 0.5 * rng.random(), 40, variant=kind)
        for concept in _CONCEPTS:  # global rules: more than the 3 + 3 the index shows per kind
            yield _row(rng, run_id, model, "counterfactual", _U, "val", "counterfactual",
                       f"unchanged/concept={concept}", rng.random(), 12, variant=kind)


def _evil(rng: random.Random, run_id: str, model: str) -> Iterator[dict]:
    for dataset, split in (("e-snli-ve", "test"), ("vqa-x", "test")):
        s_t = 0.5 + 0.3 * rng.random()
        yield _row(rng, run_id, model, "e-vil", dataset, split, "nle", "s_t", s_t, 300)
        for metric in ("bleu4", "meteor", "rouge_l", "cider", "bertscore_f1", "e_vil_score_no_spice"):
            s_e = 0.2 + 0.6 * rng.random()
            yield _row(rng, run_id, model, "e-vil", dataset, split, "nle", f"s_e/{metric}", s_e, 150, unit="score")
            yield _row(rng, run_id, model, "e-vil", dataset, split, "nle", f"s_o/{metric}", s_t * s_e, 300,
                       unit="score")


SUITES = {
    "image-ablation": (tuple(ABLATION_MODELS), ablation_rows),
    "balanced-vqa": (("prior", "qonly", "cnn-lstm"), _balanced),
    "decoys": (("mlp-a", "mlp-qa", "mlp-ia", "mlp-iqa"), _decoys),
    "counterfactual": (("qonly", "cnn-lstm"), _counterfactual),
    "e-vil": (("explainer-template", "explainer-retrieval"), _evil),
}


def _report(run_id: str, model: str, suite: str, with_failure: bool) -> str:
    text = (f"# Run {run_id}\n\n- model: `{model}` (sample)\n- {SAMPLE_NOTE}\n\n## Metrics not computed\n\n"
            f"- toy/val: `s_e/spice` — SPICE needs Stanford CoreNLP models (unavailable offline)\n")
    text += f"\n## Probes skipped\n\n- toy/val [{suite}]: `nle` — model '{model}' lacks explain\n"
    if with_failure:
        text += ("\n## Probe failures\n\n- toy/val: probe `decoys` (plugin vqa_harness_plugins.probes.decoys): "
                 "ValueError: sample failure for the report page\n")
    return text + "\n## Details\n\n### toy/val — sample\n\n| question | answer |\n|---|---|\n| what color? | red |\n"


def _tags(row: dict) -> dict[str, str]:
    """The row tags the built-in probes attach at run time (see each probe's `run`)."""
    from vqa_harness_plugins.probes.balanced.tables import cell_name, trained_condition
    from vqa_harness_plugins.probes.decoys.probe import _base_dataset
    from vqa_harness_plugins.probes.e_vil.tables import task_label

    probe = row["probe"]
    if probe == "balanced-accuracy":
        return {"condition": cell_name(row["train"], row["dataset"])}
    if probe in ("pairs", "counter-examples"):
        return {"trained": trained_condition(row["train"])}
    if probe in ("decoys", "decoy-audit"):
        return {"base": _base_dataset(row["dataset"])}
    if probe == "nle":
        return {"task": task_label(row["dataset"], row["split"])}
    return {}


def _write_tables(path: Path, rows: list[dict]) -> None:
    """tables.json as a run writes it: the probes' layouts, displays and the rows' tags."""
    from harness.host import get_host
    from harness.layouts import RowTags
    from harness.rundir import RunDir

    probes = get_host().probes
    layouts = {r["probe"]: list(probes[r["probe"]].layouts()) for r in rows if r["probe"] in probes}
    tags = {}
    for r in rows:
        found = _tags(r)
        if found:
            tag = RowTags(r["probe"], r["dataset"], r["split"], r["train"], found)
            tags[tag.key()] = tag
    headlines = {p: [list(h) for h in probes[p].headline] for p in layouts}
    displays = {p: probes[p].display() for p in layouts}
    RunDir(path).write_tables(layouts, list(tags.values()), headlines, displays)


def write_sample_runs(folder: Path, *, seed: int = 0, suites: tuple[str, ...] = tuple(SUITES)) -> list[Path]:
    """One run folder per (suite, model) under `folder`, deterministic for a seed."""
    folder = Path(folder)
    written = []
    for suite in suites:
        models, rows_of = SUITES[suite]
        for model in models:
            run_id = f"20250101-000000-{model}-{suite}"
            rng = random.Random(f"{seed}/{suite}/{model}")
            path = folder / run_id
            rows = list(rows_of(rng, run_id, model))
            write_jsonl(path / "results.jsonl", rows)
            _write_tables(path, rows)
            atomic_write_json(path / "manifest.json", {
                "run_id": run_id, "model": model, "model_plugin": "sample", "suite": suite, "seed": seed,
                "device": "cpu", "status": "complete", "versions": {"vqa-harness": "sample"},
                "resources": {"note": SAMPLE_NOTE}, "argv": ["sample", "--out", f"/a/long/path/{'x' * 60}"],
                # A full 40-character hash, unbreakable: the run page must wrap it, not scroll.
                "git_commit": "0123456789abcdef0123456789abcdef01234567",
            })
            failing = suite == "decoys" and model == "mlp-a"
            (path / "report.md").write_text(_report(run_id, model, suite, failing), encoding="utf-8")
            if suite == "image-ablation":
                write_ablation_files(path, model, folder / "sample-images")
            if suite == "counterfactual":
                art = path / "artifacts" / "counterfactual"
                write_jsonl(art / "local_explanations-toyvqa-val.jsonl", [
                    {"example_id": "q1", "kind": "color_max_common", "question": "is the ball red?", "answer": "yes",
                     "counterfactual": "is the ball cyan?", "cf_answer": "yes", "answer_changed": False},
                    {"example_id": "q2", "kind": "hypernym_noun", "question": "what color is the cube?",
                     "answer": "red", "counterfactual": "what color is the solid?", "cf_answer": "blue",
                     "answer_changed": True},
                ])
            written.append(path)
    return written


if __name__ == "__main__":  # pragma: no cover - manual preview: python tests/leaderboard/helpers_samples.py DIR
    import sys

    for p in write_sample_runs(Path(sys.argv[1] if len(sys.argv) > 1 else "sample-runs")):
        print(p)
