"""The `predictions` model: answers (and explanations) produced elsewhere, read from a file.

`--model predictions:path=FILE` scores another pipeline's outputs with any suite's
answer-based probes, without writing a plugin. Two formats (docs/predictions.md):

- the official VQA results format, what researchers submit to the evaluation server:
  a JSON list `[{"question_id": 42, "answer": "yes"}, ...]` (matched to example ids, which
  are the question ids for VQA v1/v2 and VQA-X);
- JSON lines keyed by example id: `{"id": "...", "answer": "...", "explanation": "..."}`,
  one per line (any dataset; e-ViL needs the explanation too).

Either may carry `explanation` and `question` per record. Nothing is scored as wrong
silently: an example the file has no answer for, one asked with a changed input (a probe's
variant: a counterfactual question, a blanked or swapped image), one whose question differs
from the file's `question`, and an explanation asked for another answer than the file's
are model errors, counted by the run (report.md lists them) and summed up with the first
ids in the model notes. The fingerprint is the file's SHA-256, so editing the file
invalidates cached predictions.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Mapping, Sequence

from harness.api import Model, Option
from harness.digest import digest, digest_bytes
from harness.errors import DataError, UsageError
from harness.jsonio import parse_json, parse_jsonl
from harness.types import Example
from vqa_harness_plugins.validation import (
    Field,
    Tally,
    check_record,
    decode_text,
    describe,
    duplicates_option,
    read_bytes,
)

__all__ = ["PredictionsModel", "Entry", "read_predictions", "FORMATS", "SHOWN"]

#: `format=` values: auto (by the first character: "[" official JSON, "{" JSON lines).
FORMATS = ("auto", "vqa", "jsonl")
#: `unknown=` values: ids of the file outside the evaluated data.
UNKNOWN = ("error", "count")
#: Ids shown in the notes per kind of problem.
SHOWN = 10
#: What the file is, in messages about it.
HINT = "results file for --model predictions:path=FILE"

VQA_RECORD = {"question_id": Field("id"), "answer": Field("str"), "explanation": Field("str", required=False),
              "question": Field("str", required=False)}
JSONL_RECORD = {"id": Field("key"), "answer": Field("str"), "explanation": Field("str", required=False),
                "question": Field("str", required=False)}


@dataclass(frozen=True)
class Entry:
    """One record of a results file."""

    answer: str
    explanation: str | None = None
    question: str | None = None


class MissingAnswer(LookupError):
    """The file has no record for the example's id."""


class ChangedInput(ValueError):
    """The example is a variant (changed question or image) of one the file answers."""


def read_predictions(path: Path, fmt: str = "auto", duplicates: str = "error") -> tuple[dict[str, Entry], str, str]:
    """(example id -> Entry, the format read, SHA-256 of the file); one-line DataError for a
    missing, non-UTF-8, malformed or empty file, a wrong type, a repeated id or a key twice
    in one record.

    The file is read once: the hash and the answers come from the same bytes, so a file
    replaced while the run starts can never store its answers under another file's
    fingerprint (and a FIFO is read once, not waited on a second time)."""
    blob = read_bytes(path, HINT)
    sha = digest_bytes(blob)
    text = decode_text(blob, path)
    stripped = text.lstrip()
    if not stripped:
        raise DataError(f"{path}: empty file (expected the official VQA results JSON list or JSON lines)")
    if fmt == "auto":
        fmt = "vqa" if stripped[0] == "[" else "jsonl" if stripped[0] == "{" else ""
        if not fmt:
            raise DataError(f"{path}: neither a JSON list (official VQA results) nor JSON lines "
                            f"(starts with {stripped[:10]!r})")
    entries = _read_vqa(path, blob, duplicates) if fmt == "vqa" else _read_jsonl(path, text, duplicates)
    if not entries:
        raise DataError(f"{path}: no answers in the file")
    return entries, fmt, sha


def _read_vqa(path: Path, blob: bytes, duplicates: str) -> dict[str, Entry]:
    data = parse_json(blob, path, HINT, duplicate_keys="record")
    if not isinstance(data, list):
        raise DataError(f"{path}: expected a list of {{\"question_id\", \"answer\"}} (official VQA results format), "
                        f"got {describe(data)}")
    return _collect(path, ((f"[{i}]", item) for i, item in enumerate(data)), VQA_RECORD, "question_id", duplicates)


