"""Word-sense options of the counterfactual quality mode, scored on hand-labelled senses of the
TUNE half of VQA-X val (issue 24; the held-out half was not labelled or looked at).

    python benchmarks/counterfactual_senses.py [--data-dir ../shared/data] [--contextual]

Sites: benchmarks/data/vqax_tune_senses.json (147 sites: a question of the tune half, a
lemma with two or more competing senses, and every sense a reader could take it in). The
candidates are the senses that compete in the quality mode (`SenseChooser.candidates`: the
first and the SemCor-counted ones). Printed, per option, the share of sites whose chosen
sense is a gold one:

- most frequent sense (WordNet's first): the baseline, in the same process;
- the shipped rule (senses.py): static embedding Lesk + SemCor prior, for several prior
  weights, with the question's words as context, and with the human answers added;
- `--contextual`: the sentence model run on the whole question (mean of the last layer,
  normalised) against the model's sentence vectors of each sense's text, with the same
  prior; about 100 times the CPU of the shipped rule (it needs a forward pass per question).

A masked-language-model check is not measured: no masked LM ships offline with the project
(the sentence model's package has no prediction head) and none could be installed offline.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from cf_split import DATA, load_half  # noqa: E402  (benchmarks/ is on sys.path)

from vqa_harness_plugins.generators.counterfactual.senses import SenseChooser, content_bases
from vqa_harness_plugins.nlp import bertscore_model, sense_vectors, wordnet_index
from vqa_harness_plugins.nlp.sense_vectors import competing_senses, sense_text

SITES = Path(__file__).resolve().parent / "data" / "vqax_tune_senses.json"
WEIGHTS = (0.1, 0.15, 0.2, 0.3)


def load_sites(data_dir: Path) -> list[dict]:
    """The labelled sites with their question and answers (read from the tune half)."""
    ids, questions, answers = load_half(data_dir, "tune")
    by_id = {i: (q, a) for i, q, a in zip(ids, questions, answers)}
    sites = json.loads(SITES.read_text(encoding="utf-8"))["sites"]
    for site in sites:
        site["question"], site["answers"] = by_id[site["example_id"]]
    return sites


def accuracy(sites: list[dict], picks: list[str]) -> str:
    """"right/total (share)" of picks that are gold senses."""
    right = sum(p in s["gold"] for s, p in zip(sites, picks))
    return f"{right}/{len(sites)} ({100 * right / len(sites):.1f}%)"


def contextual(sites: list[dict], wn, pools: list[list[int]], chooser: SenseChooser) -> None:
    """The sentence model on the whole question vs sense texts, with the prior."""
    import numpy as np  # heavy: numpy
    import torch  # heavy: torch, only for this option
    from transformers import AutoModel, AutoTokenizer  # heavy: transformers, only for this option

    folder, _ = bertscore_model()
    tokenizer, model = AutoTokenizer.from_pretrained(folder), AutoModel.from_pretrained(folder).eval()
    torch.set_num_threads(1)

    def encode(texts: list[str]):
        with torch.inference_mode():
            batch = tokenizer(texts, padding=True, truncation=True, max_length=128, return_tensors="pt")
            hidden = model(**batch).last_hidden_state
            mask = batch["attention_mask"].unsqueeze(-1).float()
            return torch.nn.functional.normalize((hidden * mask).sum(1) / mask.sum(1), dim=-1).numpy()

    c0 = time.process_time()
    questions = encode([s["question"] for s in sites])
    per_question = (time.process_time() - c0) / len(sites)
    for weight in WEIGHTS:
        picks = []
        for s, q, pool in zip(sites, questions, pools):
            fits = encode([sense_text(wn, sid) for sid in pool]) @ q
            priors = chooser.log_priors(s["lemma"], pool)
            best = max(range(len(pool)), key=lambda i: (round(float(fits[i]) + weight * priors[i], 4), -i))
            picks.append(wn.name(pool[best]))
        print(f"contextual sentence vectors, prior weight {weight}: {accuracy(sites, picks)}")
    print(f"  (a forward pass costs {1000 * per_question:.1f} ms CPU per question here; np {np.__version__})")


def main() -> None:
    """Print the accuracy of each option."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=DATA)
    parser.add_argument("--contextual", action="store_true", help="also the forward-pass option (slow start)")
    args = parser.parse_args()
    wn, vectors = wordnet_index(), sense_vectors()
    sites = load_sites(args.data_dir)
    chooser = SenseChooser(wn, vectors)
    pools = [chooser.candidates(s["lemma"], competing_senses(wn, s["lemma"], s["pos"])) for s in sites]
    print(f"{len(sites)} hand-labelled sites of the tune half; a gold sense is a candidate at "
          f"{sum(any(wn.name(x) in s['gold'] for x in p) for s, p in zip(sites, pools))} of them")
    print(f"most frequent sense: {accuracy(sites, [wn.name(p[0]) for p in pools])}")
    for label, with_answers in (("question words", False), ("question and answer words", True)):
        for weight in WEIGHTS:
            chooser = SenseChooser(wn, vectors, prior_weight=weight)
            picks = []
            for s, pool in zip(sites, pools):
                words = content_bases(s["question"], wn)
                if with_answers:
                    words |= set().union(*(content_bases(a, wn) for a in s["answers"]))
                sense, _ = chooser.choose(s["lemma"], pool, words - set(s["lemma"].split("_")))
                picks.append(wn.name(sense))
            shipped = weight == chooser.prior_weight == 0.2 and not with_answers
            print(f"static embedding Lesk, {label}, prior weight {weight}: {accuracy(sites, picks)}"
                  f"{'  <- shipped' if shipped else ''}")
            for s, pool, pick in zip(sites, pools, picks) if shipped else ():
                first = wn.name(pool[0])
                if pick != first:
                    right = (first in s["gold"], pick in s["gold"])
                    verdict = {(False, True): "win", (True, False): "loss", (True, True): "both right"}.get(
                        right, "both wrong")
                    print(f"    {verdict}: {s['question']} [{s['lemma']}] {first} -> {pick}")
    if args.contextual:
        contextual(sites, wn, pools, SenseChooser(wn, vectors))


if __name__ == "__main__":
    main()
