"""Who may make each planned call (the operations table's capabilities, docs/rules.md §5),
and what a plan must not do to the portal's administrators. The plans here are those of
`apply`, where the signed-in member sends the calls (tests/plan/test_applier.py: a plan
made for another member to apply)."""

from __future__ import annotations

from dataclasses import replace

from reconciler.catalog import privileges_for
from reconciler.kinds import collaboration
from reconciler.kinds.collaboration import slots as collaborations
from reconciler.kinds.organization_webhooks import REMOVAL, WebhookRemoval
from reconciler.kinds.task_run_retention import POLICIES, RunRetention
from reconciler.operations import Capability, OperationName
from reconciler.plan.capabilities import MAY
from reconciler.plan.draft import Draft, PendingCall
from reconciler.plan.model import Plan
from reconciler.plan.planner import build_plan
from reconciler.state import (
    Caller,
    Collaboration,
    DesiredState,
    LiveState,
    Member,
    Role,
    Side,
)
from reconciler.versions import Platform
from tests.plan.world import HQ_ID, NOW, field_desired, field_live, hq_desired, hq_live

ALL_ADMIN = None  # privileges not listed: an org_admin holds every one
DEFAULT_ADMIN = Caller("admin", "org_admin", "org_admin", ALL_ADMIN)
# A second member assigned the built-in Administrator role: a default administrator too.
ADMIN2 = Caller("admin2", "org_admin", "org_admin", ALL_ADMIN)
FIELD_ANALYST = Role("Field Analyst", "Views", frozenset({"portal:user:viewOrgItems"}))


def signed_in(live: LiveState, caller: Caller) -> LiveState:
    live.portal = replace(live.portal, caller=caller, username=caller.username)
    live.members.setdefault(caller.username, Member(caller.username, caller.role, 2))
    return live


def hq_plan(caller: Caller, *roles: Role, **members: Member) -> Plan:
    desired = hq_desired()
    desired.roles = {r.name: r for r in roles}
    desired.members = dict(members)
    live = signed_in(hq_live(), caller)
    return build_plan(desired, live, now=NOW, signed_in_applies=True)


def messages(problems: tuple[object, ...]) -> list[str]:
    return [str(p) for p in problems]


def test_every_capability_of_the_operations_table_is_decided() -> None:
    assert set(MAY) == set(Capability)


def test_the_default_administrator_may_create_roles() -> None:
    plan = hq_plan(DEFAULT_ADMIN, FIELD_ANALYST)
    assert plan.errors == () and len(plan.calls) == 2


def test_a_second_administrator_may_create_roles() -> None:
    plan = hq_plan(ADMIN2, FIELD_ANALYST)
    assert plan.errors == () and len(plan.calls) == 2


def test_a_custom_role_holding_every_administrative_privilege_may_not_create_roles() -> None:
    every = frozenset(
        p
        for p in privileges_for(Platform.parse("self-hosted", "10.6.1"))
        if p.startswith("portal:admin:")
    )
    deputy = Caller("deputy", "org_user", "rDeputy00000001", every)
    assert messages(hq_plan(deputy, FIELD_ANALYST).errors) == [
        f"Role/Field Analyst: createRole, setPrivileges need {Capability.DEFAULT_ADMIN.value};"
        " the signed-in user deputy (org_user) is not, so the portal would refuse them (403)"
    ]


def test_without_a_named_default_administrator_the_built_in_administrator_role_is_one() -> None:
    """Real portals say only `roleId`: a custom administrative role has its own id."""
    built_in = Caller("boss", "org_admin", "org_admin", ALL_ADMIN)
    custom = Caller("deputy", "org_admin", "rDeputy00000001", ALL_ADMIN)
    assert hq_plan(built_in, FIELD_ANALYST).errors == ()
    (error,) = hq_plan(custom, FIELD_ANALYST).errors
    assert Capability.DEFAULT_ADMIN.value in error.message


