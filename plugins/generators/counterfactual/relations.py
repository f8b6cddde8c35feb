"""The noun relations of the quality mode: the candidates of each relation (`candidate_groups`:
a sense itself, its hyponyms, its siblings and animal cousins, its chain of parents) and the
checks of the fifth and sixth rounds (issue 24; docs/counterfactual.md, rules 31-33, 35-39).

Fifth round (rules 31-33), written from the tune half's judged rows only (the blind judge's reasons: a sibling that is
really a broader or narrower term or unrelated, room -> "auditorium", vehicle -> "machine",
lamp -> "light", camera -> "ball", snowboarder -> "man"; guy -> "man" as a hypernym is the
same word in another register; computer -> "website"; "the males", "the persons"):

- **specific parents** (`SIBLING_PARENT_DEPTH`, `abstract`): co-ordinate terms only under a
  parent at least this deep in WordNet (max depth): under organism (animal -> "person"),
  area (scene -> "center"), way, facility, structure, nutriment (meal -> "dish"), fluid,
  instrumentality the children share too little to be alternatives for one another;
- **cousins among animals only** (`COUSIN_LEXNAMES`): a child of a grandparent's other child
  stands for the word where the taxonomy is deep and its levels are real kinds (cat ->
  "dog"); among artifacts, persons, food and plants it was another thing (vehicle ->
  "machine", camera -> "ball", mirror -> "weapon", chef -> "officer", dessert -> "dinner");
- **other names** (`another_name`, `synonym` / `register`): a sense whose WordNet gloss
  calls it a term, name or reference for something ("guy: an informal term for a youth or
  man", "lady: a polite name for any woman", "boy: a friendly informal reference to a grown
  man") names its parent in another register: it has no hypernym (guy -> "man" asks the
  same), no hyponym or sibling (lady -> "wife", guy -> "old man" are its parent's kinds), and
  it is no hyponym or sibling of anything (guy -> "boy");
- **same kind of thing** (`sense_mismatch`): a hyponym is in the word's lexicographer file,
  as hypernyms are (rule 17): computer (an artifact) -> "website" (a communication) is a
  WordNet quirk, not a kind of computer.

Sixth round (rules 35-39, written from the tune half and the fifth round's judged rows) and
seventh (rule 40, from the tune half and the sixth round's judged rows):

- **kin only for kin** (`kinship`): a sibling that WordNet files under relative.n.01 names
  a relation to someone, not another kind of person one sees (girl -> "wife"); it stands in
  only for a word that is itself a relative (mother -> "father"). Since the twelfth round
  (rule 52) the same holds for a hyponym: a wife is a kind of woman, but not one a photo
  shows (woman -> "wife", failed twice);
- **not the compound's own head** (`head`): for a compound (a lemma of several words), a
  sibling synset one of whose names is made of the compound's own words is what the
  compound is a kind of ("military plane" -> "plane" or "airplane": WordNet files airplane
  beside military plane, under heavier-than-air
  craft);
- **hyphenated words need evidence** (`rare_word`): wordfreq splits a hyphenated word and
  rates its parts ("pull" and "off" are common, "pull-off" is not), so a hyphenated hyponym
  or sibling needs a SemCor use in its sense (kickstand -> "stair-rod", room -> "pull-off",
  baby -> "man-child"); since the fifteenth round (rule 56) so does a sibling of several
  words, for the same reason: "car" and "train" are common, "car train" is no term (freight
  train -> "car train", shower curtain -> "drop curtain": 4 of 4 judged rows failed). Not a
  hyponym: half of the judged several-word hyponyms SemCor never uses read well ("house
  cat", "brown bear"), and requiring a use cost 12 to 17 points of hyponym coverage;
- **related words, not neighbours in the tree** (`dissimilar`, `SIMILARITY_FLOOR`): a
  sibling whose words are far from the word's in the sentence model's embedding space
  shares only a shallow or functional parent with it (elephant -> "mouse" as a cousin,
  floor -> "platform" under horizontal surface, button -> "lock" under fastener, ball ->
  "counter" under game equipment); a hyponym that far is a kind of another sense of the
  word ("What holiday is it?" -> "picnic", intersection -> "vertex", wine -> "vintage");
  the next candidate in rank order is tried instead;
- **people by sex, age and kinship** (`person_role`, `PERSON_ROOTS`, seventh round): a
  person's siblings come only from under male or female person (man -> "boy", woman ->
  "girl") or relative (mother -> "father"), not from role classes (rider -> "companion",
  customer -> "drinker") or near-synonyms (child -> "youth");
- **young people are no kind of adult** (`person_role`, hypernyms, rule 44, ninth round): a
  person whose gloss calls them young gets no hypernym under adult.n.01 (girl -> not
  "woman"), and (rule 52, twelfth round) an adult no young hyponym (woman -> not "girl";
  girl -> "young girl" stays);
- **far from the word** (`far_apart`, eleventh and twelfth rounds, rules 47 and 51): the
  test of rule 39 also for hypernyms (HYPERNYM_SIMILARITY_FLOOR; a hypernym among
  TOP_CATEGORIES is exempt, and a dissimilar one ends its chain in quality.py) and for verb
  synonyms (VERB_SIMILARITY_FLOOR);
- **the photo itself** (`image_noun`, `names_the_photo`): the photograph a question asks
  about (photograph.n.01 and its kinds, and picture.n.01 in "in/of/on/from the/this
  picture") is the medium, not its content; its hyponyms and siblings change the medium
  ("in the picture" -> "in the map", "an old photo" -> "an old snapshot").
"""

