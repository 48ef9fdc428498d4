"""Small live portals, shaped like the demo world (COMMON: hq, field, cloud)."""

from __future__ import annotations

from reconciler.kinds.collaboration import slots as collaborations
from reconciler.kinds.organization_webhooks import WEBHOOKS
from reconciler.kinds.task_run_retention import TASKS
from reconciler.kinds.webhook_settings import LIVE, LiveSettings
from reconciler.state import (
    Collaboration,
    GroupLink,
    LiveState,
    Member,
    PortalInfo,
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
CLOUD_ID = "a1b2c3d4e5f60718"
START_2026 = 1_767_225_600_000  # 2026-01-01T00:00:00Z

ANALYST = Role(
    name="Analyst",
    description="Creates content",
    privileges=frozenset(
        {
            "portal:user:viewOrgUsers",
            "portal:user:joinGroup",
            "portal:user:viewOrgItems",
            "portal:user:createItem",
        }
    ),
    id="r0000000000001",
)
LEGACY = Role(name="Legacy Viewer", description="", privileges=frozenset(), id="r0000000000002")

# Both sides of the one workspace, as each portal's reader sees it: the workspace info,
# and the link and schedule of the portal that reads.
WORKSPACE = Workspace(
    id="ws1",
    name="Field data",
    description=None,
    maxItemSizeInMB=1024,
    maxReplicationPackageSizeInMB=4096,
    copyByRefIfCopyFail=False,
    groupLink=GroupLink("g1", False, False, False),
    schedule=Schedule(startTime=START_2026, interval=24, repeatCount=-1, timesTriggered=304),
)


def portal(pid: str, name: str, deployment: str, version: str) -> PortalInfo:
    return PortalInfo(
        id=pid, name=name, platform=Platform.parse(deployment, version), username="admin"
    )


def hq(version: str = "10.6.1") -> LiveState:
    live = LiveState(
        portal=portal(HQ_ID, "Headquarters", "self-hosted", version),
        roles={"Legacy Viewer": LEGACY, "Analyst": ANALYST},
        members={
            "erin": Member("erin", "Analyst", 1),
            "admin": Member("admin", "org_admin", 2),
            "carol": Member("carol", "org_publisher", 2),
            "alice": Member("alice", "org_user", 2),
        },
    )
    live.put(
        collaborations.LIVE,
        {
            "c1": Collaboration(
                id="c1",
                name="Regional sharing",
                workspaces={"ws1": WORKSPACE},
                hostPortalId=HQ_ID,
                invitations={"inv1": "host_created", "inv2": "invalidated"},
            )
        },
    )
    return live


def field(version: str = "11.3", settings: dict[str, int] | None = None) -> LiveState:
    live = LiveState(
        portal=portal(FIELD_ID, "Field Office", "self-hosted", version),
        members={"admin": Member("admin", "org_admin", 2), "frank": Member("frank", "org_user", 2)},
    )
    live.put(
        collaborations.LIVE,
        {
            "c1": Collaboration(
                id="c1", name="Regional sharing", workspaces={"ws1": WORKSPACE}, hostPortalId=HQ_ID
            )
        },
    )
    live.put(LIVE, LiveSettings(settings))
    live.put(WEBHOOKS, {"w1": Webhook("w1", "audit-hook")})
    live.put(TASKS, {"frank": [Task("t1", "frank", (TaskRun("run1", "succeeded", START_2026),))]})
    return live


def cloud() -> LiveState:
    live = LiveState(
        portal=portal(CLOUD_ID, "Cloud Org", "hosted-cloud", "2026-06"),
        roles={
            "Editor": Role(
                name="Editor",
                description="Edits features",
                privileges=frozenset({"portal:user:createItem", "features:user:edit"}),
                id="r0000000000101",
            )
        },
        members={"gina": Member("gina", "org_user", 2), "admin": Member("admin", "org_admin", 2)},
    )
    live.put(LIVE, LiveSettings({"notificationAttempts": 3}))
    return live
