"""One validation layer for loader input: field checks, record schemas and duplicate/count policies,
for the dataset loaders and the plugins' file readers (file reading lives in `harness.fileio`,
JSON in `harness.jsonio`; both re-exported or used here). A declared public module of the
built-in plugins (docs/architecture.md); third-party plugins may use it too.

Every dataset loader (VQA, Visual7W, Visual Genome, decoy files, e-SNLI-VE, VQA-X, VCR) and
every reader of user files (`harness nle import`, feature files) goes through these helpers,
so the same class of error is rejected the same way, with one line:

    <file>: <row>: field '<name>': <problem>

`<row>` locates the record ("questions[3]", "row 12", "images[0].qa_pairs[4]"); file-level
problems leave it out. Classes of error and their wording:

- unreadable input: missing file, a folder where a file is expected, not UTF-8 (byte offset
  and line), malformed or truncated JSON (line and column; `harness.jsonio`);
- wrong types: "expected an integer, got str '43000'" (a bool is never an integer or an
  index; a string is never a list);
- out of range: ids must be integers in [0, 2^53 - 1] (JSON-safe: they survive JavaScript,
  float64 tools and Arrow int64); indices must point into their list; numbers must be finite;
- empty input: a file that parses but holds no record (`{"questions": []}`, a CSV with
  only its header, `{}`) is "<file>: no <records> (...)" (`check_nonempty`), never an
  empty split evaluated to zero rows;
- duplicates and answer counts: a policy per dataset (`duplicates=error|keep-first`,
  `answers=strict|lenient`): an error by default, or accepted and counted in the dataset's
  `summary()` (`Tally`), never dropped silently.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence, Sized

from harness.errors import DataError, UsageError
from harness.fileio import (
    csv_rows,
    decode_text,
    describe,
    fail,
    read_bytes,
    read_text,
    type_name,
)
from harness.folders import check_writable_folder
from harness.options import Option

__all__ = [
    "MAX_ID", "DUPLICATES", "ANSWERS", "duplicates_option", "answers_option",
    "type_name", "describe", "fail", "read_bytes", "decode_text", "read_text", "csv_rows",
    "check_object", "check_list", "check_id", "check_int", "check_index", "check_str", "check_text",
    "check_str_list", "check_number", "check_choice", "Field", "check_record", "Tally",
    "check_writable_folder", "check_nonempty", "check_id_text", "check_not_input",
]

#: Largest accepted id: 2^53 - 1, the largest integer JSON consumers agree on.
MAX_ID = 2**53 - 1
#: Policies for repeated ids (question_id, pairID, qa_id, annot_id, keys of keyed JSON).
DUPLICATES = ("error", "keep-first")
#: Policies for answer counts that differ from the format's (VQA: 10 human answers).
ANSWERS = ("strict", "lenient")


def duplicates_option(what: str) -> Option:
    """The `duplicates=` dataset option (repeated `what` ids)."""
    return Option("error", f"a repeated {what}: error, or keep-first (later copies dropped and counted "
                           "in the load summary)", choices=DUPLICATES)


def answers_option(expected: str) -> Option:
    """The `answers=` dataset option (answer counts other than `expected`)."""
    return Option("strict", f"{expected}: strict (any other count is an error) or lenient (accepted and "
                            "counted in the load summary)", choices=ANSWERS)


# ------------------------------------------------------------------ field checks


def check_object(value: Any, path: Path | str, row: str, field: str | None = None) -> dict:
    """`value` if it is a JSON object."""
    if not isinstance(value, dict):
        raise fail(path, row, f"expected an object, got {describe(value)}", field)
    return value


def check_list(value: Any, path: Path | str, row: str, field: str | None = None, *, nonempty: bool = False) -> list:
    """`value` if it is a list (a string is not a list of characters)."""
    if not isinstance(value, list):
        raise fail(path, row, f"expected a list, got {describe(value)}", field)
    if nonempty and not value:
        raise fail(path, row, "expected a non-empty list, got []", field)
    return value


def _huge_integer(value: Any) -> bool:
    """A float that stands for an integer beyond 64 bits: the fast JSON parser (orjson) reads
    such integers as floats, so `10**30` written as an integer arrives as 1e+30."""
    return type(value) is float and math.isfinite(value) and value.is_integer() and abs(value) >= 2.0**63


def check_int(value: Any, path: Path | str, row: str, field: str | None = None, *,
              lo: int | None = None, hi: int | None = None) -> int:
    """`value` if it is an integer (not a bool, not a float) within [lo, hi]."""
    bounds = f"[{lo if lo is not None else '-inf'}, {hi if hi is not None else 'inf'}]"
    if _huge_integer(value):
        raise fail(path, row, f"integer out of range {bounds} (got {_shown(value)})", field)
    if isinstance(value, bool) or not isinstance(value, int):
        raise fail(path, row, f"expected an integer, got {describe(value)}", field)
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise fail(path, row, f"integer out of range {bounds} (got {_shown(value)})", field)
    return value


def _shown(value: int | float) -> str:
    """An out-of-range integer as a message shows it: exactly when short, else its magnitude
    (the same text whether the JSON reader gave an int or, for orjson, a float)."""
    if abs(value) < 10**15:
        return str(int(value))
    try:
        return f"about {float(value):.6g}"
    except OverflowError:
        return f"a {len(str(abs(int(value))))}-digit number"


def check_id(value: Any, path: Path | str, row: str, field: str | None = None) -> int:
    """An integer id in [0, 2^53 - 1] (`MAX_ID`)."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_ID:
        return value
    if (isinstance(value, int) and not isinstance(value, bool)) or _huge_integer(value):
        raise fail(path, row, f"integer out of range [0, 2^53 - 1] (got {_shown(value)})", field)
    raise fail(path, row, f"expected an integer id, got {describe(value)}", field)


