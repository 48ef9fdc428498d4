"""What a member rule sees: effective privileges after the plan with level-1 disabling
applied, against the live portal's, on small real states."""

from __future__ import annotations

from reconciler.catalog import LEVEL_ONE_PRIVILEGES
from reconciler.policy.variables import live_access, member_variables, planned_access
from reconciler.state import LiveState, Member, PortalInfo, Role
from reconciler.versions import Platform

PLATFORM = Platform.parse("self-hosted", "10.6.1")
LEVEL_ONE = sorted(LEVEL_ONE_PRIVILEGES)[0]
SHARE = "portal:user:shareToGroup"
ADMIN = "portal:admin:viewUsers"


def _live() -> LiveState:
    live = LiveState(PortalInfo("p", "hq", PLATFORM, "admin"))
    live.roles["Analyst"] = Role("Analyst", privileges=frozenset({LEVEL_ONE}), id="r1")
    live.members["dave"] = Member("dave", "Analyst", 2)
    live.members["lee"] = Member("lee", "Analyst", 1)
    return live


def test_a_role_edit_shows_as_gained_and_level_one_disabling_is_applied() -> None:
    live = _live()
    declared = {"Analyst": Role("Analyst", privileges=frozenset({LEVEL_ONE, SHARE, ADMIN}))}
    before = live_access(live)
    after = planned_access(live, declared, {}, {})
    seen = dict(member_variables(before, after))
    dave, lee = seen["Member/dave"], seen["Member/lee"]
    assert dave["gained"] == tuple(sorted({SHARE, ADMIN})) and dave["lost"] == ()
    assert dave["administrative"] is True
    # lee is level 1: the role grants more, but only its level-1 privileges work.
    assert SHARE in lee["rolePrivileges"] and SHARE not in lee["privileges"]
    assert lee["administrative"] is False and lee["gained"] == ()


def test_on_live_state_alone_nothing_is_gained_or_lost() -> None:
    live = _live()
    access = live_access(live)
    for _, member in member_variables(access, access):
        assert member["gained"] == () and member["lost"] == ()
        assert member["privileges"] == member["privilegesBefore"]


def test_a_final_role_and_a_declared_level_are_the_member_s_after_the_plan() -> None:
    live = _live()
    after = planned_access(live, {}, {"lee": Member("lee", None, 2)}, {"dave": "org_user"})
    assert after.members["dave"].role == "org_user"
    assert after.members["lee"].level == 2
