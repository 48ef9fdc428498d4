"""Small live portals for the access report's unit tests, built in memory."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from reconciler.access.document import AccessQuery, PortalNames, access_document
from reconciler.state import NEVER_SIGNED_IN, LiveState, Member, PortalInfo, Role
from reconciler.versions import Platform

NOW = datetime(2026, 11, 1, tzinfo=UTC)
NOW_MS = int(NOW.timestamp() * 1000)
DAY_MS = 86_400_000
NAMES = PortalNames("hq", "https://gis.example.com/portal/sharing/rest", "portals/hq")
OPS = frozenset({"portal:user:joinGroup", "portal:admin:viewUsers", "portal:admin:deleteUsers"})


def member(
    username: str,
    role: str,
    level: int = 2,
    *,
    disabled: bool | None = False,
    days_ago: int | None = 1,
) -> Member:
    """A member who signed in `days_ago` days before NOW (-1: never; None: not told)."""
    if days_ago is None:
        last = None
    elif days_ago < 0:
        last = NEVER_SIGNED_IN
    else:
        last = NOW_MS - days_ago * DAY_MS
    return Member(username, role, level, disabled=disabled, lastLogin=last)


def portal(*members: Member, roles: dict[str, Role] | None = None) -> LiveState:
    listed = roles if roles is not None else {"Ops": Role("Ops", "", OPS, id="r1")}
    return LiveState(
        portal=PortalInfo(
            id="p1",
            name="Headquarters",
            platform=Platform.parse("self-hosted", "10.6.1"),
            username="admin",
        ),
        roles=listed,
        members={m.username: m for m in members},
    )


def report(live: LiveState, stale_days: int = 90, *patterns: str) -> dict[str, Any]:
    return access_document(live, NAMES, AccessQuery(stale_days, patterns), NOW_MS)
