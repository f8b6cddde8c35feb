"""`harness show suite|dataset|probe|model NAME`: a suite as a suite file, a plugin's options."""

from __future__ import annotations

from typing import Any

import click

from harness.host import get_host

from .suitefiles import suite_from_command_line
from .suitefiles.write import dump_suite

__all__ = ["show", "options_table"]


@click.group()
def show() -> None:
    """Show a suite as a suite file, or what a dataset, probe or model accepts."""


@show.command("suite")
@click.argument("name")
def show_suite(name: str) -> None:
    """Print suite NAME (registered, `toy`, or a suite file) as YAML in the suite-file
    format: save it, edit it and run it with `harness run --suite FILE.yaml`."""

    host = get_host()
    suite = suite_from_command_line(host, name)
    origin = f"plugin {host.suites.get(name).plugin!r}" if name in host.suites else (
        "derived from every toy suite" if name == "toy" else name)
    header = (f"Suite {suite.name!r} ({origin}) as a suite file (docs/suites.md).\n"
              f"Save as my-suite.yaml, change `name:` if you change tasks, then: "
              f"harness run --model M --suite my-suite.yaml")
    click.echo(dump_suite(suite, host, header=header), nl=False)


@show.command("dataset")
@click.argument("name")
def show_dataset(name: str) -> None:
    """Options, splits, provided fields and the release of dataset NAME."""
    entry = get_host().datasets.get(name)
    cls = entry.obj
    _head(entry, cls)
    click.echo(f"splits: {', '.join(cls.splits)}")
    if cls.labelled_splits is not None:
        click.echo(f"labelled splits: {', '.join(cls.labelled_splits)}")
    provides = getattr(cls, "provides", None)
    click.echo(f"provides: {', '.join(sorted(provides)) if provides is not None else '(not declared)'}")
    click.echo(f"release: {getattr(cls, 'release', '') or '(not stated by the plugin)'}")
    _options(cls)


@show.command("probe")
@click.argument("name")
def show_probe(name: str) -> None:
    """Options, model capabilities and Example fields that probe NAME needs."""
    entry = get_host().probes.get(name)
    cls = entry.obj
    _head(entry, cls)
    parts = ([", ".join(cls.requires)] if cls.requires else []) + (
        [f"one of {', '.join(cls.requires_any)}"] if cls.requires_any else [])
    click.echo(f"model capabilities: {' and '.join(parts) or '(model-free)'}")
    click.echo(f"example fields: {', '.join(getattr(cls, 'needs', ())) or '(none declared)'}")
    _options(cls)


@show.command("model")
@click.argument("name")
def show_model(name: str) -> None:
    """Options and capabilities of model NAME."""
    entry = get_host().models.get(name)
    cls = entry.obj
    _head(entry, cls)
    click.echo(f"capabilities: {', '.join(sorted(cls.capabilities()))}")
    _options(cls, () if "fit" in cls.capabilities() else (TRAINED_ON_ROW,))


def _head(entry: Any, cls: type) -> None:
    click.echo(f"{entry.name} (plugin {entry.plugin}, {entry.distribution})")
    if getattr(cls, "description", ""):
        click.echo(cls.description)


def options_table(cls: type) -> list[list[str]]:
    """[option, default, accepted values, help] per option of a plugin class."""
    rows = []
    for key, opt in sorted(getattr(cls, "options", {}).items()):
        accepted = (" | ".join(map(str, opt.choices)) if opt.choices is not None else opt.describe_range())
        default = "''" if opt.default == "" else _text(opt.default)
        rows.append([key, default, accepted, opt.help])
    return rows


def _text(value: Any) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


#: The option every pretrained model accepts (harness.data.check.TRAINED_ON), shown with its own.
TRAINED_ON_ROW = ["trained_on", "''", "a dataset name",
                  "(every pretrained model) the training data it declares, for tables laid out by training data "
                  "(e.g. trained_on=vqa2 fills Goyal's B rows): a registered dataset or one the suite trains on"]


def _options(cls: type, extra: tuple[list[str], ...] = ()) -> None:
    from tabulate import tabulate  # heavy: tabulate takes about 60 ms; only text tables need it

    rows = sorted(options_table(cls) + list(extra))
    if not rows:
        click.echo("options: none")
        return
    click.echo("options (NAME:key=value,...):")
    click.echo(tabulate(rows, headers=["option", "default", "accepted", "help"], tablefmt="simple",
                        disable_numparse=True))
