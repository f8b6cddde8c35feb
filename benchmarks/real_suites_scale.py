"""One real-data suite per paper at the official full sizes, with a fast model: time and memory.

    python benchmarks/real_suites_scale.py [--scale 1.0] [--only goyal,chao,kayser,stoikou]
                                           [--chao-suite decoys-visual7w|decoys-vqa2] [--keep DIR]

Generates synthetic files in the official formats (no images; sizes are the official
ones times `--scale`), then runs each suite in a fresh process with its own empty cache
and prints wall seconds, CPU seconds (user + system of the process and the processes it
waited for), peak resident memory, the number of model calls and of result rows, and the
machine's load (`uptime`) before and after:

- Goyal: `--suite goyal` with `predictions:path=answers.json,trained_on=vqa2` (answers read
  from an official results file; a pretrained model, so no train files are needed and the
  cells BU and BB are filled; UB and BB differ only in training data and run once).
  VQA v1 val (121,512 questions, with the MultipleChoice file's 18 choices, which the docs
  ask users to download although `goyal` does not read them) and VQA v2 val (214,354
  questions: the v1 val questions under the same ids, plus 92,842 complementary questions,
  each paired with one v1 question: same text, another image, another answer). One results
  file covers both, since the v1 ids are v2 ids.
- Chao: `--suite decoys-visual7w` (default): Chao Table 3 is on Visual7W, the suite users
  run for the paper. The telling file holds 139,868 QA pairs (train 69,817, val 28,020, test
  42,031); no released decoy file, so the decoys are generated — for test (the scored split)
  and for train too, where the Eq. 2 audit counts its answer frequencies (train is in the
  same file). `--chao-suite decoys-vqa2` runs VQA v2 val instead (generated decoys on 214,354
  questions; no train file, so the audit counts on val).
- Kayser: `--suite e-vil` with `predictions:path=answers.jsonl` (answer + explanation per
  example id): e-SNLI-VE test 17,901 rows, VQA-X test 1,968, VCR val 26,534; only the test
  files (a pretrained model needs no train file). The NLG metrics dominate: METEOR (one Java
  process) and BERTScore (MiniLM on the CPU) over the correctly answered examples.
- Stoikou: `--suite counterfactual-vqa2` on VQA v2 val (214,354 questions). The `predictions`
  model cannot answer changed questions, so a model registered inline answers (below).
  Generating the perturbations dominates.

Chao and Stoikou need a model that answers any question / scores any candidate list, and
no built-in model is both fast and free of training data: `hash-answer` (defined here)
answers with a word of the question's form (yes/no, a number, a color, else a common
answer) picked by a CRC32 of the question, and scores each candidate by a CRC32 of question
and candidate — constant time per call, and unlike a constant answer its answer changes
when the question changes. It is registered through `harness.testing` in a
child process (`python -c "import real_suites_scale as m; m.child(SUITE, DATA, OUT)"`) that
runs the suite as `harness run` would (`vqa_harness_cli.launch.run_models`), measured like the CLI runs.

The texts are synthetic but shaped like the real ones: VQA questions from templates with
the official question-type prefixes over common COCO objects plus a tail of 3,631 concrete
WordNet nouns (so the counterfactual generator keeps meeting new words, as on real data),
colors, adjectives and verbs; 10 human answers each (about 75% agreement); Visual7W answers
as the release writes them ("On the table."), 3 human decoys of the same kind; e-SNLI-VE
hypotheses and explanations as short English sentences; VCR token lists with object
references. The predicted explanations are the reference with about a third of its words
changed. The harness's own readers check every file (a file they reject fails the run).
About half of the VQA v2 question texts are distinct and 70-85% of the Visual7W ones (the
script prints the shares; Visual7W images hold 2-4 questions of distinct types): the QoU
decoy search grows with the square of the distinct texts, so these shares matter.

After each run the script prints the run's per-probe seconds (manifest `timings`) and, for
the decoy suites, the generator's statistics per generated split (IoU / QoU / fill-in
seconds, short sets), read from the run's cache.

Develop with a small `--scale` (e.g. 0.01); the full sizes take a while (see docs/real-data.md).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
import time
import zlib
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # the sibling benchmark modules below

from balanced_vqa_load import N_QUESTIONS  # noqa: E402
from decoys_generate import COLORS, OBJECTS  # noqa: E402
from harness_proc import Measured, run_python, uptime  # noqa: E402
from synthetic_evil import write_esnlive, write_evil_answers, write_vcr, write_vqax  # noqa: E402
from synthetic_vqa import (  # noqa: E402
    DOINGS,
    NUMBERS,
    POPULAR,
    Vocab,
    write_visual7w,
    write_vqa,
    write_vqa_results,
)

from harness.api import Model  # noqa: E402
from harness.hookspecs import hookimpl  # noqa: E402
from harness.run import RunConfig  # noqa: E402
from harness.testing import make_host, use_host  # noqa: E402
from vqa_harness_cli.launch import run_models  # noqa: E402

#: Official sizes.
V1_VAL, V2_VAL = 121_512, N_QUESTIONS  # VQA v1 val, VQA v2 val (214,354)
V7W_SPLITS = {"train": 69_817, "val": 28_020, "test": 42_031}  # Visual7W telling: 139,868 QA pairs
ESNLIVE_TEST, VQAX_TEST, VCR_VAL = 17_901, 1_968, 26_534
PAPERS = ("goyal", "chao", "kayser", "stoikou")

ANSWERS = tuple(dict.fromkeys((*POPULAR, *COLORS, *NUMBERS[:6], *DOINGS[:6], *OBJECTS[:20])))


YES_NO = ("is", "are", "does", "do", "can", "was", "has", "could", "will")


class HashAnswer(Model):
    """A fast stand-in for a pretrained model: constant time per call, no training data.
    Its answer fits the question's form (yes/no, a number, a color, else a common answer)
    and is picked by a CRC32 of the question, so it changes when the question changes."""

    name = "hash-answer"
    description = "answers of the question's form picked by a CRC32 of the question; scores candidates by CRC32"

    def answer(self, batch):
        out = []
        for ex in batch:
            q = ex.question.lower()
            h = zlib.crc32(q.encode())
            pool = (("yes", "no") if q.split(" ", 1)[0] in YES_NO else NUMBERS[:6] if q.startswith("how many")
                    else COLORS if q.startswith("what color") else ANSWERS)
            out.append(pool[h % len(pool)])
        return out

    def score_choices(self, batch):
        return [[zlib.crc32(f"{ex.question}\n{c}".encode()) % 1000 / 1000 for c in ex.choices] for ex in batch]


def child(suite: str, data: str | Path, out: str | Path) -> int:
    """Run `hash-answer` through `suite` as `harness run --no-leaderboard` would (the body of
    the measured child process)."""

    class Plugin:
        @hookimpl
        def register_models(self, register):
            register(HashAnswer)

    host = make_host(Plugin(), builtins=True, names=["real-suites-scale"])
    with use_host(host):
        base = RunConfig(model="", suite=suite, data_dir=Path(data), device="cpu", out=Path(out), progress=False,
                         argv=tuple(sys.argv))
        code = run_models(["hash-answer"], base, host, leaderboard=None, echo=print,
                          warn=lambda text: print(text, file=sys.stderr), jobs=1)
    return int(code)


# ------------------------------------------------------------------------------ measuring
_SUMMARY = re.compile(r"(\d+) result rows -> .*\(model calls (\d+)")
_NOTES = ("  skipped", "  probe ", "warning", "error", "example(s) failed", "Traceback")


def measure(paper: str, suite: str, model: str, root: Path, data: Path) -> dict[str, Any]:
    """Run one suite in a fresh process with an empty cache; print and return the figures."""
    cache, out = root / f"cache-{paper}", root / f"runs-{paper}"
    if model == HashAnswer.name:
        # Imported by name (not run as __main__): the harness digests the model's module source.
        code = (f"import sys; sys.path.insert(0, {str(HERE)!r}); import real_suites_scale as m; "
                f"sys.exit(m.child({suite!r}, {str(data)!r}, {str(out)!r}))")
        args = ["-c", code]
        shown = (f"python -c 'import real_suites_scale as m; m.child({suite!r}, DATA, OUT)'   "
                 f"(model {model}, registered inline)")
    else:
        args = ["-m", "vqa_harness_cli", "run", "--model", model, "--suite", suite, "--data-dir", str(data),
                "--out", str(out), "--no-leaderboard"]
        shown = (f"harness run --model {model.replace(str(root), 'ROOT')} --suite {suite} --data-dir DATA "
                 "--no-leaderboard")
    print(f"\n[{paper}] {shown}\n  load before: {uptime()}", flush=True)
    m: Measured = run_python(args, root, cache, check=False)
    found = _SUMMARY.search(m.output)
    rows, calls = (int(found.group(1)), int(found.group(2))) if found else (None, None)
    for line in m.output.splitlines():
        if line.startswith(_NOTES) or any(n in line for n in _NOTES[2:]):
            print(f"  | {line[:300]}")
    if found is None or m.code not in (0, 1):
        print("  output tail:\n" + "\n".join(f"  | {x}" for x in m.output.splitlines()[-25:]))
    if "have no decoys for" in m.output:
        print("  note: no question of a split got a decoy (the generator statistics are below)")
    print(f"  {m.wall:8.1f} s wall, {m.cpu:8.1f} s CPU, peak {m.peak_mb:7.0f} MB, model calls {calls}, "
          f"result rows {rows}, exit code {m.code}")
    print_stages(out, cache)
    print(f"  load after: {uptime()}", flush=True)
    return {"paper": paper, "suite": suite, "wall": m.wall, "cpu": m.cpu, "peak": m.peak_mb, "calls": calls,
            "rows": rows, "code": m.code}


def print_stages(out: Path, cache: Path) -> None:
    """Where the time went: the run's per-probe seconds (manifest `timings`) and, for the
    decoy suites, the generator's own statistics saved with each cached generation."""
    manifests = sorted(out.glob("*/manifest.json"), key=lambda p: p.stat().st_mtime)
    if manifests:
        try:
            timings = json.loads(manifests[-1].read_text(encoding="utf-8")).get("timings") or []
        except (OSError, ValueError):
            timings = []
        for t in timings:
            if t.get("seconds", 0) >= 0.05:
                what = f"{t['task']} / {t['probe']}" if "probe" in t else f"fit {t.get('fit')}"
                print(f"    {t['seconds']:8.1f} s  {what}"
                      + (f"  (model {t['model_seconds']:.1f} s)" if t.get("model_seconds") else ""))
    for f in sorted((cache / "decoys").glob("*.json"), key=lambda p: p.stat().st_mtime):
        try:
            st = json.loads(f.read_text(encoding="utf-8"))["stats"]
        except (OSError, ValueError, KeyError):
            continue
        sec = st.get("seconds", {})
        print(f"    decoy generation: {st.get('questions', 0):,} questions ({st.get('unique_questions', 0):,} distinct "
              f"texts): IoU {sec.get('iou', 0):.1f} s, QoU {sec.get('qou', 0):.1f} s, "
              f"fill-ins {sec.get('fill', 0):.1f} s; "
              f"IoU decoys short {st.get('short_iou', 0):,}, QoU short {st.get('short_qou', 0):,}")


