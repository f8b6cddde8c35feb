"""The one split of VQA-X val into a tune half and a held-out half (issue 24, issue 27's protocol).

    python benchmarks/cf_split.py [--data-dir ../shared/data]      # prints the sizes of the halves

Rules and settings of the counterfactual generator's quality mode are written and tuned by
looking at the **tune** half only; the **held-out** half is for the blind judgement and the
coverage figures in docs/counterfactual.md. The split is made once and never changes:

- a question's half is decided by its *text*, not its id: VQA-X val repeats questions ("What
  room is this?" 58 times), and a question seen while tuning must not come back in the
  held-out half under another id;
- text key = the question lower-cased, runs of white space made one space, stripped;
- half = "tune" when the first 8 hex digits of sha256("vqax-val-half-v1\\x1f" + key), read as
  an integer, are even, else "heldout".

No randomness, no seed: the same file gives the same halves on any machine.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
from collections import Counter
from pathlib import Path

__all__ = ["HALVES", "SALT", "half_of", "load_half", "question_key"]

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
SALT = "vqax-val-half-v1"
HALVES = ("tune", "heldout")


def question_key(question: str) -> str:
    """The text a question's half is decided by: lower case, one space between words."""
    return re.sub(r"\s+", " ", question.lower()).strip()


def half_of(question: str) -> str:
    """"tune" or "heldout" (module docstring)."""
    digest = hashlib.sha256(f"{SALT}\x1f{question_key(question)}".encode()).hexdigest()
    return HALVES[int(digest[:8], 16) % 2]


def load_half(data_dir: Path, half: str) -> tuple[list[str], list[str], list[tuple[str, ...]]]:
    """(example ids, questions, human answers) of one half of vqaX_val.json, in file order;
    `half` "all" gives the whole file."""
    if half not in (*HALVES, "all"):
        raise SystemExit(f"unknown half {half!r}: use tune, heldout or all")
    path = data_dir / "vqax" / "vqaX_val.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise SystemExit(f"{path}: cannot read VQA-X val ({exc})") from None
    ids = [i for i, row in data.items() if half == "all" or half_of(row["question"]) == half]
    return ids, [data[i]["question"] for i in ids], [tuple(a["answer"] for a in data[i]["answers"]) for i in ids]


def main() -> None:
    """Print the sizes of the halves (questions and distinct question texts)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=DATA)
    args = parser.parse_args()
    for half in HALVES:
        ids, questions, _ = load_half(args.data_dir, half)
        texts = Counter(question_key(q) for q in questions)
        print(f"{half}: {len(ids)} questions, {len(texts)} distinct question texts")


if __name__ == "__main__":
    main()
