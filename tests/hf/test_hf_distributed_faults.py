"""A failure on one torchrun rank stops every rank with one line naming it, instead of
leaving the others waiting in an exchange that never comes (before: a hang until the
12-hour gloo timeout)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("transformers")

#: torchrun's entry for this test: `harness run ...` with `FAULT` injected on rank 1.
WRAPPER = textwrap.dedent('''
    import os, sys
    import harness
    if os.environ.get("RANK") == "1":
        from harness.run import predictor
        from vqa_harness_cli.launch import distributed
        if os.environ["FAULT"] == "share":  # inside the rank's share of a request
            def broken(self, *args, **kwargs):
                raise RuntimeError("simulated failure in the share")
            predictor.Predictor._run_missing = broken
        else:  # around the exchange: a probe fails on this rank only, the others go on
            def broken(self, *args, **kwargs):
                raise RuntimeError("simulated failure in the probe")
            distributed.ShardPredictor.predict = broken
    sys.argv[0] = "harness"
    from vqa_harness_cli import _entry
    _entry()
''')


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("fault, said", [("share", "rank 1: RuntimeError: simulated failure in the share"),
                                         ("probe", "rank 1: probe accuracy failed on")])
def test_one_rank_failing_stops_every_rank_with_one_line(tiny_vilt, tmp_path: Path, fault: str, said: str):
    (tmp_path / "wrap.py").write_text(WRAPPER)
    env = {**os.environ, "OMP_NUM_THREADS": "1", "TQDM_DISABLE": "1", "GLOO_SOCKET_IFNAME": "lo",
           "MASTER_ADDR": "127.0.0.1", "FAULT": fault}
    cmd = [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node=2", "--master_addr=127.0.0.1",
           f"--master_port={_free_port()}", str(tmp_path / "wrap.py"), "run", "--model", f"hf-vqa:path={tiny_vilt}",
           "--suite", "vqa-accuracy", "--limit", "5", "--device", "cpu", "--out", str(tmp_path / "runs"),
           "--cache", str(tmp_path / "c.sqlite"), "--no-leaderboard"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        _, stderr = proc.communicate(timeout=180)
    except subprocess.TimeoutExpired:
        proc.terminate()  # torchrun stops its ranks (each in a session of its own): SIGTERM, then SIGKILL
        proc.communicate(timeout=90)
        pytest.fail("the ranks still waited for each other after 180 s")
    assert proc.returncode != 0
    errors = [line for line in stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and errors[0].startswith(f"error: {said}"), stderr[-3000:]
    # Only torchrun's own report of the failed child: no traceback through the harness's code.
    assert not [line for line in stderr.splitlines() if "/harness/" in line or "/cli/" in line], stderr[-3000:]
    assert not (tmp_path / "runs").exists() or not list((tmp_path / "runs").iterdir())


def test_a_rank_that_ended_with_its_own_failure_is_named_once(monkeypatch):
    """A rank that failed outside an exchange says 'rank 1: ...' itself; the ranks still
    predicting named it again ('rank 1: rank 1: RuntimeError: ...')."""
    import torch.distributed as dist

    from vqa_harness_cli.launch.distributed import Desynchronised, exchange

    def gather(got, obj):
        got[:] = [obj, ("end", ("rank 1: RuntimeError: boom", 3, ""))]

    monkeypatch.setattr(dist, "all_gather_object", gather)
    with pytest.raises(Desynchronised) as err:
        exchange(2, "predict", {})
    assert str(err.value).startswith("rank 1: RuntimeError: boom (the predictions")