from __future__ import annotations

import re
from typing import Any, Callable

__all__ = ["ABSTRACT_LEXNAMES", "COUSIN_LEXNAMES", "HYPERNYM_SIMILARITY_FLOOR", "MIN_HYPERNYM_DEPTH",
           "SIBLING_PARENT_DEPTH", "SIMILARITY_FLOOR", "TOPS_DEPTH", "TOP_CATEGORIES", "VERB_SIMILARITY_FLOOR",
           "another_name", "candidate_groups", "far_apart", "names_the_photo", "relation_misfit"]

#: Lexicographer files of abstract nouns: their co-ordinate terms are no alternative a
#: reader puts in a question about an image (sport -> escape, company -> religion).
ABSTRACT_LEXNAMES = frozenset(f"noun.{n}" for n in (
    "act", "event", "cognition", "communication", "attribute", "state", "feeling", "motive", "relation",
    "process", "phenomenon", "quantity", "group", "possession", "shape"))
#: Hyponyms of WordNet's top concepts (noun.Tops: animal, person, plant) come from this
#: many levels below: the immediate ones mix kinds with roles (female, adult, young).
TOPS_DEPTH = 3
#: Hypernyms and sibling parents with a smaller max depth are abstract (entity is 0,
#: physical entity 1, object/abstraction's children 2, whole/event 3, artifact/act 4).
MIN_HYPERNYM_DEPTH = 5
#: A sibling's parent needs at least this max depth (MIN_HYPERNYM_DEPTH, 5, is the
#: hypernyms' limit; organism, area, way, facility, structure and nutriment are at 5).
SIBLING_PARENT_DEPTH = 6
#: Lexicographer files in which a cousin may stand in when the parent offers no sibling.
COUSIN_LEXNAMES = frozenset({"noun.animal"})
#: A hyponym's or sibling's words and the word's need at least this cosine similarity (the
#: sentence model's input embeddings, sense_vectors.word_similarity). Siblings a reader
#: would weigh against each other (cat/dog 0.42, bus/train 0.35, bench/chair 0.22) and kinds
#: (room/kitchen 0.32, bird/parrot 0.40) lie above it; things that only share a shallow
#: WordNet parent (floor/platform 0.18, elephant/mouse 0.19, ball/counter -0.04) and kinds
#: of another sense (holiday/picnic 0.15, intersection/vertex 0.09, wine/vintage 0.06)
#: mostly below it. Set on the tune half (docs/counterfactual.md, sixth round).
SIMILARITY_FLOOR = 0.2
#: A hypernym's words and the word's need at least this similarity (rule 47, eleventh
#: round), unless the hypernym is one of TOP_CATEGORIES (baby/person 0.07): parents
#: a reader would use (dog/animal 0.49, chair/seat 0.48, hat/clothing 0.23, wall/structure
#: 0.15) lie above it; parents of another sense of the word (cake/block 0.01, mirror/device
#: 0.02, design/organization 0.09, hood/criminal 0.06) and parts called kinds
#: (foreground/view 0.13, intersection/point 0.15) mostly below it. Set on the tune half and
#: the judged rows of the eighth to tenth rounds (docs/counterfactual.md).
HYPERNYM_SIMILARITY_FLOOR = 0.15
#: A verb's synonym and the verb need at least this similarity (rule 51, twelfth round):
#: verbs a reader swaps (buy/purchase 0.75, appear/seem 0.56, happen/occur 0.56, close/shut
#: 0.37, put/place 0.36) lie above it; synonyms in a sense or construction the question does
#: not use mostly below it (say/tell 0.355 and call/name 0.29, failed ten times on
#: VQA-X test and VQA v2 val; show/present 0.25, go/move 0.26, indicate/point 0.17,
#: contribute/lend 0.18). Set on the tune half and the judged rows of the eighth to twelfth
#: rounds (docs/counterfactual.md).
VERB_SIMILARITY_FLOOR = 0.36
#: The categories under which a reader names any member by its category ("the person", "the
#: animal", "the plant"), however far its word lies from the category's; not noun.Tops as a
#: whole, which also holds "article" (one of a class of artifacts): cup -> "article".
TOP_CATEGORIES = frozenset({"person.n.01", "animal.n.01", "plant.n.02"})
#: Where kinship terms sit in WordNet: a relative (wife, mother, offspring) names a relation.
KIN_ROOT = "relative.n.01"
#: People in a photo are told apart by sex and age, which WordNet files under male and
#: female person (man/boy, woman/girl), and relatives by kinship (mother/father, under
#: relative); its other person classes group roles (traveler: rider, companion, tourist;
#: consumer: customer, drinker) or near-synonyms (juvenile: child, kid, youth), whose
#: members are no alternatives for one another in a question about a photo.
PERSON_ROOTS = ("male.n.02", "female.n.02", KIN_ROOT)
ADULT = "adult.n.01"
_YOUNG = re.compile(r"\b(?:young|youthful|child)\b")
#: The photograph itself, always; the picture only in a prepositional phrase ("in the picture").
PHOTO_ROOT, PICTURE = "photograph.n.01", "picture.n.01"
_PHOTO_PHRASE = (frozenset("in of on from".split()), frozenset("the this that".split()))
_NAME_FOR = re.compile(r"^(?:an? )?(?:[a-z-]+ ){0,3}?(?:terms?|names?|references?) (?:for|to) ")


