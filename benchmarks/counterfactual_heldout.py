"""Coverage per kind on each half of VQA-X val, and the blind judging sheets (issue 24).

    python benchmarks/counterfactual_heldout.py [--half tune|heldout|both|test|test-all]
        [--data-dir ../shared/data] [--test-file vqaX_test.json] [--sheets DIR] [--sample-seed 2424]
        [--rows 20] [--seed 0] [--exclude-ids FILE] [--kinds K,K]

The halves are benchmarks/cf_split.py's (by a hash of the question text). Per half and
kind: coverage of the quality mode (questions with a counterfactual of the kind, over the
half's questions) and, for reference, of the paper mode. The quality mode reads each
question's 10 human answers as sense context, as the probe does.

`--sheets DIR` writes, per half, a judging sheet and its key (the protocol of
docs/counterfactual.md, "Held-out judgement"): for each kind, `--rows` quality-mode rows
drawn with `--sample-seed` from the half's distinct question texts that have a
counterfactual of the kind (all of them when fewer); shuffled across kinds and numbered.
Each row shows the original question, the counterfactual and the relation the kind claims,
in plain words; the kind and the mode are only in the key (`DIR/key-<half>.json`), which
the judge does not see. Sheets go outside the repository (generated output).
`--exclude-ids FILE` (a JSON list of example ids, e.g. the rows an earlier round's judge saw)
leaves out every question text one of those examples has, so a new sample is fresh (an id
found neither in VQA-X val nor in the test file is an error, not skipped); a kind
with fewer fresh texts than `--rows` (the colours, adjectives) is topped up with the excluded
ones, marked `judged_before` in the key. Coverage is still over the whole half. `--kinds`
limits the sheets to some kinds (a round that changed only those).

`--half test --test-file vqaX_test.json` (eighth round) does the same on VQA-X test's questions
that no rule writer read (benchmarks/cf_split.py, `load_test`): coverage, skip reasons and a
sheet drawn from its distinct question texts; `--half test-all`: coverage on the whole file,
the population of the issue's own coverage figures. The same `--half test` reads VQA v2 val
questions made into that layout by benchmarks/vqa2_questions.py (twelfth round on).
"""

from __future__ import annotations

import argparse
import json
import os
import random
from pathlib import Path

from cf_split import DATA, HALVES, load_half, load_test, question_key  # noqa: E402  (benchmarks/ is on sys.path)

from vqa_harness_plugins.generators.counterfactual import (
    KINDS,
    Perturbation,
    Perturber,
    colors_in,
    perturb_many,
)

#: What each kind claims, as the judge reads it next to the row.
CLAIMS = {
    "color_max_common": "a colour word is replaced by a very different colour, one that this dataset's questions "
                        "or answers use",
    "color_max_uncommon": "a colour word is replaced by a very different colour (any named colour)",
    "color_min_common": "a colour word is replaced by a similar but different colour, one that this dataset's "
                        "questions or answers use",
    "color_min_uncommon": "a colour word is replaced by a similar but different colour (any named colour)",
    "synonym_adj": "an adjective is replaced by a word that means the same in this question",
    "synonym_verb": "a verb is replaced by a word that means the same in this question",
    "hypernym_noun": "a noun is replaced by a more general term for it (what it is a kind of)",
    "hyponym_noun": "a noun is replaced by a more specific term (a kind of it)",
    "sibling_noun": "a noun is replaced by another thing of the same category (not the same thing, not more "
                    "general or more specific)",
    "deletion_noun": "a noun is removed, together with the words that belong to it; the rest is still a question",
}
CRITERIA = """A row reads sensibly when all of these hold:
1. the new question is a grammatical, natural question a person could ask about a photo;
2. every word in it is a common word, and the changed word is read in the sense the original question uses;
3. the relation stated for the row holds between the original and the new word (or, for a removal, the new
   question is the original without that noun and the words that belong to it)."""