def check_id_text(value: Any, path: Path | str, row: str, field: str | None = None) -> int:
    """An integer id written as a string (a JSON object key: VQA-X question ids), as an int:
    decimal digits only, in [0, 2^53 - 1] ("abc", "-5", "1.0" and "9223372036854775808" are not)."""
    text = value.strip() if isinstance(value, str) else value
    if not isinstance(text, str) or not text.isascii() or not text.isdigit():
        raise fail(path, row, f"expected an integer id (decimal digits), got {describe(value)}", field)
    if int(text) > MAX_ID:
        raise fail(path, row, f"id {text} is out of range [0, 2^53 - 1]", field)
    return int(text)


def check_index(value: Any, size: int, path: Path | str, row: str, field: str | None = None, *,
                into: str = "the list") -> int:
    """An integer index into a list of `size` items (a bool is not an index)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < size:
        raise fail(path, row, f"{describe(value)} is not an index into {size} {into}", field)
    return value


def check_str(value: Any, path: Path | str, row: str, field: str | None = None) -> str:
    """`value` if it is a string (possibly empty)."""
    if not isinstance(value, str):
        raise fail(path, row, f"expected a string, got {describe(value)}", field)
    return value


def check_text(value: Any, path: Path | str, row: str, field: str | None = None) -> str:
    """A string with non-space content (returned stripped)."""
    if not isinstance(value, str):
        raise fail(path, row, f"expected a non-empty string, got {describe(value)}", field)
    text = value.strip()
    if not text:
        raise fail(path, row, "empty string", field)
    return text


def check_str_list(value: Any, path: Path | str, row: str, field: str | None = None, *,
                   nonempty: bool = False) -> list[str]:
    """A list of strings; the first bad item is named (`field[3]`)."""
    check_list(value, path, row, field, nonempty=nonempty)
    for j, item in enumerate(value):
        if not isinstance(item, str):
            raise fail(path, row, f"expected a string, got {describe(item)}", f"{field}[{j}]" if field else f"[{j}]")
    return value


def check_number(value: Any, path: Path | str, row: str, field: str | None = None) -> float:
    """A finite int or float (not a bool, not NaN or infinite)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise fail(path, row, f"expected a number, got {describe(value)}", field)
    if isinstance(value, float) and not math.isfinite(value):
        raise fail(path, row, f"expected a finite number, got {value}", field)
    return value


