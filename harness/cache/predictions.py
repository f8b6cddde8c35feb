"""Prediction cache (docs/architecture.md, "The caches"): model fingerprint x hash of the exact
model input -> prediction; failed examples are not cached. A file that is not an SQLite cache
is one DataError line, a path that cannot be opened a UsageError (both when the cache is
opened, before a run creates its folder); one SQLite cannot read to the end ('malformed') is
one line saying it is damaged, when opened or when read; a disk that fills up (or turns
read-only) during a run is a StorageError line. Both StorageErrors end the run."""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
import time
import uuid
from pathlib import Path
from typing import Iterable, Iterator, Mapping

from ..errors import DataError, ExitCode, StorageError, UsageError
from ..paths import cache_dir
from ..types import Prediction

__all__ = ["PredictionCache", "default_cache_path"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS predictions (
    fingerprint TEXT NOT NULL,
    input_key   TEXT NOT NULL,
    payload     TEXT NOT NULL,
    PRIMARY KEY (fingerprint, input_key)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;
"""

#: What to do about a --cache file that is not the harness's.
_NOT_OURS = "pass --cache a new file name or an existing cache written by the harness"
#: What to do about a cache file SQLite cannot read to the end.
_DAMAGED = "is damaged ({}); move it aside or delete it (its predictions are lost) and re-run"


def _reason(exc: BaseException) -> str:
    return " ".join(str(getattr(exc, "strerror", None) or exc).split())


def default_cache_path() -> Path:
    return cache_dir("predictions") / "predictions.sqlite"


class PredictionCache:
    """Durable key-value store of predictions; safe to share between processes."""

    def __init__(self, path: Path | None = None) -> None:
        self.own = bool(path)  # a file of the run's own (--cache), not the harness cache's
        self.path = Path(path) if path else default_cache_path()
        self._lock = threading.Lock()
        try:
            if self.path.parent.exists() and not self.path.parent.is_dir():
                raise NotADirectoryError(f"{self.path.parent} is a file")
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._conn = sqlite3.connect(str(self.path), timeout=60, check_same_thread=False)
        except (OSError, sqlite3.Error) as exc:
            raise UsageError(f"prediction cache {self.path} cannot be opened ({_reason(exc)}); "
                             "pass --cache a writable file path") from None
        try:
            self._check_tables()
            self._init_schema()
        except DataError:
            self._conn.close()
            raise
        except sqlite3.DatabaseError as exc:  # not SQLite, corrupt, a folder, read-only
            self._conn.close()
            if isinstance(exc, sqlite3.OperationalError) and "not a database" not in str(exc):
                raise UsageError(f"prediction cache {self.path} cannot be opened ({_reason(exc)}); "
                                 "pass --cache a writable file path") from None
            if "malformed" in str(exc):  # SQLite's own file, cut short or overwritten in part
                raise DataError(f"prediction cache {self.path} {_DAMAGED.format(_reason(exc))}") from None
            raise DataError(f"{self.path}: not an SQLite prediction cache ({_reason(exc)}); {_NOT_OURS}") from None

    def _check_tables(self) -> None:
        """DataError, before anything is written, for an SQLite file of another program: a
        table the cache does not have, or one of its tables with other columns."""
        ours = {"predictions": ["fingerprint", "input_key", "payload"], "meta": ["key", "value"]}
        names = [r[0] for r in self._conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        for name in names:
            columns = [r[1] for r in self._conn.execute("SELECT * FROM pragma_table_info(?)", (name,))]
            if ours.get(name) != columns:
                raise DataError(f"{self.path}: not a prediction cache of the harness (it has a table {name!r} with "
                                f"columns {', '.join(columns) or 'none'}); {_NOT_OURS}")

    def _init_schema(self) -> None:
        # Several processes (torchrun ranks) may open a new cache file at the same moment;
        # switching to WAL takes an exclusive lock that SQLite does not wait for, so retry.
        for attempt in range(50):
            try:
                self._conn.execute("PRAGMA journal_mode=WAL")
                self._conn.execute("PRAGMA synchronous=NORMAL")
                self._conn.executescript(_SCHEMA)
                # The file's identity, drawn once (the first process to create the file wins).
                self._conn.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('id', ?)", (uuid.uuid4().hex,))
                self._conn.commit()
                self.identity = self._conn.execute("SELECT value FROM meta WHERE key='id'").fetchone()[0]
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or attempt == 49:
                    raise
                time.sleep(0.05 * (1 + attempt % 5))

    @property
    def outputs_root(self) -> Path | None:
        """Where probe outputs computed with this cache are kept: `FILE.outputs/<id>` beside a
        `--cache FILE` (docs/architecture.md); None for the default cache (the artifact store)."""
        return self.path.with_name(self.path.name + ".outputs") / self.identity if self.own else None

    def get_many(self, fingerprint: str, keys: Iterable[str]) -> dict[str, Prediction]:
        """Cached predictions for `keys` (missing keys are absent); example_id is blank."""
        keys = list(dict.fromkeys(keys))
        found: dict[str, Prediction] = {}
        with self._lock, self._damage():
            for start in range(0, len(keys), 900):  # SQLite's host-parameter limit
                chunk = keys[start : start + 900]
                marks = ",".join("?" * len(chunk))
                for key, payload in self._conn.execute(
                        "SELECT input_key, payload FROM predictions WHERE fingerprint=? "
                        f"AND input_key IN ({marks})", [fingerprint, *chunk]).fetchall():
                    found[key] = Prediction.from_json({"example_id": "", **json.loads(payload)})
        return found

    @contextlib.contextmanager
    def _damage(self) -> Iterator[None]:
        """A file SQLite opened but cannot read further (a page overwritten or cut off: 'database
        disk image is malformed') ends the run with one line naming it, not a probe failure."""
        try:
            yield
        except sqlite3.DatabaseError as exc:
            if type(exc) is not sqlite3.DatabaseError:  # locked, full, closed, misused: not damage
                raise
            raise StorageError(f"prediction cache {self.path} {_DAMAGED.format(_reason(exc))}", ExitCode.DATA) from None

    def put_many(self, fingerprint: str, items: Mapping[str, Prediction]) -> None:
        """Store successful predictions in one transaction (errors are never cached)."""
        rows = [(fingerprint, key, json.dumps(
            {k: v for k, v in pred.to_json().items() if k != "example_id"}, sort_keys=True))
            for key, pred in items.items() if pred.ok]
        if not rows:
            return
        try:
            with self._lock, self._damage(), self._conn:
                self._conn.executemany("INSERT OR REPLACE INTO predictions (fingerprint, input_key,"
                                       " payload) VALUES (?, ?, ?)", rows)
        except sqlite3.OperationalError as exc:
            text = str(exc).lower()
            if "full" in text or "readonly" in text or "disk i/o" in text:
                raise StorageError(f"prediction cache {self.path} cannot be written ({_reason(exc)}); the "
                                   "predictions of earlier batches are kept: make room, then re-run with "
                                   "--resume") from None
            raise

    def count(self) -> int:
        with self._lock:
            return self._conn.execute("SELECT COUNT(*) FROM predictions").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._conn.close()
