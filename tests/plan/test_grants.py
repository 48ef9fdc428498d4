"""Which changes revoke an expired grant the portal still gives (an overdue revocation):
judged against the desired state at the evaluation time, not the grant alone."""

from __future__ import annotations

import datetime as dt

from reconciler.plan.grants import overdue_grants
from reconciler.state import (
    Auth,
    DesiredState,
    Grant,
    LiveState,
    Member,
    PortalInfo,
    PortalTarget,
)
from reconciler.versions import Platform

NOW = dt.datetime(2030, 1, 1, tzinfo=dt.UTC)
EXPIRED = NOW - dt.timedelta(days=1)


def _states(fallback: str, live_role: str) -> tuple[DesiredState, LiveState]:
    platform = Platform.parse("self-hosted", "10.6.1")
    target = PortalTarget("hq", "https://gis.example.com/portal/sharing/rest", platform, Auth())
    desired = DesiredState(portal=target)
    desired.members["erin"] = Member("erin", fallback, 2)
    grant = Grant("Member/erin", EXPIRED, "cover", role="org_publisher")
    desired.grants["Member/erin"] = (grant,)
    live = LiveState(PortalInfo("p", "hq", platform, "admin"))
    live.members["erin"] = Member("erin", live_role, 1)
    return desired, live


def test_an_expired_grant_the_portal_still_gives_is_overdue() -> None:
    desired, live = _states(fallback="org_user", live_role="org_publisher")
    assert list(overdue_grants(desired, live, NOW)) == ["Member/erin"]


def test_an_expired_grant_of_what_the_entry_falls_back_to_is_not_overdue() -> None:
    # erin's level differs (a change at Member/erin), but her role is her own again.
    desired, live = _states(fallback="org_publisher", live_role="org_publisher")
    assert overdue_grants(desired, live, NOW) == {}
