"""What naming the NLP resource copies in cache keys costs: the counterfactual probe's
`cache_settings()` (its output and `ctx.memo` keys) and a generated-decoy dataset's fingerprint
now hold a digest of the bytes of the WordNet and tagger files read (`nlp.identity`), so that
switching copies (`$NLTK_DATA`, `~/nltk_data`) computes again (docs/resources.md).

    python benchmarks/resource_identity.py [--repeat 20]

Needs `harness resources install`. Times, in this process:

1. the digest with no cache file (a new harness cache: every file read, once per copy);
2. the first use in a process (the cache file read, keyed by the files' stamps);
3. later uses in the process (a `stat` of each file);

and, as the baseline, what the keys held before: the quality mode's old settings
(`bertscore_settings(layers=False)`: a `stat` of the model files) and the lookup of the
two folders alone (which every run did anyway). Prints seconds and ratios; `uptime` before
and after.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from vqa_harness_plugins.nlp import bertscore_settings, identity, tagger_identity, wordnet_identity
from vqa_harness_plugins.nlp.perceptron import tagger_folder
from vqa_harness_plugins.nlp.wordnet_corpus import wordnet_folder
from vqa_harness_plugins.probes.counterfactual import CounterfactualProbe

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness_proc import best_of, positive_int, uptime  # noqa: E402


def _both() -> None:
    wordnet_identity()
    tagger_identity()


def _new_process() -> None:
    identity._MEMO.clear()
    _both()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=positive_int, default=20)
    args = parser.parse_args(argv)
    print(f"load before: {uptime()}")
    wordnet_folder(), tagger_folder()  # installed? (a ResourceError line otherwise)
    old = os.environ.get("VQA_HARNESS_CACHE")
    cold = []
    for _ in range(3):
        with tempfile.TemporaryDirectory() as tmp:
            os.environ["VQA_HARNESS_CACHE"] = tmp
            identity._MEMO.clear()
            cold.append(best_of(1, _both))
    if old is None:
        os.environ.pop("VQA_HARNESS_CACHE", None)
    else:
        os.environ["VQA_HARNESS_CACHE"] = old
    _new_process()  # the cache file of this harness cache exists from here on
    first = best_of(args.repeat, _new_process)
    later = best_of(args.repeat, _both)
    locate = best_of(args.repeat, lambda: (wordnet_folder(), tagger_folder()))
    old_quality = best_of(args.repeat, lambda: bertscore_settings(layers=False))
    probe = CounterfactualProbe(mode="quality")
    new_quality = best_of(args.repeat, probe.cache_settings)
    print(f"digest, no cache file (median of 3 new caches): {sorted(cold)[1] * 1e3:9.2f} ms")
    print(f"first use in a process (cache file read):       {first * 1e3:9.2f} ms")
    print(f"later uses in the process:                      {later * 1e3:9.2f} ms")
    print(f"baseline: locating the two folders:             {locate * 1e3:9.2f} ms"
          f"   first use / this = {first / locate:.1f}x")
    print(f"baseline: quality-mode settings before:         {old_quality * 1e3:9.2f} ms")
    print(f"quality-mode settings now (later uses):         {new_quality * 1e3:9.2f} ms"
          f"   now / before = {new_quality / old_quality:.1f}x")
    print(f"load after: {uptime()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
