"""The counterfactual probe (Stoikou et al. 2023): perturb questions, compare answers.

Per perturbation kind: the questions it applies to, acc_Q on them (original answers),
acc*_Q (answers to the counterfactual questions, scored against the original question's
human answers, as in the paper), the relative reduction (acc_Q - acc*_Q) / acc_Q, and the
answer-change rate (a* != a after VQA answer normalization, Wilson interval). Without
ground truth only the change rate is reported. Local explanations (q, a) -> (q*, a*) go
to `local_explanations-<dataset>-<split>.jsonl`; global rules aggregate "answer unchanged" by concept X and
by substitution X -> Y.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict, replace
from typing import ClassVar, Mapping, TextIO

from harness.api import Display, Layout, Option, Probe, ProbeContext
from harness.fileio import atomic_writer
from harness.perexample import write_scores
from harness.rundir import safe_name
from harness.stats import wilson_interval
from harness.types import ResultRow
from vqa_harness_plugins.generators.counterfactual import (
    KINDS,
    Perturbation,
    Perturber,
    colors_in,
    perturb_many,
    resolve_kinds,
)
from vqa_harness_plugins.nlp import bertscore_settings, tagger_identity, wordnet_identity
from vqa_harness_plugins.nlp.identity import describe
from vqa_harness_plugins.nlp.wordstats import library_versions

from .display import COUNTERFACTUAL_DISPLAY
from .metrics import KindSummary, Pair, Rule, changed, global_rules, summarize_kind
from .report import most_telling, render
from .tables import COUNTERFACTUAL_LAYOUTS

__all__ = ["CounterfactualProbe"]


class CounterfactualProbe(Probe):
    """Knowledge-based counterfactual questions: WordNet and color substitutions."""

    name = "counterfactual"
    headline = (("answer_change_rate", "color_max_common"), ("answer_change_rate", "color_min_common"),
                ("acc_reduction", "hypernym_noun"))
    description = "Stoikou 2023: WordNet/color question perturbations, answer change, global rules"
    requires = ("answer",)
    #: The kinds whose rows read a low answer change as robustness assume the replaced word
    #: does not decide the answer: a near colour (Color Minimal) keeps it, and so does a noun's
    #: WordNet parent, child or sibling, or its deletion. Color Maximal expects a change and the
    #: synonyms keep the meaning. On a dataset whose answers depend on the exact colour or
    #: object named (`answers_depend_on`), those rows get no better direction and the run says so.
    assumes: ClassVar[Mapping[str, str]] = {
        **{k.id: "color" for k in KINDS if k.relation == "color" and not k.maximal},
        **{k.id: "object" for k in KINDS if k.pos == "n"},
    }
    options: ClassVar[Mapping[str, Option]] = {
        "mode": Option("quality", "generator: quality (default: senses in context, common words, lemminflect, "
                                  "whole-phrase deletion) or paper (Stoikou et al. as described)",
                       choices=("quality", "paper")),
        "kinds": Option("all", "perturbation kinds: all or a comma list (see `harness perturb --help`)"),
        "min_support": Option(5, "questions a global rule needs before it is reported", min=1, max=10_000_000),
        "top": Option(5, "local explanations per kind and rules per end shown in the report", min=0,
                      max=10_000),
    }

    def __init__(self, **options: object) -> None:
        super().__init__(**options)
        resolve_kinds(str(self.config["kinds"]))  # a mistyped kind: one line on load, before any work

    def cache_settings(self) -> dict:
        """The WordNet and tagger copies read now, by content (NLTK data of the user's, such as
        `$NLTK_DATA` or `~/nltk_data`, comes before the installed copy: docs/resources.md); in
        quality mode also the word statistics' libraries and the sense vectors' model (another
        model folder, `$VQA_HARNESS_BERTSCORE_MODEL`, or other weights give other perturbations)."""
        settings: dict = {"wordnet": wordnet_identity(), "pos_tagger": tagger_identity()}
        if self.config["mode"] == "quality":
            settings.update(word_statistics=library_versions(), sense_vectors=bertscore_settings(layers=False))
        return settings

    def run(self, ctx: ProbeContext) -> list[ResultRow]:
        kinds = resolve_kinds(str(self.config["kinds"]))
        mode = str(self.config["mode"])
        examples = ctx.examples
        vocabulary = [ex.question for ex in examples] + [a for ex in examples for a in ex.answers]
        common = sorted(colors_in(vocabulary))
        perturber = Perturber(common_colors=common, seed=ctx.seed, kinds=kinds, mode=mode)
        ctx.tag("generator", mode)
        ctx.use_resource("counterfactual-generator", mode)
        wordnet, tagger = wordnet_identity(), tagger_identity()  # as in the key (cache_settings)
        ctx.use_resource("wordnet", f"WordNet {wordnet.get('version', '?')}, {describe(wordnet)} of its files "
                                    "(vqa_harness_plugins.nlp.wordnet_index)")
        ctx.use_resource("pos-tagger", f"averaged perceptron, Penn tags, {describe(tagger)} of its weights "
                                       "(vqa_harness_plugins.nlp.pos_tag)")
        if mode == "quality":
            ctx.use_resource("word-statistics", ", ".join(f"{k} {v}" for k, v in sorted(library_versions().items())))
        # Handed over as the generator's `context`; no mode reads it now (senses come from the
        # question's own words, docs/counterfactual.md rule 1).
        contexts = [tuple(ex.answers) for ex in examples] if mode == "quality" else None

        def build() -> dict:
            found, n, rej = perturb_many(perturber, [ex.question for ex in examples], contexts)
            return {"results": [{k: asdict(v) if isinstance(v, Perturbation) else v for k, v in r.items()}
                                for r in found],
                    "counts": {k: dict(c) for k, c in n.items()}, "rejected": {k: dict(c) for k, c in rej.items()}}

        # Model-independent: perturbed once per data, options and code, shared by every model.
        memo = ctx.memo("perturbations", {"mode": mode, "kinds": [k.id for k in kinds], "seed": ctx.seed,
                                          "colors": common}, build)
        results = [{k: Perturbation(**v) if isinstance(v, dict) else v for k, v in r.items()}
                   for r in memo["results"]]
        counts = {k: Counter(c) for k, c in memo["counts"].items()}
        rejected = {k: Counter(c) for k, c in memo["rejected"].items()}
        del memo  # the Perturbations above hold it all (VQA v2 val: ~1M of them)
        preds = ctx.predict(examples, "answer")  # the cached originals, shared with `accuracy`
        rows: list[ResultRow] = []
        # Local explanations are streamed to their file and only the report's few kept, so
        # memory does not grow with (questions x kinds). One file per task: a suite may run
        # this probe on several datasets.
        path = ctx.artifact(f"local_explanations-{safe_name(ctx.dataset)}-{ctx.split}.jsonl")
        with atomic_writer(path) as local:
            summaries = self._kinds(ctx, kinds, examples, results, preds, mode, rows, local)

        ctx.report(render(kinds, counts, len(examples), summaries, common, path, top=int(self.config["top"]),
                          mode=mode, rejected=rejected))
        return rows

    def _kinds(self, ctx: ProbeContext, kinds: list, examples: list, results: list[dict], preds: list,
               mode: str, rows: list[ResultRow], local: TextIO
               ) -> dict[str, tuple[KindSummary, list[Pair], list[Rule], list[Rule]]]:
        """Rows of every kind (appended to `rows`); local explanations written to `local`;
        per kind its summary, the report's most telling pairs and the global rules."""

        summaries: dict[str, tuple[KindSummary, list[Pair], list[Rule], list[Rule]]] = {}
        total = len(examples)
        for kind in kinds:
            idx = [i for i, r in enumerate(results) if isinstance(r[kind.id], Perturbation)]
            rows.append(ctx.row("applicable", len(idx), total, variant=kind.id, unit="count", higher_is_better=None))
            if total:

                rows.append(ctx.row("coverage", len(idx) / total, total, variant=kind.id,  # model-free
                                    ci=wilson_interval(len(idx), total), higher_is_better=None))
            if not idx:
                ctx.metric_unavailable(f"{kind.id}/answer_change_rate", "no question of the task applies")
                continue
            variants = [examples[i].with_(question=results[i][kind.id].counterfactual) for i in idx]
            cf_preds = ctx.predict(variants, "answer", variant=kind.id)
            pairs = []
            for i, cf in zip(idx, cf_preds):
                p = results[i][kind.id]
                if not (preds[i].ok and cf.ok):
                    continue  # the runner already counts and reports model errors
                humans = tuple(examples[i].answers) if ctx.labelled else ()
                pairs.append(Pair(examples[i].id, p.question, p.counterfactual, preds[i].answer or "",
                                  cf.answer or "", p.source, p.target, humans))
                local.write(json.dumps(
                    {"example_id": examples[i].id, "kind": kind.id, "question": p.question,
                     "answer": preds[i].answer or "", "counterfactual": p.counterfactual,
                     "cf_answer": cf.answer or "", "replaced": p.replaced, "replacement": p.replacement,
                     "concept": p.source, "new_concept": p.target, "evidence": p.detail, "mode": mode,
                     "answer_changed": changed(preds[i].answer or "", cf.answer or "")},
                    sort_keys=True, ensure_ascii=False) + "\n")
            if not pairs:
                ctx.metric_unavailable(f"{kind.id}/answer_change_rate", "the model failed on every pair")
                continue
            summary = summarize_kind(pairs, seed=ctx.seed)
            concept_rules, pair_rules = global_rules(pairs, min_support=int(self.config["min_support"]))
            top = int(self.config["top"])
            telling = most_telling(kind, summary, pairs)[:top]
            # per-pair accuracies are in the per-example file now; the report needs the totals
            summaries[kind.id] = (replace(summary, per_pair_acc=()), telling, concept_rules, pair_rules)
            _write_per_example(ctx, kind.id, pairs, summary)
            rows += _kind_rows(ctx, kind.id, summary, ctx.labelled)
            # Unchanged answers are robustness, except under Color Maximal, whose answers should
            # change (a model that keeps them ignores the color): there unchanged is worse.
            keeps = not kind.id.startswith("color_max")
            for rule in concept_rules:
                rows.append(ctx.row(f"unchanged/concept={rule.source}", rule.rate, rule.n, ci=rule.ci, variant=kind.id,
                                    higher_is_better=keeps))
            for rule in pair_rules:
                rows.append(ctx.row(f"unchanged/rule={rule.source}->{rule.target}", rule.rate, rule.n,
                                    ci=rule.ci, variant=kind.id, higher_is_better=keeps))
        return summaries

    @classmethod
    def layouts(cls) -> tuple[Layout, ...]:
        """Stoikou Table 2 (colors), Table 3 (WordNet kinds) and the global rules."""
        return COUNTERFACTUAL_LAYOUTS

    @classmethod
    def display(cls) -> Display:
        return COUNTERFACTUAL_DISPLAY


