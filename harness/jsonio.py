"""Reading data files with one-line errors that name the file (shared by dataset plugins)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .errors import DataError

__all__ = ["read_json"]


def read_json(path: Path | str, hint: str = "") -> Any:
    """Parse a JSON file; missing or malformed files give a one-line DataError naming it.

    `hint` says what the file is and where to get it ("Visual7W telling file; see
    docs/decoys.md") and is added to the missing-file message."""
    path = Path(path)
    try:
        blob = path.read_bytes()
    except FileNotFoundError:
        raise DataError(f"missing file: {path}" + (f" ({hint})" if hint else "")) from None
    except OSError as exc:
        raise DataError(f"{path}: cannot read ({exc.strerror})") from None
    try:
        import orjson  # faster for the 100+ MB annotation files; optional

        try:
            return orjson.loads(blob)
        except orjson.JSONDecodeError as exc:
            raise DataError(f"{path}: malformed JSON ({exc})") from None
    except ImportError:  # pragma: no cover - depends on the environment
        pass
    try:
        return json.loads(blob)
    except (ValueError, UnicodeDecodeError) as exc:
        raise DataError(f"{path}: malformed JSON ({exc})") from None