def run_half(data_dir: Path, half: str, seed: int,
             test_file: Path | None = None) -> dict[str, tuple[list[str], list[str], dict, list[dict]]]:
    """mode -> (ids, questions, counts per kind, results per question) on one half (or the
    test source)."""
    if half in ("test", "test-all"):
        ids, questions, answers, left_out = load_test(test_file, data_dir, fresh=half == "test")
        print(f"test: {len(ids)} questions of {test_file}; left out: "
              + ", ".join(f"{why} {n}" for why, n in left_out.items()))
        # the common colors come from the whole file, as the probe takes them from its task
        _, all_q, all_a, _ = load_test(test_file, data_dir, fresh=False)
    else:
        ids, questions, answers = load_half(data_dir, half)
        # the common colors come from the whole file, as the probe takes them from its task
        _, all_q, all_a = load_half(data_dir, "all")
    common = colors_in(all_q + [a for row in all_a for a in row])
    out = {}
    for mode in ("paper", "quality"):
        perturber = Perturber(common_colors=common, seed=seed, mode=mode)
        results, counts, _ = perturb_many(perturber, questions, answers if mode == "quality" else None)
        out[mode] = (ids, questions, counts, results)
    return out


def coverage_table(half: str, runs: dict) -> None:
    """Print coverage per kind (quality and paper) for one half."""
    n = len(runs["quality"][0])
    print(f"\n{half} half: {n} questions")
    print("| kind | coverage quality | coverage paper |")
    print("|---|---|---|")
    for kind in KINDS:
        cells = []
        for mode in ("quality", "paper"):
            applied = runs[mode][2][kind.id]["applied"]
            cells.append(f"{applied} ({100 * applied / n:.1f}%)")
        print(f"| {kind.id} | " + " | ".join(cells) + " |")


def excluded_texts(path: Path | None, data_dir: Path, test_file: Path | None = None) -> frozenset[str]:
    """The question texts (question_key) of the example ids listed in `path` (a JSON list),
    looked up in VQA-X val and, when given, the test file."""
    if path is None:
        return frozenset()
    try:
        wanted = set(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError) as exc:
        raise SystemExit(f"{path}: cannot read the ids to exclude ({exc})") from None
    ids, questions, _ = load_half(data_dir, "all")
    if test_file is not None:
        test_ids, test_questions, _, _ = load_test(test_file, data_dir, fresh=False)
        ids, questions = ids + test_ids, questions + test_questions
    unknown = sorted(map(str, wanted - set(ids)))
    if unknown:  # a mistyped id would let a text judged before be drawn again as fresh
        where = "VQA-X val or the test file" if test_file is not None else "VQA-X val (a test id needs --test-file)"
        raise SystemExit(f"{path}: {len(unknown)} of its {len(wanted)} ids not in {where}: "
                         + ", ".join(unknown[:5]) + (", ..." if len(unknown) > 5 else ""))
    return frozenset(question_key(q) for i, q in zip(ids, questions) if i in wanted)


