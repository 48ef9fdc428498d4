"""Collaborations: host and guest calls, side errors, unknown ids, completed schedules."""

from __future__ import annotations

from reconciler.kinds.collaboration import slots as collaborations
from reconciler.plan.model import Action, Plan
from reconciler.plan.planner import build_plan
from reconciler.state import Collaboration, GroupLink, Schedule, Workspace
from tests.plan.world import (
    FIELD_ROOT,
    NOW,
    ROOT,
    field_desired,
    field_live,
    hq_desired,
    hq_live,
)

HQ_C1 = f"{ROOT}/portals/0123456789abcdef/collaborations/c1"
FIELD_C1 = f"{FIELD_ROOT}/portals/fedcba9876543210/collaborations/c1"


def host_plan(collab: Collaboration) -> Plan:
    desired = hq_desired()
    desired.put(collaborations.DECLARED, {collab.id: collab})
    return build_plan(desired, hq_live(), now=NOW)


def guest_plan(collab: Collaboration) -> Plan:
    desired = field_desired()
    desired.put(collaborations.DECLARED, {collab.id: collab})
    return build_plan(desired, field_live(), now=NOW)


def messages(plan: Plan) -> list[str]:
    return [str(p) for p in plan.errors]


def test_host_sends_every_declared_info_field() -> None:
    plan = host_plan(
        Collaboration(
            "c1",
            workspaces={
                "ws1": Workspace(
                    "ws1", name="Field data", maxItemSizeInMB=2048, copyByRefIfCopyFail=False
                )
            },
        )
    )
    (call,) = plan.calls
    assert call.operation == "updateInfo"
    assert call.url == f"{HQ_C1}/workspaces/ws1/updateInfo"
    assert call.params == {
        "name": "Field data",
        "maxItemSizeInMB": "2048",
        "copyByRefIfCopyFail": "false",
    }
    assert plan.changes[0].before == {"maxItemSizeInMB": 1024}


def test_host_invalidates_only_valid_invitations() -> None:
    live = hq_live()
    desired = hq_desired()
    desired.put(
        collaborations.DECLARED, {"c1": Collaboration("c1", invalidInvitations=frozenset({"inv2"}))}
    )
    plan = build_plan(desired, live, now=NOW)
    (call,) = plan.calls
    assert call.url == f"{HQ_C1}/invitations/inv2/invalidate"
    assert plan.changes[0].address == "Invitation/c1/inv2"


def test_unknown_invitation_is_an_error() -> None:
    plan = host_plan(Collaboration("c1", invalidInvitations=frozenset({"nope"})))
    assert messages(plan) == ["Invitation/c1/nope: no such invitation in collaboration c1"]


def test_unknown_collaboration_and_workspace_are_errors() -> None:
    assert messages(host_plan(Collaboration("c9"))) == [
        "Collaboration/c9: no such collaboration on the portal"
    ]
    plan = host_plan(Collaboration("c1", workspaces={"ws9": Workspace("ws9", name="x")}))
    assert messages(plan) == ["Workspace/c1/ws9: no such workspace in collaboration c1"]


def test_absent_collaboration_that_is_gone_plans_nothing() -> None:
    assert host_plan(Collaboration("c9", present=False)).empty


def test_host_deletes_and_guest_leaves() -> None:
    (delete,) = host_plan(Collaboration("c1", present=False)).calls
    assert (delete.operation, delete.url) == ("deleteCollaboration", f"{HQ_C1}/delete")
    plan = guest_plan(Collaboration("c1", present=False))
    (leave,) = plan.calls
    assert (leave.operation, leave.url) == (
        "removeParticipation",
        f"{FIELD_C1}/removeParticipation",
    )
    assert plan.changes[0].action is Action.DELETE


def test_guest_field_on_the_host_names_the_side_that_may() -> None:
    plan = host_plan(
        Collaboration("c1", workspaces={"ws1": Workspace("ws1", schedule=Schedule(None, 12, -1))})
    )
    assert messages(plan) == [
        "Workspace/c1/ws1: schedule can only be changed by a collaboration guest; "
        "this portal is the host"
    ]


def test_host_field_on_a_guest_names_the_side_that_may() -> None:
    plan = guest_plan(Collaboration("c1", workspaces={"ws1": Workspace("ws1", name="x")}))
    assert messages(plan) == [
        "Workspace/c1/ws1: name can only be changed by the collaboration host; "
        "this portal is a guest"
    ]
    plan = guest_plan(Collaboration("c1", invalidInvitations=frozenset({"inv1"})))
    assert "invalidInvitations can only be changed by the collaboration host" in messages(plan)[0]


def test_group_link_fills_undeclared_fields_from_live() -> None:
    plan = guest_plan(
        Collaboration(
            "c1", workspaces={"ws1": Workspace("ws1", groupLink=GroupLink(enableRealtimeSync=True))}
        )
    )
    (call,) = plan.calls
    assert call.url == f"{FIELD_C1}/workspaces/ws1/updatePortalGroupLink"
    assert call.params == {
        "portalGroupId": "g1",
        "enableRealtimeSync": "true",
        "copyFeatureServiceData": "false",
        "enableFeatureServiceBidirectionalSync": "false",
    }
    assert plan.changes[0].before == {"groupLink": {"enableRealtimeSync": False}}


