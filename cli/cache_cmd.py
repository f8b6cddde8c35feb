"""`harness cache status|clear`: what the harness cache holds, and removing it."""

from __future__ import annotations

import click

from harness.cache.artifacts import cache_status, clear_cache, foreign_folders
from harness.errors import UsageError
from harness.paths import cache_dir
from harness.registry import did_you_mean

__all__ = ["cache"]


def _size(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} B"  # pragma: no cover


@click.group()
def cache() -> None:
    """The harness cache ($VQA_HARNESS_CACHE): predictions, trained weights and the
    model-independent artifacts (toy data, decoy sets, perturbations, features, probe outputs)."""


@cache.command("status")
def status() -> None:
    """Entries and size per kind."""
    from tabulate import tabulate  # heavy: tabulate takes about 60 ms; only text tables need it

    found = cache_status()
    rows = [[s.kind, s.entries, _size(s.bytes), _size(s.shared) if s.shared else ""] for s in found]
    click.echo(f"cache folder: {cache_dir()}")
    click.echo(tabulate(rows, headers=["kind", "entries", "size", "of it also in run folders"], tablefmt="simple")
               if rows else "(empty)")
    click.echo(f"total: {_size(sum(s.bytes for s in found))}")
    foreign = foreign_folders()
    if foreign:
        click.echo(f"not the harness's (no CACHEDIR.TAG; never cleared): {', '.join(foreign)}")


def _agreed(question: str) -> bool:
    """The user's answer; no answer at all (standard input closed or empty: a script, a job
    without a terminal) is one UsageError line, where it was "aborted" and exit 130, as Ctrl-C."""
    try:
        return click.confirm(question, default=False)
    except click.exceptions.Abort as exc:
        if isinstance(exc.__context__, EOFError):
            click.echo()  # ends the question's line
            raise UsageError("no answer on standard input; pass --yes to remove without asking") from None
        raise


@cache.command("clear")
@click.argument("kinds", nargs=-1)
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
def clear(kinds: tuple[str, ...], yes: bool) -> None:
    """Remove KINDS (as `harness cache status` names them), or everything."""
    known = [s.kind for s in cache_status()]
    unknown = [k for k in kinds if k not in known]
    if unknown:
        raise UsageError(f"no cache kind {unknown[0]!r}{did_you_mean(unknown[0], known)}")
    what = ", ".join(kinds) if kinds else "the whole harness cache"
    if not yes and not _agreed(f"remove {what}?"):
        click.echo("nothing removed", err=True)
        raise SystemExit(1)  # a "no", not an interrupt (130)
    removed = clear_cache(list(kinds) or None)
    shared = sum(s.shared for s in removed)
    click.echo(f"removed {len(removed)} kind(s), {_size(sum(s.bytes for s in removed))}"
               + (f"; {_size(shared)} of it is still linked from run folders and stays on disk until they go"
                  if shared else ""))
