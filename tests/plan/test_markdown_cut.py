"""A Markdown plan too long for one comment: the riskiest changes are the last to go, and
the cut says what it left out, per kind, and how to see everything."""

from __future__ import annotations

from reconciler.plan.model import Plan
from reconciler.plan.planner import build_plan
from reconciler.plan.render.lines import RISK_ORDER, risk, riskiest_first
from reconciler.plan.render.markdown import render_markdown
from reconciler.state import Member, Role
from tests.plan.world import NOW, hq_desired, hq_live

GRANTED = frozenset({"portal:user:joinGroup", "portal:user:shareToGroup"})


def busy_plan(moves: int = 2071) -> Plan:
    """50 roles created, 100 roles granted privileges, `moves` members moved to a role."""
    live, desired = hq_live(), hq_desired()
    for n in range(50):
        desired.roles[f"New {n:02d}"] = Role(f"New {n:02d}", "new", GRANTED)
    for n in range(100):
        name = f"Granted {n:03d}"
        live.roles[name] = Role(name, "g", frozenset({"portal:user:joinGroup"}), id=f"g{n:013d}")
        desired.roles[name] = Role(name, "g", GRANTED)
    for n in range(moves):
        user = f"a{n:05d}-member-with-a-rather-long-name-to-fill-the-comment"
        live.members[user] = Member(user, "org_user", 2)
        desired.members[user] = Member(user, "Analyst")
    return build_plan(desired, live, now=NOW)


def test_the_cut_keeps_role_creations_and_grants_and_drops_member_moves() -> None:
    plan = busy_plan()
    assert not plan.errors, plan.errors
    text = render_markdown(plan)
    assert len(text) <= 65_000
    # Every creation and every grant is shown; only member moves were cut.
    assert text.count("\n+ Role/New ") == 50, text[:3000]
    assert text.count("\n@@ ~ Role/Granted ") == 100
    shown_moves = text.count("\n@@ ~ Member/")
    assert 0 < shown_moves < 2071
    note = text.strip().splitlines()[-1]
    left_out = 2071 - shown_moves
    assert note.startswith(
        f"> **Truncated to fit one comment:** left out {left_out:,} of {2071 + 150:,} changes"
        f" (Member: {left_out:,} to update) and "
    ), note
    assert "--split 60000" in note and "plan JSON" in note
    assert ", ".join(RISK_ORDER) in note


def test_risk_order_puts_deletions_and_grants_before_creations_and_moves() -> None:
    live, desired = hq_live(), hq_desired()
    desired.roles["Legacy Viewer"] = Role("Legacy Viewer", present=False)
    desired.roles["Admin-ish"] = Role("Admin-ish", "a", frozenset({"portal:admin:viewUsers"}))
    desired.roles["Plain"] = Role("Plain", "p")
    desired.roles["Analyst"] = Role("Analyst", "Analysts", None)
    desired.members["alice"] = Member("alice", "Analyst")
    desired.members["bob"] = Member("bob", None, 1)
    plan = build_plan(desired, live, now=NOW, allow_deletes=True)
    ranked = [(c.address, RISK_ORDER[risk(c)]) for c in riskiest_first(plan.changes)]
    assert ranked[0] == ("Role/Legacy Viewer", "deletions"), ranked
    assert ranked[1] == ("Role/Admin-ish", "administrative privilege grants"), ranked
    assert ("Role/Plain", "creations") in ranked
    assert ("Member/alice", "role assignments") in ranked
    order = [RISK_ORDER.index(kind) for _, kind in ranked]
    assert order == sorted(order)
