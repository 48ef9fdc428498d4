"""Level changes: order after role assignment, quotas, and the predicted refusals."""

from __future__ import annotations

from dataclasses import replace

from reconciler.plan.model import Plan
from reconciler.plan.planner import build_plan
from reconciler.state import LiveState, Member, MemberDetail, Role
from tests.plan.world import NOW, hq_desired, hq_live


def plan_for(live: LiveState | None = None, **members: Member) -> Plan:
    desired = hq_desired()
    desired.members = dict(members)
    return build_plan(desired, live or hq_live(), now=NOW)


def messages(plan: Plan) -> list[str]:
    return [str(p) for p in plan.errors]


def with_quotas(live: LiveState, quotas: dict[int, int]) -> LiveState:
    from dataclasses import replace

    live.portal = replace(live.portal, levelQuotas=quotas)
    return live


def test_level_change_follows_the_role_assignment() -> None:
    plan = plan_for(alice=Member("alice", "Analyst", 1))
    assign, level = plan.calls
    assert level.operation == "updateUserLevel"
    assert level.url.endswith("/portals/0123456789abcdef/updateUserLevel")
    assert level.params == {"user": "alice", "level": "1"}
    assert level.dependsOn == (assign.seq,)
    assert not plan.errors


def test_a_level_one_member_rises_before_taking_a_built_in_role() -> None:
    # erin is a level-1 Analyst live; a built-in role is only for level 2 (docs/rules.md §2).
    plan = plan_for(erin=Member("erin", "org_user", 2))
    level, assign = plan.calls
    assert (level.operation, level.params["level"]) == ("updateUserLevel", "2")
    assert (assign.operation, assign.params["role"]) == ("updateUserRole", "org_user")
    assert assign.dependsOn == (level.seq,) and level.dependsOn == ()
    assert not plan.errors


def test_a_level_one_member_keeping_her_custom_role_only_rises() -> None:
    plan = plan_for(erin=Member("erin", "Analyst", 2))
    assert not plan.errors
    assert [(c.operation, c.params, c.dependsOn) for c in plan.calls] == [
        ("updateUserLevel", {"user": "erin", "level": "2"}, ())
    ]


def test_level_one_without_a_custom_role_is_an_error() -> None:
    assert messages(plan_for(bob=Member("bob", None, 1))) == [
        "Member/bob: level 1 needs a custom role, but the member's role is 'org_user'"
    ]


def test_level_one_needs_the_custom_role_after_the_plan() -> None:
    # erin has a custom role live but this plan gives her a built-in one.
    assert messages(plan_for(erin=Member("erin", "org_user"))) == [
        "Member/erin: a level 1 member needs a custom role; 'org_user' is built-in "
        "(built-in roles are level 2)"
    ]


def test_level_one_for_an_item_owner_is_org_1084() -> None:
    plan = plan_for(carol=Member("carol", "Analyst", 1))
    assert messages(plan) == [
        "Member/carol: level 1 is refused while the member owns 3 item(s) (ORG_1084); "
        "reassign them first"
    ]
    assert [c.operation for c in plan.calls] == ["updateUserRole"]


def test_level_one_for_a_group_owner_is_org_1084() -> None:
    live = hq_live()
    live.memberDetails["alice"] = MemberDetail("alice", 0, 2, frozenset())
    assert (
        "owns 2 group(s) (ORG_1084)"
        in messages(plan_for(live, alice=Member("alice", "Analyst", 1)))[0]
    )


def test_premium_app_licenses_are_left_to_the_portal() -> None:
    """No read of the vendor's says which premium apps a level bars (docs/rules.md §A),
    so the plan predicts nothing of them; the portal refuses such a change when sent."""
    plan = plan_for(dave=Member("dave", None, 1))
    assert messages(plan) == []


