"""2-process CPU run (torchrun, gloo) gives the same results as a 1-process run."""

from __future__ import annotations

import datetime
import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from harness.host import PluginHost
from harness.testing import run_in_process

pytest.importorskip("transformers")

KEYS = ("dataset", "split", "probe", "variant", "metric", "value", "n", "ci_low", "ci_high")


def _rows(run_dir: Path) -> list[tuple]:
    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    return sorted(tuple(r[k] for k in KEYS) for r in rows)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _rendezvous_failure(stderr: str) -> bool:
    return any(s in stderr for s in ("Address already in use", "EADDRINUSE", "Connection refused",
                                      "Connection reset by peer", "DistNetworkError"))


def test_two_process_run_matches_single_process(tiny_vilt, tmp_path):
    spec = f"hf-vqa:path={tiny_vilt}"
    single = run_in_process(PluginHost(blocked=frozenset()), model=spec, suite="vqa-accuracy", tmp_path=tmp_path / "one",
                            limit=8, batch_size=3)
    assert single.exit_code == 0 and single.model_calls == 16

    out = tmp_path / "two" / "runs"
    # Loopback only (gloo otherwise picks an interface from the host name). PYTHONFAULTHANDLER:
    # a rank that aborts (SIGABRT from C++) prints every thread's Python stack below.
    env = {**os.environ, "OMP_NUM_THREADS": "1", "TQDM_DISABLE": "1", "GLOO_SOCKET_IFNAME": "lo",
           "MASTER_ADDR": "127.0.0.1", "PYTHONFAULTHANDLER": "1"}
    for _attempt in range(2):
        cmd = [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node=2",
               "--master_addr=127.0.0.1", f"--master_port={_free_port()}",
               "-m", "vqa_harness_cli", "run", "--model", spec, "--suite", "vqa-accuracy", "--limit", "8",
               "--batch-size", "5", "--device", "cpu", "--out", str(out), "--cache", str(tmp_path / "two" / "c.sqlite"),
               "--no-leaderboard"]
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=240, cwd=tmp_path)
        if done.returncode == 0 or not _rendezvous_failure(done.stderr):
            break
        # A port taken between _free_port() and torchrun's bind is the machine's doing, not
        # ours: try once more on a new port (any other failure fails the test).
    if done.returncode != 0:  # show the ranks' own tracebacks, not only torchrun's summary
        print(done.stdout[-4000:], done.stderr[-12000:], sep="\n")
    assert done.returncode == 0
    (run_dir,) = list(out.iterdir())  # rank 0 alone wrote a run directory
    assert _rows(run_dir) == _rows(single.rundir.path)
    manifest = json.loads((run_dir / "manifest.json").read_text())
    # Rank 0 scored from the cache the ranks filled: no model call of its own.
    assert manifest["stats"]["model_calls"] == 0 and manifest["stats"]["cache_hits"] == 16
    assert manifest["status"] == "complete"


LEAVE_GROUP = """
import datetime, json, os, time
import torch.distributed as dist
from vqa_harness_cli.launch.distributed import _process_group

def gloo_threads(want):  # a thread names itself once started: wait a little for the name
    for _ in range(100):
        names = (open(f"/proc/self/task/{t}/comm").read().strip() for t in os.listdir("/proc/self/task"))
        found = sorted(n for n in names if "gloo" in n)
        if bool(found) == want:
            break
        time.sleep(0.05)
    return found

with _process_group(datetime.timedelta(minutes=5)):
    dist.barrier()
    running = gloo_threads(True)
    import torch.distributed.nn  # as transformers does while it loads a model
print(json.dumps([running, gloo_threads(False)]))
"""


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads a process's threads from /proc")
def test_leaving_the_process_group_stops_its_threads(tmp_path):
    # A torch module imported inside the group (torch.distributed.nn: group=group.WORLD as a
    # default value) kept the group and its gloo threads alive past destroy_process_group, into
    # interpreter exit: a rank leaving while another worked aborted there once (SIGABRT).
    env = {**os.environ, "RANK": "0", "LOCAL_RANK": "0", "WORLD_SIZE": "1", "MASTER_ADDR": "127.0.0.1",
           "MASTER_PORT": str(_free_port()), "GLOO_SOCKET_IFNAME": "lo", "OMP_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, "-c", LEAVE_GROUP], env=env, capture_output=True, text=True,
                          timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-4000:]
    running, left = json.loads(done.stdout.strip().splitlines()[-1])
    assert running  # the group had threads: the check below can see them
    assert left == []


def test_the_exchange_timeout_is_the_users_and_reaches_the_process_group(monkeypatch):
    import torch.distributed as dist

    from vqa_harness_cli.launch import distributed

    monkeypatch.delenv(distributed.TIMEOUT_ENV, raising=False)
    assert distributed.exchange_timeout() == datetime.timedelta(hours=12)
    monkeypatch.setenv(distributed.TIMEOUT_ENV, " 30 ")
    assert distributed.exchange_timeout() == datetime.timedelta(minutes=30)

    given = {}

    class Reached(Exception):
        pass

    def init(backend, **kwargs):
        given.update(kwargs, backend=backend)
        raise Reached

    monkeypatch.setattr(dist, "is_initialized", lambda: False)
    monkeypatch.setattr(dist, "init_process_group", init)
    monkeypatch.setattr(distributed, "world", lambda: (1, 2, 0))
    with pytest.raises(Reached):
        distributed.run_distributed(SimpleNamespace(device="cpu"), None)  # stops where the group is made
    assert given == {"backend": "gloo", "timeout": datetime.timedelta(minutes=30)}