def test_schedule_update_keeps_the_live_start_time() -> None:
    plan = guest_plan(
        Collaboration("c1", workspaces={"ws1": Workspace("ws1", schedule=Schedule(None, 12))})
    )
    (call,) = plan.calls
    assert call.url == f"{FIELD_C1}/workspaces/ws1/schedule/update"
    assert call.params == {"startTime": "1767225600000", "interval": "12", "repeatCount": "-1"}


def test_completed_finite_schedule_is_not_drift() -> None:
    live = field_live()
    live.get(collaborations.LIVE)["c1"].workspaces["ws1"] = Workspace("ws1", schedule=None)  # type: ignore[index]
    desired = field_desired()
    # Fired 2026-01-01, re-triggered 3 times a day apart: done long before the clock.
    desired.put(
        collaborations.DECLARED,
        {
            "c1": Collaboration(
                "c1",
                workspaces={"ws1": Workspace("ws1", schedule=Schedule(1_767_225_600_000, 24, 3))},
            )
        },
    )
    assert build_plan(desired, live, now=NOW).empty


def test_finite_schedule_not_yet_done_is_recreated() -> None:
    live = field_live()
    live.get(collaborations.LIVE)["c1"].workspaces["ws1"] = Workspace("ws1", schedule=None)  # type: ignore[index]
    desired = field_desired()
    start = int(NOW * 1000) - 3_600_000  # an hour ago, repeated 3 more times
    desired.put(
        collaborations.DECLARED,
        {
            "c1": Collaboration(
                "c1", workspaces={"ws1": Workspace("ws1", schedule=Schedule(start, 24, 3))}
            )
        },
    )
    (call,) = build_plan(desired, live, now=NOW).calls
    assert call.operation == "updateSchedule"
    assert call.params == {"startTime": str(start), "interval": "24", "repeatCount": "3"}


def test_parameter_gates_use_the_live_platform() -> None:
    live = field_live()
    from dataclasses import replace

    from reconciler.versions import Platform

    old = Platform.parse("self-hosted", "10.8")
    live.portal = replace(live.portal, platform=old)
    desired = field_desired(platform=old)
    desired.put(
        collaborations.DECLARED,
        {
            "c1": Collaboration(
                "c1",
                workspaces={
                    "ws1": Workspace(
                        "ws1",
                        groupLink=GroupLink(
                            copyFeatureServiceData=True, enableFeatureServiceBidirectionalSync=True
                        ),
                    )
                },
            )
        },
    )
    plan = build_plan(desired, live, now=NOW)
    assert messages(plan) == [
        "Workspace/c1/ws1: enableFeatureServiceBidirectionalSync needs self-hosted 10.9 or "
        "later (portal is self-hosted 10.8)"
    ]


def link_plan(release: str, link: GroupLink) -> Plan:
    from dataclasses import replace

    from reconciler.versions import Platform

    platform = Platform.parse("self-hosted", release)
    live = field_live()
    live.portal = replace(live.portal, platform=platform)
    desired = field_desired(platform=platform)
    desired.put(
        collaborations.DECLARED,
        {"c1": Collaboration("c1", workspaces={"ws1": Workspace("ws1", groupLink=link)})},
    )
    return build_plan(desired, live, now=NOW)


def copy_data_plan(release: str) -> Plan:
    return link_plan(release, GroupLink(copyFeatureServiceData=True))


def test_copying_data_before_10_7_warns_that_views_are_not_copied() -> None:
    plan = copy_data_plan("10.6")
    assert not plan.errors
    assert [str(w) for w in plan.warnings] == [
        "Workspace/c1/ws1: copyFeatureServiceData copies feature service data only: "
        "self-hosted 10.6 does not copy hosted feature layer views (10.7 and later do)"
    ]


def test_copying_data_from_10_7_copies_views_too() -> None:
    plan = copy_data_plan("10.7")
    assert not plan.errors and not plan.warnings


def test_a_partial_link_never_completes_a_parameter_the_release_lacks() -> None:
    # Before 10.9 there is no bidirectional sync: its live default is not sent back.
    plan = link_plan("10.7", GroupLink(enableRealtimeSync=True))
    assert not plan.errors
    (call,) = plan.calls
    assert call.params == {
        "portalGroupId": "g1",
        "enableRealtimeSync": "true",
        "copyFeatureServiceData": "false",
    }


def test_planner_and_service_agree_when_a_finite_job_ends() -> None:
    from orgctl_service.timeline import schedule_at
    from reconciler.kinds.collaboration.plan import schedule_complete

    start, interval, repeat = 1_767_225_600_000, 1, 2
    last_trigger = start + interval * repeat * 3_600_000
    for now in (last_trigger - 1, last_trigger, last_trigger + 1):
        deleted = schedule_at(
            {"startTime": start, "interval": interval, "repeatCount": repeat}, now
        ).deleted
        assert schedule_complete(Schedule(start, interval, repeat), now) is deleted, now
    assert schedule_complete(Schedule(start, interval, repeat), last_trigger)