def check_choice(value: Any, allowed: Sequence[str], path: Path | str, row: str, field: str | None = None) -> str:
    """One of `allowed` (compared after stripping spaces)."""
    text = value.strip() if isinstance(value, str) else value
    if text not in allowed:
        raise fail(path, row, f"{describe(value)} is not one of {', '.join(allowed)}", field)
    return text


def check_nonempty(items: Sized | int, path: Path | str, what: str, detail: str = "") -> None:
    """DataError when `items` (a collection or a count) is empty: `<file>: no <what> (<detail>);
    a dataset split needs at least one` - an empty split is never evaluated to zero rows."""
    n = items if isinstance(items, int) else len(items)
    if n == 0:
        raise DataError(f"{path}: no {what}" + (f" ({detail})" if detail else "")
                        + "; a dataset split needs at least one")


# ------------------------------------------------------------------ record schemas

_KINDS = {
    "object": lambda v, p, r, f: check_object(v, p, r, f),
    "list": lambda v, p, r, f: check_list(v, p, r, f),
    "id": lambda v, p, r, f: check_id(v, p, r, f),
    "int": lambda v, p, r, f: check_int(v, p, r, f),
    "str": lambda v, p, r, f: check_str(v, p, r, f),
    "text": lambda v, p, r, f: check_text(v, p, r, f),
    "str-list": lambda v, p, r, f: check_str_list(v, p, r, f),
    "number": lambda v, p, r, f: check_number(v, p, r, f),
    # an id that may be written as a string ("393271") or an integer
    "key": lambda v, p, r, f: check_id(v, p, r, f) if not isinstance(v, str) else check_text(v, p, r, f),
}


#: Quick acceptance tests per kind (the full check above runs only when one fails, to name
#: the problem): the common case costs one call per field on 100k-record files.
_FAST = {
    "object": lambda v: type(v) is dict,
    "list": lambda v: type(v) is list,
    "id": lambda v: type(v) is int and 0 <= v <= MAX_ID,
    "int": lambda v: type(v) is int,
    "str": lambda v: type(v) is str,
    "text": lambda v: type(v) is str and not v.isspace() and v != "",
    "str-list": lambda v: type(v) is list and all(type(x) is str for x in v),
    "number": lambda v: type(v) is int or (type(v) is float and math.isfinite(v)),
    "key": lambda v: (type(v) is int and 0 <= v <= MAX_ID) or (type(v) is str and v.strip() != ""),
}


@dataclass(frozen=True)
class Field:
    """One field of a record format: its kind (a key of the checks above) and presence."""

    kind: str
    required: bool = True

    def __post_init__(self) -> None:
        if self.kind not in _KINDS:
            raise ValueError(f"unknown field kind {self.kind!r}; kinds: {', '.join(_KINDS)}")


#: Compiled schemas: id -> (schema, ((name, required, fast, full), ...)); the schema itself
#: is kept so its id cannot be reused while the entry lives.
_COMPILED: dict[int, tuple[Mapping[str, Field], tuple]] = {}


def _compiled(schema: Mapping[str, Field]) -> tuple:
    found = _COMPILED.get(id(schema))
    if found is None or found[0] is not schema:
        found = (schema, tuple((name, spec.required, _FAST[spec.kind], _KINDS[spec.kind])
                               for name, spec in schema.items()))
        _COMPILED[id(schema)] = found
    return found[1]


def check_record(item: Any, schema: Mapping[str, Field], path: Path | str, row: str) -> dict:
    """`item` if it is an object whose fields match `schema` (missing required field, wrong
    type, out-of-range id, empty text, non-finite number: one line naming row and field)."""
    if type(item) is not dict:
        check_object(item, path, row)
    for name, required, fast, full in _compiled(schema):
        if name in item:
            value = item[name]
            if not fast(value):
                full(value, path, row, name)
        elif required:
            raise fail(path, row, "missing", name)
    return item


