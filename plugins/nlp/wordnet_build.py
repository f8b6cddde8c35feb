"""Parse the WordNet 3.0 dict files into the plain-data layout of `wordnet_index` (run
once per installed WordNet; the result is cached, see wordnet_index.py)."""

from __future__ import annotations

from array import array
from pathlib import Path
from typing import Any, Sequence

from .wordnet_format import FILE_POS, INDEX_VERSION, MARKER, POINTERS, POS_FILES, POS_NUMBER

__all__ = ["build_index"]


def build_index(folder: Path) -> dict[str, Any]:
    """Parse a WordNet 3.0 dict folder (`corpora/wordnet`) into the marshal-able layout."""
    lexnames = [line.split()[1] for line in (folder / "lexnames").read_text(encoding="utf-8").splitlines()
                if line.strip()]
    lemmas: dict[str, dict[str, list[int]]] = {p: {} for p in POS_FILES}
    raw_offsets: dict[str, dict[str, list[int]]] = {p: {} for p in POS_FILES}
    for p, suffix in POS_FILES.items():
        with open(folder / f"index.{suffix}", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith(" "):
                    continue
                f = line.split()
                n_synsets, n_ptr = int(f[2]), int(f[3])
                raw_offsets[p][f[0]] = [int(x) for x in f[6 + n_ptr: 6 + n_ptr + n_synsets]]
    exc: dict[str, dict[str, list[str]]] = {p: {} for p in POS_FILES}
    for p, suffix in POS_FILES.items():
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
    for p, suffix in POS_FILES.items():
        with open(folder / f"data.{suffix}", encoding="utf-8") as fh:
            for line in fh:
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
    n = len(names)
    ptr: list[tuple[tuple[int, ...], ...]] = []
    for ptrs in raw_ptrs:
        groups: list[list[int]] = [[], [], [], [], []]
        for kind, tpos, target in ptrs:
            groups[kind].append(sid_of[(tpos, target)])
        ptr.append(tuple(tuple(g) for g in groups))
    # Lemma index (sids in index-file order) and NLTK names ("%s.%s.%02i", satellites
    # numbered among the lemma's satellite senses only, as NLTK does).
    for p in POS_FILES:
        for lemma, offs in raw_offsets[p].items():
            lemmas[p][lemma] = [sid_of[(p, o)] for o in offs]
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