def sized(n: int, scale: float) -> int:
    return max(2, round(n * scale))


def timed(what: str, fn: Callable[[], Any]) -> Any:
    start = time.perf_counter()
    out = fn()
    print(f"  generated {what} in {time.perf_counter() - start:.1f} s", flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every official size (default 1.0)")
    parser.add_argument("--only", default=",".join(PAPERS), help=f"comma list of {', '.join(PAPERS)}")
    parser.add_argument("--chao-suite", choices=("decoys-visual7w", "decoys-vqa2"), default="decoys-visual7w")
    parser.add_argument("--keep", type=Path, default=None, help="write everything here and keep it")
    args = parser.parse_args(argv)
    only = [p.strip() for p in args.only.split(",") if p.strip()]
    bad = [p for p in only if p not in PAPERS]
    if bad or not 0 < args.scale <= 1.0:
        parser.error(f"--only takes {', '.join(PAPERS)}; --scale is in (0, 1]"
                     + (f" (got {', '.join(bad)})" if bad else ""))
    s = args.scale
    n_v1, n_v2 = sized(V1_VAL, s), sized(V2_VAL, s)
    v7w = {k: sized(v, s) for k, v in V7W_SPLITS.items()}
    n_snli, n_vqax, n_vcr = sized(ESNLIVE_TEST, s), sized(VQAX_TEST, s), sized(VCR_VAL, s)
    root = (args.keep or Path(tempfile.mkdtemp(prefix="real-suites-"))).resolve()
    root.mkdir(parents=True, exist_ok=True)
    data = root / "data"
    results = []
    try:
        print(f"load at start: {uptime()}")
        print(f"scale {s}: VQA v1 val {n_v1:,}, VQA v2 val {n_v2:,} questions; Visual7W telling "
              f"{sum(v7w.values()):,} QA pairs ({', '.join(f'{k} {v:,}' for k, v in v7w.items())}); e-SNLI-VE test "
              f"{n_snli:,}, VQA-X test {n_vqax:,}, VCR val {n_vcr:,}")
        vocab = Vocab()
        need_vqa = ("goyal" in only or "stoikou" in only or ("chao" in only and args.chao_suite == "decoys-vqa2"))
        if need_vqa:
            keys = timed(f"VQA v1 val + v2 val ({n_v1:,} + {n_v2 - n_v1:,} questions)",
                         lambda: write_vqa(data, n_v1, n_v2, vocab))
            if "goyal" in only:
                timed("the official results file", lambda: write_vqa_results(root / "answers.json", keys))
            del keys
        if "chao" in only and args.chao_suite == "decoys-visual7w":
            timed(f"Visual7W telling ({sum(v7w.values()):,} QA pairs)", lambda: write_visual7w(data, v7w, vocab))
        if "kayser" in only:
            timed("e-SNLI-VE, VQA-X and VCR test files",
                  lambda: (write_esnlive(data, n_snli), write_vqax(data, n_vqax, vocab), write_vcr(data, n_vcr)))
            timed("their answers and explanations (JSON lines)",
                  lambda: write_evil_answers(data, root / "answers.jsonl"))
        if "goyal" in only:
            results.append(measure("goyal", "goyal", f"predictions:path={root / 'answers.json'},trained_on=vqa2",
                                   root, data))
        if "chao" in only:
            results.append(measure("chao", args.chao_suite, HashAnswer.name, root, data))
        if "kayser" in only:
            results.append(measure("kayser", "e-vil", f"predictions:path={root / 'answers.jsonl'}", root, data))
        if "stoikou" in only:
            results.append(measure("stoikou", "counterfactual-vqa2", HashAnswer.name, root, data))
        print(f"\nsummary (scale {s}; each run a fresh process with an empty cache):")
        print(f"{'paper':8s} {'suite':20s} {'wall s':>8s} {'CPU s':>8s} {'peak MB':>8s} {'model calls':>12s} "
              f"{'rows':>6s} {'exit':>4s}")
        for r in results:
            calls = "-" if r["calls"] is None else r["calls"]
            rows = "-" if r["rows"] is None else r["rows"]
            print(f"{r['paper']:8s} {r['suite']:20s} {r['wall']:8.1f} {r['cpu']:8.1f} {r['peak']:8.0f} "
                  f"{calls:>12} {rows:>6} {r['code']:>4d}")
        print(f"load at end: {uptime()}")
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)
    return 1 if any(r["code"] not in (0, 1) or r["rows"] is None for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
