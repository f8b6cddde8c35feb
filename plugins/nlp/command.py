"""`harness resources install|status`."""

from __future__ import annotations

from pathlib import Path

import click

from harness.errors import ResourceError
from harness.folders import check_outside_packages
from harness.specs import Place

from . import install as do_install
from . import status as do_status

__all__ = ["resources"]


@click.group()
def resources() -> None:
    """Offline NLP resources: WordNet 3.0, the POS tagger, a BERTScore model."""


@resources.command("install")
@click.option("--target", type=Place(file_okay=False, path_type=Path), default=None,
              help="NLTK data folder (default: the harness data home).")
@click.option("--allow-download", is_flag=True, help="Also try nltk.download (needs network).")
def install(target: Path | None, allow_download: bool) -> None:
    """Make the resources available without a model hub (idempotent)."""
    if target is not None:  # NLTK data is never written into a source package
        check_outside_packages(target, "--target")
    statuses = do_install(target, allow_download=allow_download, waiting=lambda: click.echo(
        f"waiting for another `harness resources install` into {target or 'the harness data home'} to finish...",
        err=True))
    _show(statuses)
    if not all(s.present for s in statuses):
        raise ResourceError("some resources are missing: " + "; ".join(f"{s.name}: {s.detail}" for s in statuses if not s.present))


@resources.command("status")
@click.option("--target", type=Place(file_okay=False, path_type=Path), default=None)
def status(target: Path | None) -> None:
    """Say what is present and where."""
    _show(do_status(target))


def _show(statuses) -> None:
    from tabulate import tabulate  # heavy: tabulate takes about 60 ms; only text tables need it

    rows = [[s.name, "yes" if s.present else "NO", s.location, s.source, "" if s.present else s.detail] for s in statuses]
    click.echo(tabulate(rows, headers=["resource", "present", "location", "source", "fix"], tablefmt="simple"))
