"""Measure the counterfactual generator's two modes on real questions (issue 16).

    python benchmarks/counterfactual_quality.py [--data-dir ../shared/data] [--sample FILE] [--seed 0]

On the 1,459 VQA v2 questions of VQA-X val (the quality mode reads each question's 10
human answers as sense context), per kind and mode:

- coverage (questions with a counterfactual);
- the share of replacements with a word below the frequency floor (wordfreq Zipf 3.0);
- the share of inflected replacements (plural nouns, verb forms) whose surface form
  differs from lemminflect's, or that lemminflect does not know (quality verbs: for the tag
  the quality mode uses after its verb-form check, fit.verb_tag);
- rows that are not valid for their kind in WordNet / the color space
  (vqa_harness_plugins.generators.counterfactual.validity; expected: 0);
- word senses: how often the context changes the sense on VQA-X (their accuracy on the tune
  half's hand-labelled senses: benchmarks/counterfactual_senses.py);
- `--sample FILE`: a blind sample for judging by hand: per kind 20 quality rows and 10
  paper rows, shuffled together, without their mode (the key is written to FILE.key.json).
"""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter, defaultdict
from pathlib import Path

from vqa_harness_plugins.generators.counterfactual import (
    KINDS,
    Perturbation,
    Perturber,
    colors_in,
    perturb_many,
    tokenize,
)
from vqa_harness_plugins.generators.counterfactual.fit import verb_tag
from vqa_harness_plugins.generators.counterfactual.quality import FREQUENCY_FLOOR
from vqa_harness_plugins.generators.counterfactual.validity import invalid_reason
from vqa_harness_plugins.nlp import pos_tag, word_stats

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
INFLECTED = ("NNS", "VBZ", "VBD", "VBN", "VBG")


def run_modes(data_dir: Path, seed: int):
    """Rows and counts of both modes: mode -> (list of (example id, kind, Perturbation), counts)."""
    data = json.loads((data_dir / "vqax" / "vqaX_val.json").read_text(encoding="utf-8"))
    ids = list(data)
    questions = [data[i]["question"] for i in ids]
    answers = [tuple(a["answer"] for a in data[i]["answers"]) for i in ids]
    common = colors_in(questions + [a for row in answers for a in row])
    out = {}
    for mode in ("paper", "quality"):
        p = Perturber(common_colors=common, seed=seed, mode=mode)
        results, counts, rejected = perturb_many(p, questions, answers if mode == "quality" else None)
        rows = [(ids[n], k, r[k.id]) for n, r in enumerate(results) for k in KINDS
                if isinstance(r[k.id], Perturbation)]
        out[mode] = (p, rows, counts, rejected, len(questions))
    return out


def surface_checks(p, rows):
    """Per kind: [replacements, below floor, inflected, differing from lemminflect, invalid]."""
    stats = word_stats()
    table: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0])
    examples: dict[str, list[str]] = defaultdict(list)
    for _, kind, pert in rows:
        tokens = tokenize(pert.question)
        colors = frozenset(t.text.lower() for t in tokens if t.text.lower() in p.colors.colors)
        pool = p.pools[kind.pool] if kind.pool else ()
        t = table[kind.id]
        if invalid_reason(pert, kind, p.mode, p.wn, pool, p.colors, colors):
            t[4] += 1
        if kind.relation in ("color", "delete"):
            continue
        t[0] += 1
        words = pert.replacement.lower().split()
        if any(stats.zipf(w) < FREQUENCY_FLOOR for w in words):
            t[1] += 1
        tags = [g for _, g in pos_tag([x.text for x in tokens])]
        n_words = len(pert.replaced.split())
        tag = tags[pert.position + n_words - 1] if kind.pos == "n" else tags[pert.position]
        if p.mode == "quality" and kind.pos == "v":  # the tag after the quality mode's verb-form check
            tag = verb_tag(stats, tokens[pert.position].text, pert.source.split("_")[0], tag, tokens, tags,
                           pert.position) or tag
        if tag not in INFLECTED:
            continue
        t[2] += 1
        target = pert.target.lower().split("_")
        head = target[-1] if kind.pos == "n" else target[0]
        surface = words[-1] if kind.pos == "n" else words[0]
        if stats.inflect(head, tag) != surface:
            t[3] += 1
            if len(examples[kind.id]) < 3:
                examples[kind.id].append(f"{pert.replaced} -> {pert.replacement} (lemminflect: "
                                         f"{stats.inflect(head, tag)})")
    return table, examples


