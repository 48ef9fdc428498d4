"""Small real desired/live states of the demo world (portals hq and field)."""

from __future__ import annotations

from reconciler.kinds.collaboration import slots as collaborations
from reconciler.kinds.organization_webhooks import WEBHOOKS
from reconciler.kinds.task_run_retention import TASKS
from reconciler.kinds.webhook_settings import LIVE, LiveSettings
from reconciler.state import (
    Auth,
    Collaboration,
    DesiredState,
    GroupLink,
    LiveState,
    Member,
    MemberDetail,
    PortalInfo,
    PortalTarget,
    Role,
    Schedule,
    Task,
    TaskRun,
    Webhook,
    Workspace,
)
from reconciler.versions import Platform

HQ_ID = "0123456789abcdef"
FIELD_ID = "fedcba9876543210"
ROOT = "http://127.0.0.1:8080/hq/sharing/rest"
ADMIN = "http://127.0.0.1:8080/hq/admin"
FIELD_ROOT = "http://127.0.0.1:8080/field/sharing/rest"
FIELD_ADMIN = "http://127.0.0.1:8080/field/admin"
# 2026-11-01T00:00:00Z, the demo clock.
NOW = 1_793_491_200.0
DAY_MS = 86_400_000
ANALYST_PRIVILEGES = frozenset(
    {
        "portal:user:joinGroup",
        "portal:user:viewOrgItems",
        "portal:user:viewOrgUsers",
        "portal:user:createItem",
    }
)


def hq_target(**overrides: object) -> PortalTarget:
    values: dict[str, object] = {
        "name": "hq",
        "url": ROOT,
        "platform": Platform.parse("self-hosted", "10.6.1"),
        "auth": Auth(usernameEnv="ORGCTL_USERNAME", passwordEnv="ORGCTL_PASSWORD"),
        "adminUrl": ADMIN,
    }
    values.update(overrides)
    return PortalTarget(**values)  # type: ignore[arg-type]


def hq_live() -> LiveState:
    """Portal hq as the demo state seeds it."""
    members = {
        "admin": Member("admin", "org_admin", 2),
        "alice": Member("alice", "org_user", 2),
        "bob": Member("bob", "org_user", 2),
        "carol": Member("carol", "org_publisher", 2),
        "dave": Member("dave", "Analyst", 2),
        "erin": Member("erin", "Analyst", 1),
    }
    details = {user: MemberDetail(user, 0, 0, frozenset()) for user in members}
    details["carol"] = MemberDetail("carol", 3, 0, frozenset())
    live = LiveState(
        portal=PortalInfo(
            id=HQ_ID,
            name="Headquarters",
            platform=Platform.parse("self-hosted", "10.6.1"),
            username="admin",
            levelQuotas={1: 3, 2: 20},
        ),
        roles={
            "Analyst": Role("Analyst", "Analysts", ANALYST_PRIVILEGES, id="r0000000000001"),
            "Legacy Viewer": Role(
                "Legacy Viewer",
                "Old viewers",
                frozenset({"portal:user:viewOrgItems"}),
                id="r0000000000002",
            ),
        },
        members=members,
        memberDetails=details,
    )
    live.put(
        collaborations.LIVE,
        {
            "c1": Collaboration(
                "c1",
                "Regional sharing",
                workspaces={
                    "ws1": Workspace(
                        "ws1",
                        "Field data",
                        None,
                        1024.0,
                        4096,
                        False,
                    )
                },
                hostPortalId=HQ_ID,
                invitations={"inv1": "host_created", "inv2": "host_created"},
            )
        },
    )
    return live


def hq_desired(**overrides: object) -> DesiredState:
    return DesiredState(portal=hq_target(**overrides))


def field_live() -> LiveState:
    """Portal field (11.3): a guest of c1, with webhooks and tasks."""
    runs = tuple(
        TaskRun(f"r{day:02d}", "succeeded", 1_790_812_800_000 + (day - 1) * DAY_MS)
        for day in range(1, 13)
    )
    live = LiveState(
        portal=PortalInfo(
            id=FIELD_ID,
            name="Field Office",
            platform=Platform.parse("self-hosted", "11.3"),
            username="admin",
        ),
        members={"admin": Member("admin", "org_admin", 2), "frank": Member("frank", "org_user", 2)},
    )
    live.put(
        collaborations.LIVE,
        {
            "c1": Collaboration(
                "c1",
                "Regional sharing",
                workspaces={
                    "ws1": Workspace(
                        "ws1",
                        "Field data",
                        groupLink=GroupLink("g1", False, False, False),
                        schedule=Schedule(1_767_225_600_000, 24, -1, 300),
                    )
                },
                hostPortalId=HQ_ID,
            )
        },
    )
    live.put(
        WEBHOOKS,
        {
            "w1": Webhook("w1", "audit-hook"),
            "w2": Webhook("w2", "old-sync-hook"),
            "w3": Webhook("w3", "scratch-hook"),
        },
    )
    second = (
        TaskRun("t2a", "succeeded", 1_790_812_800_000),
        TaskRun("t2b", "succeeded", 1_790_899_200_000),
    )
    live.put(TASKS, {"frank": [Task("t1", "frank", runs), Task("t2", "frank", second)]})
    live.put(
        LIVE,
        LiveSettings(
            {
                "notificationAttempts": 3,
                "notificationTimeOutInSeconds": 10,
                "notificationElapsedTimeInSeconds": 5,
                "numberOfFailures": 5,
                "daysInPast": 5,
            }
        ),
    )
    return live


def field_desired(**overrides: object) -> DesiredState:
    values: dict[str, object] = {
        "name": "field",
        "url": FIELD_ROOT,
        "adminUrl": FIELD_ADMIN,
        "platform": Platform.parse("self-hosted", "11.3"),
    }
    values.update(overrides)
    return DesiredState(portal=hq_target(**values))
