"""A drift plan marks each role whose live privileges include administrative ones the
manifests do not declare, with the role's live holders, and every report puts it first."""

from __future__ import annotations

import json
from dataclasses import replace

from reconciler.notify import drift_text
from reconciler.plan.model import LiveAdmin, Plan
from reconciler.plan.planner import build_plan
from reconciler.plan.render.json import plan_from_json, render_json
from reconciler.plan.render.markdown import render_markdown
from reconciler.plan.render.text import render_text
from reconciler.state import Member, Role
from tests.plan.world import ANALYST_PRIVILEGES, NOW, hq_desired, hq_live

GRANTED = "portal:admin:deleteUsers"


def escalated(*, live_admin: bool = True) -> Plan:
    """Analyst (dave, erin) given an administrative privilege by hand; carol moved to
    Analyst in the manifests (an ordinary change whose address sorts first); Legacy
    Viewer declared absent (a deletion)."""
    live = hq_live()
    live.roles["Analyst"] = replace(
        live.roles["Analyst"], privileges=ANALYST_PRIVILEGES | {GRANTED}
    )
    desired = hq_desired()
    desired.roles = {
        "Analyst": Role("Analyst", None, ANALYST_PRIVILEGES),
        "Legacy Viewer": Role("Legacy Viewer", present=False),
    }
    desired.members = {"carol": Member("carol", "Analyst")}
    return build_plan(
        desired, live, allow_deletes=True, now=NOW, check_caller=False, live_admin=live_admin
    )


def test_the_role_carries_the_privileges_and_its_live_holders() -> None:
    changes = {c.address: c for c in escalated().changes}
    assert changes["Role/Analyst"].administrative == LiveAdmin((GRANTED,), ("dave", "erin"))
    assert changes["Member/carol"].administrative is None
    assert changes["Role/Legacy Viewer"].administrative is None  # holds none


def test_a_plan_does_not_mark_it() -> None:
    assert all(c.administrative is None for c in escalated(live_admin=False).changes)


def test_drift_json_orders_it_first_and_reads_back() -> None:
    text = render_json(escalated(), "drift")
    changes = json.loads(text)["changes"]
    addresses = [c["address"] for c in changes]
    assert addresses == ["Role/Analyst", "Role/Legacy Viewer", "Member/carol"], addresses
    assert changes[0]["administrative"] == [GRANTED]
    assert changes[0]["administrativeHolders"] == ["dave", "erin"]
    again = plan_from_json(text)
    assert again.changes[0].administrative == LiveAdmin((GRANTED,), ("dave", "erin"))


def test_drift_text_and_notice_say_it_from_the_portal_s_side() -> None:
    plan = escalated()
    text = render_text(plan, "drift")
    body = text.split("(live → desired):\n", 1)[1]
    assert body.startswith(
        f"  ~ Role/Analyst  [administrative] {GRANTED} granted on the portal, not in Git;"
        " held by dave, erin\n"
    ), body
    assert "privileges: 1 on the portal only, 0 in Git only, 4 in both" in body, body
    assert f'on the portal only: "{GRANTED}"' in body
    notice = drift_text(plan)
    assert "administrative privileges granted on the portal, not in Git: Role/Analyst" in notice


def test_a_member_moved_onto_an_administrative_role_by_hand_is_marked() -> None:
    """bob, declared org_user, was made org_admin on the portal: the Administrator role's
    administrative privileges are his outside Git. erin, at level 1, holds Analyst's
    administrative privilege disabled, so her move is not."""
    live = hq_live()
    live.members["bob"] = Member("bob", "org_admin", 2)
    live.roles["Analyst"] = replace(
        live.roles["Analyst"], privileges=ANALYST_PRIVILEGES | {GRANTED}
    )
    desired = hq_desired()
    desired.members = {"bob": Member("bob", "org_user"), "erin": Member("erin", "org_user")}
    plan = build_plan(desired, live, now=NOW, check_caller=False, live_admin=True)
    changes = {c.address: c for c in plan.changes}
    bob = changes["Member/bob"].administrative
    assert bob is not None and bob.holders == ("bob",), bob
    assert GRANTED in bob.privileges and all(p.startswith("portal:admin:") for p in bob.privileges)
    assert changes["Member/erin"].administrative is None
    assert render_json(plan, "drift").index("Member/bob") < render_json(plan, "drift").index(
        "Member/erin"
    )


def test_a_drift_comment_too_small_for_values_still_marks_it_first() -> None:
    """Cut to one line per change, a drift comment keeps the marker and the portal's side."""
    text = render_markdown(escalated(), "drift", limit=1_900)
    lines = text.split("```diff\n", 1)[1].splitlines()
    assert lines[0].startswith("@@ ~ Role/Analyst  [administrative] "), lines
    assert "privileges (1 on the portal only, 0 in Git only" in lines[0], lines
