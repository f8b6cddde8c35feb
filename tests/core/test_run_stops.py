"""The engine's half of stopping a run (harness.run.stops), without any signal handler: a
stop request raises `Stopped` only in the process that claimed the run, waits inside
`deferred()`, and is raised by `raise_pending` afterwards; later requests are ignored."""

from __future__ import annotations

import signal

import pytest

from harness.errors import Stopped
from harness.run import stops


@pytest.fixture(autouse=True)
def fresh():
    stops.release_run(reset=True)
    yield
    stops.release_run(reset=True)


def test_a_request_is_only_remembered_where_no_run_is_claimed():
    stops.request_stop(signal.SIGTERM)  # no run claimed: nothing raised
    assert stops.pending() == signal.SIGTERM and not stops.runs_here()


def test_the_first_request_stops_the_claimed_run_and_later_ones_are_ignored():
    stops.claim_run(reset=True)
    with pytest.raises(Stopped) as stopped:
        stops.request_stop(signal.SIGTERM)
    assert stopped.value.status == "terminated"
    stops.request_stop(signal.SIGINT)  # the manifest's last write must not be cut
    stops.raise_pending()
    assert stops.pending() == signal.SIGTERM


def test_a_request_inside_deferred_waits_for_raise_pending():
    stops.claim_run(reset=True)
    with stops.deferred():
        stops.request_stop(signal.SIGINT)
    with pytest.raises(Stopped) as stopped:
        stops.raise_pending()
    assert stopped.value.status == "interrupted"


def test_a_worker_claims_after_a_reset_and_raises_what_came_before():
    stops.request_stop(signal.SIGINT)
    stops.release_run(reset=True)  # a freshly forked worker forgets its parent's state
    assert stops.pending() is None
    stops.request_stop(signal.SIGTERM)  # arrives while the worker is idle
    stops.claim_run()
    with pytest.raises(Stopped):
        stops.raise_pending()
