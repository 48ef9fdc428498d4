"""Time-driven behaviours of docs/rules.md §3, as pure functions of the service clock.

- A workspace job fires at `startTime` and is re-triggered `repeatCount` times, every
  `interval` hours; with a finite `repeatCount` it is deleted after its last trigger.
- A service webhook is deactivated when its failed deliveries reach `numberOfFailures`
  inside a fixed window of `daysInPast` calendar days (UTC). The first window starts on
  the day of the first failure; the day after a window ends starts the next one
  (docs/rules.md §3), whether or not a failure falls on that day, and the count restarts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from orgctl_service.clock import DAY_MS, HOUR_MS, day_of
from reconciler.catalog import SCHEDULE_REPEAT_FOREVER


@dataclass(frozen=True, slots=True)
class ScheduleView:
    times_triggered: int
    next_fire_time: int | None  # None: no trigger left
    deleted: bool  # a finite job after its last trigger


def schedule_at(schedule: dict[str, Any], now: int) -> ScheduleView:
    start = int(schedule["startTime"])
    step = int(schedule["interval"]) * HOUR_MS
    repeat = int(schedule["repeatCount"])
    total = None if repeat == SCHEDULE_REPEAT_FOREVER else repeat + 1
    fired = 0 if now < start else (now - start) // step + 1
    if total is not None and fired >= total:
        return ScheduleView(total, None, True)
    return ScheduleView(fired, start + fired * step, False)


def next_trigger_after(schedule: dict[str, Any], moment: int) -> int | None:
    """The first trigger strictly after `moment`, or None when the job has none left."""
    start = int(schedule["startTime"])
    step = int(schedule["interval"]) * HOUR_MS
    repeat = int(schedule["repeatCount"])
    index = 0 if moment < start else (moment - start) // step + 1
    if repeat != SCHEDULE_REPEAT_FOREVER and index > repeat:
        return None
    return start + index * step


def next_day_boundary_after(moment: int) -> int:
    return (day_of(moment) + 1) * DAY_MS


def record_failures(
    webhook: dict[str, Any], count: int, now: int, number_of_failures: int, days_in_past: int
) -> None:
    """Count `count` failed deliveries at `now`; deactivate when the window's count is reached.

    The webhook keeps `failureWindow` = {startDay, count}. Failures of an inactive
    webhook are not counted (nothing is delivered to it any more).
    """
    for _ in range(count):
        if not webhook.get("active", True):
            return
        today = day_of(now)
        window = webhook.get("failureWindow")
        if window is None:
            window = {"startDay": today, "count": 0}
        elif today >= int(window["startDay"]) + days_in_past:
            window = {"startDay": _window_start(int(window["startDay"]), today, days_in_past)}
            window["count"] = 0
        window["count"] = int(window["count"]) + 1
        webhook["failureWindow"] = window
        if window["count"] >= number_of_failures:
            webhook["active"] = False
            webhook["deactivatedAt"] = now


def _window_start(first_day: int, today: int, days: int) -> int:
    """The start of today's window in the chain of back-to-back windows from `first_day`."""
    return first_day + (today - first_day) // days * days
