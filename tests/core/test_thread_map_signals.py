"""A Ctrl-C during a thread pool's work (toy images written, an hf batch decoded) is raised
once the threads' current chunk is done, never inside the pool's own locks: a `harness run`
stopped during toy-data generation hung for good (the main thread in
`ThreadPoolExecutor.shutdown`, every worker waiting for a lock the interrupted main thread
held), and ignored SIGTERM after it."""

from __future__ import annotations

import os
import signal
import threading

import pytest

from harness.threads import thread_map


class _Stop(Exception):
    pass


@pytest.fixture
def stop_on_sigint():
    def handler(signum, frame):
        raise _Stop(signum)

    before = signal.signal(signal.SIGINT, handler)
    yield
    signal.signal(signal.SIGINT, before)


def test_a_signal_sent_during_the_work_is_raised_after_the_chunk(stop_on_sigint):
    done: list[int] = []
    lock = threading.Lock()

    def job(i: int) -> int:
        if i == 0:
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C while the pool works
        else:
            threading.Event().wait(0.002)  # the other jobs take a moment
        with lock:
            done.append(i)
        return i * i

    with pytest.raises(_Stop):
        thread_map(job, range(64), threads=4, chunk=64)
    assert sorted(done) == list(range(64))  # before: raised in the main thread while jobs ran
    assert thread_map(lambda i: i * i, range(10), threads=3, chunk=4) == [i * i for i in range(10)]


def test_the_signal_stops_the_work_between_chunks(stop_on_sigint):
    done: list[int] = []

    def job(i: int) -> int:
        if i == 0:
            os.kill(os.getpid(), signal.SIGINT)
        done.append(i)
        return i

    with pytest.raises(_Stop):
        thread_map(job, range(100), threads=2, chunk=10)
    assert sorted(done) == list(range(10))  # the first chunk finished, no other started


def test_one_thread_or_one_item_runs_in_the_calling_thread():
    seen = []
    assert thread_map(lambda i: seen.append(threading.current_thread()) or i, [1, 2], threads=1) == [1, 2]
    assert seen == [threading.main_thread()] * 2


def test_a_signal_while_the_handlers_are_put_back_leaves_none_swallowed(monkeypatch):
    """A Ctrl-C that lands just as SIGINT's handler is put back raises there: SIGTERM's noting
    handler was then left in place, and every later SIGTERM was noted and never acted on."""
    import harness.threads as threads

    terms: list[int] = []
    before_term = signal.signal(signal.SIGTERM, lambda signum, frame: terms.append(signum))
    before_int = signal.signal(signal.SIGINT, signal.default_int_handler)
    real = signal.signal

    def put(signum, handler):
        old = real(signum, handler)
        if signum == signal.SIGINT and handler is signal.default_int_handler:
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C right after SIGINT's handler is back
        return old

    monkeypatch.setattr(threads.signal, "signal", put)
    try:
        with pytest.raises(KeyboardInterrupt):
            thread_map(lambda i: i, range(4), threads=2)
        monkeypatch.undo()
        os.kill(os.getpid(), signal.SIGTERM)
        threading.Event().wait(0.05)
        assert terms == [signal.SIGTERM]  # before: [] (swallowed by the noting handler)
        os.kill(os.getpid(), signal.SIGTERM)
        threading.Event().wait(0.05)
        assert terms == [signal.SIGTERM] * 2
    finally:
        signal.signal(signal.SIGTERM, before_term)
        signal.signal(signal.SIGINT, before_int)
