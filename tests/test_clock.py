"""The evaluation time is the later of this machine's clock and the portal's, so neither
a lagging portal nor a lagging machine can prolong access; `--at` replaces both."""

from __future__ import annotations

import datetime as dt
import time

import pytest

from reconciler.clock import evaluation_time, moment


def test_a_portal_clock_ahead_of_the_machine_wins() -> None:
    ahead = time.time() + 86_400
    assert evaluation_time(ahead).timestamp() == pytest.approx(ahead)


def test_a_lagging_portal_clock_cannot_move_time_back() -> None:
    before = time.time()
    assert evaluation_time(before - 86_400).timestamp() >= before


def test_at_replaces_both_clocks_and_is_read_as_utc() -> None:
    at = dt.datetime(2026, 1, 2, 3, 4)
    assert evaluation_time(time.time() + 10**6, at) == at.replace(tzinfo=dt.UTC)


def test_a_date_means_its_start_in_utc() -> None:
    assert moment("2026-03-01") == dt.datetime(2026, 3, 1, tzinfo=dt.UTC)
    assert moment(dt.date(2026, 3, 1)) == dt.datetime(2026, 3, 1, tzinfo=dt.UTC)
    assert moment("2026-03-01T10:00:00Z") == dt.datetime(2026, 3, 1, 10, tzinfo=dt.UTC)
    with pytest.raises(ValueError):
        moment("next tuesday")
