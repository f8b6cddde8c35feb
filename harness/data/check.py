"""Before a run starts: are the files of the suite's tasks there? Every missing file is named
before any model loads. A `Suite(partial=True)` (e-ViL: three independent datasets) skips the
tasks without files, one line each, and fails only when none can run. Training files are
needed only by models the harness trains."""

from __future__ import annotations

import difflib
from typing import Sequence

from ..errors import DataError, HarnessError, UsageError
from ..host import PluginHost
from ..registry import did_you_mean
from ..specs import parse_spec
from ..types import Suite, Task
from .session import Session, data_hint, missing_files

__all__ = ["check_data", "check_trained_on", "runnable_instead", "TRAINED_ON"]

#: The model option every model accepts: the training data a pretrained model declares
#: (`--model hf-vqa:path=...,trained_on=vqa2`), for tables laid out by training data.
TRAINED_ON = "trained_on"


def check_trained_on(value: str, suite: Suite, host: PluginHost) -> str:
    """`trained_on=` as declared, when it names training data of the suite's tasks or a
    registered dataset (with or without options or /split); UsageError with near matches
    otherwise (a typo would silently become a table column of its own)."""
    def name_of(spec: str) -> str:
        try:
            return parse_spec(spec)[0]
        except HarnessError:  # not a spec at all: refused below
            return ""

    used: dict[str, None] = {}
    for task in suite.tasks:
        name = name_of(task.dataset)
        splits = host.datasets[name].splits if name in host.datasets else ()
        if (source := task.train_source(splits)) is not None:
            used.update({source[0]: None, f"{source[0]}/{source[1]}": None})
    text = value.strip()
    if text in used or name_of(text.rsplit("/", 1)[0]) in host.datasets:
        return value
    sources = [k for k in used if "/" not in k]
    known = list(dict.fromkeys(sources + host.datasets.names()))
    trains = (", ".join(sources[:4]) + (", ..." if len(sources) > 4 else "")) or "none"
    raise UsageError(f"{TRAINED_ON}={value!r} is neither training data of suite {suite.name!r} "
                     f"({trains}) nor a registered dataset{did_you_mean(text, known)}")


def _plan(tasks: Sequence[Task], session: Session, trainable: bool):
    """(runnable tasks, skipped as (task, "*", reason), {task name: missing files})."""
    runnable, skipped, missing = [], [], {}
    for task in tasks:
        needed = missing_files(session, task.dataset, task.split)
        source = task.train_source(session.dataset(task.dataset).splits) if trainable else None
        if source is not None:
            needed += [p for p in missing_files(session, *source) if p not in needed]
        if not needed:
            runnable.append(task)
            continue
        missing[task.title] = needed
        skipped.append((task.title, "*", f"missing {', '.join(str(p) for p in needed[:3])}"
                                   + (f" (+{len(needed) - 3} more)" if len(needed) > 3 else "")))
    return runnable, skipped, missing


def _can_run(suite: Suite, session: Session, trainable: bool) -> bool:
    try:
        runnable, _, missing = _plan(suite.tasks, session, trainable)
    except HarnessError:
        return False
    return not missing or (suite.partial and bool(runnable))


def runnable_instead(suite: Suite, session: Session, *, trainable: bool) -> list[str]:
    """Other registered suites over the same datasets that can run with the files present,
    those with the same probes only when there are some (e-vil with only e-SNLI-VE dev and
    VQA-X val at hand: e-vil-dev, not counterfactual-vqax-dev)."""
    names = {parse_spec(t.dataset)[0] for t in suite.tasks}
    out = [other.name for other in (entry.obj for entry in session.host.suites)
           if other.name != suite.name and not other.toy
           and names & {parse_spec(t.dataset)[0] for t in other.tasks}
           and _can_run(other, session, trainable)]
    probes = {p for t in suite.tasks for p in t.probes}
    same = [n for n in out if probes & {p for t in session.host.suites[n].tasks for p in t.probes}]
    # The name closest to the suite's first (e-vil -> e-vil-dev).
    return sorted(same or out,
                  key=lambda n: (-difflib.SequenceMatcher(None, suite.name, n).ratio(), n))


def check_data(suite: Suite, tasks: Sequence[Task], session: Session, *,
               trainable: bool) -> tuple[list[Task], list[tuple[str, str, str]]]:
    """The tasks that can run and, for a partial suite, the skipped ones as (task, "*", reason);
    else a DataError naming the first six missing files and the suites that can run instead."""
    runnable, skipped, missing = _plan(tasks, session, trainable)
    if not missing:
        return runnable, []
    if getattr(suite, "partial", False) and runnable:
        return runnable, skipped
    unique = list(dict.fromkeys(str(p) for found in missing.values() for p in found))
    shown = "; ".join(unique[:6]) + (f" (+{len(unique) - 6} more)" if len(unique) > 6 else "")
    what = (f"no task of suite {suite.name!r} can run" if getattr(suite, "partial", False)
            else f"suite {suite.name!r} cannot run")
    instead = runnable_instead(suite, session, trainable=trainable)
    also = (f"; with the files present, suite {' or '.join(repr(n) for n in instead)} can run (--suite "
            f"{instead[0]})") if instead else ""
    raise DataError(f"{what}: missing file(s) {shown} ({data_hint(session.data_dir)}){also}")