def test_a_holder_of_change_user_roles_may_assign_roles_but_not_into_org_admin() -> None:
    assigner = Caller(
        "hr", "org_user", "rHr000000000001", frozenset({"portal:admin:changeUserRoles"})
    )
    fine = hq_plan(assigner, bob=Member("bob", "org_publisher"))
    assert fine.errors == ()
    promoted = hq_plan(assigner, bob=Member("bob", "org_admin"))
    assert messages(promoted.errors) == [
        f"Member/bob: updateUserRole needs {Capability.DEFAULT_ADMIN.value} (it moves a member"
        " into or out of org_admin); the signed-in user hr (org_user) is not, so the portal"
        " would refuse it (403)"
    ]


def test_a_member_without_change_user_roles_may_not_assign_roles_or_levels() -> None:
    user = Caller("alice", "org_user", "org_user", frozenset({"portal:user:joinGroup"}))
    plan = hq_plan(user, bob=Member("bob", "org_publisher"), erin=Member("erin", level=2))
    assert [(p.address, p.message.split(";")[0]) for p in plan.errors] == [
        ("Member/bob", f"updateUserRole needs {Capability.ROLE_ASSIGNER.value}"),
        ("Member/erin", f"updateUserLevel needs {Capability.ORG_ADMIN.value}"),
    ]


def test_unknown_privileges_refuse_nothing_that_rests_on_them() -> None:
    """A portal that lists no privileges leaves the decision to itself."""
    unlisted = Caller("hr", "org_user", "rHr000000000001", None)
    assert hq_plan(unlisted, bob=Member("bob", "org_publisher")).errors == ()


def test_no_caller_known_refuses_nothing() -> None:
    desired = hq_desired()
    desired.roles = {FIELD_ANALYST.name: FIELD_ANALYST}
    assert build_plan(desired, hq_live(), now=NOW).errors == ()


def field_plan(caller: Caller, desired: DesiredState) -> Plan:
    return build_plan(desired, signed_in(field_live(), caller), now=NOW, signed_in_applies=True)


def test_webhooks_need_the_default_administrator_or_manage_webhooks() -> None:
    desired = field_desired()
    desired.put(REMOVAL, WebhookRemoval(absent=frozenset({"w3"})))
    keeper = Caller(
        "ops", "org_user", "rOps00000000001", frozenset({"portal:admin:manageWebhooks"})
    )
    assert field_plan(keeper, desired).errors == ()
    plain = replace(keeper, privileges=frozenset({"portal:user:joinGroup"}))
    (error,) = field_plan(plain, desired).errors
    assert error.address == "OrganizationWebhook/w3"
    assert error.message.startswith(f"deleteWebhook needs {Capability.WEBHOOK_ADMIN.value}")


def test_a_task_owner_may_delete_its_own_runs_and_no_one_else_s() -> None:
    desired = field_desired()
    desired.put(POLICIES, [RunRetention("nightly", "frank", frozenset({"t2"}), keepLast=1)])
    frank = Caller("frank", "org_user", "org_user", frozenset())
    assert field_plan(frank, desired).errors == ()
    gina = Caller("gina", "org_user", "org_user", frozenset())
    (error,) = field_plan(gina, desired).errors
    assert error.message.startswith(f"deleteTaskRun needs {Capability.TASK_OWNER_OR_ADMIN.value}")


def pending(operation: OperationName, side: Side | None) -> PendingCall:
    ids = {"portalId": HQ_ID, "collaborationId": "c1", "workspaceId": "ws1"}
    return PendingCall("k", "Workspace/x", operation, "", ids, {}, side=side)  # type: ignore[arg-type]


def test_host_and_guest_operations_follow_the_portal_s_side_of_the_collaboration() -> None:
    admin = DEFAULT_ADMIN
    host, guest = MAY[Capability.HOST_ADMIN], MAY[Capability.GUEST_ADMIN]
    live = hq_live()
    assert host(admin, pending(OperationName.UPDATE_INFO, "host"), live)
    assert not host(admin, pending(OperationName.UPDATE_INFO, "guest"), live)
    assert guest(admin, pending(OperationName.UPDATE_GROUP_LINK, "guest"), live)
    assert not guest(admin, pending(OperationName.UPDATE_GROUP_LINK, "host"), live)
    user = Caller("alice", "org_user", "org_user", frozenset())
    assert not host(user, pending(OperationName.UPDATE_INFO, "host"), live)


