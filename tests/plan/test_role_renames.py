"""Roles renamed in place (previousNames) and pruned (the Portal's pruneRoles): what the
planner makes of them against the demo's hq (Analyst held by dave at level 2 and erin at
level 1; Legacy Viewer held by nobody)."""

from __future__ import annotations

from dataclasses import replace

from reconciler.plan.model import Action, Holders, Plan
from reconciler.plan.planner import build_plan
from reconciler.plan.render.json import plan_from_json, render_json
from reconciler.plan.render.text import render_text
from reconciler.state import LiveState, Member, Role
from tests.plan.world import ANALYST_PRIVILEGES, NOW, hq_desired, hq_live

ANALYST_ID = "r0000000000001"
FIELD_ANALYST = Role("Field Analyst")
# Each role's previous names, by its name (metadata.previousNames).
PREVIOUS = {"Field Analyst": ("Analyst",)}


def plan_for(
    *roles: Role,
    live: LiveState | None = None,
    target: dict[str, object] | None = None,
    previous: dict[str, tuple[str, ...]] | None = None,
    **members: Member,
) -> Plan:
    desired = hq_desired(**(target or {}))
    desired.roles = {r.name: r for r in roles}
    desired.previousNames = PREVIOUS if previous is None else previous
    desired.members = dict(members)
    return build_plan(desired, live or hq_live(), now=NOW)


def test_a_rename_is_one_update_of_the_live_role_s_id() -> None:
    plan = plan_for(FIELD_ANALYST)
    (change,) = plan.changes
    assert (change.address, change.action, change.renamedFrom) == (
        "Role/Field Analyst",
        Action.UPDATE,
        "Analyst",
    )
    assert (change.before, change.after) == ({"name": "Analyst"}, {"name": "Field Analyst"})
    (call,) = plan.calls
    assert call.operation == "updateRole" and call.arguments["roleId"] == ANALYST_ID
    assert call.params == {"name": "Field Analyst", "description": "Analysts"}


def test_members_named_by_the_new_name_already_hold_the_role() -> None:
    """dave holds Analyst: no move; alice moves onto the live role's id, no creation."""
    plan = plan_for(
        FIELD_ANALYST,
        dave=Member("dave", "Field Analyst"),
        alice=Member("alice", "Field Analyst"),
    )
    assert [c.address for c in plan.changes] == ["Member/alice", "Role/Field Analyst"]
    moves = [c for c in plan.calls if c.operation == "updateUserRole"]
    assert [(c.params["user"], c.params["role"], c.dependsOn) for c in moves] == [
        ("alice", ANALYST_ID, ())
    ]


def test_holders_of_a_renamed_role_are_its_live_holders() -> None:
    added = "portal:user:shareToGroup"
    plan = plan_for(replace(FIELD_ANALYST, privileges=ANALYST_PRIVILEGES | {added}))
    (change,) = plan.changes
    assert change.holders == Holders(2, {"1": 1, "2": 1}, (added,), ("erin",))
    assert [c.operation for c in plan.calls] == ["updateRole", "setPrivileges"]


def test_the_saved_plan_keeps_renamed_from() -> None:
    plan = plan_for(FIELD_ANALYST)
    assert plan_from_json(render_json(plan)).changes == plan.changes
    assert "  ~ Role/Field Analyst (renamed from Analyst)\n" in render_text(plan)


def test_a_case_twin_without_previous_names_is_still_an_error_that_says_how_to_rename() -> None:
    plan = plan_for(Role("analyst"))
    assert [p.message for p in plan.errors] == [
        "the portal has a role 'Analyst'; role names are unique regardless of case, so"
        " creating 'analyst' would be refused (ROLE_1001): declare it as 'Analyst', or"
        " rename it in place with metadata.previousNames: [Analyst]"
    ]


def test_a_previous_name_matches_regardless_of_case() -> None:
    plan = plan_for(FIELD_ANALYST, previous={"Field Analyst": ("ANALYST",)})
    assert [c.renamedFrom for c in plan.changes] == ["Analyst"]


def test_a_finished_rename_plans_nothing() -> None:
    live = hq_live()
    analyst = live.roles.pop("Analyst")
    live.roles["Field Analyst"] = replace(analyst, name="Field Analyst")
    live.members = {
        user: replace(m, role="Field Analyst") if m.role == "Analyst" else m
        for user, m in live.members.items()
    }
    assert plan_for(replace(FIELD_ANALYST, description="Analysts"), live=live).empty


def test_two_matching_live_roles_are_an_error_and_neither_is_pruned() -> None:
    previous = {"Field Analyst": ("Analyst", "Legacy Viewer")}
    plan = plan_for(FIELD_ANALYST, target={"pruneRoles": True}, previous=previous)
    assert [str(p) for p in plan.errors] == [
        "Role/Field Analyst: the portal has 2 roles matching this role and its previousNames:"
        " 'Analyst' (id r0000000000001) and 'Legacy Viewer' (id r0000000000002); only one"
        " can be renamed to 'Field Analyst': delete or rename the other on the portal, or"
        " drop the previous name once a rename is done"
    ]
    assert not [c for c in plan.changes if c.action is Action.DELETE]


