"""The evaluation time: the moment a plan, drift, an access report or a review is judged at.

Deadlines (a grant's `until`, a policy exception's `until`, a campaign's `due`) are judged
against it. It is the later of this machine's clock and the portal's (the `Date` of its
answers, `PortalClient.server_clock`), so a portal whose clock lags cannot prolong access,
and a machine whose clock lags cannot either. `--at` replaces it for a preview.
"""

from __future__ import annotations

import datetime as dt
import time


def evaluation_time(server_clock: float | None, at: dt.datetime | None = None) -> dt.datetime:
    """`at` when given (a preview), else the later of the local and the portal's clock."""
    if at is not None:
        return at if at.tzinfo is not None else at.replace(tzinfo=dt.UTC)
    seconds = max(time.time(), server_clock or 0.0)
    return dt.datetime.fromtimestamp(seconds, dt.UTC)


def moment(value: dt.datetime | dt.date | str | None) -> dt.datetime | None:
    """A deadline as manifests write it: RFC 3339, or a date meaning its start in UTC.
    A ValueError for text that is neither; a time without a zone is read as UTC."""
    if value is None:
        return None
    if isinstance(value, str):
        value = dt.datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
    if not isinstance(value, dt.datetime):
        return dt.datetime(value.year, value.month, value.day, tzinfo=dt.UTC)
    return value if value.tzinfo is not None else value.replace(tzinfo=dt.UTC)


def rfc3339(value: dt.datetime) -> str:
    """A moment as plans and messages write it: RFC 3339 in UTC, to the second."""
    return value.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
