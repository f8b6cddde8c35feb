"""WordNet 3.0 as a prebuilt in-memory index: loads in a fraction of a second, no NLTK import.

NLTK's `WordNetCorpusReader` reads every index file and the sense map at construction
(several seconds, plus about 3 s to import nltk itself). The counterfactual generator only
needs lemma -> senses, morphy, a few pointer types, lemma counts, glosses and depths, so the
installed WordNet files (`corpora/wordnet`, found as `harness.resources.wordnet` finds them)
are parsed once into plain tuples and lists and written with `marshal` to the harness cache:

    <cache>/resources/wordnet-index-<key>.marshal

The key is a digest of the index format version and of (name, size, mtime) of every source
file, so a changed or re-installed WordNet builds a new index; stale index files are removed.
`marshal` holds only plain data written by this module into the user's own cache folder.

Semantics follow NLTK's reader exactly where the generator relies on them (tested against
it): `morphy` is NLTK's `_morphy`, `synsets` its `synsets` (adjective satellites included),
synset names (`dog.n.01`), lemma sense keys and counts (`index.sense`), pointers in the
order of the data file (NLTK keeps them in sets), `max_depth` / `min_depth` over hypernyms
and instance hypernyms.
"""

from __future__ import annotations

import marshal
import os
import re
from array import array
from pathlib import Path
from typing import Any, Sequence

__all__ = ["INDEX_VERSION", "WordNetIndex", "build_index", "index_path", "load_index", "wordnet_index"]

