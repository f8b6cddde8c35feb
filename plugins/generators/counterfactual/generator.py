"""The Perturber: tag a question once, then build one counterfactual per kind.

Two modes (`MODES`): "paper" is the generator as Stoikou et al. describe it (rules below);
"quality" (the default of the suites and of this class) adds senses in context, common
words only, lemminflect inflections, tag and compound checks and whole-phrase deletion
(quality_mode.py; its skip reasons are QUALITY_SKIP_REASONS).

Paper mode:

For each kind, every word the kind applies to is a *site*: a color mention (color kinds),
an adjective (JJ, not a color), a content verb (not be/do/have), a common noun (NN/NNS).
Sites whose replacement exists and can be inflected are *usable*; one usable site per
question is chosen by a seeded hash of (seed, kind, question) — the paper deletes "a
random noun"; we make that reproducible and use the same rule for every kind, so two
identical questions always get the same counterfactual. A question without a usable site
is skipped for that kind with a reason:

- "empty" / "non_english": the question itself (see text.language_problem);
- "no_site": no word of the kind's part of speech (or no color word);
- "no_replacement": such words exist but WordNet / the color pool offers no replacement;
- "inflection": a replacement exists but its surface form cannot be restored reliably
  (comparatives/superlatives, ambiguous irregular pasts, ...).
"""

from __future__ import annotations

import zlib
from collections import Counter
from typing import Any, Callable, Iterable, Mapping, Sequence

from harness.errors import UsageError
from vqa_harness_plugins.nlp import pos_tag, word_stats, wordnet_index

from .color_names import QualityColors, spoken_names
from .colors import BASIC_COLORS, UNAMBIGUOUS_COLORS, ColorSpace, named_colors
from .idioms import fixed_spans
from .inflect import NOUN_TAGS, VERB_TAGS, Inflector
from .kinds import KINDS, Kind
from .lexical import EXCLUDED_VERBS, Lexicon
from .perturbation import Perturbation
from .quality import FREQUENCY_FLOOR
from .quality_mode import QualityMode
from .text import FUNCTION_WORDS, Token, fit_article, language_problem, match_case, splice, tokenize

__all__ = [
    "DEFAULT_MODE",
    "MODES",
    "QUALITY_SKIP_REASONS",
    "Perturbation",
    "Perturber",
    "SKIP_REASONS",
    "colors_in",
    "perturb_many",
    "skip_reasons",
]

MODES = ("paper", "quality")
#: The mode of the suites, the probe, `harness perturb` and `Perturber()`.
DEFAULT_MODE = "quality"
SKIP_REASONS = ("empty", "non_english", "no_site", "no_replacement", "inflection")
#: Question-level and candidate-level reasons of the quality mode (quality_mode.py).
QUALITY_SKIP_REASONS = (
    "empty", "non_english", "ungrammatical", "no_site", "tag_mismatch", "compound_part", "idiom", "bare_noun", "frame_noun", "no_replacement",
    "abstract", "ambiguous", "basic_level", "synonym", "coordination", "agreement", "multiword", "proper_noun",
    "rare_word", "register", "sense_mismatch", "number", "selection", "verb_frame", "phrasal", "inflection", "in_question",
    "color_in_question", "color_distance", "deletion_parse", "kinship", "head", "image_noun", "dissimilar", "person_role",
)  # fmt: skip


def skip_reasons(mode: str) -> tuple[str, ...]:
    """The skip reasons a mode reports, in display order."""
    return QUALITY_SKIP_REASONS if mode == "quality" else SKIP_REASONS
_INFLECTED = {"NNS", "VBZ", "VBD", "VBN", "VBG"}


