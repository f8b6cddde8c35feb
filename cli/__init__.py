"""`harness` command line: the core subcommands and those plugins register.

Expected failures (HarnessError) print one line and exit with their ExitCode; a traceback
means a bug.
"""

from __future__ import annotations

import sys

import click

from harness.errors import ExitCode, HarnessError, Stopped
from harness.host import get_host
from harness.registry import Entry, did_you_mean

from .cache_cmd import cache
from .data_cmd import data
from .launch.signals import sigterm_as_ctrl_c
from .leaderboard_cmd import leaderboard
from .listing import list_cmd, plugins_cmd
from .pipes import survive_broken_pipes
from .run_cmd import run
from .show_cmd import show

__all__ = ["main", "cli"]

#: Core subcommands; everything else comes from plugins through the `register_commands` hook.
COMMANDS: dict[str, click.Command] = {
    "run": run, "list": list_cmd, "plugins": plugins_cmd, "leaderboard": leaderboard, "cache": cache, "show": show,
    "data": data,
}


#: The hosts whose core-command clashes were reported (click asks for the commands many times).
_WARNED: list[object] = []


def plugin_commands() -> dict[str, click.Command]:
    """Commands registered by plugins (a name a core command uses is skipped, with a warning
    once per host)."""
    host = get_host()
    out = {}
    for entry in host.commands:
        if entry.name in COMMANDS:
            if not any(h is host for h in _WARNED):
                click.echo(f"warning: plugin {entry.plugin!r} ({entry.distribution}) registers command "
                           f"{entry.name!r}, which is a core command; ignored", err=True)
            continue
        out[entry.name] = entry.obj
    _WARNED[:] = [host]
    return out


class HarnessGroup(click.Group):
    """The core commands and the plugins' commands, with near matches for a typo."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*COMMANDS, *plugin_commands()})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        return COMMANDS.get(name) or plugin_commands().get(name)

    def resolve_command(self, ctx, args):
        try:
            return super().resolve_command(ctx, args)
        except click.UsageError as exc:
            known = self.list_commands(ctx)
            if args and args[0] not in known and not args[0].startswith("-"):
                raise click.UsageError(f"no such command {args[0]!r}{did_you_mean(args[0], known)}") from None
            raise exc


@click.group(cls=HarnessGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="vqa-harness")
def cli() -> None:
    """vqa-harness: does your vision-language model really use the image?

    \b
    Quick start (no download needed):
      harness run --model qonly --model cnn-lstm --suite toy
      harness leaderboard build
    """


def main(argv: list[str] | None = None) -> int:
    """`harness ARGV`: the exit code. Output to a reader that has gone (`harness run | head`)
    is dropped and the command goes on (vqa_harness_cli.pipes). SIGTERM ends it as Ctrl-C
    does: its clean-up runs, one line, exit 143 (vqa_harness_cli.launch.signals)."""
    with survive_broken_pipes(), sigterm_as_ctrl_c():
        return _main(argv)


def _main(argv: list[str] | None) -> int:
    words = [a for a in (sys.argv[1:] if argv is None else argv) if not a.startswith("-")]
    command = words[0] if words else ""
    try:
        cli.main(args=argv, prog_name="harness", standalone_mode=False)
    except HarnessError as exc:
        click.echo(f"error: {exc}", err=True)
        return int(exc.exit_code)
    except click.exceptions.Abort as exc:  # click turns Ctrl-C (and Stopped) into Abort
        if isinstance(exc.__context__, KeyboardInterrupt):
            return _interrupted(exc.__context__, command)
        click.echo("aborted", err=True)
        return 130
    except click.ClickException as exc:  # bad command line: one line, as for every expected failure
        where = f"harness {exc.ctx.command_path.split(' ', 1)[1]}" if getattr(exc, "ctx", None) and \
            " " in exc.ctx.command_path else "harness"
        message = " ".join(exc.format_message().split())  # click lists a choice's values one a line
        click.echo(f"error: {message} (see `{where} --help`)", err=True)
        return ExitCode.USAGE
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    except KeyboardInterrupt as exc:
        return _interrupted(exc, command)
    except BrokenPipeError:
        return 0
    except SystemExit as exc:  # commands exit non-zero for partial runs
        if isinstance(exc.code, str):  # sys.exit("message") in a plugin's command: the message, as Python shows it
            click.echo(exc.code, err=True)
            return 1
        return int(exc.code or 0)
    except Exception as exc:
        entry = _plugin_command(command)
        if entry is None:  # the harness's own command: a bug, with its traceback
            raise
        click.echo(f"error: plugin {entry.plugin!r} ({entry.distribution}): command {command!r} failed: "
                   f"{type(exc).__name__}: {' '.join(str(exc).split())}".rstrip(": "), err=True)
        return ExitCode.PLUGIN
    return 0


def _plugin_command(name: str) -> Entry | None:
    """The registry entry of plugin command `name` (None for a core command or no command)."""
    if name in COMMANDS:
        return None
    commands = get_host().commands
    return commands.get(name) if name in commands else None


#: What to do after `harness run` was stopped while its models ran.
RESUME = "what was computed is saved; re-run with --resume to continue"


def _interrupted(exc: KeyboardInterrupt, command: str) -> int:
    """The one line for Ctrl-C, or a signal `harness run` stops on (harness.errors.Stopped),
    and its exit code: 128 + the signal number. The advice to `--resume` is `harness run`'s
    alone; where the command knows better (its runs were complete), `exc.advice` says it."""
    advice = getattr(exc, "advice", "") or (RESUME if command == "run" else "")
    terminated = isinstance(exc, Stopped) and exc.status == "terminated"
    head = f"terminated ({exc.name})" if terminated else "interrupted"
    click.echo(head + (f": {advice}" if advice else ""), err=True)
    return exc.exit_code if terminated else 130


def _entry() -> None:  # pragma: no cover
    sys.exit(main())
