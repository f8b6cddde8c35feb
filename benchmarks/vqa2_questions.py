"""VQA v2 questions as a test source for the counterfactual judging rounds (issue 24, twelfth
round on: docs/counterfactual.md, "Twelfth to fourteenth rounds").

    python benchmarks/vqa2_questions.py QUESTIONS OUT [--data-dir ../shared/data] [--exclude FILE]

QUESTIONS is VQA v2's `v2_OpenEnded_mscoco_val2014_questions.json`, or a folder of `*.txt`
pieces of that file (each a slice of its text, cut anywhere: only the question records
wholly inside a piece are read). OUT gets the questions in the VQA-X layout that
`counterfactual_heldout.py --half test --test-file OUT` reads: one record per question id,
with the question, the image id and no answers (`answers: []`; the quality mode then has
no human answers as sense context, and the common colours come from the questions alone).

Left out: every question whose text (cf_split.question_key) occurs in VQA-X val, read by
the rule writers, or in the VQA-X test file given with `--exclude` (whose fresh questions
the eighth to eleventh rounds drew from). Prints counts only, never a question: the person
running it writes rules and must not read the questions.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from cf_split import DATA, load_half, load_test, question_key  # noqa: E402  (benchmarks/ is on sys.path)

#: One record of the VQA v2 questions file, as the file writes it.
RECORD = re.compile(r'\{"image_id": (\d+), "question": "((?:[^"\\]|\\.)*)", "question_id": (\d+)\}')


def _texts(path: Path) -> list[str]:
    """The text of the questions file, or of each piece in a folder of pieces."""
    files = sorted(path.glob("*.txt")) if path.is_dir() else [path]
    if not files:
        raise SystemExit(f"{path}: no *.txt pieces in this folder")
    try:
        return [f.read_text(encoding="utf-8") for f in files]
    except (OSError, UnicodeDecodeError) as exc:
        raise SystemExit(f"{path}: cannot read ({exc})") from None


def _known(data_dir: Path, excluded: list[Path]) -> set[str]:
    """The question texts of VQA-X val and of the VQA-X files in `excluded` (read and checked
    by cf_split, one line and exit 1 on a bad file)."""
    questions = load_half(data_dir, "all")[1]
    for path in excluded:
        questions = questions + load_test(path, data_dir, fresh=False)[1]
    return {question_key(q) for q in questions}


def convert(texts: list[str], known: set[str]) -> tuple[dict[str, dict], int]:
    """(records by question id, number of questions left out as known)."""
    out: dict[str, dict] = {}
    left_out = 0
    for text in texts:
        for image_id, escaped, question_id in RECORD.findall(text):
            question = json.loads(f'"{escaped}"')
            if question_key(question) in known:
                left_out += 1
                continue
            out[question_id] = {"question": question, "answers": [], "image_id": int(image_id),
                                "source": "VQA v2 val2014"}
    return out, left_out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("questions", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--data-dir", type=Path, default=DATA)
    parser.add_argument("--exclude", type=Path, action="append", default=[],
                        help="a VQA-X file whose question texts are left out too (e.g. vqaX_test.json)")
    args = parser.parse_args()
    known = _known(args.data_dir, args.exclude)
    records, left_out = convert(_texts(args.questions), known)
    if not records:
        raise SystemExit(f"{args.questions}: no VQA v2 question records found")
    try:
        args.out.write_text(json.dumps(records, indent=0), encoding="utf-8")
    except OSError as exc:
        raise SystemExit(f"{args.out}: cannot write ({exc.strerror or exc})") from None
    print(f"{len(records)} questions -> {args.out}; {left_out} left out (text in VQA-X val or an --exclude file)")


if __name__ == "__main__":
    main()