def another_name(wn: Any, sid: int) -> bool:
    """Whether the gloss of `sid` says it is a term, name or reference for something
    ("an informal term for a youth or man", "informal terms for a mother")."""
    return bool(_NAME_FOR.match(wn.definition(sid)))


#: sid -> its ancestors (any parent, instances too): `QualityLexicon.ancestors`, memoized.
Ancestors = Callable[[int], frozenset[int]]


def _under(ancestors: Ancestors, sid: int, root: int) -> bool:
    """Whether `root` is `sid` or one of its ancestors."""
    return sid == root or root in ancestors(sid)


def names_the_photo(wn: Any, ancestors: Ancestors, sense: int, words: list[str], first: int) -> bool:
    """Whether the noun in `sense` starting at word `first` of the question is the photo the
    question is about (module docstring): a photograph, or a picture after a preposition and
    a determiner ("Does the person in the picture look tired?")."""
    if _under(ancestors, sense, wn.synset(PHOTO_ROOT)):
        return True
    return sense == wn.synset(PICTURE) and first >= 2 and words[first - 2].lower() in _PHOTO_PHRASE[0] and \
        words[first - 1].lower() in _PHOTO_PHRASE[1]


def relation_misfit(wn: Any, ancestors: Ancestors, relation: str, sense: int, synset: int, lemma: str = "",
                    name: str = "") -> str:
    """The fifth and sixth rounds' test of a hyponym or sibling candidate `synset` (named
    `name`) of `sense` (of `lemma`), and the ninth round's of a hypernym: "person_role" for
    an adult as a young person's hypernym or a young person as an adult's hyponym (rule
    52), "register" for another name, "sense_mismatch" for a
    hyponym of another lexicographer file, "kinship" for a relative as the sibling or
    hyponym of someone who is not one, "head" for a sibling named by the word's own words, "rare_word" for a
    hyphenated name or a sibling of several words (rule 56) SemCor never uses in `synset`, "" when it passes
    (module docstring)."""
    if relation == "hypernym":
        return "person_role" if _young_to_adult(wn, ancestors, sense, synset) else ""
    if relation not in ("hyponym", "sibling"):
        return ""
    if relation == "hyponym" and _young_to_adult(wn, ancestors, synset, sense) and \
            not _YOUNG.search(wn.definition(sense)):
        return "person_role"  # rule 52: woman -> "girl" is rule 44 the other way round (girl -> "young girl" stays)
    own = set(lemma.lower().split("_"))
    if relation == "sibling" and "_" in lemma and any(set(n.lower().split("_")) <= own for n in wn.lemma_names(synset)):
        return "head"  # "military plane" -> "plane" or "airplane" (airplane.n.01 is named "plane" too)
    if ("-" in name or "_" in name and relation == "sibling") and wn.count(synset, name) == 0:
        return "rare_word"  # kickstand -> "stair-rod", baby -> "man-child"; rule 56: freight train -> "car train"
    kin = wn.synset(KIN_ROOT)
    if _under(ancestors, synset, kin) and not _under(ancestors, sense, kin):
        return "kinship"  # girl -> "wife" (mother -> "father" stays); rule 52: woman -> "wife"
    if another_name(wn, synset):
        return "register"  # guy -> "boy" (a friendly informal reference to a grown man)
    if another_name(wn, sense):
        return "register"  # lady ("a polite name for any woman") -> "wife", guy -> "old man"
    if relation == "hyponym" and wn.lexname(synset) != wn.lexname(sense) and wn.lexname(sense) != "noun.Tops":
        return "sense_mismatch"  # computer -> "website" (a noun.Tops root keeps its kinds: animal -> dog)
    return ""


