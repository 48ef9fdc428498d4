"""Plan-wide rules: order of groups, delete threshold, platform gates, targets."""

from __future__ import annotations

from dataclasses import replace

from reconciler.kinds.collaboration import slots as collaborations
from reconciler.kinds.organization_webhooks import REMOVAL, WebhookRemoval
from reconciler.kinds.task_run_retention import POLICIES, RunRetention
from reconciler.kinds.webhook_settings import DECLARED
from reconciler.operations import OperationName
from reconciler.plan.planner import build_plan
from reconciler.state import (
    Collaboration,
    DesiredState,
    Member,
    Role,
    Workspace,
)
from reconciler.versions import Platform
from tests.plan.world import NOW, field_desired, field_live, hq_desired, hq_live


def busy_hq() -> DesiredState:
    desired = hq_desired()
    desired.roles = {
        "Zeta": Role("Zeta", "z", frozenset({"portal:user:joinGroup"})),
        "Analyst": Role("Analyst", "Analysts v2", None),
        "Legacy Viewer": Role("Legacy Viewer", present=False),
    }
    desired.members = {"alice": Member("alice", "Zeta", 1), "bob": Member("bob", "Analyst")}
    desired.put(
        collaborations.DECLARED,
        {
            "c1": Collaboration(
                "c1",
                invalidInvitations=frozenset({"inv1"}),
                workspaces={"ws1": Workspace("ws1", description="shared")},
            )
        },
    )
    return desired


def test_calls_follow_the_group_order() -> None:
    plan = build_plan(busy_hq(), hq_live(), now=NOW)
    assert not plan.errors
    assert [(c.seq, c.operation, c.address) for c in plan.calls] == [
        (1, "updateRole", "Role/Analyst"),
        (2, "createRole", "Role/Zeta"),
        (3, "setPrivileges", "Role/Zeta"),
        (4, "updateUserRole", "Member/alice"),
        (5, "updateUserRole", "Member/bob"),
        (6, "updateUserLevel", "Member/alice"),
        (7, "invalidateInvitation", "Invitation/c1/inv1"),
        (8, "updateInfo", "Workspace/c1/ws1"),
        (9, "deleteRole", "Role/Legacy Viewer"),
    ]
    assert [c.dependsOn for c in plan.calls] == [(), (), (2,), (2,), (), (4,), (), (), ()]


def test_deletions_come_after_everything_else() -> None:
    desired = field_desired()
    desired.put(REMOVAL, WebhookRemoval(absent=frozenset({"w1"})))
    desired.put(POLICIES, [RunRetention("r", "frank", frozenset({"t2"}), keepLast=1)])
    desired.put(collaborations.DECLARED, {"c1": Collaboration("c1", present=False)})
    desired.put(DECLARED, {"daysInPast": 9})
    plan = build_plan(desired, field_live(), now=NOW)
    assert [c.operation for c in plan.calls] == [
        "webhookSettings",
        "deleteTaskRun",
        "deleteWebhook",
        "removeParticipation",
    ]


def test_more_deletions_than_allowed_need_allow_deletes() -> None:
    desired = field_desired(maxDeletes=1)
    desired.put(REMOVAL, WebhookRemoval(absent=frozenset({"w1", "w2"})))
    plan = build_plan(desired, field_live(), now=NOW)
    assert [str(e) for e in plan.errors] == [
        "Portal: the plan deletes 2 resources, more than safety.maxDeletes (1); "
        "review it and pass --allow-deletes"
    ]
    assert not build_plan(desired, field_live(), now=NOW, allow_deletes=True).errors


def test_an_upgraded_portal_is_a_warning_when_everything_declared_exists() -> None:
    desired = hq_desired(platform=Platform.parse("self-hosted", "10.6"))
    plan = build_plan(desired, hq_live(), now=NOW)
    assert plan.errors == ()
    assert [str(w) for w in plan.warnings if w.address == "Portal"] == [
        "Portal: the manifests are validated against self-hosted 10.6 but the portal runs"
        " self-hosted 10.6.1; everything they declare exists there (set version to match"
        " when convenient)"
    ]


def test_a_portal_of_another_deployment_kind_is_an_error() -> None:
    desired = hq_desired(platform=Platform.parse("hosted-cloud", "2026-06"))
    desired.members = {"alice": Member("alice", "Analyst", 1)}
    plan = build_plan(desired, hq_live(), now=NOW)
    assert "Portal: the manifests declare hosted-cloud 2026-06 but the portal runs" in str(
        plan.errors[0]
    )
    # Another kind of portal altogether: the identity error alone, no plan of changes.
    assert len(plan.errors) == 1 and plan.changes == () and plan.calls == ()


