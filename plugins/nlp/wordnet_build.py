"""Parse the WordNet 3.0 dict files into the plain-data layout of `wordnet_index` (run
once per installed WordNet; the result is cached, see wordnet_index.py)."""

from __future__ import annotations

from array import array
from pathlib import Path
from typing import Any, Iterator, Sequence

from harness.errors import ResourceError
from harness.paths import cache_dir

from .base import check_cached, folder_stamps
from .indexfiles import cache_name, marshal_file, older_versions
from .wordnet_format import FILE_POS, INDEX_VERSION, MARKER, POINTERS, POS_FILES, POS_NUMBER

__all__ = ["SOURCE_FILES", "build_index", "check_folder", "index_path", "load_data"]

#: The WordNet files the index is built from (and `nlp.identity` digests).
SOURCE_FILES = tuple(f"{kind}.{pos}" for kind in ("data", "index") for pos in POS_FILES.values()) + tuple(
    f"{pos}.exc" for pos in POS_FILES.values()) + ("index.sense", "lexnames")

#: What to do about a damaged file (the harness's own copy is replaced by `install`).
_FIX = "the WordNet files are damaged; run `harness resources install` (it replaces a damaged copy of its own)"


class _Lines:
    """The lines of one WordNet file, remembering which is being parsed (for the error)."""

    def __init__(self) -> None:
        self.path: Path | None = None
        self.number = 0

    def read(self, path: Path) -> Iterator[str]:
        self.path, self.number = path, 0
        try:
            blob = path.read_bytes()
        except OSError as exc:
            raise ResourceError(f"{path}: cannot read ({exc.strerror or exc}); {_FIX}") from None
        try:
            text = blob.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = blob.count(b"\n", 0, exc.start) + 1
            raise ResourceError(f"{path}: line {line}: not UTF-8 (byte {exc.start}); {_FIX}") from None
        for self.number, line in enumerate(text.splitlines(keepends=True), 1):
            yield line


def index_path(folder: Path) -> Path:
    """Where the index of the WordNet files in `folder` is cached (the key names the sources)."""
    stamps = folder_stamps(folder, SOURCE_FILES,
                           "the WordNet files are damaged or unreadable; run `harness resources install`")
    name = cache_name("wordnet-index", str(folder.resolve()), {"version": INDEX_VERSION, "files": stamps})
    return cache_dir("resources") / name


def load_data(folder: Path) -> dict[str, Any]:
    """The index data for `folder`: read from the cache, or built and written atomically."""
    path = index_path(folder)
    return marshal_file(path, lambda: build_index(folder),
                        valid=lambda d: isinstance(d, dict) and d.get("format") == INDEX_VERSION,
                        older=older_versions(path.name))


def check_folder(folder: Path) -> str:
    """"" when the WordNet files in `folder` can be read into the index (its cache file for
    these very files exists, or building it succeeds, which caches it), else the problem."""
    try:
        cache_file = index_path(folder)
    except ResourceError as exc:
        return str(exc)
    return check_cached(cache_file, lambda: load_data(folder))


def build_index(folder: Path) -> dict[str, Any]:
    """Parse a WordNet 3.0 dict folder (`corpora/wordnet`) into the marshal-able layout; a
    damaged file (truncated, not UTF-8, a malformed line) is one ResourceError naming the
    file and line."""
    lines = _Lines()
    try:
        return _build(folder, lines)
    except (ValueError, IndexError, KeyError) as exc:
        if isinstance(exc, _Dangling):
            raise ResourceError(f"{exc.args[0]}; {_FIX}") from None
        if lines.path is None:
            raise ResourceError(f"{folder}: the WordNet files do not fit together "
                                f"({type(exc).__name__}: {exc}); {_FIX}") from None
        raise ResourceError(f"{lines.path}: line {lines.number} is malformed "
                            f"({type(exc).__name__}: {exc}); {_FIX}") from None


class _Dangling(KeyError):
    """A reference to a synset that no data file holds (a truncated data file)."""


