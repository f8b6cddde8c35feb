"""The quality-controlled mode of the Perturber: sites, senses in context, checks, deletion.

Per kind, every candidate site goes through these checks; the first that fails rejects
it, counted by reason (the question is skipped for the kind when no site survives, with
the most frequent reason):

- `tag_mismatch`: the tagger's part of speech is implausible for the word: WordNet's
  sense-tagged (SemCor) counts give that part of speech less than a tenth of the count of
  the word's most frequent one, which has at least 5 ("Are the sheep wild?": "wild"
  tagged NN has noun count 0, adjective count 42), unless the word stands where only a
  noun can (after a determiner, adjective, number or possessive: "any crosses", although
  "cross" is mostly a verb in SemCor); or an "adjective" after a determiner
  that no noun follows ("in the middle");
- `compound_part`: a noun that modifies another noun ("traffic" in "traffic light"),
  or the head of a compound WordNet does not list as one lemma; a listed compound
  ("traffic light", "tennis player", "mobile home") is a site as a whole, and its
  adjective is no adjective site;
- `verb_frame`: a verb used with a direct object has no transitive sense in WordNet;
  only its transitive senses compete otherwise ("Does the toilet match the wall?"); an
  active verb with no object only its senses with a frame without one ("Is the cat laying
  in his bed?" is not lay.v.01 "put");
- `bare_noun`: a singular noun without a determiner, possessive, number, quantifier or
  wh-word ("Is it winter?" -> "Is it season?"): the replacement would need an article
  the question does not have; a sibling may replace it when both are count nouns or both
  mass nouns (fit.countable: "Is it summer?");
- the choice of quality.py (`no_replacement`, `abstract`, `multiword`, `rare_word`,
  `sense_mismatch`, `verb_frame`) for the sense chosen in context (senses.py);
- `phrasal`: a verb followed by a particle is replaced as a whole when WordNet lists the
  phrasal verb ("turned on" -> turn_on -> "switched on"), else skipped when the tagger
  calls the particle RP ("backing up"), else gets a one-word replacement only; a phrasal
  replacement never goes before an object ("having on a hat");
- `inflection`: lemminflect has no form of the replacement for the tag (or the tag is a
  comparative/superlative);
- `rare_word` again for the inflected form ("publics");
- `in_question`: a word of the replacement is already in the question ("Is the road
  bending to the left or right?" -> "to the right or right"), or its form is the word itself
  ("installed", lemma instal -> install -> "installed");
- colors: `color_in_question` when every remaining color is already in the question
  ("black and white" never becomes "black and black"); the common pool keeps only the
  dataset's color names that WordNet lists as adjectives ("snow" is a thing, not a color
  word: "the snow device");
- deletion: `deletion_parse` when no phrase around the noun can go with the question still
  passing `phrases.reads_as_question` (a direct object may go only when the verb's most
  frequent sense has a WordNet frame without an object: INTRANSITIVE_FRAMES; deletion.py);
- fit.py's checks of the place: `frame_noun` ("kind of", "someone"), `tag_mismatch` for a
  verb whose form does not fit its tag, `phrasal` for a particle before a preposition,
  `register` for a synonym's inflected form 10 times rarer than the word's.
"""

from __future__ import annotations

from collections import Counter
from typing import Callable, Sequence

from vqa_harness_plugins.nlp import sense_vectors, word_stats

from .color_sites import add_colors
from .colors import UNAMBIGUOUS_COLORS
from .deletion import add_deletions
from .fit import (
    REGISTER_DROP,
    Selection,
    after_kind_of,
    bare_noun,
    count_context,
    countable,
    frame_noun,
    passive,
    phrase_zipf,
    verb_slot,
    verb_tag,
)
from .grammar import ungrammatical
from .idioms import fixed_spans, plural_word, splits
from .inflect import EVERYDAY_PLURALS, NOUN_TAGS
from .kinds import Kind
from .levels import coordinated
from .lexical import EXCLUDED_VERBS
from .perturbation import Perturbation, PerturberView
from .phrases import PARTICLES, noun_runs
from .quality import FREQUENCY_FLOOR, HYPERNYM_DROP, QualityLexicon, Slot
from .relations import names_the_photo
from .senses import SenseChooser, content_bases
from .tagging import ZERO_PLURALS, retag
from .text import FUNCTION_WORDS, Token, match_case, replace_span

__all__ = ["QualityMode", "replace_span"]  # replace_span: text.py, kept importable here