def sense_changes(p, rows) -> tuple[Counter, Counter, list[str]]:
    """Per kind: substitutions, those whose sense is not the most frequent one; examples."""
    total, changed, shown = Counter(), Counter(), []
    for _, kind, pert in rows:
        if kind.relation in ("color", "delete"):
            continue
        total[kind.id] += 1
        senses = p.quality.lex.senses(pert.source, kind.pos)
        first = p.quality.senses.candidates(pert.source, senses)[0] if senses else None
        source = pert.detail.split(" -> ")[0]
        if first is not None and p.wn.name(first) != source:
            changed[kind.id] += 1
            shown.append(f"{kind.id}: {pert.question} | {pert.source}: {p.wn.name(first)} -> {source} "
                         f"({p.wn.definition(p.wn.synset(source))[:60]}) | {pert.counterfactual}")
    return total, changed, shown


def blind_sample(modes, path: Path, seed: int) -> None:
    """20 quality + 10 paper rows per kind, shuffled, mode hidden; the key beside it."""
    rng = random.Random(seed)
    lines, key = [], {}
    for kind in KINDS:
        picked = []
        for mode, n in (("quality", 20), ("paper", 10)):
            rows = [r for r in modes[mode][1] if r[1].id == kind.id]
            picked += [(mode, r) for r in rng.sample(rows, min(n, len(rows)))]
        rng.shuffle(picked)
        for j, (mode, (ex_id, _, pert)) in enumerate(picked):
            ident = f"{kind.id}#{j:02d}"
            key[ident] = {"mode": mode, "example_id": ex_id}
            lines.append(f"{ident}\t{pert.question}\t{pert.counterfactual}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    path.with_suffix(path.suffix + ".key.json").write_text(json.dumps(key, indent=1), encoding="utf-8")
    print(f"blind sample: {len(lines)} rows in {path} (key: {path}.key.json)")


def main() -> None:
    """Print every measurement; optionally write the blind sample."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=DATA)
    parser.add_argument("--sample", type=Path, default=None)
    parser.add_argument("--seed", type=int, default=0, help="the generator's seed")
    parser.add_argument("--sample-seed", type=int, default=2026, help="seed of the blind sample")
    args = parser.parse_args()
    modes = run_modes(args.data_dir, args.seed)
    total = modes["paper"][4]
    print(f"VQA-X val: {total} questions, seed {args.seed}")
    checks = {m: surface_checks(modes[m][0], modes[m][1]) for m in modes}
    print("| kind | coverage paper | coverage quality | below floor paper | below floor quality | "
          "inflections != lemminflect paper | quality | invalid paper | quality |")
    print("|---|---|---|---|---|---|---|---|---|")
    for kind in KINDS:
        cells = [kind.id]
        for m in ("paper", "quality"):
            n = modes[m][2][kind.id]["applied"]
            cells.append(f"{n} ({100 * n / total:.1f}%)")
        for idx in ((0, 1), (2, 3)):
            for m in ("paper", "quality"):
                t = checks[m][0][kind.id]
                cells.append("-" if not t[idx[0]] else f"{t[idx[1]]}/{t[idx[0]]} ({100 * t[idx[1]] / t[idx[0]]:.1f}%)")
        cells += [str(checks[m][0][kind.id][4]) for m in ("paper", "quality")]
        print("| " + " | ".join(cells) + " |")
    for m in ("paper", "quality"):
        for kind_id, shown in checks[m][1].items():
            print(f"{m} {kind_id} inflections differing from lemminflect, e.g.: {'; '.join(shown)}")
    print("rejected candidates (quality), by reason:")
    for kind in KINDS:
        print(f"  {kind.id}: {dict(sorted(modes['quality'][3][kind.id].items()))}")
    subst, changed, shown = sense_changes(modes["quality"][0], modes["quality"][1])
    print("quality substitutions whose sense is not the most frequent one (context changed it):")
    for kind_id in subst:
        print(f"  {kind_id}: {changed[kind_id]}/{subst[kind_id]}")
    for line in shown:
        print("   ", line)
    if args.sample:
        blind_sample(modes, args.sample, args.sample_seed)


if __name__ == "__main__":
    main()