def test_unread_quotas_are_said_once_and_assumed_nowhere() -> None:
    why = "rita may not read portaladmin/system/licenses (refused)"
    live = with_quotas(hq_live(), {})
    live.portal = replace(live.portal, levelQuotasUnread=why)
    live.memberDetails["dave"] = MemberDetail("dave", 0, 0, frozenset())
    plan = plan_for(live, dave=Member("dave", None, 1), erin=Member("erin", None, 2))
    assert plan.errors == ()
    assert [str(w) for w in plan.warnings if w.address == "Portal"] == [
        f"Portal: level quotas not checked: {why}; the portal checks each level change when"
        " it is sent"
    ]
    assert [c.params["user"] for c in plan.calls] == ["dave", "erin"]


def test_demote_before_promote_when_the_level_is_full() -> None:
    # Level 2 full (5 of 5): erin may rise only once dave has come down.
    live = with_quotas(hq_live(), {1: 3, 2: 5})
    live.memberDetails["dave"] = MemberDetail("dave", 0, 0, frozenset())
    plan = plan_for(live, dave=Member("dave", None, 1), erin=Member("erin", None, 2))
    down, up = plan.calls
    assert (down.params["user"], up.params["user"]) == ("dave", "erin")
    assert up.dependsOn == (down.seq,)
    assert not plan.errors


def test_demote_is_placed_first_even_when_its_name_sorts_later() -> None:
    # Level 2 full (admin, bob, carol, zoe); level 1 has one free place.
    live = with_quotas(hq_live(), {1: 4, 2: 4})
    live.members["zoe"] = Member("zoe", "Analyst", 2)
    live.members["dave"] = Member("dave", "Analyst", 1)
    live.members["alice"] = Member("alice", "Analyst", 1)
    plan = plan_for(live, zoe=Member("zoe", None, 1), alice=Member("alice", None, 2))
    assert [c.params["user"] for c in plan.calls] == ["zoe", "alice"]
    assert plan.calls[1].dependsOn == (1,)


def test_independent_level_changes_do_not_wait() -> None:
    live = hq_live()
    live.members["dave"] = Member("dave", "Analyst", 2)
    live.memberDetails["dave"] = MemberDetail("dave", 0, 0, frozenset())
    plan = plan_for(live, dave=Member("dave", None, 1), erin=Member("erin", None, 2))
    assert all(c.dependsOn == () for c in plan.calls)


def test_no_order_fits_names_the_quota() -> None:
    live = with_quotas(hq_live(), {1: 3, 2: 6})
    for user in ("a1", "a2"):
        live.members[user] = Member(user, "Analyst", 1)
    # Level 1: erin, a1, a2 (3 of 3). Two more to level 1, only one out.
    plan = plan_for(
        live,
        alice=Member("alice", "Analyst", 1),
        bob=Member("bob", "Analyst", 1),
        erin=Member("erin", None, 2),
    )
    assert messages(plan) == [
        "Member/bob: level 1 quota of 3 cannot be met: level 1 stays full (3 members) in every "
        "order of the planned level changes"
    ]


def test_level_one_role_with_extra_privileges_warns() -> None:
    plan = plan_for(alice=Member("alice", "Analyst", 1))
    assert [str(w) for w in plan.warnings] == [
        "Member/alice: level 1 member with role 'Analyst': privileges beyond the level-1 set "
        "will be disabled: portal:user:createItem"
    ]


def test_no_warning_for_a_level_one_role_within_the_nine() -> None:
    desired = hq_desired()
    desired.roles = {"Viewer": Role("Viewer", "v", frozenset({"portal:user:viewOrgItems"}))}
    desired.members = {"alice": Member("alice", "Viewer", 1)}
    plan = build_plan(desired, hq_live(), now=NOW)
    assert not plan.warnings and not plan.errors


def test_a_member_without_a_live_level_cannot_be_levelled() -> None:
    live = hq_live()
    live.members["alice"] = Member("alice", "Analyst", None)
    assert messages(plan_for(live, alice=Member("alice", None, 1))) == [
        "Member/alice: the portal reports no level for this member to change"
    ]


def test_level_one_with_a_new_built_in_role_is_reported_once() -> None:
    assert messages(plan_for(alice=Member("alice", "org_publisher", 1))) == [
        "Member/alice: level 1 needs a custom role, but the member's role is 'org_publisher'"
    ]
