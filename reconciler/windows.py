"""Apply windows: when the Portal allows applies (Argo CD's sync windows, allow kind).

A window opens at every time its cron schedule matches, in its time zone, and stays open
for its duration. With no window declared, applies are always allowed; with some, only
while one is open. The schedule is the five classic cron fields (minute, hour, day of
month, month, day of week; `*`, numbers, `a-b` ranges, `,` lists and `/n` steps; Sunday is
0 or 7) with cron's rule that when both day fields are restricted, either may match.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

# (name, lowest, highest) of each cron field, in order
FIELDS = (("minute", 0, 59), ("hour", 0, 23), ("day of month", 1, 31), ("month", 1, 12),
          ("day of week", 0, 7))  # fmt: skip
MAX_DURATION = timedelta(days=31)
HORIZON_DAYS = 400  # how far ahead the next window is looked for (a yearly one fits)
_DURATION = re.compile(r"^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?$")


class WindowError(ValueError):
    """A schedule, duration or time zone that cannot be read."""


@dataclass(frozen=True, slots=True)
class Cron:
    minutes: frozenset[int]
    hours: frozenset[int]
    days: frozenset[int]
    months: frozenset[int]
    weekdays: frozenset[int]  # 0 = Sunday
    any_day: bool  # the day-of-month field is `*`
    any_weekday: bool  # the day-of-week field is `*`

    def matches_day(self, day: date) -> bool:
        if day.month not in self.months:
            return False
        by_date = day.day in self.days
        by_weekday = (day.isoweekday() % 7) in self.weekdays
        if self.any_day or self.any_weekday:
            return by_date and by_weekday
        return by_date or by_weekday


def parse_cron(text: str) -> Cron:
    parts = text.split()
    if len(parts) != 5:
        raise WindowError(f"schedule {text!r} needs 5 fields (minute hour day month weekday)")
    minutes, hours, days, months, weekdays = (
        _field(part, *spec) for part, spec in zip(parts, FIELDS, strict=True)
    )
    sundays_as_zero = frozenset(d % 7 for d in weekdays)
    return Cron(minutes, hours, days, months, sundays_as_zero, parts[2] == "*", parts[4] == "*")


def _field(text: str, name: str, low: int, high: int) -> frozenset[int]:
    found: set[int] = set()
    for item in text.split(","):
        found |= _item(item, name, low, high)
    return frozenset(found)


def _item(item: str, name: str, low: int, high: int) -> set[int]:
    match = re.fullmatch(r"(\*|(\d+)(?:-(\d+))?)(?:/(\d+))?", item)
    if not match:
        raise WindowError(f"{name} {item!r} is not a number, range, list, step or *")
    whole, first, last, step = match.groups()
    start, end = (low, high) if whole == "*" else (int(first), int(last or first))
    if step is not None and whole != "*" and last is None:
        end = high  # `5/15`: from 5 to the end, every 15
    every = int(step) if step else 1
    if not low <= start <= end <= high or every < 1:
        raise WindowError(f"{name} {item!r} is outside {low}-{high}")
    return set(range(start, end + 1, every))


def parse_duration(text: str) -> timedelta:
    match = _DURATION.match(text.strip())
    if not text.strip() or not match:
        raise WindowError(f"duration {text!r} is not like 30m, 4h, 1h30m or 2d")
    days, hours, minutes = (int(v or 0) for v in match.groups())
    duration = timedelta(days=days, hours=hours, minutes=minutes)
    if not timedelta(0) < duration <= MAX_DURATION:
        raise WindowError(f"duration {text!r} must be more than 0 and at most 31 days")
    return duration


def parse_zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise WindowError(
            f"time zone {name!r} is unknown (use an IANA name such as Europe/Berlin)"
        ) from None


@dataclass(frozen=True, slots=True)
class Window:
    schedule: str
    duration: str
    timeZone: str = "UTC"

    def starts(self, first: datetime, last: datetime) -> Iterator[datetime]:
        """Each time the window opens between `first` and `last` (aware), in order."""
        cron, zone = parse_cron(self.schedule), parse_zone(self.timeZone)
        day, end_day = first.astimezone(zone).date(), last.astimezone(zone).date()
        while day <= end_day:
            if cron.matches_day(day):
                for hour in sorted(cron.hours):
                    for minute in sorted(cron.minutes):
                        local = datetime(day.year, day.month, day.day, hour, minute, tzinfo=zone)
                        if first <= local <= last:
                            yield local.astimezone(UTC)
            day += timedelta(days=1)

    def open_at(self, now: datetime) -> datetime | None:
        """When the window open at `now` closes; None when it is closed."""
        length = parse_duration(self.duration)
        ends = [s + length for s in self.starts(now - length, now) if now < s + length]
        return max(ends, default=None)

    def next_start(self, now: datetime) -> datetime | None:
        return next(self.starts(now, now + timedelta(days=HORIZON_DAYS)), None)


@dataclass(frozen=True, slots=True)
class WindowState:
    open_until: datetime | None  # set while a window is open
    next_start: datetime | None  # the next opening, when closed

    def sentence(self) -> str:
        if self.open_until is not None:
            return f"Apply window: open now, until {_utc(self.open_until)}."
        if self.next_start is None:
            return f"Apply window: closed; none opens within {HORIZON_DAYS} days."
        return f"Apply window: closed; the next opens at {_utc(self.next_start)}."


def window_state(windows: tuple[Window, ...], now: datetime) -> WindowState:
    closing = [end for w in windows if (end := w.open_at(now)) is not None]
    if closing:
        return WindowState(max(closing), None)
    starts = [start for w in windows if (start := w.next_start(now)) is not None]
    return WindowState(None, min(starts, default=None))


def _utc(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