def _young_to_adult(wn: Any, ancestors: Ancestors, sense: int, synset: int) -> bool:
    """Rule 44: a person whose gloss calls them young is no kind of adult, whatever WordNet's
    parent says (girl.n.01 "a young woman" -> not "woman"; judged wrong in two rounds)."""
    return wn.lexname(sense) == "noun.person" and bool(_YOUNG.search(wn.definition(sense))) and \
        _under(ancestors, synset, wn.synset(ADULT))


def far_apart(vectors: Any, relation: str, lemma: str, name: str, top: bool = False, pos: str = "n") -> str:
    """"dissimilar" when a hyponym or sibling `name` of `lemma` lies below SIMILARITY_FLOOR
    from it in the embedding space (`vectors`: sense_vectors.SenseVectors; module docstring),
    a hypernym that is not a top category (`top`: TOP_CATEGORIES) below
    HYPERNYM_SIMILARITY_FLOOR, or a verb's synonym (`pos` "v") below VERB_SIMILARITY_FLOOR;
    else "". The last test of a candidate: the place's tests count their reasons first."""
    if relation in ("hyponym", "sibling"):
        floor = SIMILARITY_FLOOR
    elif relation == "hypernym" and not top:
        floor = HYPERNYM_SIMILARITY_FLOOR
    elif relation == "synonym" and pos == "v":
        floor = VERB_SIMILARITY_FLOOR
    else:
        return ""
    if vectors is None:
        return ""
    similar = vectors.word_similarity(lemma.lower().split("_"), name.lower().split("_"))
    return "dissimilar" if similar is not None and similar < floor else ""


