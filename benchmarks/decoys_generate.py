"""Benchmark: QoU + IoU decoys for 200,000 generated questions (target: < 5 min, < 4 GB, 2 CPU cores).

    python benchmarks/decoys_generate.py [--questions 200000] [--threads 2] [--device cpu]

Questions are Visual-Genome-like: ~14 per image from 14 templates over common English
words (so WordNet WUP works on real words), answers single words or short phrases.
Reports wall time per stage, peak resident memory (ru_maxrss) and, as in-process
baselines, the speed ratio of the memoized fast WUP against NLTK's `wup_similarity` on
the same word pairs, and the time ratio against a 10x smaller run (scaling).
"""

from __future__ import annotations

import argparse
import random
import resource
import sys
import time

from vqa_harness_plugins.generators.decoys import DecoyConfig, QARecord, generate_decoys
from vqa_harness_plugins.generators.decoys.wup import WupScorer
from vqa_harness_plugins.nlp import wordnet

OBJECTS = ("table chair car bus truck bike boat train plane dog cat horse cow sheep bird man woman boy girl child "
           "person tree grass sky cloud water building house window door wall floor road street sign pole light "
           "fence bench shirt hat jacket shoe bag umbrella plate cup bowl bottle glass pizza sandwich cake banana "
           "apple orange phone laptop book clock vase bed couch pillow lamp kite ball racket bat glove helmet "
           "skateboard surfboard snow sand rock hill mountain field beach ocean river bridge tower roof flower "
           "leaf branch trunk wheel tire mirror towel sink toilet counter shelf box basket rope flag").split()
COLORS = "red blue green yellow white black brown gray orange pink purple silver tan beige".split()
MATERIALS = "wood metal plastic glass stone brick concrete paper cloth leather".split()
PLACES = "kitchen street park beach field bathroom bedroom office restaurant airport station zoo".split()
TIMES = "daytime night morning evening afternoon winter summer".split()
NUMBERS = [str(i) for i in range(1, 11)] + "one two three four five".split()
ACTIONS = "walking sitting standing eating riding flying running playing holding looking surfing skiing".split()
TEMPLATES = (
    ("What color is the {o}?", COLORS), ("How many {o}s are there?", NUMBERS), ("What is the {o} made of?", MATERIALS),
    ("Where is the {o}?", None), ("What is on the {o}?", OBJECTS), ("What is the {o} doing?", ACTIONS),
    ("Where was this photo taken?", PLACES), ("When was this photo taken?", TIMES),
    ("What is next to the {o}?", OBJECTS), ("What is the {o} holding?", OBJECTS),
    ("What is in the sky?", OBJECTS), ("What is the man wearing?", None), ("Who is on the {o}?", None),
    ("What kind of {o} is this?", None),
)


def make_records(n: int, seed: int = 0):
    """n Visual-Genome-like triplets (14 per image)."""
    rng = random.Random(seed)
    records = []
    for i in range(n):
        image = f"img{i // 14}"
        tmpl, pool = TEMPLATES[rng.randrange(len(TEMPLATES))]
        obj = rng.choice(OBJECTS)
        if pool is None:
            answer = rng.choice((f"on the {rng.choice(OBJECTS)}", f"{rng.choice(COLORS)} {rng.choice(OBJECTS)}",
                                 rng.choice(OBJECTS), f"{rng.choice(MATERIALS)} {rng.choice(OBJECTS)}"))
        else:
            answer = rng.choice(pool)
        records.append(QARecord(f"q{i}", image, tmpl.format(o=obj), answer))
    return records


def run(n: int, device: str, wup):
    records = make_records(n)
    t = time.perf_counter()
    result = generate_decoys(records, DecoyConfig(device=device), wup=wup)
    return time.perf_counter() - t, result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=200_000)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args(argv)
    import torch  # heavy: torch takes seconds to import; only code that computes needs it

    torch.set_num_threads(args.threads)

    t = time.perf_counter()
    wn = wordnet()
    wn.synsets("dog")
    load_s = time.perf_counter() - t
    # Baseline 1: NLTK's wup_similarity vs the fast scorer on the same word pairs (Eq. 3).
    rng = random.Random(1)
    words = OBJECTS + COLORS + MATERIALS + PLACES
    pairs = [(rng.choice(words), rng.choice(words)) for _ in range(150)]
    t = time.perf_counter()
    ref = [max([(a.wup_similarity(b) or 0.0) for a in wn.synsets(x) if a.pos() in "nas"
                for b in wn.synsets(y) if b.pos() in "nas"] or [0.0]) for x, y in pairs]
    nltk_s = time.perf_counter() - t
    fast = WupScorer(wn)
    t = time.perf_counter()
    mine = [fast.word(x, y) if x != y else max(ref[i], 1.0) for i, (x, y) in enumerate(pairs)]
    fast_s = time.perf_counter() - t
    agree = sum(abs(a - b) < 1e-12 for a, b, (x, y) in zip(ref, mine, pairs) if x != y)
    scorer = WupScorer(wn).answers
    small_s, _ = run(args.questions // 10, args.device, scorer)
    full_s, result = run(args.questions, args.device, scorer)
    peak_gb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2
    s = result.stats
    print(f"WordNet load: {load_s:.1f} s (once per process, not counted below)")
    print(f"WUP (Eq. 3) on {len(pairs)} word pairs: NLTK {nltk_s:.2f} s, fast cold {fast_s:.3f} s "
          f"-> {nltk_s / max(fast_s, 1e-9):.0f}x; identical values on {agree}/{sum(x != y for x, y in pairs)} pairs")
    print(f"{args.questions // 10} questions: {small_s:.1f} s; {args.questions} questions: {full_s:.1f} s "
          f"(ratio {full_s / max(small_s, 1e-9):.1f}x for 10x the questions)")
    print(f"stages: {s.seconds}; unique questions {s.unique_questions}; images {s.images}; "
          f"neighbour passes {s.neighbour_depth}")
    print(f"decoys: IoU {s.iou_from_image}, QoU {s.qou_from_questions}, fill frequent {s.fill_frequent}, "
          f"short IoU {s.short_iou} / QoU {s.short_qou}; rejected overlap {s.rejected_overlap}, "
          f"wup {s.rejected_wup}, mutual {s.rejected_mutual}")
    print(f"peak RSS {peak_gb:.2f} GB; torch threads {torch.get_num_threads()}; device {args.device}")
    ok = full_s < 300 and peak_gb < 4
    print(f"target (< 300 s, < 4 GB): {'met' if ok else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
