"""Two leaderboard builds into one folder take turns: `harness run` started once per GPU
builds the leaderboard at the end of each command, and two builds at once interleaved their
files, or the one that read the runs first, before the other run was complete, finished last
and left a leaderboard without that run's rows."""

from __future__ import annotations

import threading

from harness.api import Publisher
from harness.hookspecs import hookimpl
from harness.testing import make_host
from vqa_harness_cli.publish import build_turn, publish


class _Recording(Publisher):
    name = "recording"
    calls: list[str] = []

    def publish(self, inputs, out, *, latest_only=True, progress=None):
        _Recording.calls.append(str(out))
        return []


class _Plugin:
    @hookimpl
    def register_publishers(self, register):
        register(_Recording)


def test_a_build_waits_for_the_one_under_way_and_says_so(tmp_path):
    host = make_host(_Plugin(), names=["recording"])
    out = tmp_path / "leaderboard"
    heard: list[str] = []
    waiting = threading.Event()
    _Recording.calls.clear()

    def progress(line: str) -> None:
        heard.append(line)
        waiting.set()

    with build_turn(out):  # another build under way
        second = threading.Thread(target=publish, args=(host, [tmp_path], out), kwargs={"progress": progress})
        second.start()
        for _ in range(600):  # until it waits or writes (no clock in the assertions)
            if waiting.wait(0.1) or _Recording.calls:
                break
        assert _Recording.calls == []  # it waits: before, it wrote beside the first
    second.join(60)
    assert _Recording.calls == [str(out)]
    assert heard == [f"waiting for another leaderboard build into {out} to finish..."]


def test_a_build_alone_does_not_wait(tmp_path):
    host = make_host(_Plugin(), names=["recording"])
    heard: list[str] = []
    _Recording.calls.clear()
    publish(host, [tmp_path], tmp_path / "lb", progress=heard.append)
    assert _Recording.calls == [str(tmp_path / "lb")] and heard == []
