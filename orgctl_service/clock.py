"""Service time: epoch milliseconds, parsed from ISO 8601 or YAML timestamps.

The service owns its clock (persisted with the state). Seeded from a state file's
`clock`, it stands still unless moved through `/_control/clock`, so schedules and
webhook windows are reproducible. Without one it runs on wall time (`WallClock`), and
`/_control/clock` can still move it forward. Tokens do not expire by this clock but in
the client's frame, the wall clock (`auth.token_now`).
"""

from __future__ import annotations

import datetime as dt
import time

HOUR_MS = 3_600_000
DAY_MS = 24 * HOUR_MS


def now_real_ms() -> int:
    return int(time.time() * 1000)


class WallClock:
    """Moves a service clock forward by the real time that passed since the last look;
    a jump made through control stays, as an offset, since only elapsed time is added."""

    def __init__(self) -> None:
        self._seen = time.monotonic()

    def start(self, clock: int) -> int:
        """The clock to run from: never behind the wall (a database kept from yesterday)."""
        self._seen = time.monotonic()
        return max(clock, now_real_ms())

    def advance(self, clock: int) -> int:
        now = time.monotonic()
        elapsed = int((now - self._seen) * 1000)
        self._seen = now
        return clock + max(elapsed, 0)


def parse_time(value: object) -> int:
    """Epoch ms from an ISO 8601 string, a datetime/date, or a number of ms."""
    if isinstance(value, bool):
        raise ValueError(f"not a time: {value!r}")
    if isinstance(value, int | float):
        return int(value)
    if isinstance(value, dt.datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=dt.UTC)
        return int(moment.timestamp() * 1000)
    if isinstance(value, dt.date):
        return parse_time(dt.datetime(value.year, value.month, value.day, tzinfo=dt.UTC))
    if isinstance(value, str):
        text = value.strip()
        if text.endswith(("Z", "z")):
            text = text[:-1] + "+00:00"
        try:
            return parse_time(dt.datetime.fromisoformat(text))
        except ValueError:
            raise ValueError(f"not an ISO 8601 time: {value!r}") from None
    raise ValueError(f"not a time: {value!r}")


def day_of(ms: int) -> int:
    """Calendar day (UTC) of a moment, as a day number since the epoch."""
    return ms // DAY_MS


def iso(ms: int) -> str:
    return dt.datetime.fromtimestamp(ms / 1000, dt.UTC).isoformat().replace("+00:00", "Z")