def _with_prebuilt_and_kept() -> LiveState:
    live = hq_live()
    live.roles["Viewer"] = Role("Viewer", "", frozenset(), id="iAAAAAAAAAAAAAAA", editable=False)
    live.roles["Kept"] = Role("Kept", "", frozenset(), id="rkept")
    return live


def test_prune_deletes_undeclared_roles_but_kept_and_pre_built_ones() -> None:
    for kept in ("KEPT", "rkept"):
        target = {"pruneRoles": True, "keepRoles": frozenset({kept})}
        plan = plan_for(Role("Analyst"), live=_with_prebuilt_and_kept(), target=target)
        assert [(c.address, c.action) for c in plan.changes] == [
            ("Role/Legacy Viewer", Action.DELETE)
        ]
        (call,) = plan.calls
        assert call.operation == "deleteRole" and call.arguments["roleId"] == "r0000000000002"
        assert plan.undeclaredRoles == ()


def test_prune_refuses_a_role_still_held_unless_the_plan_moves_its_holders() -> None:
    target = {"pruneRoles": True}
    held = plan_for(Role("Legacy Viewer"), target=target, dave=Member("dave", "org_user"))
    assert [str(p) for p in held.errors] == [
        "Role/Analyst: cannot delete: still assigned to erin; move them to another role in a"
        " Members document, or keep the role (the Portal's spec.keepRoles)"
    ]
    moved = plan_for(
        Role("Legacy Viewer"),
        target=target,
        dave=Member("dave", "org_user"),
        erin=Member("erin", "Legacy Viewer"),
    )
    assert moved.errors == ()
    delete = next(c for c in moved.calls if c.operation == "deleteRole")
    moves = [c.seq for c in moved.calls if c.operation == "updateUserRole"]
    assert sorted(delete.dependsOn) == sorted(moves) and len(moves) == 2


def test_prune_deletions_count_against_max_deletes() -> None:
    plan = plan_for(target={"pruneRoles": True, "maxDeletes": 0}, dave=Member("dave", "org_user"))
    assert any("more than safety.maxDeletes (0)" in p.message for p in plan.errors)


def test_without_prune_the_undeclared_roles_are_information() -> None:
    plan = plan_for(Role("Analyst"), live=_with_prebuilt_and_kept(), target={})
    assert plan.empty and plan.undeclaredRoles == ("Kept", "Legacy Viewer")
    assert render_text(plan, "drift").splitlines() == [
        "No drift. The portal matches the manifests.",
        "Information: 2 custom roles are not declared: Kept, Legacy Viewer",
    ]
    assert render_text(plan, "plan") == "No changes. The portal matches the manifests.\n"


def test_a_kept_role_that_names_no_role_is_an_error_when_roles_are_pruned() -> None:
    """The misspelt entry meant to keep Legacy Viewer: the plan that would delete it cannot
    be applied, and says what was meant."""
    target = {"pruneRoles": True, "keepRoles": frozenset({"Legacy Veiwer", "analyst"})}
    plan = plan_for(target=target, dave=Member("dave", "org_user"), erin=Member("erin", "org_user"))
    assert [str(e) for e in plan.errors if e.address == "Portal"] == [
        "Portal: keepRoles: 'Legacy Veiwer' names no role on the portal or in the manifests"
        " (did you mean 'Legacy Viewer'?); correct it, or drop it from keepRoles"
    ]
    assert not [w for w in plan.warnings if "keepRoles" in w.message]


def test_without_prune_a_kept_role_that_names_no_role_is_a_warning() -> None:
    target = {"keepRoles": frozenset({"LEGACY VEIWER", "analyst", "r0000000000002"})}
    plan = plan_for(target=target)
    assert not plan.errors
    assert [str(w) for w in plan.warnings if "keepRoles" in w.message] == [
        "Portal: keepRoles: 'LEGACY VEIWER' names no role on the portal or in the manifests"
        " (did you mean 'Legacy Viewer'?)"
    ]


def test_a_live_case_twin_of_the_new_name_makes_a_rename_ambiguous() -> None:
    """The portal would refuse renaming Analyst to a name it holds in another case."""
    live = hq_live()
    live.roles["field analyst"] = Role("field analyst", "", frozenset(), id="rtwin")
    plan = plan_for(FIELD_ANALYST, live=live)
    ambiguous = "'Analyst' (id r0000000000001) and 'field analyst' (id rtwin)"
    assert any(ambiguous in p.message for p in plan.errors), plan.errors
    assert {p.address for p in plan.errors} == {"Role/Field Analyst"}
    assert not [c for c in plan.calls if c.operation == "updateRole"]