def write_sheet(half: str, runs: dict, folder: Path, sample_seed: int, per_kind: int,
                exclude: frozenset[str] = frozenset(), kinds: frozenset[str] = frozenset()) -> None:
    """The judging sheet and its key for one half (module docstring); question texts in
    `exclude` are drawn only to top up a kind with fewer fresh texts than rows; `kinds` (ids)
    limits the sheet to those kinds (empty: every kind)."""
    ids, questions, _, results = runs["quality"]
    rng = random.Random(f"{sample_seed}:{half}")
    picked = []
    for kind in KINDS:
        if kinds and kind.id not in kinds:
            continue
        by_text: dict[str, tuple[str, Perturbation]] = {}
        for ex_id, q, res in zip(ids, questions, results):
            value = res[kind.id]
            if isinstance(value, Perturbation):
                by_text.setdefault(question_key(q), (ex_id, value))
        fresh = sorted(t for t in by_text if t not in exclude)
        seen = sorted(t for t in by_text if t in exclude)
        chosen = rng.sample(fresh, min(per_kind, len(fresh)))
        # a kind with fewer fresh texts than rows (colours, adjectives) is topped up with judged ones
        chosen += rng.sample(seen, min(per_kind - len(chosen), len(seen)))
        for text in chosen:
            picked.append((kind.id, *by_text[text], text in exclude))
        if exclude:
            print(f"  {half} {kind.id}: {len(fresh)} fresh texts, {len(seen)} judged before; "
                  f"sheet rows {len(chosen)} ({sum(t in exclude for t in chosen)} judged before)")
    rng.shuffle(picked)
    folder.mkdir(parents=True, exist_ok=True)
    title = "VQA-X test" if half == "test" else f"VQA-X val, {half} half"
    lines = [f"# Judging sheet: {title} ({len(picked)} rows)", "", CRITERIA, "",
             "Mark each row `yes` (reads sensibly) or `no`, with a short note for a `no`.", "",
             "| row | original question | new question | what the change claims | sensible | note |",
             "|---|---|---|---|---|---|"]
    key = {}
    for n, (kind_id, ex_id, pert, before) in enumerate(picked, 1):
        lines.append(f"| {n:03d} | {pert.question} | {pert.counterfactual} | {CLAIMS[kind_id]} |  |  |")
        key[f"{n:03d}"] = {"kind": kind_id, "mode": "quality", "example_id": ex_id, "half": half,
                           "replaced": pert.replaced, "replacement": pert.replacement, "detail": pert.detail,
                           "judged_before": before}
    (folder / f"sheet-{half}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (folder / f"key-{half}.json").write_text(json.dumps(key, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{half}: {len(picked)} rows -> {folder / f'sheet-{half}.md'} (key: {folder / f'key-{half}.json'})")


def main() -> None:
    """Coverage per half; optionally the judging sheets."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=DATA)
    parser.add_argument("--half", choices=(*HALVES, "both", "test", "test-all"), default="both")
    parser.add_argument("--test-file", type=Path, default=None,
                        help="vqaX_test.json, for --half test (not in ../shared/data: docs/counterfactual.md)")
    parser.add_argument("--sheets", type=Path, default=None, help="folder for the sheets (outside the repository)")
    parser.add_argument("--sample-seed", type=int, default=2424)
    parser.add_argument("--rows", type=int, default=20, help="rows per kind on a sheet")
    parser.add_argument("--seed", type=int, default=0, help="the generator's seed")
    parser.add_argument("--reasons", action="store_true", help="also the quality mode's skip reasons per kind")
    parser.add_argument("--kinds", default="", help="comma-separated kind ids for the sheets (default: every kind)")
    parser.add_argument("--exclude-ids", type=Path, default=None,
                        help="JSON list of example ids whose question texts no sheet may draw (held-out half, test)")
    args = parser.parse_args()
    kinds = frozenset(k.strip() for k in args.kinds.split(",") if k.strip())
    unknown = sorted(kinds - {kind.id for kind in KINDS})
    if unknown:
        parser.error(f"--kinds: unknown kind(s) {', '.join(unknown)}; kinds: {', '.join(k.id for k in KINDS)}")
    if args.half.startswith("test") != (args.test_file is not None):
        parser.error("--half test / test-all and --test-file go together")
    exclude = excluded_texts(args.exclude_ids, args.data_dir, args.test_file)
    print(f"uptime: {os.popen('uptime').read().strip()}")
    for half in (HALVES if args.half == "both" else (args.half,)):
        runs = run_half(args.data_dir, half, args.seed, args.test_file)
        coverage_table(half, runs)
        if args.reasons:
            for kind in KINDS:
                counts = runs["quality"][2][kind.id]
                print(f"  {kind.id} skipped: " + ", ".join(f"{r} {n}" for r, n in sorted(counts.items())
                                                         if r != "applied"))
        if args.sheets:
            held = exclude if half in ("heldout", "test") else frozenset()
            write_sheet(half, runs, args.sheets, args.sample_seed, args.rows, held, kinds)


if __name__ == "__main__":
    main()