def _read_jsonl(path: Path, text: str, duplicates: str) -> dict[str, Entry]:
    records = parse_jsonl(text, path, HINT, duplicate_keys="record")
    return _collect(path, ((f"row {line}", item) for line, item in records), JSONL_RECORD, "id", duplicates)


def _collect(path: Path, records: Any, schema: Mapping[str, Field], id_key: str, duplicates: str) -> dict[str, Entry]:
    """id -> Entry, every record checked; a repeated id follows the duplicate policy."""
    tally = Tally(path, id_name=id_key, duplicates=duplicates)
    out: dict[str, Entry] = {}
    for row, item in records:
        check_record(item, schema, path, row)
        repeated = getattr(item, "duplicates", ())  # parsed with duplicate_keys="record"
        if repeated:
            raise DataError(f"{path}: {row}: field {repeated[0]!r}: given twice in one record (a JSON reader "
                            "keeps only one of them; remove or rename the other)")
        key = str(item[id_key]).strip()
        if tally.seen(key, row):
            out[key] = Entry(item["answer"], item.get("explanation"), item.get("question"))
    return out


class _Capabilities:
    """`capabilities()`: on the class, answer and explain; on an instance, explain only when
    the file holds explanations (so the nle probe is skipped, with a reason, for a file of
    answers only instead of scoring empty explanations)."""

    def __get__(self, instance: Any, owner: type) -> Any:
        def capabilities() -> frozenset[str]:
            caps = Model.__dict__["capabilities"].__func__(owner)
            if instance is not None and not instance.explained:
                caps = caps - {"explain"}
            return caps

        return capabilities


