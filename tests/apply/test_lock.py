"""The lease's own rules, without a portal: its period and renewal count read from
untrusted text, the period a user may set, and how a waiting apply judges another's lease
by its own clock only."""

from __future__ import annotations

import pytest

from reconciler.apply.lock import LEASE_SECONDS, Lease, LeaseWatch, lease_from, lease_seconds
from reconciler.errors import UserError

RAW = {"id": "0f1e2d3c4b5a6978", "holder": "ci@runner-7", "pid": 7, "since": 0, "until": 300}


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_lease_states_its_period_and_renewals_within_bounds() -> None:
    assert lease_from(RAW).seconds == LEASE_SECONDS and lease_from(RAW).beat == 0
    assert lease_from({**RAW, "seconds": 6, "beat": 4}).seconds == 6.0
    assert lease_from({**RAW, "seconds": 6, "beat": 4}).beat == 4
    assert lease_from({**RAW, "seconds": 0.001}).seconds == 3.0  # a rival waits 3 s at least
    assert lease_from({**RAW, "seconds": 1e12}).seconds == 3600.0
    assert lease_from({**RAW, "seconds": "soon"}).id == "unreadable"


@pytest.mark.parametrize(("text", "seconds"), [("", LEASE_SECONDS), ("90s", 90.0), ("2m", 120.0)])
def test_the_lease_period_comes_from_the_environment(text: str, seconds: float) -> None:
    assert lease_seconds({"ORGCTL_LOCK_LEASE": text}) == seconds


@pytest.mark.parametrize("text", ["1s", "2h", "soon"])
def test_a_lease_period_out_of_bounds_is_refused(text: str) -> None:
    with pytest.raises(UserError, match="ORGCTL_LOCK_LEASE"):
        lease_seconds({"ORGCTL_LOCK_LEASE": text})


def held(beat: int, until: float = 1_000.0) -> Lease:
    return Lease("0f1e2d3c4b5a6978", "ci@runner-7", 7, 0.0, until, seconds=10.0, beat=beat)


def test_a_lease_is_dead_only_once_unchanged_for_its_period_by_our_clock() -> None:
    clock = Clock()
    waiting = LeaseWatch(clock, timeout=60)
    assert not waiting.unchanged(held(1))
    clock.now += 9
    assert not waiting.unchanged(held(1))
    clock.now += 2
    assert not waiting.unchanged(held(2))  # renewed: watched again from now
    clock.now += 9.9
    assert not waiting.unchanged(held(2))
    clock.now += 0.2
    assert waiting.unchanged(held(2))


def test_a_lease_ended_on_the_portals_clock_is_watched_beyond_the_timeout() -> None:
    clock = Clock()
    waiting = LeaseWatch(clock, timeout=0)
    ended = held(1, until=50.0)
    waiting.unchanged(ended)
    assert waiting.left(ended, portal_now=3 * 3600.0) == pytest.approx(11.0)
    line = waiting.line(ended, portal_now=3 * 3600.0)
    assert line is not None and "Watching it for 10s before taking it over" in line
    clock.now += 2
    waiting.unchanged(held(2, until=50.0))  # it changed: its holder lives
    assert waiting.left(held(2, until=50.0), portal_now=3 * 3600.0) < 0  # refused now
