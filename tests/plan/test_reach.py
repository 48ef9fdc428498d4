"""Who a change of a role's privileges reaches (`reconciler.kinds.members.reach`), and how each
format shows it: counted on the demo hq portal, where Analyst is held by dave (level 2)
and erin (level 1)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from reconciler.plan.model import Action, Change, Holders, Plan, PortalRef
from reconciler.plan.planner import build_plan
from reconciler.plan.render.json import PlanFileError, plan_from_json, render_json
from reconciler.plan.render.lines import compact_line, holders_note
from reconciler.plan.render.markdown import render_markdown
from reconciler.plan.render.text import render_text
from reconciler.state import Member, Role
from tests.plan.world import ANALYST_PRIVILEGES, NOW, hq_desired, hq_live

SHARE = "portal:user:shareToGroup"
VIEW_USERS = "portal:admin:viewUsers"
DESCRIPTION = "Analysts"  # as live


def _plan(
    roles: dict[str, Role],
    members: dict[str, Member] | None = None,
    live_members: dict[str, Member] | None = None,
) -> Plan:
    desired = hq_desired()
    desired.roles.update(roles)
    desired.members.update(members or {})
    live = hq_live()
    live.members.update(live_members or {})
    return build_plan(desired, live, now=NOW)


def _analyst(*added: str, description: str = DESCRIPTION) -> Role:
    return Role("Analyst", description, ANALYST_PRIVILEGES | set(added))


def _holders(plan: Plan, address: str = "Role/Analyst") -> Holders | None:
    return next(c for c in plan.changes if c.address == address).holders


def test_a_privilege_added_counts_the_live_holders_by_level() -> None:
    assert _holders(_plan({"Analyst": _analyst(SHARE)})) == Holders(
        total=2, byLevel={"1": 1, "2": 1}, disabledPrivileges=(SHARE,), disabledFor=("erin",)
    )


def test_an_added_level_one_privilege_stays_enabled_for_level_one_holders() -> None:
    holders = _holders(_plan({"Analyst": _analyst("portal:user:viewOrgGroups")}))
    assert holders == Holders(total=2, byLevel={"1": 1, "2": 1})


def test_a_privilege_removed_counts_the_holders_with_nothing_disabled() -> None:
    role = Role(
        "Analyst", "Views and creates content", ANALYST_PRIVILEGES - {"portal:user:createItem"}
    )
    assert _holders(_plan({"Analyst": role})) == Holders(total=2, byLevel={"1": 1, "2": 1})


def test_a_description_change_alone_carries_no_holders() -> None:
    plan = _plan({"Analyst": Role("Analyst", "Another description", ANALYST_PRIVILEGES)})
    assert [c.address for c in plan.changes] == ["Role/Analyst"]
    assert _holders(plan) is None


def test_holders_are_those_once_the_plan_s_member_changes_are_applied() -> None:
    """alice moves onto Analyst at level 1, dave moves off it, erin moves to level 2."""
    members = {
        "alice": Member("alice", "Analyst", 1),
        "dave": Member("dave", "org_publisher"),
        "erin": Member("erin", None, 2),
    }
    holders = _holders(_plan({"Analyst": _analyst(SHARE, VIEW_USERS)}, members))
    assert holders == Holders(
        total=2,
        byLevel={"1": 1, "2": 1},
        disabledPrivileges=(VIEW_USERS, SHARE),
        disabledFor=("alice",),
    )


def test_with_targets_only_the_member_changes_kept_in_the_plan_count() -> None:
    """alice's move onto Analyst is outside --target Role/Analyst: it is not sent, so she
    is not counted."""
    desired = hq_desired()
    desired.roles["Analyst"] = _analyst(SHARE)
    desired.members["alice"] = Member("alice", "Analyst", 1)
    everything = _holders(build_plan(desired, hq_live(), now=NOW))
    assert everything is not None and everything.total == 3
    targeted = build_plan(desired, hq_live(), targets=["Role/Analyst"], now=NOW)
    assert [c.address for c in targeted.changes] == ["Role/Analyst"]
    assert _holders(targeted) == Holders(2, {"1": 1, "2": 1}, (SHARE,), ("erin",))


def test_a_created_role_is_held_by_the_members_the_plan_moves_onto_it() -> None:
    roles = {"Scouts": Role("Scouts", "s", frozenset({"portal:user:joinGroup", SHARE}))}
    members = {"bob": Member("bob", "Scouts"), "carol": Member("carol", "Scouts")}
    assert _holders(_plan(roles, members), "Role/Scouts") == Holders(total=2, byLevel={"2": 2})
    alone = _plan(roles)
    assert _holders(alone, "Role/Scouts") == Holders(total=0)


def test_a_member_whose_level_is_unknown_counts_in_the_total_only() -> None:
    plan = _plan({"Analyst": _analyst(SHARE)}, live_members={"zoe": Member("zoe", "Analyst")})
    holders = _holders(plan)
    assert holders is not None
    assert (holders.total, dict(holders.byLevel)) == (3, {"1": 1, "2": 1})


# --- formats -----------------------------------------------------------------------------


def test_the_note_names_the_level_one_holders_and_the_disabled_privileges() -> None:
    assert holders_note(Holders(340, {"1": 2, "2": 338}, (VIEW_USERS,), ("erin", "zed"))) == (
        " (held by 340 members; 2 at level 1 (erin, zed), where portal:admin:viewUsers"
        " stays disabled)"
    )
    many = tuple(f"u{i}" for i in range(7))
    assert holders_note(Holders(7, {"1": 7}, (SHARE, VIEW_USERS), many)) == (
        " (held by 7 members; 7 at level 1 (u0, u1, u2, u3, u4 and 2 more), where"
        " portal:user:shareToGroup, portal:admin:viewUsers stay disabled)"
    )
    assert holders_note(Holders(1, {"2": 1})) == " (held by 1 member)"
    assert holders_note(Holders(3, {"1": 1, "2": 2})) == " (held by 3 members; 1 at level 1)"
    assert holders_note(Holders(0)) == " (held by no member)"


def test_a_level_one_holder_named_with_terminal_controls_is_shown_safely() -> None:
    note = holders_note(Holders(1, {"1": 1}, (SHARE,), ("ev\x1b[2Jil",)))
    assert "\x1b" not in note


def test_text_and_markdown_show_the_holders_on_the_privileges_line() -> None:
    plan = _plan({"Analyst": _analyst(VIEW_USERS)})
    line = (
        "privileges: 1 added, 0 removed, 4 unchanged (held by 2 members; 1 at level 1 (erin),"
        " where portal:admin:viewUsers stays disabled)"
    )
    flag = "~ Role/Analyst  (grants administrative privileges: portal:admin:viewUsers)"
    text = render_text(plan)
    assert f"  {flag}\n      {line}\n" in text
    markdown = render_markdown(plan)
    assert f"@@ {flag} @@\n      {line}\n" in markdown
    change = plan.changes[0]
    assert compact_line(change) == f"@@ {flag}: privileges (+1 -0, 2 holders) @@"


def test_json_carries_holders_and_the_administrative_grant() -> None:
    plan = _plan({"Analyst": _analyst(VIEW_USERS, SHARE)})
    change = json.loads(render_json(plan))["changes"][0]
    assert change["holders"] == {
        "total": 2,
        "byLevel": {"1": 1, "2": 1},
        "levelOneDisabled": {"privileges": [VIEW_USERS, SHARE], "members": ["erin"]},
    }
    assert change["grantsAdministrative"] == [VIEW_USERS]
    plain = json.loads(render_json(_plan({"Analyst": _analyst(SHARE)})))["changes"][0]
    assert "grantsAdministrative" not in plain
    assert "levelOneDisabled" in plain["holders"]


def test_a_saved_plan_reads_back_with_its_holders_and_without_them() -> None:
    plan = _plan({"Analyst": _analyst(VIEW_USERS)})
    text = render_json(plan)
    again = plan_from_json(text)
    assert again.changes == plan.changes
    assert render_json(again) == text
    older = json.loads(text)
    del older["changes"][0]["holders"]
    read = plan_from_json(json.dumps(older))
    assert read.changes[0] == replace(plan.changes[0], holders=None)


@pytest.mark.parametrize(
    "holders", [[1], {"total": 1}, {"total": 1, "byLevel": {}, "levelOneDisabled": []}]
)
def test_a_saved_plan_with_malformed_holders_is_refused_clearly(holders: object) -> None:
    doc = json.loads(render_json(_plan({"Analyst": _analyst(SHARE)})))
    doc["changes"][0]["holders"] = holders
    with pytest.raises(PlanFileError, match="malformed plan"):
        plan_from_json(json.dumps(doc), "plan.json")


def test_a_plan_without_role_changes_is_left_as_it_was() -> None:
    change = Change("Member/bob", Action.UPDATE, {"level": 2}, {"level": 1})
    plan = Plan(PortalRef("u", "p", "self-hosted", "10.6.1"), changes=(change,))
    assert "holders" not in render_json(plan)