class Tally:
    """Duplicate ids and answer-count mismatches under a dataset's policies.

    `seen(key, row)` is True the first time an id is met; a repeat is a DataError naming
    both rows (`duplicates="error"`) or False and counted (`"keep-first"`).
    `count_ok(n, row)` checks an answer count against `expected` the same way
    (`answers="strict"` / `"lenient"`). `summary()` holds the counts and the first ids."""

    SHOWN = 10

    def __init__(self, path: Path | str, *, id_name: str, duplicates: str = "error",
                 answers: str = "strict", expected: int | None = None, answers_field: str = "answers") -> None:
        if duplicates not in DUPLICATES:
            raise UsageError(f"duplicates={duplicates!r} must be one of {', '.join(DUPLICATES)}")
        if answers not in ANSWERS:
            raise UsageError(f"answers={answers!r} must be one of {', '.join(ANSWERS)}")
        self.path, self.id_name, self.duplicates, self.answers = path, id_name, duplicates, answers
        self.expected, self.answers_field = expected, answers_field
        self._first: dict[Any, str] = {}
        self.duplicate_count = 0
        self.duplicate_ids: list[str] = []
        self.mismatch_count = 0
        self.mismatch_ids: list[str] = []

    def seen(self, key: Any, row: str) -> bool:
        """True for a new id; False (counted) or DataError for a repeat."""
        first = self._first.get(key)
        if first is None:
            self._first[key] = row
            return True
        if self.duplicates == "error":
            raise fail(self.path, row, f"duplicated {self.id_name} {key} (first at {first}); "
                                       "pass duplicates=keep-first to keep the first and count the others",
                       self.id_name)
        self.duplicate_count += 1
        if len(self.duplicate_ids) < self.SHOWN:
            self.duplicate_ids.append(str(key))
        return False

    def count_ok(self, n: int, key: Any, row: str, *, expected: int | None = None, field: str | None = None) -> bool:
        """True when `n` is the expected count (the tally's, or `expected`); False (counted)
        or DataError otherwise."""
        want = self.expected if expected is None else expected
        if want is None or n == want:
            return True
        if self.answers == "strict":
            raise fail(self.path, row, f"{n} answers, expected {want}; pass answers=lenient to "
                                       "accept and count such questions", field or self.answers_field)
        self.mismatch_count += 1
        if len(self.mismatch_ids) < self.SHOWN:
            self.mismatch_ids.append(str(key))
        return False

    def summary(self) -> dict[str, Any]:
        """Counts for the dataset's `summary()` (zeros included, so probes can report them)."""
        out: dict[str, Any] = {"duplicates": self.duplicates, f"duplicate_{self.id_name}s": self.duplicate_count}
        if self.duplicate_ids:
            out[f"duplicate_{self.id_name}s_shown"] = list(self.duplicate_ids)
        if self.expected is not None or self.mismatch_count:
            out["answers"] = self.answers
            out["expected_answers"] = self.expected
            out["answer_count_mismatches"] = self.mismatch_count
            if self.mismatch_ids:
                out["answer_count_mismatches_shown"] = list(self.mismatch_ids)
        return out


def check_not_input(path: Path | str, what: str, dataset: Any) -> None:
    """UsageError when the output file `path` is a file the dataset plugin reads (its
    `expected_files` of any split, under any name or hard link), before any work:
    `perturb --dataset vqa2 --out <data-dir>/vqa2/..._questions.json` replaced the questions
    it had just read."""
    path = Path(path).expanduser()
    if not path.exists():
        return
    for split in dataset.splits:
        for source in dataset.expected_files(split):
            try:
                same = os.path.samefile(path, source)
            except OSError:  # a file that is not there is not this one
                continue
            if same:
                raise UsageError(f"{what} {path} is the file dataset {dataset.name!r} reads for its {split} split "
                                 f"({source}); write the output elsewhere")
