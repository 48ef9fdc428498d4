"""Webhook deactivation windows and schedule triggers, as pure functions of the clock."""

from __future__ import annotations

from typing import Any

import pytest

from orgctl_service.clock import DAY_MS, HOUR_MS
from orgctl_service.timeline import (
    next_day_boundary_after,
    next_trigger_after,
    record_failures,
    schedule_at,
)

DAY1 = 20_000 * DAY_MS  # midnight UTC of some day


def replay(failures_per_day: dict[int, int], failures: int = 5, days: int = 5) -> int | None:
    """The day (1-based) the webhook is deactivated on, or None."""
    webhook: dict[str, Any] = {"active": True}
    for day in sorted(failures_per_day):
        record_failures(
            webhook, failures_per_day[day], DAY1 + (day - 1) * DAY_MS + HOUR_MS, failures, days
        )
        if not webhook["active"]:
            return day
    return None


@pytest.mark.parametrize(
    ("failures", "expected"),
    [
        ({1: 1, 2: 1, 3: 1, 4: 1, 5: 1}, 5),  # spec example 1
        ({1: 3, 2: 2}, 2),  # spec example 2
        ({1: 2, 3: 2}, None),  # spec example 3
        ({1: 2, 3: 2, 6: 2, 7: 3}, 7),  # spec example 4: day 6 opens a new window
        ({1: 4, 6: 1}, None),  # the count restarts in the new window
        # Windows follow each other (1-5, 6-10, 11-15) whether or not a day has failures:
        # day 8 falls in the window of days 6-10, so day 11 starts afresh.
        ({1: 1, 8: 4, 11: 1}, None),
        ({1: 1, 8: 4, 10: 1}, 10),
        ({1: 1, 2: 1, 3: 1, 4: 1, 5: 0, 6: 1}, None),  # not rolling: day 6 is a new window
    ],
)
def test_deactivation_follows_fixed_windows(failures: dict[int, int], expected: int | None) -> None:
    assert replay(failures) == expected


def test_inactive_webhook_ignores_later_failures() -> None:
    webhook: dict[str, Any] = {"active": True}
    record_failures(webhook, 2, DAY1, 2, 1)
    deactivated_at = webhook["deactivatedAt"]
    record_failures(webhook, 3, DAY1 + DAY_MS, 2, 1)
    assert webhook["active"] is False
    assert webhook["deactivatedAt"] == deactivated_at


def test_finite_schedule_fires_at_start_then_repeat_count_times_then_is_deleted() -> None:
    schedule = {"startTime": DAY1, "interval": 24, "repeatCount": 2}
    assert schedule_at(schedule, DAY1 - 1).times_triggered == 0
    assert schedule_at(schedule, DAY1).times_triggered == 1
    assert schedule_at(schedule, DAY1 + DAY_MS).times_triggered == 2
    assert not schedule_at(schedule, DAY1 + 2 * DAY_MS - 1).deleted
    assert schedule_at(schedule, DAY1 + 2 * DAY_MS).deleted


def test_forever_schedule_counts_triggers_and_never_ends() -> None:
    schedule = {"startTime": DAY1, "interval": 6, "repeatCount": -1}
    view = schedule_at(schedule, DAY1 + 30 * DAY_MS)
    assert (view.times_triggered, view.deleted) == (30 * 4 + 1, False)
    assert view.next_fire_time == DAY1 + 30 * DAY_MS + 6 * HOUR_MS


def test_next_trigger_after_is_strict_and_ends_with_the_job() -> None:
    schedule = {"startTime": DAY1, "interval": 24, "repeatCount": 1}
    assert next_trigger_after(schedule, DAY1 - 1) == DAY1
    assert next_trigger_after(schedule, DAY1) == DAY1 + DAY_MS
    assert next_trigger_after(schedule, DAY1 + DAY_MS) is None
    assert next_day_boundary_after(DAY1 + HOUR_MS) == DAY1 + DAY_MS