class Perturber:
    """Generates the counterfactual questions of every kind for one question at a time.

    `mode`: "paper" or "quality" (module docstring). `common_colors`: the dataset's color
    vocabulary (default: the basic color terms); `uncommon` replacements come from every
    matplotlib named color. `tagger` (tokens -> [(word, tag)]) and `wn` (a
    `vqa_harness_plugins.nlp.WordNetIndex`) default to `vqa_harness_plugins.nlp` (ResourceError
    naming `harness resources install` when missing).
    """

    def __init__(
        self,
        *,
        common_colors: Iterable[str] | None = None,
        seed: int = 0,
        kinds: Sequence[Kind] = KINDS,
        mode: str = DEFAULT_MODE,
        wn: Any = None,
        tagger: Callable[[list[str]], list[tuple[str, str]]] | None = None,
    ) -> None:
        if mode not in MODES:

            raise UsageError(f"unknown counterfactual mode {mode!r}: use one of {', '.join(MODES)}")
        if wn is None:

            wn = wordnet_index()
        if tagger is None:

            pos_tag(["warm", "up"])  # fail now, with the install hint, not mid-dataset
            tagger = pos_tag
        self.wn, self.tagger, self.seed, self.kinds, self.mode = wn, tagger, seed, tuple(kinds), mode
        self.lexicon = Lexicon(wn)
        self.inflector = Inflector(wn)
        # The quality mode's colours are names as people use them (color_names.py, rule 30).
        self.colors = ColorSpace() if mode == "paper" else QualityColors(wn)
        self.pools = {
            "common": self.colors.pool(BASIC_COLORS if common_colors is None else common_colors),
            "uncommon": tuple(sorted(self.colors.colors)),
        }
        self._color_choice: dict[tuple[str, str, bool, tuple[str, ...]], tuple[str, float] | None] = {}
        self.quality = None
        if mode == "quality":
            # Common colors must read as colors: a color name the dataset uses that WordNet
            # knows only as a thing ("snow", "salmon" as a fish) is no replacement.
            self.pools["common"] = tuple(c for c in self.pools["common"] if wn.has_lemma(c, "a"))
            # Uncommon colors a person writes: one-word names that are English colour adjectives
            # (color_names.spoken_names: "crimson", "beige"; no "dark slate gray", no "papayawhip").
            self.pools["uncommon"] = spoken_names(wn, word_stats().zipf, FREQUENCY_FLOOR)
            self.quality = QualityMode(self)
            fixed_spans(wn, [])  # builds the index of fixed expressions at start-up, not in the first question

    # ------------------------------------------------------------------ public
    def perturb(self, question: str, context: Sequence[str] = ()) -> dict[str, Perturbation | str]:
        """kind id -> Perturbation, or the skip reason (`skip_reasons(mode)`). `context`:
        other texts about the question (its answers); neither mode reads it now (the quality
        mode's senses come from the question's own words: docs/counterfactual.md, rule 1)."""
        return self.perturb_counted(question, context)[0]

    def perturb_counted(
        self, question: str, context: Sequence[str] = ()
    ) -> tuple[dict[str, Perturbation | str], dict[str, Counter]]:
        """`perturb`, plus per kind the candidates rejected on the way, by reason."""
        tokens = tokenize(question)
        problem = language_problem(question, tokens)
        if problem:
            return {k.id: problem for k in self.kinds}, {}
        tags = [t for _, t in self.tagger([t.text for t in tokens])]  # once, shared by all kinds
        if self.quality is not None:
            return self.quality.perturb(question, tokens, tags, context)
        return {k.id: self._one(k, question, tokens, tags) for k in self.kinds}, {}

    def pick(self, kind: Kind, question: str, usable: Sequence[Perturbation]) -> Perturbation:
        """One usable site: a seeded hash of (seed, kind, question) (same in both modes)."""
        if len(usable) == 1:
            return usable[0]
        return usable[zlib.crc32(f"{self.seed}\x1f{kind.id}\x1f{question}".encode()) % len(usable)]

    def color_choice(self, low: str, kind: Kind, exclude: tuple[str, ...] = ()) -> tuple[str, float] | None:
        """The kind's replacement color for `low` (pool minus `exclude`), memoized."""
        key = (low, kind.pool, kind.maximal, exclude)
        if key not in self._color_choice:
            pool = [c for c in self.pools[kind.pool] if c not in exclude]
            self._color_choice[key] = self.colors.replacement(low, pool, maximal=kind.maximal)
        return self._color_choice[key]

    # ----------------------------------------------------------------- helpers
    def _one(self, kind: Kind, question: str, tokens: list[Token], tags: list[str]) -> Perturbation | str:
        sites = [i for i, (tok, tag) in enumerate(zip(tokens, tags)) if self.is_site(kind, tok.text, tag)]
        if not sites:
            return "no_site"
        usable: list[Perturbation] = []
        reasons: set[str] = set()
        for i in sites:
            out = self._at(kind, question, tokens, tags[i], i)
            if isinstance(out, str):
                reasons.add(out)
            else:
                usable.append(out)
        if not usable:
            return "inflection" if "inflection" in reasons else "no_replacement"
        return self.pick(kind, question, usable)

    def is_site(self, kind: Kind, word: str, tag: str) -> bool:
        """Whether `word` tagged `tag` is a site of `kind` (a color; a content adjective,
        verb or common noun)."""
        low = word.lower()
        # Basic color terms are colors whatever the tag ("Is the ball brown?" -> VBN);
        # other named colors (orange, gold, snow) only when tagged as adjectives.
        is_color = low in self.colors.colors and (tag.startswith("JJ") or low in UNAMBIGUOUS_COLORS)
        if kind.relation == "color":
            return is_color
        # Function words are never content words, whatever the tagger says ("Does" -> NNS).
        if is_color or not word[:1].isalpha() or low in FUNCTION_WORDS:
            return False
        if kind.pos == "a":
            return tag.startswith("JJ")
        if kind.pos == "v":
            return tag in VERB_TAGS
        return tag in NOUN_TAGS

    def _at(self, kind: Kind, question: str, tokens: list[Token], tag: str, i: int) -> Perturbation | str:
        tok = tokens[i]
        word = tok.text
        if kind.relation == "color":
            low = word.lower()
            found = self.color_choice(low, kind)
            if found is None:
                return "no_replacement"
            color, dist = found
            new = match_case(word, color)
            return Perturbation(kind.id, question, _replace(question, tokens, i, new), i, word, new, low, color,
                                f"ΔE2000={dist:.2f}")
        if kind.pos == "a" and tag != "JJ":
            return "inflection"  # comparatives/superlatives of a synonym are not reliable
        lemma = self.lexicon.lemma(word, kind.pos, tag in _INFLECTED)
        if lemma is None:
            return "no_replacement"
        if kind.pos == "v" and lemma in EXCLUDED_VERBS:
            return "no_replacement"
        if kind.relation == "delete":
            return Perturbation(kind.id, question, splice(question, tok, ""), i, word, "", lemma, "", "")
        repl = self.lexicon.replacement(lemma, kind.pos, kind.relation)
        if repl is None:
            return "no_replacement"
        surface = self.inflector.inflect(repl.target_lemma, tag)
        if surface is None:
            return "inflection"
        if surface.lower() == word.lower():
            return "no_replacement"  # instal -> install: "installed" comes back as itself
        new = match_case(word, surface)
        return Perturbation(kind.id, question, _replace(question, tokens, i, new), i, word, new, lemma,
                            repl.target_lemma, f"{repl.source_synset} -> {repl.target_synset}")