def test_a_declared_privilege_the_live_release_lacks_is_an_error_naming_it() -> None:
    live = hq_live()  # 10.6.1: no portal:user:reassignItems before 11.0
    desired = hq_desired(platform=Platform.parse("self-hosted", "11.0"))
    desired.roles = {"Mover": Role("Mover", "m", frozenset({"portal:user:reassignItems"}))}
    plan = build_plan(desired, live, now=NOW)
    assert [str(e) for e in plan.errors] == [
        "Role/Mover: privilege 'portal:user:reassignItems' needs self-hosted 11.0 or later"
        " (portal is 10.6.1)"
    ]


def test_an_operation_the_live_platform_lacks_is_an_error() -> None:
    live = hq_live()
    live.portal = replace(live.portal, platform=Platform.parse("self-hosted", "11.3"))
    desired = hq_desired(platform=Platform.parse("self-hosted", "11.3"))
    desired.members = {"erin": Member("erin", None, 2)}
    plan = build_plan(desired, live, now=NOW)
    assert [str(e) for e in plan.errors] == [
        "Member/erin: updateUserLevel exists only up to self-hosted 10.6.1 "
        "(portal is self-hosted 11.3)"
    ]


def test_targets_keep_what_the_target_depends_on() -> None:
    plan = build_plan(busy_hq(), hq_live(), now=NOW, targets=["Member/alice"])
    assert [(c.operation, c.address) for c in plan.calls] == [
        ("createRole", "Role/Zeta"),
        ("setPrivileges", "Role/Zeta"),
        ("updateUserRole", "Member/alice"),
        ("updateUserLevel", "Member/alice"),
    ]
    assert [c.dependsOn for c in plan.calls] == [(), (1,), (1,), (3,)]
    assert {c.address for c in plan.changes} == {"Member/alice", "Role/Zeta"}


def test_targets_match_by_prefix() -> None:
    plan = build_plan(busy_hq(), hq_live(), now=NOW, targets=["Workspace/c1"])
    assert [c.address for c in plan.calls] == ["Workspace/c1/ws1"]
    assert not build_plan(busy_hq(), hq_live(), now=NOW, targets=["Workspace/c"]).calls


def test_a_role_target_selects_that_role_only_though_names_may_hold_slashes() -> None:
    desired = busy_hq()
    desired.roles["Zeta/Admin"] = Role("Zeta/Admin", "below?", frozenset())
    plan = build_plan(desired, hq_live(), now=NOW, targets=["Role/Zeta"])
    assert {c.address for c in plan.changes} == {"Role/Zeta"}
    assert plan.targets == ("Role/Zeta",)


def test_a_target_matching_nothing_is_a_warning_and_no_claim_of_a_match() -> None:
    from reconciler.plan.render.lines import summary_line

    plan = build_plan(busy_hq(), hq_live(), now=NOW, targets=["role/zeta"])
    assert plan.empty
    assert [str(w) for w in plan.warnings] == [
        "role/zeta: --target matches nothing this plan would change (addresses are"
        " case-sensitive: Role/<name>, Member/<username>, Workspace/<id>/<id>, ...)"
    ]
    assert "matches the manifests" not in summary_line(plan, "plan")


def test_order_refuses_a_dependency_cycle() -> None:
    import pytest

    from reconciler.plan.draft import PendingCall
    from reconciler.plan.order import order_calls

    create = OperationName.CREATE_ROLE
    a = PendingCall("a", "Role/a", create, "u", {}, {}, ("b",))
    b = PendingCall("b", "Role/b", create, "u", {}, {}, ("a",))
    with pytest.raises(RuntimeError, match="cycle"):
        order_calls({"a": a, "b": b})


def test_an_unreadable_live_resource_is_its_own_error_and_the_rest_is_planned() -> None:
    live = hq_live()
    del live.roles["Analyst"]  # the reader left it out: one of its values was unreadable
    live.unreadable = {"Role/Analyst": "the portal answered Role/Analyst: editable: ..."}
    plan = build_plan(busy_hq(), live, now=NOW)
    assert [(e.address, e.message) for e in plan.errors] == [
        ("Role/Analyst", "the portal answered Role/Analyst: editable: ...")
    ]
    # Never a create for a role that exists but could not be read.
    assert all(c.address != "Role/Analyst" for c in plan.changes), plan.changes
    assert all(c.address != "Role/Analyst" for c in plan.calls), plan.calls
    assert any(c.address == "Role/Zeta" for c in plan.changes)
