"""Roles and member role assignments: calls, params, order and predicted errors."""

from __future__ import annotations

import json

from reconciler.plan.model import Action, Plan, Ref
from reconciler.plan.planner import build_plan
from reconciler.state import Member, Role
from tests.plan.world import NOW, ROOT, hq_desired, hq_live

PORTAL = f"{ROOT}/portals/0123456789abcdef"


def plan_for(*roles: Role, **members: Member) -> Plan:
    desired = hq_desired()
    desired.roles = {r.name: r for r in roles}
    desired.members = dict(members)
    return build_plan(desired, hq_live(), now=NOW)


def messages(plan: Plan) -> list[str]:
    return [str(p) for p in plan.errors]


def test_new_role_is_created_then_given_privileges() -> None:
    plan = plan_for(Role("Field Analyst", "Views", frozenset({"premium:user:geocode", "a:b"})))
    create, privileges = plan.calls
    assert (create.seq, create.operation, create.url) == (1, "createRole", f"{PORTAL}/createRole")
    assert create.params == {"name": "Field Analyst", "description": "Views"}
    assert create.produces == "id"
    assert privileges.url == f"{PORTAL}/roles/${{Role/Field Analyst.id}}/setPrivileges"
    assert json.loads(privileges.params["privileges"]) == {
        "privileges": ["a:b", "premium:user:geocode"]
    }
    assert privileges.dependsOn == (1,)
    assert plan.changes[0].action is Action.CREATE


def test_a_role_differing_only_in_case_from_a_live_one_is_an_error() -> None:
    plan = plan_for(Role("analyst", None, frozenset({"portal:user:joinGroup"})))
    assert messages(plan) == [
        "Role/analyst: the portal has a role 'Analyst'; role names are unique regardless of "
        "case, so creating 'analyst' would be refused (ROLE_1001): declare it as 'Analyst', "
        "or rename it in place with metadata.previousNames: [Analyst]"
    ]
    assert plan.calls == ()


def test_changed_description_updates_the_role() -> None:
    plan = plan_for(Role("Analyst", "Analysts of the field", None))
    (call,) = plan.calls
    assert call.operation == "updateRole"
    assert call.url == f"{PORTAL}/roles/r0000000000001/update"
    assert call.params == {"name": "Analyst", "description": "Analysts of the field"}


def test_changed_privileges_are_set_on_the_live_role() -> None:
    plan = plan_for(Role("Analyst", None, frozenset({"portal:user:joinGroup"})))
    (call,) = plan.calls
    assert call.operation == "setPrivileges"
    assert call.url == f"{PORTAL}/roles/r0000000000001/setPrivileges"
    assert plan.changes[0].before == {
        "privileges": [
            "portal:user:createItem",
            "portal:user:joinGroup",
            "portal:user:viewOrgItems",
            "portal:user:viewOrgUsers",
        ]
    }


def test_undeclared_roles_are_left_alone() -> None:
    assert plan_for().empty


def test_assignment_to_a_new_role_waits_for_its_creation() -> None:
    plan = plan_for(Role("New", "n", None), alice=Member("alice", "New"))
    create, assign = plan.calls
    assert assign.operation == "updateUserRole"
    assert assign.url == f"{PORTAL}/updateuserrole"
    assert assign.params == {"user": "alice", "role": Ref("Role/New")}
    assert assign.dependsOn == (create.seq,)


def test_assignment_uses_builtin_and_live_role_ids() -> None:
    plan = plan_for(alice=Member("alice", "Analyst"), dave=Member("dave", "org_publisher"))
    assert [c.params for c in plan.calls] == [
        {"user": "alice", "role": "r0000000000001"},
        {"user": "dave", "role": "org_publisher"},
    ]
    assert all(c.dependsOn == () for c in plan.calls)


def test_a_role_that_exists_nowhere_is_an_error() -> None:
    plan = plan_for(alice=Member("alice", "Ghost"))
    assert messages(plan) == [
        "Member/alice: role 'Ghost' exists neither in the manifests, nor on the portal, "
        "nor as a built-in role"
    ]


def test_an_unknown_member_is_an_error() -> None:
    assert messages(plan_for(zed=Member("zed", "org_user"))) == [
        "Member/zed: no such member on the portal (orgctl does not add members)"
    ]


def test_role_is_deleted_last_after_its_members_move_off() -> None:
    live = hq_live()
    live.members["alice"] = Member("alice", "Legacy Viewer", 2)
    desired = hq_desired()
    desired.roles = {"Legacy Viewer": Role("Legacy Viewer", present=False)}
    desired.members = {"alice": Member("alice", "org_user")}
    plan = build_plan(desired, live, now=NOW)
    assign, delete = plan.calls
    assert delete.operation == "deleteRole"
    assert delete.url == f"{PORTAL}/roles/r0000000000002/delete"
    assert delete.dependsOn == (assign.seq,)
    assert [c.action for c in plan.changes] == [Action.UPDATE, Action.DELETE]


def test_deleting_a_role_still_assigned_names_the_members() -> None:
    live = hq_live()
    desired = hq_desired()
    desired.roles = {"Analyst": Role("Analyst", present=False)}
    desired.members = {"dave": Member("dave", "org_user")}
    plan = build_plan(desired, live, now=NOW)
    assert "Role/Analyst: cannot delete: still assigned to erin;" in messages(plan)[0]


def test_assigning_a_role_declared_absent_is_an_error() -> None:
    plan = plan_for(Role("Legacy Viewer", present=False), alice=Member("alice", "Legacy Viewer"))
    assert "Member/alice: role 'Legacy Viewer' is declared absent" in messages(plan)[0]


def test_a_role_the_portal_does_not_let_edit_is_an_error() -> None:
    live = hq_live()
    live.roles["Viewer"] = Role("Viewer", "v", frozenset(), id="rv", editable=False)
    desired = hq_desired()
    desired.roles = {"Viewer": Role("Viewer", "changed")}
    plan = build_plan(desired, live, now=NOW)
    assert messages(plan) == [
        "Role/Viewer: this role is not editable on the portal; it cannot be changed"
    ]