def _replace(question: str, tokens: list[Token], i: int, new: str) -> str:
    """Splice `new` in for token i; an indefinite article right before it follows the new
    word's first letter (a horse -> an equine), by spelling, not sound."""
    out = splice(question, tokens[i], new)
    if i > 0 and tokens[i - 1].text.lower() in ("a", "an") and tokens[i - 1].end < tokens[i].start:
        out = fit_article(out, tokens[i - 1], new)
    return out


def colors_in(texts: Iterable[str], names: Mapping[str, str] | None = None) -> set[str]:
    """The named colors that occur as words in `texts` (a dataset's "common" colors)."""
    known = names or named_colors()
    found: set[str] = set()
    for text in texts:
        for tok in tokenize(text.lower()):
            if tok.text in known:
                found.add(tok.text)
    return found


def perturb_many(
    perturber: Perturber, questions: Iterable[str], contexts: Iterable[Sequence[str]] | None = None
) -> tuple[list[dict[str, Perturbation | str]], dict[str, Counter], dict[str, Counter]]:
    """Perturb every question (with its context, e.g. its answers); count per kind the
    questions applied and skipped (by reason), and the rejected candidates (by reason)."""
    results: list[dict[str, Perturbation | str]] = []
    counts: dict[str, Counter] = {k.id: Counter() for k in perturber.kinds}
    rejected: dict[str, Counter] = {k.id: Counter() for k in perturber.kinds}
    ctx_iter = iter(contexts) if contexts is not None else None
    for q in questions:
        out, rej = perturber.perturb_counted(q, next(ctx_iter) if ctx_iter is not None else ())
        for kind, value in out.items():
            counts[kind]["applied" if isinstance(value, Perturbation) else value] += 1
        for kind, c in rej.items():
            rejected[kind].update(c)
        results.append(out)
    return results, counts, rejected
