"""Reading JSON and JSON-lines files with one-line errors that name the file (shared by loaders;
their record checks are `vqa_harness_plugins.validation`).

Strict JSON: `NaN`, `Infinity` and numbers too large for a float (`1e309`), which Python's
`json` accepts, are errors named with line, column and key. A file that ends early says it is
truncated. A `\\ud800`-style escape of a lone surrogate (no UTF-8 file or database can store
it) is an error naming the field, not a string that fails later when a result is written.
Repeated keys in one object (`json.loads` keeps the last) can be an error or recorded.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any, Iterator

from .errors import SURROGATE, DataError
from .fileio import decode_text, read_bytes

__all__ = ["read_json", "parse_json", "loads_strict", "jsonl_records", "parse_jsonl", "JSONObject",
           "DUPLICATE_KEYS", "lone_surrogate_at", "json_lone_surrogate", "surrogate_in"]

#: `read_json(duplicate_keys=...)`: "ignore" (fast; the last value wins, as in json.loads),
#: "error" (DataError naming the key) or "record" (objects are `JSONObject`s keeping the
#: first value and listing repeated keys in `.duplicates`).
DUPLICATE_KEYS = ("ignore", "error", "record")


class JSONObject(dict):
    """A parsed JSON object that remembers the keys it held more than once (first value kept)."""

    duplicates: tuple[str, ...] = ()


class _NonFinite(ValueError):
    """args[0]: the token (NaN, -Infinity, 1e309)."""


class _DuplicateKey(ValueError):
    """args[0]: the key."""


class _LoneSurrogate(ValueError):
    """args[0]: where (`lone_surrogate_at`)."""


#: A JSON escape of a surrogate code point (a lone one survives `json.loads`; a pair becomes one character).
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def surrogate_in(text: str) -> str:
    """"U+D800 at character 3" for the first lone surrogate in `text`, "" when there is none."""
    found = SURROGATE.search(text)
    return f"U+{ord(found.group()):04X} at character {found.start()}" if found else ""


def lone_surrogate_at(value: Any, where: str = "") -> str | None:
    """Where in parsed data (dicts, lists, strings) a string holds a lone surrogate
    ('tasks[0].label'; '' for the value itself), or None when none does: such text cannot be
    written as UTF-8 (report, results, cache), so a reader refuses it."""
    if isinstance(value, str):
        return where if SURROGATE.search(value) else None
    if isinstance(value, dict):
        for key, item in value.items():
            inner = f"{where}.{key}" if where else str(key)
            if isinstance(key, str) and SURROGATE.search(key):
                return inner
            found = lone_surrogate_at(item, inner)
            if found is not None:
                return found
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            found = lone_surrogate_at(item, f"{where}[{i}]")
            if found is not None:
                return found
    return None


def _constant(name: str) -> float:
    raise _NonFinite(name)


def _float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise _NonFinite(text)
    return value


def _record_pairs(pairs: list[tuple[str, Any]]) -> JSONObject:
    obj = JSONObject()
    repeated = []
    for key, value in pairs:
        if key in obj:
            repeated.append(key)
        else:
            obj[key] = value
    if repeated:
        obj.duplicates = tuple(repeated)
    return obj


def _error_pairs(pairs: list[tuple[str, Any]]) -> dict:
    obj: dict = {}
    for key, value in pairs:
        if key in obj:
            raise _DuplicateKey(key)
        obj[key] = value
    return obj


_HOOKS = {"ignore": None, "error": _error_pairs, "record": _record_pairs}


def loads_strict(text: str, *, duplicate_keys: str = "ignore") -> Any:
    """`json.loads` without NaN / Infinity / overflowing floats (raises ValueError subclasses
    that `describe_json_error` turns into one line)."""
    value = json.loads(text, parse_constant=_constant, parse_float=_float, object_pairs_hook=_HOOKS[duplicate_keys])
    where = json_lone_surrogate(text, value)
    if where is not None:
        raise _LoneSurrogate(where)
    return value


def json_lone_surrogate(text: str, value: Any) -> str | None:
    """`lone_surrogate_at(value)` for `value` parsed from the JSON `text`. Only a `\\ud800`-style
    escape can put a surrogate in decoded UTF-8, so text without one is not walked (the
    common case costs one regex scan)."""
    return lone_surrogate_at(value) if _SURROGATE_ESCAPE.search(text) else None


_KEY_BEFORE = re.compile(r'"((?:[^"\\]|\\.)*)"\s*:\s*$')


def _token_position(text: str, token: str) -> int:
    """Offset of the first `token` outside a string (-1 when not found)."""
    pattern = re.compile(r'"(?:[^"\\]|\\.)*"|(?<![\w.+-])(' + re.escape(token) + r')(?![\w.])')
    for m in pattern.finditer(text):
        if m.group(1):
            return m.start(1)
    return -1


def describe_json_error(exc: ValueError, text: str, *, one_line: bool = False) -> str:
    """One clause for a failed `loads_strict` ('line 3 column 20: field ...: NaN is not ...');
    `one_line` (a JSON-lines row) gives the column only."""
    if isinstance(exc, _DuplicateKey):
        clause = (f"duplicated key {exc.args[0]!r} in one JSON object (a JSON reader keeps only "
                  "one of them; remove or rename the other)")
    elif isinstance(exc, _LoneSurrogate):
        field = f"field {exc.args[0]!r}: " if exc.args[0] else ""
        clause = (f"{field}a \\ud800-\\udfff escape without its other half (a lone surrogate) is "
                  "not a character and cannot be stored as UTF-8 text")
    elif isinstance(exc, _NonFinite):
        token = exc.args[0]
        pos = _token_position(text, token)
        at = field = ""
        if pos >= 0:
            line, col = text.count("\n", 0, pos) + 1, pos - text.rfind("\n", 0, pos)
            at = f"line {line} column {col}: "
            m = _KEY_BEFORE.search(text, max(0, pos - 300), pos)
            field = f"field {m.group(1)!r}: " if m else ""
        what = "too large for a number" if token[-1].isdigit() else "not a valid JSON number"
        clause = f"{at}{field}{token} is {what} (JSON numbers must be finite)"
    elif isinstance(exc, json.JSONDecodeError):
        # Ends early: the error is at the end, or a string runs to the end of the text.
        early = ((not text[exc.pos:].strip() and exc.pos >= len(text.rstrip()))
                 or exc.msg.startswith("Unterminated string"))
        what = ("truncated JSON (the text ends before the JSON does)" if early
                else f"malformed JSON ({exc.msg})")
        clause = f"line {exc.lineno} column {exc.colno}: {what}"
    else:
        clause = f"malformed JSON ({exc})"
    return re.sub(r"^line 1 column", "column", clause) if one_line else clause


def read_json(path: Path | str, hint: str = "", *, duplicate_keys: str = "ignore") -> Any:
    """Parse a JSON file; a missing, unreadable, non-UTF-8, empty, truncated or malformed
    file, or a non-finite number, is a one-line DataError naming it (line, column, key).
    `hint` says what the file is and where to get it ("Visual7W telling file; see
    docs/decoys.md") and is added to the missing-file message. `duplicate_keys` is one of
    `DUPLICATE_KEYS`."""
    path = Path(path)
    return parse_json(read_bytes(path, hint), path, hint, duplicate_keys=duplicate_keys)


def parse_json(blob: bytes, path: Path | str, hint: str = "", *, duplicate_keys: str = "ignore") -> Any:
    """`read_json` on bytes already read (from `path`, which messages name): a caller that
    also hashes the file parses the very bytes it hashed, never a second read."""
    if duplicate_keys not in _HOOKS:
        raise ValueError(f"duplicate_keys must be one of {', '.join(DUPLICATE_KEYS)}")
    if duplicate_keys == "ignore":
        try:
            import orjson  # a declared dependency: faster for the 100+ MB annotation files

            return orjson.loads(blob)
        except (ImportError, ValueError):
            # ImportError: installed without it (a vendored copy; the tests run both parsers,
            # tests/malformed/conftest.py `json_backend`). ValueError: re-parsed below for a
            # precise message (and to accept a byte-order mark).
            pass
    text = decode_text(blob, path)
    if not text.strip():
        raise DataError(f"{path}: empty file (expected JSON)" + (f"; {hint}" if hint else ""))
    try:
        return loads_strict(text, duplicate_keys=duplicate_keys)
    except RecursionError:
        raise DataError(f"{path}: JSON nested too deeply") from None
    except ValueError as exc:
        raise DataError(f"{path}: {describe_json_error(exc, text)}") from None


def jsonl_records(path: Path | str, hint: str = "", *, allow_empty: bool = False,
                  duplicate_keys: str = "ignore") -> Iterator[tuple[int, Any]]:
    """(line number, parsed value) for every non-blank line of a JSON-lines file; a bad line
    is a one-line DataError naming the file and the row (a last line without its newline
    that does not parse is reported as truncated). A file without any line is an error
    unless `allow_empty`."""
    path = Path(path)
    return parse_jsonl(decode_text(read_bytes(path, hint), path), path, hint, allow_empty=allow_empty,
                       duplicate_keys=duplicate_keys)


def parse_jsonl(text: str, path: Path | str, hint: str = "", *, allow_empty: bool = False,
                duplicate_keys: str = "ignore") -> Iterator[tuple[int, Any]]:
    """`jsonl_records` on text already read from `path` (see `parse_json`)."""
    if not allow_empty and not text.strip():
        raise DataError(f"{path}: empty file (expected JSON lines)" + (f"; {hint}" if hint else ""))
    return _jsonl_rows(text, path, duplicate_keys)


def _jsonl_rows(text: str, path: Path | str, duplicate_keys: str) -> Iterator[tuple[int, Any]]:
    lines = text.split("\n")
    for row, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            yield row, loads_strict(line, duplicate_keys=duplicate_keys)
        except (ValueError, RecursionError) as exc:
            if row == len(lines) and not text.endswith("\n") and isinstance(exc, json.JSONDecodeError):
                raise DataError(f"{path}: row {row}: truncated JSON line (the file ends mid-line; "
                                "an interrupted write?)") from None
            detail = (describe_json_error(exc, line, one_line=True) if isinstance(exc, ValueError)
                      else "JSON nested too deeply")
            raise DataError(f"{path}: row {row}: not valid JSON ({detail})") from None