def candidate_groups(wn: Any, ancestors: Ancestors, relation: str, sense: int, memo: dict
                     ) -> tuple[list[list[int]], str]:
    """The candidate synsets of `relation` for `sense`, in groups examined in order (a sibling
    group, then cousins; hypernyms one level per group), and "abstract" when the relation is
    refused for an abstract sense or parent (quality.py's docstring; rules 3, 15, 17, 31).
    `memo` keeps the descendants of noun.Tops senses between calls."""
    if relation == "synonym":
        return [[sense]], ""
    if relation == "hyponym":
        if wn.max_depth(sense) <= MIN_HYPERNYM_DEPTH:
            return [], "abstract"  # event -> "miracle", activity -> "work"
        if wn.lexname(sense) == "noun.Tops":
            return [_descendants(wn, sense, TOPS_DEPTH, memo)], ""  # animal -> dog, not "female"
        return [sorted(wn.hyponyms(sense), key=wn.name)], ""
    parent = (wn.hypernyms(sense) or wn.instance_hypernyms(sense))[:1]
    if relation == "sibling":
        if not parent:
            return [], ""
        if wn.max_depth(parent[0]) < SIBLING_PARENT_DEPTH or wn.lexname(sense) in ABSTRACT_LEXNAMES:
            return [], "abstract"  # sport -> "escape", event -> "knowledge", animal -> "person"
        if wn.lexname(sense) == "noun.person" and not any(_under(ancestors, parent[0], wn.synset(r)) for r in PERSON_ROOTS):
            return [], "person_role"  # rider -> "companion", child -> "youth"; man -> "boy" stays
        instance = sense in wn.instance_hyponyms(parent[0])
        kids = wn.instance_hyponyms(parent[0]) if instance else wn.hyponyms(parent[0])
        groups = [sorted((s for s in kids if s != sense), key=wn.name)]
        grand = wn.hypernyms(parent[0])[:1]
        if not instance and grand and wn.max_depth(grand[0]) >= MIN_HYPERNYM_DEPTH and \
                wn.lexname(sense) in COUSIN_LEXNAMES:
            # Cousins, when the siblings offer nothing: cat (under feline) -> dog (under canine);
            # everyday words only (BASIC_LEVEL_ZIPF), not "eater" (an apple) for vegetable.
            groups.append(sorted((c for u in wn.hyponyms(grand[0]) if u != parent[0] for c in wn.hyponyms(u)),
                                 key=wn.name))
        return groups, ""
    # hypernym: the first-parent chain, nearest first, down to the abstract top.
    chain, cur = [], sense
    while True:
        up = (wn.hypernyms(cur) or wn.instance_hypernyms(cur))[:1]
        if not up or wn.max_depth(up[0]) < MIN_HYPERNYM_DEPTH:
            break
        chain.append([up[0]])
        cur = up[0]
    return chain, ("abstract" if not chain and (wn.hypernyms(sense) or wn.instance_hypernyms(sense)) else "")


def _descendants(wn: Any, sense: int, depth: int, memo: dict) -> list[int]:
    """Hyponyms of `sense` down to `depth` levels (no instances), nearest first."""
    found = memo.get((sense, depth))
    if found is None:
        out, level = [], [sense]
        for _ in range(depth):
            level = sorted({h for s in level for h in wn.hyponyms(s)} - set(out), key=wn.name)
            out.extend(level)
        found = memo[(sense, depth)] = out
    return found