#: Bump when the layout or the parsing changes: old cache files are then rebuilt.
INDEX_VERSION = 3
_POS_FILES = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}
_POS_NUMBER = {"n": 1, "v": 2, "a": 3, "r": 4, "s": 5}
_FILE_POS = {"n": "n", "v": "v", "a": "a", "s": "a", "r": "r"}
#: Pointer symbols kept: hypernym, instance hypernym, hyponym, instance hyponym, similar to.
_POINTERS = {"@": 0, "@i": 1, "~": 2, "~i": 3, "&": 4}
_SUBSTITUTIONS = {
    "n": [("s", ""), ("ses", "s"), ("ves", "f"), ("xes", "x"), ("zes", "z"), ("ches", "ch"),
          ("shes", "sh"), ("men", "man"), ("ies", "y")],
    "v": [("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""), ("ing", "e"),
          ("ing", "")],
    "a": [("er", ""), ("est", ""), ("er", "e"), ("est", "e")],
    "r": [],
}  # fmt: skip
_MARKER = re.compile(r"(.*?)(\([^()]*\))?$")
_SOURCE_FILES = tuple(f"{kind}.{pos}" for kind in ("data", "index") for pos in _POS_FILES.values()) + tuple(
    f"{pos}.exc" for pos in _POS_FILES.values()) + ("index.sense", "lexnames")


class WordNetIndex:
    """Read-only WordNet 3.0: synsets are ints (`sid`), everything else plain strings/tuples."""

    def __init__(self, data: dict[str, Any]) -> None:
        # Large integer tables travel as array bytes: loading them creates no Python objects.
        self.lexnames: list[str] = data["lexnames"]
        self._lemma_data: dict[str, tuple[str, bytes, bytes]] = data["lemmas"]
        self._lemma_maps: dict[str, tuple[dict[str, int], array, array]] = {}
        self.exceptions: dict[str, dict[str, list[str]]] = data["exc"]
        s = data["syn"]
        self._name: list[str] = s["name"]
        self._pos: str = s["pos"]
        self._lex = _ints(s["lex"])
        self._words: list[tuple[str, ...]] = s["words"]
        self._counts: list[tuple[int, ...]] = s["counts"]
        self._ptr, self._ptr_off = _ints(s["ptr"]), _ints(s["ptr_off"])
        self._gloss: list[str] = s["gloss"]
        self._maxd, self._mind = _ints(s["maxd"]), _ints(s["mind"])
        self._frames: list[tuple[int, ...]] = s["frames"]
        self._by_name: dict[str, int] | None = None
        self._morphy_cache: dict[tuple[str, str], list[str]] = {}

    def _map(self, pos: str) -> tuple[dict[str, int], array, array]:
        """lemma -> row, and the flat sense table of `pos` (built on first use)."""
        found = self._lemma_maps.get(pos)
        if found is None:
            keys, flat, off = self._lemma_data[pos]
            found = self._lemma_maps[pos] = ({k: i for i, k in enumerate(keys.split("\n"))}, _ints(flat), _ints(off))
        return found

    def lemmas(self, pos: str) -> list[str]:
        """Every lemma of `pos` in index-file order ('_' for spaces)."""
        return list(self._map(pos)[0])

    def _senses(self, pos: str, lemma: str) -> tuple[int, ...]:
        rows, flat, off = self._map(pos)
        i = rows.get(lemma)
        return () if i is None else tuple(flat[off[i]:off[i + 1]])

    # ------------------------------------------------------------------ lookup
    def __len__(self) -> int:
        return len(self._name)

    def morphy(self, form: str, pos: str) -> list[str]:
        """Base forms of `form` that WordNet lists for `pos` (NLTK's `_morphy`, exceptions first)."""
        key = (form, pos)
        found = self._morphy_cache.get(key)
        if found is None:
            p = "a" if pos == "s" else pos
            exc = self.exceptions[p]
            forms = exc[form] if form in exc else [form[: -len(old)] + new for old, new in _SUBSTITUTIONS[p]
                                                     if form.endswith(old)]
            index = self._map(p)[0]
            found = list(dict.fromkeys(f for f in [form, *forms] if f in index))
            self._morphy_cache[key] = found
        return found

    def synsets(self, lemma: str, pos: str) -> list[int]:
        """Senses of `lemma` (any inflected form) for pos n/v/a/r, most frequent first (NLTK order)."""
        p = "a" if pos == "s" else pos
        return [sid for form in self.morphy(lemma.lower(), pos) for sid in self._senses(p, form)]

    def has_lemma(self, lemma: str, pos: str) -> bool:
        """Whether `lemma` (base form, '_' for spaces) is a WordNet lemma of `pos`."""
        return lemma.lower() in self._map("a" if pos == "s" else pos)[0]

    def synset(self, name: str) -> int:
        """The sid of a synset name like 'dog.n.01' (KeyError if unknown)."""
        if self._by_name is None:
            self._by_name = {n: i for i, n in enumerate(self._name)}
        return self._by_name[name]

    # ------------------------------------------------------------------ synset fields
    def name(self, sid: int) -> str:
        """NLTK's synset name, e.g. 'dog.n.01'."""
        return self._name[sid]

    def pos(self, sid: int) -> str:
        """'n', 'v', 'a', 's' (adjective satellite) or 'r'."""
        return self._pos[sid]

    def lexname(self, sid: int) -> str:
        """The lexicographer file, e.g. 'noun.animal'."""
        return self.lexnames[self._lex[sid]]

    def lemma_names(self, sid: int) -> tuple[str, ...]:
        """Lemma names in WordNet's order ('_' for spaces, case as in WordNet)."""
        return self._words[sid]

    def lemma_counts(self, sid: int) -> tuple[int, ...]:
        """SemCor tag count of each lemma (index.sense), aligned with `lemma_names`."""
        return self._counts[sid]

    def count(self, sid: int, lemma: str) -> int:
        """Tag count of `lemma` in synset `sid` (0 when it is not a lemma of it)."""
        low = lemma.lower()
        for name, n in zip(self._words[sid], self._counts[sid]):
            if name.lower() == low:
                return n
        return 0

    def _group(self, sid: int, group: int) -> tuple[int, ...]:
        k = 5 * sid + group
        return tuple(self._ptr[self._ptr_off[k]:self._ptr_off[k + 1]])

    def hypernyms(self, sid: int) -> tuple[int, ...]:
        """Immediate hypernyms in data-file order (the first is the primary parent)."""
        return self._group(sid, 0)

    def instance_hypernyms(self, sid: int) -> tuple[int, ...]:
        return self._group(sid, 1)

    def hyponyms(self, sid: int) -> tuple[int, ...]:
        return self._group(sid, 2)

    def instance_hyponyms(self, sid: int) -> tuple[int, ...]:
        return self._group(sid, 3)

    def similar_tos(self, sid: int) -> tuple[int, ...]:
        return self._group(sid, 4)

    def definition(self, sid: int) -> str:
        """The gloss without its example sentences."""
        return re.sub(r'["].*?["]', "", self._gloss[sid]).strip().strip("; ")

    def examples(self, sid: int) -> list[str]:
        """The quoted example sentences of the gloss."""
        return re.findall(r'"([^"]*)"', self._gloss[sid])

    def frames(self, sid: int, lemma: str) -> frozenset[int]:
        """WordNet's verb frame numbers (1-35, wninput(5WN)) of `lemma` in verb synset `sid`:
        the frames of the whole synset plus those listed for that lemma."""
        low = lemma.lower()
        names = [n.lower() for n in self._words[sid]]
        pairs = self._frames[sid]
        out = set()
        for k in range(0, len(pairs), 2):
            frame, word = pairs[k], pairs[k + 1]
            if word == 0 or (word <= len(names) and names[word - 1] == low):
                out.add(frame)
        return frozenset(out)

    def max_depth(self, sid: int) -> int:
        """Length of the longest hypernym path to a root (entity.n.01 has 0)."""
        return self._maxd[sid]

    def min_depth(self, sid: int) -> int:
        """Length of the shortest hypernym path to a root."""
        return self._mind[sid]


# ---------------------------------------------------------------------- building
def _source_key(folder: Path) -> str:
    from harness.digest import digest

    stats = []
    for name in _SOURCE_FILES:
        st = (folder / name).stat()
        stats.append([name, st.st_size, st.st_mtime_ns])
    return digest({"version": INDEX_VERSION, "folder": str(folder.resolve()), "files": stats})[:16]


def build_index(folder: Path) -> dict[str, Any]:
    """Parse a WordNet 3.0 dict folder (`corpora/wordnet`) into the marshal-able layout."""
    lexnames = [line.split()[1] for line in (folder / "lexnames").read_text(encoding="utf-8").splitlines()
                if line.strip()]
    lemmas: dict[str, dict[str, list[int]]] = {p: {} for p in _POS_FILES}
    raw_offsets: dict[str, dict[str, list[int]]] = {p: {} for p in _POS_FILES}
    for p, suffix in _POS_FILES.items():
        with open(folder / f"index.{suffix}", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith(" "):
                    continue
                f = line.split()
                n_synsets, n_ptr = int(f[2]), int(f[3])
                raw_offsets[p][f[0]] = [int(x) for x in f[6 + n_ptr: 6 + n_ptr + n_synsets]]
    exc: dict[str, dict[str, list[str]]] = {p: {} for p in _POS_FILES}
    for p, suffix in _POS_FILES.items():
        with open(folder / f"{suffix}.exc", encoding="utf-8") as fh:
            for line in fh:
                terms = line.split()
                if terms:
                    exc[p][terms[0]] = terms[1:]
    sense_counts: dict[str, int] = {}
    with open(folder / "index.sense", encoding="utf-8") as fh:
        for line in fh:
            key, _offset, _number, tag_count = line.split()
            sense_counts[key] = int(tag_count)

    # Pass 1: every synset line -> sid, keyed by (file pos, offset).
    names: list[str] = []
    pos_chars: list[str] = []
    lex: list[int] = []
    words: list[tuple[str, ...]] = []
    lex_ids: list[tuple[int, ...]] = []
    raw_ptrs: list[list[tuple[int, str, int]]] = []
    frames: list[tuple[int, ...]] = []
    gloss: list[str] = []
    sid_of: dict[tuple[str, int], int] = {}
    for p, suffix in _POS_FILES.items():
        with open(folder / f"data.{suffix}", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith(" "):
                    continue
                head, _, text = line.partition(" | ")
                f = head.split()
                offset, lexnum, ss_type, w_cnt = int(f[0]), int(f[1]), f[2], int(f[3], 16)
                ws, ids = [], []
                for j in range(w_cnt):
                    ws.append(_MARKER.match(f[4 + 2 * j]).group(1))
                    ids.append(int(f[5 + 2 * j], 16))
                i = 4 + 2 * w_cnt
                ptrs = []
                for _ in range(int(f[i])):
                    symbol, target, tpos, st = f[i + 1], int(f[i + 2]), f[i + 3], f[i + 4]
                    if symbol in _POINTERS and st == "0000":
                        ptrs.append((_POINTERS[symbol], _FILE_POS[tpos], target))
                    i += 4
                flat: list[int] = []
                if p == "v":  # "f_cnt + f_num w_num ...": w_num 00 = every word of the synset
                    for k in range(int(f[i + 1])):
                        flat += [int(f[i + 3 + 3 * k]), int(f[i + 4 + 3 * k], 16)]
                frames.append(tuple(flat))
                sid_of[(p, offset)] = len(names)
                names.append("")
                pos_chars.append(ss_type)
                lex.append(lexnum)
                words.append(tuple(ws))
                lex_ids.append(tuple(ids))
                raw_ptrs.append(ptrs)
                gloss.append(text.strip())
    n = len(names)
    ptr: list[tuple[tuple[int, ...], ...]] = []
    for ptrs in raw_ptrs:
        groups: list[list[int]] = [[], [], [], [], []]
        for kind, tpos, target in ptrs:
            groups[kind].append(sid_of[(tpos, target)])
        ptr.append(tuple(tuple(g) for g in groups))
    # Lemma index (sids in index-file order) and NLTK names ("%s.%s.%02i", satellites
    # numbered among the lemma's satellite senses only, as NLTK does).
    for p in _POS_FILES:
        for lemma, offs in raw_offsets[p].items():
            lemmas[p][lemma] = [sid_of[(p, o)] for o in offs]
    counts: list[tuple[int, ...]] = []
    for sid in range(n):
        pc = pos_chars[sid]
        first = words[sid][0].lower()
        sids = lemmas[_FILE_POS[pc]][first]
        # NLTK numbers a satellite among the lemma's satellites, anything else among all senses.
        same = [s for s in sids if pos_chars[s] == "s"] if pc == "s" else sids
        names[sid] = f"{first}.{pc}.{same.index(sid) + 1:02d}"
        if pc == "s":
            head = ptr[sid][4][0]
            head_name, head_id = words[head][0], f"{lex_ids[head][0]:02d}"
        else:
            head_name = head_id = ""
        counts.append(tuple(
            sense_counts.get(f"{w}%{_POS_NUMBER[pc]}:{lex[sid]:02d}:{i:02d}:{head_name}:{head_id}".lower(), 0)
            for w, i in zip(words[sid], lex_ids[sid])))
    maxd, mind = _depths(n, ptr)
    flat_ptr, ptr_off = array("i"), array("i", [0])
    for groups in ptr:
        for group in groups:
            flat_ptr.extend(group)
            ptr_off.append(len(flat_ptr))
    lemma_data = {}
    for p, d in lemmas.items():
        flat, off = array("i"), array("i", [0])
        for sids in d.values():
            flat.extend(sids)
            off.append(len(flat))
        lemma_data[p] = ("\n".join(d), flat.tobytes(), off.tobytes())
    return {
        "format": INDEX_VERSION,
        "lexnames": lexnames,
        "lemmas": lemma_data,
        "exc": exc,
        "syn": {"name": names, "pos": "".join(pos_chars), "lex": array("i", lex).tobytes(), "words": words,
                "counts": counts, "ptr": flat_ptr.tobytes(), "ptr_off": ptr_off.tobytes(), "gloss": gloss,
                "maxd": array("i", maxd).tobytes(), "mind": array("i", mind).tobytes(), "frames": frames},
    }


def _ints(data: bytes) -> array:
    """An array('i') over bytes written by `build_index`."""
    out = array("i")
    out.frombytes(data)
    return out


def _depths(n: int, ptr: Sequence[tuple[tuple[int, ...], ...]]) -> tuple[list[int], list[int]]:
    """max_depth / min_depth of every synset over hypernyms + instance hypernyms (iterative)."""
    maxd, mind = [-1] * n, [-1] * n
    for start in range(n):
        if maxd[start] >= 0:
            continue
        stack = [start]
        while stack:
            sid = stack[-1]
            parents = ptr[sid][0] + ptr[sid][1]
            todo = [q for q in parents if maxd[q] < 0]
            if todo:
                stack.extend(todo)
                continue
            stack.pop()
            if maxd[sid] >= 0:
                continue
            maxd[sid] = 1 + max((maxd[q] for q in parents), default=-1)
            mind[sid] = 1 + min((mind[q] for q in parents), default=-1)
    return maxd, mind


# ---------------------------------------------------------------------- cache
def index_path(folder: Path) -> Path:
    """Where the index of the WordNet files in `folder` is cached (the key names the sources)."""
    from harness.paths import cache_dir

    return cache_dir("resources") / f"wordnet-index-{_source_key(folder)}.marshal"


def load_index(folder: Path) -> WordNetIndex:
    """The index for `folder`: read from the cache, or built, written atomically and read."""
    path = index_path(folder)
    try:
        data = marshal.loads(path.read_bytes())
        if isinstance(data, dict) and data.get("format") == INDEX_VERSION:
            return WordNetIndex(data)
    except (OSError, EOFError, ValueError, TypeError):
        pass  # missing or damaged: rebuild
    data = build_index(folder)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(marshal.dumps(data))
    os.replace(tmp, path)
    for old in path.parent.glob("wordnet-index-*.marshal"):
        if old != path:
            try:
                old.unlink()
            except OSError:
                pass
    return WordNetIndex(data)


_LOADED: dict[str, WordNetIndex] = {}
_FOUND: dict[tuple[Any, ...], str] = {}


def wordnet_index(target: Path | str | None = None) -> WordNetIndex:
    """The WordNet index of the installed WordNet (cached per process and on disk), or
    ResourceError naming `harness resources install` when WordNet is not installed."""
    from .base import quick_state
    from .wordnet_corpus import wordnet_folder

    state = quick_state(target)
    key = _FOUND.get(state)
    if key is None or key not in _LOADED:
        folder = wordnet_folder(target)
        key = _FOUND[state] = str(folder)
        if key not in _LOADED:
            _LOADED[key] = load_index(folder)
    return _LOADED[key]