_OBJECT_START = ("DT", "PRP$", "PRP", "NN", "NNS", "NNP", "CD", "JJ", "PDT")


class QualityMode:
    """The quality rules, bound to one Perturber (its WordNet index, tagger and colors)."""
    def __init__(self, perturber: PerturberView) -> None:
        self.p = perturber
        self.wn = perturber.wn
        self.stats = word_stats()
        vectors = sense_vectors()
        self.lex = QualityLexicon(self.wn, self.stats, vectors)
        self.senses = SenseChooser(self.wn, vectors)
        self.selection = Selection(self.wn)
        self._context: dict[str, frozenset[str]] = {}

    # ------------------------------------------------------------------ public
    def perturb(self, question: str, tokens: list[Token], tags: list[str], context: Sequence[str]
                ) -> tuple[dict[str, Perturbation | str], dict[str, Counter]]:
        """kind -> Perturbation or reason, and kind -> rejected candidates by reason."""
        found: list[frozenset[str]] = []

        def ctx() -> frozenset[str]:  # the sense context, computed once and only if needed
            if not found:  # the question's words only: answers name the answer (senses.py)
                found.append(self._bases(question))
            return found[0]

        self._sites: dict[tuple[str, str], list[bool]] = {}  # per question: site flags per kind class
        tags = retag(self.wn, self.tag_plausible, tokens, tags,  # tagging.py
                     lambda word: word in ZERO_PLURALS or self.stats.inflect(word, "NNS") == word)
        if not self.agrees(tokens, tags):  # grammar.py, rules 34, 41, 43: "Does this room has a fireplace?"
            return {kind.id: "ungrammatical" for kind in self.p.kinds}, {}
        self._fixed = fixed_spans(self.wn, tokens)  # idioms.py: "black tie", "all fours", "make sure"
        results: dict[str, Perturbation | str] = {}
        rejected: dict[str, Counter] = {}
        for kind in self.p.kinds:
            usable: list[Perturbation] = []
            rej: Counter = Counter()
            if kind.relation == "color":
                add_colors(self.p, kind, question, tokens, self.sites(kind, tokens, tags), self._fixed, usable, rej)
            elif kind.relation == "delete":
                self._deletions(kind, question, tokens, tags, usable, rej)
            else:
                self._substitutions(kind, question, tokens, tags, ctx, usable, rej)
            rejected[kind.id] = rej
            if usable:
                results[kind.id] = self.p.pick(kind, question, usable)
            elif not rej:
                results[kind.id] = "no_site"
            else:
                results[kind.id] = max(sorted(rej), key=lambda r: rej[r])
        return results, rejected

    def sites(self, kind: Kind, tokens: list[Token], tags: list[str]) -> list[bool]:
        """Which tokens are sites of `kind` (computed once per question and kind class)."""
        key = (kind.relation if kind.relation == "color" else "", kind.pos)
        found = self._sites.get(key)
        if found is None:
            found = self._sites[key] = [self.p.is_site(kind, t.text, g) for t, g in zip(tokens, tags)]
        return found

    def tag_plausible(self, word: str, pos: str) -> bool:
        """False when WordNet's counts make `pos` implausible for `word` (module docstring)."""
        return self.lex.pos_plausible(word, pos)

    def agrees(self, tokens: Sequence[Token], tags: Sequence[str]) -> bool:
        """Whether a question passes grammar.py's agreement checks (a deletion's result, rule 46)."""
        return not ungrammatical(tokens, tags, lambda word: self.tag_plausible(word, "v"), self._plural_or_group)

    def _plural_or_group(self, word: str) -> bool:
        """Whether a noun may be a plural (WordNet gives another base form) or names a group
        (its first sense is in noun.group: couple, police, family): grammar.py, rule 43."""
        low = word.lower()
        if any(base != low for base in self.wn.morphy(low, "n")):
            return True
        senses = self.wn.synsets(low, "n")
        return bool(senses) and self.wn.lexname(senses[0]) == "noun.group"

    # ----------------------------------------------------------------- kinds
    def _deletions(self, kind: Kind, question: str, tokens: list[Token], tags: list[str],
                   usable: list, rej: Counter) -> None:
        found: list[Perturbation] = []
        add_deletions(self, kind, question, tokens, tags, found, rej)
        # noun compounds ("train station") are rule 16's (deletion.py); other fixed expressions stay whole
        fixed = [(a, b) for a, b in self._fixed if not all(g in ("NN", "NNS", "JJ") for g in tags[a:b + 1])]
        for pert in found:
            end = tokens[pert.position].start + len(pert.replaced)
            last = max(j for j, t in enumerate(tokens) if t.end <= end)
            if splits(fixed, pert.position, last):
                rej["idiom"] += 1  # never part of a fixed expression ("on all fours" -> "on all")
            else:
                usable.append(pert)

    def _substitutions(self, kind: Kind, question: str, tokens: list[Token], tags: list[str],
                       ctx: Callable[[], frozenset[str]], usable: list, rej: Counter) -> None:
        found_runs = noun_runs(tags) if kind.pos == "n" else []
        runs = {last: first for first, last in found_runs}
        modifiers = {i for first, last in found_runs for i in range(first, last)}
        flags = self.sites(kind, tokens, tags)
        for i, (tok, tag) in enumerate(zip(tokens, tags)):
            if not flags[i]:
                continue
            if kind.pos == "a" and tag != "JJ":
                rej["inflection"] += 1  # comparatives/superlatives
                continue
            if kind.pos == "a" and i + 1 < len(tokens) and tags[i + 1] in NOUN_TAGS and \
                    self.wn.morphy(f"{tok.text.lower()}_{tokens[i + 1].text.lower()}", "n"):
                rej["compound_part"] += 1  # "mobile home" is one noun: "wandering home" is not English
                continue
            if kind.pos == "a" and i > 0 and tags[i - 1] == "DT" and (
                    i + 1 >= len(tags) or tags[i + 1] not in ("NN", "NNS", "NNP", "JJ", "CC", ",")):
                rej["tag_mismatch"] += 1  # "in the middle": an adjective used as a noun
                continue
            first, last, lemma, allow_multi = i, i, None, True
            if kind.pos == "n":
                if frame_noun(tokens, i):
                    rej["frame_noun"] += 1  # "What kind of fruit" -> "What category of fruit" asks the same
                    continue
                if i in modifiers:
                    rej["compound_part"] += 1
                    continue
                if tag == "NN" and kind.relation != "sibling" and bare_noun(tokens, tags, runs.get(i, i)):
                    rej["bare_noun"] += 1  # "Is it winter?" -> "Is it season?", but "Is it summer?"
                    continue
                start = runs.get(i, i)
                before = tokens[start - 1].text.lower() if start > 0 else ""
                if start > 0 and tags[start - 1] in ("JJ", "VBG") and before not in self.p.colors.colors and \
                        self.wn.morphy("_".join(t.text.lower() for t in tokens[start - 1:i + 1]), "n"):
                    start -= 1  # "mobile home", "hot dog", "cutting board": a compound WordNet lists
                    # (not a color: "yellow jacket" is a jacket here, not pentobarbital)
                if start < i:
                    lemma = self._compound(tokens, start, i)
                    if lemma is None:
                        rej["compound_part"] += 1
                        continue
                    first = start
            if kind.pos == "v":
                base = self.p.lexicon.lemma(tok.text, "v", tag in ("VBZ", "VBD", "VBN", "VBG"))
                tag = verb_tag(self.stats, tok.text, base, tag, tokens, tags, i) if base else tag
                if tag is None:
                    rej["tag_mismatch"] += 1  # "need repair", "prohibit" tagged VBZ, "according to"
                    continue
            if kind.pos == "v" and i + 1 < len(tokens) and tokens[i + 1].text.lower() in PARTICLES:
                if i + 2 < len(tags) and tags[i + 2] in ("IN", "TO"):
                    rej["phrasal"] += 1  # "looking out of", "backing up to": particle or preposition?
                    continue
                base = self.p.lexicon.lemma(tok.text, "v", tag in ("VBZ", "VBD", "VBN", "VBG"))
                phrasal = f"{base}_{tokens[i + 1].text.lower()}" if base else None
                particle_object = tags[i + 1] == "IN" and i + 2 < len(tags) and tags[i + 2] in _OBJECT_START
                if phrasal and self.wn.has_lemma(phrasal, "v") and not particle_object:
                    lemma, last = phrasal, i + 1
                elif tags[i + 1] == "RP":
                    rej["phrasal"] += 1  # a particle of a phrasal verb WordNet lacks ("backing up")
                    continue
                else:
                    allow_multi = False  # "turned on" -> "changed state on" is not English
            if lemma is None and kind.pos == "n" and tag == "NNS" and plural_word(self.wn, tok.text):
                rej["ambiguous"] += 1  # "Does she have glasses?": spectacles, or two drinking glasses?
                continue
            if lemma is None:
                lemma = self.lex.counted_base(tok.text, kind.pos, self.p.lexicon.lemma(tok.text, kind.pos, tag in ("NNS", "VBZ", "VBD", "VBN", "VBG")))
                if lemma is None:
                    rej["tag_mismatch" if self._other_pos(tok.text, kind.pos) else "no_replacement"] += 1
                    continue
                in_noun_slot = kind.pos == "n" and self._noun_position(tokens, tags, runs.get(i, i))
                if not in_noun_slot and not self.tag_plausible(tok.text, kind.pos):
                    rej["tag_mismatch"] += 1
                    continue
            if kind.pos == "v" and (lemma in EXCLUDED_VERBS or (
                    lemma == "go" and i + 1 < len(tokens) and tokens[i + 1].text.lower() == "to"
                    and i + 2 < len(tags) and tags[i + 2] == "VB")):
                continue  # auxiliaries and "going to <verb>" are not content verbs: no candidate
            # a colour before a noun is read as a colour (rule 6): "the yellow jacket" is a jacket
            fixed = [(a, b) for a, b in self._fixed if tokens[a].text.lower() not in self.p.colors.colors]
            if kind.pos == "v" and last == i and i + 1 < len(tokens) and tokens[i + 1].text.lower() in PARTICLES:
                fixed = [(a, b) for a, b in fixed if (a, b) != (i, i + 1)]  # "laying in his bed": a preposition
            if splits(fixed, first, last):
                rej["idiom"] += 1  # "all fours" -> "all whole numbers", "make sure" -> "create sure"
                continue
            after = tags[last + 1] if last + 1 < len(tags) else "."
            out = self._replace(kind, question, tokens, tags[:i] + [tag] + tags[i + 1:], ctx, first, last, lemma,
                                allow_multi, after, rej)
            if out is not None:
                usable.append(out)

    # ----------------------------------------------------------------- helpers
    def _replace(self, kind: Kind, question: str, tokens: list[Token], tags: list[str],
                 ctx: Callable[[], frozenset[str]],
                 first: int, last: int, lemma: str, allow_multi: bool, after: str, rej: Counter):
        senses = self.lex.senses(lemma, kind.pos)
        if not senses:
            rej["no_replacement"] += 1
            return None
        transitive = kind.pos == "v" and after in _OBJECT_START
        if transitive:
            senses = self.lex.transitive_senses(lemma, senses)
            if not senses:
                rej["verb_frame"] += 1
                return None
        elif kind.pos == "v" and after not in ("TO", "MD") and not passive(tokens, tags, first):
            # active (a passive has its object before it), no object ("Is the cat laying in his bed?"): not
            # lay.v.01 "put", which needs one
            senses = self.lex.intransitive_senses(lemma, senses)
            if not senses:
                rej["verb_frame"] += 1
                return None
        own = set(lemma.lower().split("_"))
        sense, overlap = self.senses.choose(lemma, senses, lambda: ctx() - own)
        if not self.senses.confident(lemma, senses, sense):
            rej["ambiguous"] += 1  # the context overrode the first sense for a rarely used one
            return None
        if kind.relation in ("hyponym", "sibling") and names_the_photo(self.wn, self.lex.ancestors, sense,
                                                                      [t.text for t in tokens], first):
            rej["image_noun"] += 1  # rule 38: "in the picture" -> "in the map" asks about another medium
            return None
        choice = self.lex.choose(lemma, kind.pos, kind.relation, sense, self._slot(kind, tokens, tags, lemma, first,
                                                                                    last, transitive))
        rej.update(dict(choice.rejected))
        repl = choice.replacement
        if repl is None:
            if not choice.rejected:
                rej[choice.reason] += 1
            return None
        words = repl.target_lemma.split("_")
        if {w.lower() for w in words} & {t.text.lower() for t in tokens} - set(lemma.lower().split("_")):
            rej["in_question"] += 1  # "to the left or right" -> "to the right or right"
            return None
        if len(words) > 1 and kind.pos == "v" and (not allow_multi or after in _OBJECT_START + ("IN",)):
            rej["phrasal"] += 1
            return None
        head_tag = tags[last] if kind.pos == "n" else tags[first]
        head = words[-1] if kind.pos == "n" else words[0]
        form = head_tag == "NNS" and EVERYDAY_PLURALS.get(head) or self.stats.inflect(head, head_tag)
        if form is None:
            rej["inflection"] += 1
            return None
        if form != head and self.stats.zipf(form) < FREQUENCY_FLOOR:
            rej["rare_word"] += 1
            return None
        if kind.relation == "hypernym" and form != head and \
                self.stats.zipf(form) < self.stats.zipf(tokens[last].text.lower()) - HYPERNYM_DROP:
            rej["register"] += 1  # rule 33: "the boys" -> "the males", "men" -> "persons" (rule 11 on the forms)
            return None
        surface = " ".join(words[:-1] + [form]) if kind.pos == "n" else " ".join([form] + words[1:])
        original = question[tokens[first].start:tokens[last].end]
        if kind.relation == "synonym" and round(self._rarest(original) - self._rarest(surface), 2) >= REGISTER_DROP:
            rej["register"] += 1  # "used for" -> "applied for": lemma frequencies were close
            return None
        if surface.lower() == original.lower():
            rej["in_question"] += 1  # instal -> install: "installed" comes back as itself
            return None
        new = match_case(original, surface) if first == 0 else surface  # rule 49: not "an Asian country" -> "a Country"
        detail = f"{repl.source_synset} -> {repl.target_synset} (context {overlap:.2f})"
        return Perturbation(kind.id, question, replace_span(question, tokens, first, last, new), first, original,
                            new, lemma, repl.target_lemma, detail)

    def _slot(self, kind: Kind, tokens: list[Token], tags: list[str], lemma: str, first: int, last: int,
              transitive: bool) -> Slot:
        """What the place asks of a replacement (quality.Slot)."""
        zipf = phrase_zipf(self.stats, [w for w in lemma.lower().split("_") if w not in PARTICLES or kind.pos != "v"])
        if kind.pos != "n":
            return verb_slot(tokens, tags, first, last, transitive, zipf, kind.pos == "v")
        verbs = [b for t, g in zip(tokens, tags) if g.startswith("VB")
                 for b in [self.p.lexicon.lemma(t.text, "v", g != "VB")] if b and b not in EXCLUDED_VERBS]
        singular = tags[last] == "NN"
        neuter = any(t.text.lower() in ("it", "its", "itself") for t in tokens[last + 1:])
        count = countable(self.stats, lemma) if singular and (
            count_context(tokens, tags, first) or bare_noun(tokens, tags, first)) else None
        other = coordinated(tokens, tags, first, last, lambda w, g: self.p.lexicon.lemma(w, "n", g == "NNS"))
        return Slot(singular=singular, count=count, zipf=zipf, neuter=neuter,
                    selected=self.selection.for_noun(lemma, verbs), coordinated=other,
                    kind_of=after_kind_of(tokens, tags, first))

    def _rarest(self, text: str) -> float:
        return phrase_zipf(self.stats, text.lower().split())

    def _noun_position(self, tokens: list[Token], tags: list[str], first: int) -> bool:
        """Whether the noun run starting at `first` sits where only a noun can: after a
        determiner, number, possessive or quantifier, or after an adjective that is a
        plausible adjective ("any crosses", "a large cross"; not "the sheep wild", where
        the tagger calls "sheep" JJ); then the tag needs no check against WordNet's counts."""
        if first == 0:
            return False
        prev, tag = tokens[first - 1].text, tags[first - 1]
        if tag in ("DT", "CD", "PRP$", "POS", "PDT") or prev.lower() in (
                "many", "much", "any", "some", "what", "which", "whose"):
            return True
        return tag in ("JJ", "JJR", "JJS") and (
            prev.lower() in self.p.colors.colors or self.tag_plausible(prev, "a"))

    def _noun_site(self, word: str, tag: str) -> bool:
        low = word.lower()
        return tag in NOUN_TAGS and word[:1].isalpha() and low not in FUNCTION_WORDS and not (
            low in self.p.colors.colors and low in UNAMBIGUOUS_COLORS)

    def _compound(self, tokens: list[Token], start: int, head: int) -> str | None:
        """The WordNet lemma of the compound ending at `head` (longest listed), or None."""
        for s in range(start, head):
            phrase = "_".join(t.text.lower() for t in tokens[s:head + 1])
            bases = self.wn.morphy(phrase, "n")
            if bases:
                return bases[0]
        return None

    def _other_pos(self, word: str, pos: str) -> bool:
        return any(self.wn.morphy(word.lower(), p) for p in ("n", "v", "a") if p != pos)

    def _bases(self, text: str) -> frozenset[str]:
        found = self._context.get(text)
        if found is None:
            found = self._context[text] = frozenset(content_bases(text, self.wn))
        return found