def _kind_rows(ctx: ProbeContext, kind: str, s: KindSummary, labelled: bool) -> list[ResultRow]:
    # Color Maximal should change answers (a model that keeps them ignores the color);
    # for every other kind a robust model keeps its answer.
    wants_change = kind.startswith("color_max")
    rows = [ctx.row("answer_change_rate", s.change_rate, s.n, ci=s.change_ci, variant=kind,
                    higher_is_better=wants_change)]
    if s.acc_q is not None:
        rows.append(ctx.row("acc_q", s.acc_q, s.n, ci=s.acc_q_ci, variant=kind))
        # Accuracy on perturbed questions (scored against the original's answers) has no better
        # direction; nor has the reduction for Color Maximal, whose answers should change.
        rows.append(ctx.row("acc_q_cf", s.acc_q_cf, s.n, ci=s.acc_q_cf_ci, variant=kind, higher_is_better=None))
        if s.reduction is not None:
            rows.append(ctx.row("acc_reduction", s.reduction, s.n, ci=s.reduction_ci, variant=kind,
                                higher_is_better=None if wants_change else False))
        else:
            ctx.metric_unavailable(f"{kind}/acc_reduction", "acc_Q is 0 on the applicable questions")
    elif labelled:
        ctx.metric_unavailable(f"{kind}/acc_q", "some applicable questions have no or fewer than 4 human answers "
                                                "(VQA accuracy cannot reach 1 there; docs/metrics.md)")
    else:
        ctx.metric_unavailable(f"{kind}/acc_q", "split has no ground-truth answers (answer-change rate only)")
    return rows


def _write_per_example(ctx: ProbeContext, kind: str, pairs: list[Pair], s: KindSummary) -> None:
    """Per-question answer change (and accuracies) of one kind, for `harness compare`."""
    scores = {"answer_change_rate": [float(changed(p.answer, p.cf_answer)) for p in pairs]}
    if s.per_pair_acc:
        scores["acc_q"] = [a for a, _ in s.per_pair_acc]
        scores["acc_q_cf"] = [b for _, b in s.per_pair_acc]
    write_scores(ctx, [p.example_id for p in pairs], scores, variant=kind)
