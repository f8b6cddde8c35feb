"""SIGTERM (`kill`, `timeout`, a job scheduler) ends every command the way Ctrl-C does: its
clean-up runs (an atomic writer's temporary file is removed), it prints one line and exits
143. Only `harness run` handled SIGTERM; under Python's default action `harness leaderboard
build` died at once and left its `.index.md.XXXX.tmp`, `.results.json.XXXX.tmp` files (16
of them, up to 220 KB each, new ones at each kill) in the leaderboard folder for good."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent("""
    import os, signal, sys
    from pathlib import Path

    import click

    from harness.fileio import atomic_path
    from harness.hookspecs import hookimpl
    from harness.testing import make_host, use_host
    from vqa_harness_cli import main


    @click.command("write-then-killed")
    @click.argument("out")
    def write_then_killed(out):
        with atomic_path(Path(out) / "table.md") as tmp:
            tmp.write_text("half a table")
            os.kill(os.getpid(), signal.SIGTERM)  # delivered before this returns
            tmp.write_text("the whole table")


    class Plugin:
        @hookimpl
        def register_commands(self, register):
            register(write_then_killed)


    with use_host(make_host(Plugin(), names=["sigterm-test"])):
        code = main(["write-then-killed", sys.argv[1]])
    print("handlers after:", signal.getsignal(signal.SIGTERM) is signal.SIG_DFL)
    sys.exit(code)
""")


def test_sigterm_removes_the_temporary_files_and_ends_in_one_line(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    proc = subprocess.run([sys.executable, "-c", SCRIPT, str(out)], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONFAULTHANDLER": ""})
    assert proc.returncode == 143, (proc.returncode, proc.stderr[-2000:])
    assert os.listdir(out) == []  # neither the table (not finished) nor its temporary file
    assert proc.stderr.strip().splitlines()[-1] == "terminated (SIGTERM)"
    assert "handlers after: True" in proc.stdout  # the command's handler is not left installed