class PredictionsModel(Model):
    name = "predictions"
    description = ("answers (and explanations) from a results file made elsewhere: the official VQA results "
                   "JSON or JSON lines by example id")
    #: It reads none of the inputs: it replays answers, so probes skip their input ablations.
    inputs = frozenset()
    options: ClassVar[Mapping[str, Option]] = {
        "path": Option("", "results file: official VQA results JSON [{question_id, answer}] or JSON lines "
                           "{id, answer, explanation} (the file's hash is the fingerprint)", fingerprint=False),
        "format": Option("auto", "auto (by the first character), vqa (official JSON list) or jsonl",
                         choices=FORMATS),
        "duplicates": duplicates_option("question_id / id"),
        "unknown": Option("error", "ids in the file that the evaluated data does not have: error (as the official "
                                   "evaluation's loadRes) or count (left out, counted in the report's model notes)",
                          choices=UNKNOWN, fingerprint=False),
    }
    capabilities = _Capabilities()  # type: ignore[assignment]

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        if not self.config["path"]:
            raise UsageError("model 'predictions' needs the results file: --model predictions:path=FILE")
        self.path = Path(self.config["path"]).expanduser()
        self.entries, self.format, self.sha256 = read_predictions(self.path, self.config["format"],
                                                                  self.config["duplicates"])
        self.explained = sum(1 for e in self.entries.values() if e.explanation is not None)
        self._first: dict[str, tuple[str, str, str]] = {}
        self._problems: dict[str, dict[str, None]] = {k: {} for k in PROBLEMS}
        self._answered: set[str] = set()
        #: Ids shown with their original input whose answer the file has: answered now, or
        #: earlier and restored from the prediction cache (then `answer` is not called).
        self._shown: set[str] = set()
        #: Ids of the file the evaluated data does not have (`check_example_ids`).
        self.unknown: list[str] = []

    # ------------------------------------------------------------------ contract
    def fingerprint_extra(self) -> Any:
        return {"sha256": self.sha256, "format": self.format}

    def input_key(self, example: Example, capability: str, extra: str = "") -> str:
        """Keyed by the example id too (the answer belongs to the id); remembers the first
        input shown for each id, so a probe's variant of it is recognized later."""

        shown = (example.question, example.image_id, example.image)
        if self._first.setdefault(example.id, shown) == shown and example.id in self.entries:
            self._shown.add(example.id)
        return digest({"id": example.id, "input": super().input_key(example, capability, extra)})

    def check_example_ids(self, ids: frozenset[str]) -> None:
        """The file's ids outside the evaluated splits: an error by default (one line naming
        the file and the first id), or counted (`unknown=count`). Missing ids stay model
        errors, example by example."""
        self.unknown = [k for k in self.entries if k not in ids]
        if self.unknown and self.config["unknown"] == "error":
            n = len(self.unknown)
            raise DataError(f"{self.path}: id {self.unknown[0]} is not an example of the data this run evaluates "
                            f"({n} such id{'s' if n > 1 else ''} in the file; the official evaluation refuses "
                            "them): a results file for other data? `predictions:...,unknown=count` scores the "
                            "file anyway and counts them")

    def answer(self, batch: Sequence[Example]) -> list[str]:
        return [self._lookup(ex).answer for ex in batch]

    def explain(self, batch: Sequence[Example], answers: Sequence[str]) -> list[str]:
        out = []
        for ex, asked in zip(batch, answers):
            entry = self._lookup(ex)
            if entry.explanation is None:
                self._note("no-explanation", ex.id)
                raise MissingAnswer(f"no explanation for id {ex.id} in {self.path.name}")
            if (asked or "").strip() != entry.answer.strip():
                self._note("other-answer", ex.id)
                raise ValueError(f"asked to explain {asked!r} for id {ex.id}, but the file's explanation "
                                 f"justifies its answer {entry.answer!r}")
            out.append(entry.explanation)
        return out

    def _lookup(self, ex: Example) -> Entry:
        entry = self.entries.get(ex.id)
        if entry is None:
            self._note("missing", ex.id)
            raise MissingAnswer(f"no answer for id {ex.id} in {self.path.name}")
        first = self._first.get(ex.id)
        if first is not None and first != (ex.question, ex.image_id, ex.image):
            self._note("changed", ex.id)
            raise ChangedInput(f"id {ex.id} asked with a changed question or image (a probe's variant); the file "
                               "answers the original input only")
        if entry.question is not None and entry.question.strip() != ex.question.strip():
            self._note("other-question", ex.id)
            raise ValueError(f"id {ex.id}: the file's question {entry.question!r} is not the dataset's "
                             f"{ex.question!r}")
        self._answered.add(ex.id)
        return entry

    def _note(self, kind: str, ex_id: str) -> None:
        self._problems[kind][ex_id] = None

    def _used(self) -> set[str]:
        """Ids whose file answer the run scored, those restored from the cache included (an id
        whose record names another question fails again: failures are never cached)."""
        return self._answered | (self._shown - set(self._problems["other-question"]))

    def report_notes(self) -> str:
        """The file read, how many of its records were used, and every kind of example it
        could not serve, with counts and the first ids."""
        lines = [f"Results file `{self.path}` ({self.format}, {len(self.entries)} answers, {self.explained} with "
                 f"an explanation, sha256 {self.sha256[:16]}): {len(self._used())} of its answers used."]
        if self.unknown:
            shown = ", ".join(self.unknown[:SHOWN]) + (" ..." if len(self.unknown) > SHOWN else "")
            lines.append(f"- **{len(self.unknown)} id(s) in the file that the evaluated data does not have** "
                         f"(first: {shown}); accepted by `unknown=count` and left out.")
        for kind, ids in self._problems.items():
            if ids:
                shown = ", ".join(list(ids)[:SHOWN]) + (" ..." if len(ids) > SHOWN else "")
                lines.append(f"- **{len(ids)} {PROBLEMS[kind]}** (first: {shown}). {CONSEQUENCE}")
        return "\n".join(lines)


#: Kinds of examples the file cannot serve, as the notes name them.
PROBLEMS = {
    "missing": "example(s) without an answer in the file",
    "changed": "example(s) asked with a changed input (a probe's variant: counterfactual question, blank or "
               "swapped image, emptied question), which the file cannot answer",
    "other-question": "example(s) whose question differs from the file's `question`",
    "no-explanation": "example(s) whose record has no `explanation`",
    "other-answer": "explanation(s) asked for another answer than the file's",
}
CONSEQUENCE = ("They are model errors: each probe counts them as it counts any failed prediction "
               "(docs/predictions.md).")
