"""A desired state built to equal the live one plans nothing, for every resource kind."""

from __future__ import annotations

from dataclasses import replace

from reconciler.kinds.collaboration import slots as collaborations
from reconciler.kinds.organization_webhooks import REMOVAL, WebhookRemoval
from reconciler.kinds.task_run_retention import POLICIES, RunRetention
from reconciler.kinds.webhook_settings import DECLARED
from reconciler.plan.planner import build_plan
from reconciler.state import (
    Collaboration,
    GroupLink,
    Member,
    Role,
    Schedule,
    Workspace,
)
from tests.plan.world import (
    ANALYST_PRIVILEGES,
    NOW,
    field_desired,
    field_live,
    hq_desired,
    hq_live,
)


def test_hq_declared_as_it_is_plans_nothing() -> None:
    live = hq_live()
    live.get(collaborations.LIVE)["c1"] = replace(
        live.get(collaborations.LIVE)["c1"],
        invitations={"inv1": "invalidated", "inv2": "host_created"},
    )
    desired = hq_desired()
    desired.roles["Analyst"] = Role("Analyst", "Analysts", frozenset(sorted(ANALYST_PRIVILEGES)))
    desired.roles["Gone"] = Role("Gone", present=False)  # absent and already gone
    desired.members = {
        "alice": Member("alice", "org_user", 2),
        "dave": Member("dave", "Analyst", 2),
        "erin": Member("erin", "Analyst", 1),
        "carol": Member("carol", None, None),
    }
    desired.get(collaborations.DECLARED)["c1"] = Collaboration(
        "c1",
        invalidInvitations=frozenset({"inv1"}),
        workspaces={
            "ws1": Workspace(
                "ws1",
                name="Field data",
                description="",  # the service answers an empty description as null
                maxItemSizeInMB=1024,  # live says 1024.0
                maxReplicationPackageSizeInMB=4096.0,
                copyByRefIfCopyFail=False,
            )
        },
    )
    plan = build_plan(desired, live, now=NOW)
    assert (plan.changes, plan.calls, plan.errors) == ((), (), ())
    assert plan.empty


def test_field_declared_as_it_is_plans_nothing() -> None:
    desired = field_desired()
    desired.get(collaborations.DECLARED)["c1"] = Collaboration(
        "c1",
        workspaces={
            "ws1": Workspace(
                "ws1",
                groupLink=GroupLink("g1", False, False),
                schedule=Schedule(1_767_225_600_000, 24, -1),
            )
        },
    )
    desired.put(DECLARED, {"notificationAttempts": 3, "daysInPast": 5})
    desired.put(REMOVAL, WebhookRemoval(absent=frozenset({"gone-hook"})))
    desired.put(POLICIES, [RunRetention("all", "frank", frozenset({"*"}), keepLast=12)])
    plan = build_plan(desired, field_live(), now=NOW)
    assert (plan.changes, plan.calls, plan.errors) == ((), (), ())


def test_schedule_without_start_time_keeps_the_live_one() -> None:
    desired = field_desired()
    desired.get(collaborations.DECLARED)["c1"] = Collaboration(
        "c1", workspaces={"ws1": Workspace("ws1", schedule=Schedule(None, 24, -1))}
    )
    assert build_plan(desired, field_live(), now=NOW).empty