def test_a_collaboration_s_calls_carry_the_side_the_portal_is_on() -> None:
    live = hq_live()  # hq hosts c1; make it a guest of c2
    live.get(collaborations.LIVE)["c2"] = Collaboration("c2", "Elsewhere", hostPortalId="another")
    desired = hq_desired()
    desired.put(
        collaborations.DECLARED,
        {"c1": Collaboration("c1", present=False), "c2": Collaboration("c2", present=False)},
    )
    draft = Draft(desired, live, int(NOW * 1000))
    collaboration.KIND.plan(draft)
    sides = {call.address: (call.operation, call.side) for call in draft.calls.values()}
    assert sides == {
        "Collaboration/c1": (OperationName.DELETE_COLLABORATION, "host"),
        "Collaboration/c2": (OperationName.REMOVE_PARTICIPATION, "guest"),
    }


def test_a_default_administrator_demotes_another_of_several() -> None:
    """admin and admin2 both hold org_admin: either may move the other out of it."""
    plan = hq_plan(ADMIN2, admin=Member("admin", "org_publisher"))
    assert plan.errors == ()
    assert [c.operation for c in plan.calls] == [OperationName.UPDATE_USER_ROLE]


def test_the_last_default_administrator_whoever_it_is_stays() -> None:
    plan = hq_plan(DEFAULT_ADMIN, admin=Member("admin", "org_user"))  # admin2 is not live
    assert [p.address for p in plan.errors] == ["Portal"]
    assert "(admin)" in plan.errors[0].message and "ORG_1090" in plan.errors[0].message


def test_a_plan_may_not_leave_the_portal_without_an_organization_administrator() -> None:
    demote_all = {
        "admin": Member("admin", "org_user"),
        "admin2": Member("admin2", "org_publisher"),
    }
    desired = hq_desired()
    desired.members = demote_all
    live = signed_in(hq_live(), ADMIN2)
    plan = build_plan(desired, live, now=NOW)
    assert (
        "Portal: this plan leaves the portal without a default administrator: it moves every"
        " org_admin (admin, admin2) to another role, and the portal refuses to move the last"
        " one (ORG_1090); keep at least one" in messages(plan.errors)
    )
    desired.members = {**demote_all, "bob": Member("bob", "org_admin")}
    again = build_plan(desired, signed_in(hq_live(), ADMIN2), now=NOW)
    assert not [p for p in again.errors if p.address == "Portal"]


def test_demoting_oneself_warns_about_the_later_calls_it_takes_the_right_for() -> None:
    plan = hq_plan(ADMIN2, admin2=Member("admin2", "org_publisher"), erin=Member("erin", level=2))
    assert plan.errors == ()
    assert messages(plan.warnings) == [
        "Member/admin2: this takes from the signed-in user admin2 what later calls of this plan"
        " need (an organization administrator): updateUserLevel Member/erin would be refused if"
        " sent after it"
    ]


def test_a_drift_report_does_not_ask_who_may_send_the_calls() -> None:
    desired = hq_desired()
    desired.roles = {FIELD_ANALYST.name: FIELD_ANALYST}
    live = signed_in(hq_live(), ADMIN2)
    assert build_plan(desired, live, now=NOW, check_caller=False).errors == ()


def test_taking_a_privilege_from_one_s_own_role_warns_about_the_calls_that_need_it() -> None:
    """hr holds Analyst, which grants changeUserRoles; the plan takes it away before the
    role assignments that rest on it."""
    privileges = frozenset({"portal:admin:changeUserRoles", "portal:user:joinGroup"})
    hr = Caller("hr", "org_user", "r0000000000001", privileges)
    live = signed_in(hq_live(), hr)
    live.roles["Analyst"] = replace(live.roles["Analyst"], privileges=privileges)
    desired = hq_desired()
    desired.roles = {"Analyst": Role("Analyst", None, frozenset({"portal:user:joinGroup"}))}
    desired.members = {"bob": Member("bob", "org_publisher")}
    plan = build_plan(desired, live, now=NOW, signed_in_applies=True)
    assert [p.address for p in plan.errors] == ["Role/Analyst"]  # setPrivileges itself
    assert messages(plan.warnings) == [
        "Role/Analyst: this takes from the signed-in user hr what later calls of this plan"
        f" need ({Capability.ROLE_ASSIGNER.value}): updateUserRole Member/bob would be"
        " refused if sent after it"
    ]