def _synset(sid_of: dict[tuple[str, int], int], folder: Path, pos: str, offset: int, by: str) -> int:
    found = sid_of.get((pos, offset))
    if found is None:
        raise _Dangling(f"{folder / ('data.' + POS_FILES[pos])}: no synset at offset {offset} "
                        f"(referred to by {by}; the file is truncated or damaged)")
    return found


def _build(folder: Path, lines: _Lines) -> dict[str, Any]:
    lexnames = [line.split()[1] for line in lines.read(folder / "lexnames") if line.strip()]
    lemmas: dict[str, dict[str, list[int]]] = {p: {} for p in POS_FILES}
    raw_offsets: dict[str, dict[str, list[int]]] = {p: {} for p in POS_FILES}
    for p, suffix in POS_FILES.items():
        for line in lines.read(folder / f"index.{suffix}"):
            if line.startswith(" "):
                continue
            f = line.split()
            n_synsets, n_ptr = int(f[2]), int(f[3])
            offsets = [int(x) for x in f[6 + n_ptr: 6 + n_ptr + n_synsets]]
            if len(offsets) != n_synsets:
                raise ValueError(f"{n_synsets} synset offsets announced, {len(offsets)} found")
            raw_offsets[p][f[0]] = offsets
    exc: dict[str, dict[str, list[str]]] = {p: {} for p in POS_FILES}
    for p, suffix in POS_FILES.items():
        for line in lines.read(folder / f"{suffix}.exc"):
            terms = line.split()
            if terms:
                exc[p][terms[0]] = terms[1:]
    sense_counts: dict[str, int] = {}
    for line in lines.read(folder / "index.sense"):
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
    origins: list[str] = []
    for p, suffix in POS_FILES.items():
        for line in lines.read(folder / f"data.{suffix}"):
            if line.startswith(" "):
                continue
            head, _, text = line.partition(" | ")
            f = head.split()
            offset, lexnum, ss_type, w_cnt = int(f[0]), int(f[1]), f[2], int(f[3], 16)
            ws, ids = [], []
            for j in range(w_cnt):
                ws.append(MARKER.match(f[4 + 2 * j]).group(1))
                ids.append(int(f[5 + 2 * j], 16))
            i = 4 + 2 * w_cnt
            ptrs = []
            for _ in range(int(f[i])):
                symbol, target, tpos, st = f[i + 1], int(f[i + 2]), f[i + 3], f[i + 4]
                if symbol in POINTERS and st == "0000":
                    ptrs.append((POINTERS[symbol], FILE_POS[tpos], target))
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
            origins.append(f"{suffix} synset {offset}")
    lines.path = None  # from here on, a failure is files that do not fit together
    n = len(names)
    ptr: list[tuple[tuple[int, ...], ...]] = []
    for origin, ptrs in zip(origins, raw_ptrs):
        groups: list[list[int]] = [[], [], [], [], []]
        for kind, tpos, target in ptrs:
            groups[kind].append(_synset(sid_of, folder, tpos, target, f"a pointer of {origin}"))
        ptr.append(tuple(tuple(g) for g in groups))
    # Lemma index (sids in index-file order) and NLTK names ("%s.%s.%02i", satellites
    # numbered among the lemma's satellite senses only, as NLTK does).
    for p in POS_FILES:
        for lemma, offs in raw_offsets[p].items():
            lemmas[p][lemma] = [_synset(sid_of, folder, p, o, f"index.{POS_FILES[p]} lemma {lemma!r}") for o in offs]
    counts: list[tuple[int, ...]] = []
    for sid in range(n):
        pc = pos_chars[sid]
        first = words[sid][0].lower()
        sids = lemmas[FILE_POS[pc]][first]
        # NLTK numbers a satellite among the lemma's satellites, anything else among all senses.
        same = [s for s in sids if pos_chars[s] == "s"] if pc == "s" else sids
        names[sid] = f"{first}.{pc}.{same.index(sid) + 1:02d}"
        if pc == "s":
            head = ptr[sid][4][0]
            head_name, head_id = words[head][0], f"{lex_ids[head][0]:02d}"
        else:
            head_name = head_id = ""
        counts.append(tuple(
            sense_counts.get(f"{w}%{POS_NUMBER[pc]}:{lex[sid]:02d}:{i:02d}:{head_name}:{head_id}".lower(), 0)
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
