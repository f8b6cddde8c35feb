"""Reading run folders: the only input of the leaderboard.

A run folder holds `results.jsonl` (result rows), `manifest.json`, `tables.json` (the
probes' table layouts and row tags, harness.layouts), `report.md` and `artifacts/`.
Malformed rows are never used and never silently dropped: each becomes a problem line
naming the file, the line and the field, which the leaderboard shows on screen and on the
site.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from harness.display import Display, parse_displays
from harness.errors import DataError, UsageError
from harness.fileio import decode_text
from harness.jsonio import json_lone_surrogate
from harness.layouts import Layout, RowTags, parse_tables
from harness.project import MANIFEST_SCHEMA_VERSION, READABLE_SCHEMA_VERSIONS, schema_problem
from harness.rundir import TABLES_FILE, RunDir
from harness.types import UNITS, ResultRow

from .assumptions import assumption_tags
from .notapplicable import invalid_tags, report_tags
from .runchoice import newest_per_quantity, run_status

__all__ = ["RunInfo", "Collected", "run_dirs", "read_rows", "load_run", "collect", "validate_row"]

_FIELDS = {f.name: f for f in fields(ResultRow)}
_OPTIONAL = {"ci_low", "ci_high", "unit", "train", "higher_is_better"}
_STRINGS = ("run_id", "model", "suite", "dataset", "split", "probe", "variant", "metric")


def run_dirs(inputs: Iterable[Path]) -> list[Path]:
    """Run folders among `inputs` (a run folder itself, or a folder of runs)."""
    found = []
    for path in inputs:
        path = Path(path)
        if (path / "results.jsonl").is_file():
            found.append(path)
        elif path.is_dir():
            found.extend(sorted(p for p in path.iterdir() if (p / "results.jsonl").is_file()))
    unique = {p.resolve(): p for p in found}  # one run named two ways (relative, absolute) is read once
    return sorted(unique.values())


def _results_not_files(inputs: Iterable[Path]) -> list[str]:
    """A problem line per run folder whose results.jsonl is there but is not a file (a folder),
    or is missing beside its manifest.json while no process writes the run (deleted, or a copy
    without it): such a run would otherwise be passed over without a word."""
    out = []
    for path in inputs:
        path = Path(path)
        candidates = [path] + (sorted(p for p in path.iterdir() if p.is_dir()) if path.is_dir() else [])
        for folder in candidates:
            results = folder / "results.jsonl"
            if results.exists() and not results.is_file():
                out.append(f"{results}: is a folder, expected a file (run skipped)")
            elif not results.exists() and (folder / "manifest.json").is_file() and RunDir(folder).writer() is None:
                out.append(f"{results}: missing (run skipped; its manifest.json is there)")
    return out


def _number(value: Any, name: str, *, optional: bool = False) -> str:
    if value is None and optional:
        return ""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return f"field {name!r} must be a number, got {json.dumps(value)[:40]}"
    if not math.isfinite(value):
        return f"field {name!r} must be finite, got {value}"
    return ""


def validate_row(data: Any) -> str:
    """'' for a valid result row, else what is wrong with it (one clause)."""
    if not isinstance(data, dict):
        return f"expected a JSON object, got {type(data).__name__}"
    missing = sorted(set(_FIELDS) - _OPTIONAL - set(data))
    if missing:
        return f"missing field(s) {', '.join(missing)}"
    if data["schema_version"] not in READABLE_SCHEMA_VERSIONS or isinstance(data["schema_version"], bool):
        return (f"unknown schema_version {data['schema_version']!r} (this leaderboard reads "
                f"{' and '.join(map(str, READABLE_SCHEMA_VERSIONS))}; results from a newer vqa-harness?)")
    for name in _STRINGS:
        if not isinstance(data[name], str):
            return f"field {name!r} must be a string"
    if not isinstance(data.get("train", ""), str):
        return f"field 'train' must be a string, got {json.dumps(data['train'])[:40]}"
    if not data["metric"]:
        return "field 'metric' is empty"
    problem = _number(data["value"], "value") or _number(data.get("ci_low"), "ci_low", optional=True) \
        or _number(data.get("ci_high"), "ci_high", optional=True)
    if problem:
        return problem
    if isinstance(data["n"], bool) or not isinstance(data["n"], int) or data["n"] < 0:
        return f"field 'n' must be a non-negative integer, got {json.dumps(data['n'])[:40]}"
    if data.get("higher_is_better", True) not in (True, False, None):
        return f"field 'higher_is_better' must be true, false or null, got {json.dumps(data['higher_is_better'])[:40]}"
    unit = data.get("unit", "fraction")
    if unit not in UNITS:
        return f"field 'unit' must be one of {', '.join(UNITS)}, got {unit!r}"
    return ""


def read_rows(path: Path) -> tuple[list[ResultRow], list[str]]:
    """Valid rows of one results.jsonl and a problem line per invalid one."""
    rows, problems, _ = _read_rows(path)
    return rows, problems


def _read_rows(path: Path) -> tuple[list[ResultRow], list[str], list[tuple[Any, str]]]:
    """`read_rows`, and per skipped line its JSON (NaN and Infinity read as numbers; None
    when not JSON) and its problem as `results.jsonl:<line>: ...`: the cell of a skipped row
    that still names its task says "invalid" (notapplicable.invalid_tags)."""
    rows: list[ResultRow] = []
    problems: list[str] = []
    skipped: list[tuple[Any, str]] = []
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        return [], [f"{path}: cannot read ({exc.strerror or exc})"], []
    try:
        text, undecodable = decode_text(raw, path), {}
    except DataError:  # a line that is not UTF-8 is one skipped row; the others are read
        text, undecodable = _decode_lines(raw)
    lines = text.split("\n")
    for lineno, line in enumerate(lines, 1):
        if lineno in undecodable:
            truncated = lineno == len(lines) and not text.endswith("\n")
            problem = ("truncated (the run may have been interrupted); " if truncated else "") + undecodable[lineno]
            problems.append(f"{path}:{lineno}: {problem}")
            skipped.append((None, f"{Path(path).name}:{lineno}: {problem}"))
            continue
        if not line.strip():
            continue
        try:
            data = json.loads(line, parse_constant=_reject_constant)
        except (json.JSONDecodeError, ValueError) as exc:
            truncated = lineno == len(lines) and not text.endswith("\n")
            reason = "truncated (the run may have been interrupted)" if truncated else "not JSON"
            problem = f"{reason} ({getattr(exc, 'msg', exc)})"
            problems.append(f"{path}:{lineno}: {problem}")
            skipped.append((_lenient(line), f"{Path(path).name}:{lineno}: {problem}"))
            continue
        problem = validate_row(data)
        surrogate = json_lone_surrogate(line, data)
        if not problem and surrogate is not None:  # no page or file could be written with it
            problem = f"field {surrogate!r} holds a lone surrogate (not a character; no UTF-8 file can store it)"
        if problem:
            problems.append(f"{path}:{lineno}: {problem}")
            skipped.append((data, f"{Path(path).name}:{lineno}: {problem}"))
            continue
        rows.append(ResultRow.from_json(data))
    return rows, problems, skipped


def _decode_lines(raw: bytes) -> tuple[str, dict[int, str]]:
    """The lines of `raw` that are UTF-8 (the others left empty) and, per other line, why."""
    lines, bad = [], {}
    for lineno, blob in enumerate(raw.split(b"\n"), 1):
        try:
            lines.append(blob.decode("utf-8-sig" if lineno == 1 else "utf-8"))
        except UnicodeDecodeError as exc:
            bad[lineno] = f"not UTF-8 text (byte {exc.start} of the line: {blob[exc.start:exc.start + 4]!r})"
            lines.append("")
    return "\n".join(lines), bad


def _lenient(line: str) -> Any:
    try:
        return json.loads(line)  # NaN, Infinity and -Infinity read as floats
    except ValueError:
        return None


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not a valid value")


@dataclass(frozen=True)
class RunInfo:
    """What a run folder holds, read once."""

    path: Path
    run_id: str
    manifest: dict[str, Any]
    rows: tuple[ResultRow, ...]
    problems: tuple[str, ...]
    report_md: str
    artifacts: tuple[str, ...]  # paths relative to the run folder, sorted
    layouts: dict[str, list[Layout]] = field(default_factory=dict)
    tags: tuple[RowTags, ...] = ()
    #: probe -> its headline (metric, variant) pairs (`Probe.headline`, from tables.json).
    headlines: dict[str, list] = field(default_factory=dict)
    #: probe -> how the leaderboard shows it (`Probe.display()`, from tables.json).
    displays: dict[str, Display] = field(default_factory=dict)


def _read_json(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
        data = json.loads(text)
        surrogate = json_lone_surrogate(text, data)
        if surrogate is not None:  # no page or file could be written with it
            raise DataError(f"{path}: field {surrogate!r} holds a lone surrogate (not a character; no UTF-8 "
                            "file can store it)")
        return data
    except UnicodeDecodeError:
        raise DataError(f"{path}: not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise DataError(f"{path}:{exc.lineno}: not JSON ({exc.msg})") from None
    except OSError as exc:
        raise DataError(f"{path}: cannot read ({exc.strerror or exc})") from None


#: Manifest fields the pages read by shape: a damaged value is left out with a problem line.
_SHAPES = {"versions": (dict, "an object"), "stats": (dict, "an object"), "resources": (dict, "an object"),
           "argv": (list, "a list"), "plugin_failures": (list, "a list")}


def _typed_fields(manifest: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    damaged = [k for k, (kind, _) in _SHAPES.items() if manifest.get(k) is not None and
               not isinstance(manifest[k], kind)]
    return {k: v for k, v in manifest.items() if k not in damaged}, damaged


def load_run(path: Path) -> RunInfo:
    """Read a run folder; UsageError when it is not one, DataError for an unreadable
    manifest. A malformed tables.json is a problem line (the generic layout is used)."""
    path = Path(path)
    if not path.is_dir() or not ((path / "manifest.json").is_file() or (path / "results.jsonl").is_file()):
        raise UsageError(f"{path}: not a run folder (no manifest.json or results.jsonl)")
    manifest = _read_json(path / "manifest.json") if (path / "manifest.json").is_file() else {}
    if not isinstance(manifest, dict):
        raise DataError(f"{path / 'manifest.json'}: expected a JSON object")
    unknown = schema_problem(manifest, (MANIFEST_SCHEMA_VERSION,), str(path / "manifest.json"))
    if unknown:  # a newer format: refused (the run is skipped with this line), never read as if known
        raise DataError(unknown)
    results = path / "results.jsonl"
    if results.is_file():
        rows, problems, skipped = _read_rows(results)
    else:  # a run in its first task has written none yet: not a problem while its process goes on
        rows, problems, skipped = [], [] if RunDir(path).writer() is not None else [
            f"{results}: missing (no result rows; deleted, a copy without it, or the run was killed in its first "
            "task)"], []
    if not (path / "manifest.json").is_file():  # a run writes it first: deleted, or a copy without it
        problems.append(f"{path / 'manifest.json'}: missing (its result rows are shown; the run's status, settings "
                        "and versions are unknown)")
    manifest, damaged = _typed_fields(manifest)
    problems += [f"{path / 'manifest.json'}: field {k!r} must be {_SHAPES[k][1]} (left out)" for k in damaged]
    layouts: dict[str, list[Layout]] = {}
    tags: list[RowTags] = []
    headlines: dict[str, list] = {}
    displays: dict[str, Display] = {}
    if (path / TABLES_FILE).is_file():
        try:
            data = _read_json(path / TABLES_FILE)
            layouts, tags, headlines = parse_tables(data, str(path / TABLES_FILE))
        except (DataError, ValueError) as exc:
            problems.append(f"{exc} (generic table layout used)")
        else:
            try:
                displays = parse_displays(data, str(path / TABLES_FILE))
            except ValueError as exc:
                problems.append(f"{exc} (shown without its names, evidence and charts)")
    report_path = path / "report.md"
    report = report_path.read_text(encoding="utf-8", errors="replace") if report_path.is_file() else ""
    tags += report_tags(report, rows, tags)  # "not applicable" of runs written before the n/a tags
    tags += invalid_tags(skipped, tags)  # a skipped row's cell says "invalid", not "-" (no row)
    tags += assumption_tags(report, tags)  # the report's reason, per variant, for rows tagged assumptions_not_met
    art_root = path / "artifacts"
    artifacts = sorted(p.relative_to(path).as_posix() for p in art_root.rglob("*") if p.is_file()) \
        if art_root.is_dir() else []
    return RunInfo(path, str(manifest.get("run_id") or path.name), manifest, tuple(rows), tuple(problems),
                   report, tuple(artifacts), layouts, tuple(tags), headlines, displays)


@dataclass
class Collected:
    """Rows, layouts and tags of many runs (by default per quantity the newest complete
    run's rows, runchoice.py)."""

    runs: list[RunInfo]
    rows: list[ResultRow]
    problems: list[str]
    layouts: dict[str, list[Layout]]
    tags: dict[str, list[RowTags]]
    #: probe -> its display (the newest run that declares one wins).
    displays: dict[str, Display] = field(default_factory=dict)
    #: (model, suite) whose rows come from several runs, or that pass over a newer run: one
    #: line each naming the runs (shown under the runs table).
    notes: list[str] = field(default_factory=list)


def collect(inputs: Iterable[Path], *, latest_only: bool = True) -> Collected:
    """Read every run folder under `inputs`: with `latest_only`, per quantity (model, suite,
    probe, data, split, training data) the rows of the newest complete run, else of the
    newest run (runchoice.py); otherwise every run's rows. Layouts and displays of a probe
    come from the newest run that declares them."""
    inputs = [Path(p) for p in inputs]
    runs: list[RunInfo] = []
    problems: list[str] = _results_not_files(inputs)
    seen: dict[str, Path] = {}
    for folder in run_dirs(inputs):
        try:
            info = load_run(folder)
        except (DataError, UsageError) as exc:
            problems.append(f"{exc} (run skipped)")
            continue
        if info.run_id in seen:  # one run copied into two folders: read once
            problems.append(f"{folder}: run {info.run_id} is also in {seen[info.run_id]} (this copy skipped)")
            continue
        seen[info.run_id] = folder
        runs.append(info)
    problems += [p for info in runs for p in info.problems]
    notes: list[str] = []
    if latest_only:
        empty = [(info.run_id, str(info.manifest.get("model", "")), str(info.manifest.get("suite", "")),
                  run_status(info.manifest)) for info in runs if not info.rows]
        rows, notes = newest_per_quantity([(run_status(info.manifest), info.rows) for info in runs], empty)
    else:
        rows = [r for info in runs for r in info.rows]
    layouts: dict[str, list[Layout]] = {}
    displays: dict[str, Display] = {}
    for info in sorted(runs, key=lambda i: i.run_id):
        layouts.update({probe: found for probe, found in info.layouts.items() if found})
        displays.update(info.displays)
    tags = {info.run_id: list(info.tags) for info in runs}
    return Collected(runs, rows, problems, layouts, tags, displays, notes)
