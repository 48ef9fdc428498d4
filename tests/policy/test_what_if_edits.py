"""What-if's edits of the state the manifests produce (`--remove-privilege`,
`--add-privilege`, `--set-role`, `--set-level`), as the Role and Members kinds make them."""

from __future__ import annotations

import pytest

from reconciler.errors import UserError
from reconciler.kinds.members.edits import assignments_edited
from reconciler.kinds.role.edits import privileges_edited
from reconciler.policy.variables import live_access
from reconciler.state import DesiredState, LiveState, Member, PortalInfo, Role
from reconciler.versions import Platform
from tests.plan.world import hq_target

PLATFORM = Platform.parse("self-hosted", "10.6.1")
VIEW, SHARE, CREATE = (
    "portal:user:viewOrgItems",
    "portal:user:shareToGroup",
    "portal:user:createItem",
)


def _live() -> LiveState:
    live = LiveState(PortalInfo("p", "hq", PLATFORM, "admin"))
    live.roles["Analyst"] = Role("Analyst", privileges=frozenset({VIEW, SHARE}), id="r1")
    live.members["gina"] = Member("gina", "Analyst", 2, False, 1)
    return live


def test_privileges_are_taken_away_then_given_and_absent_roles_kept() -> None:
    desired = DesiredState(hq_target())
    desired.roles["Gone"] = Role("Gone", present=False)
    remove, add = [("Analyst", SHARE), ("Analyst", CREATE)], [("Analyst", CREATE)]
    roles = privileges_edited(live_access(_live()), desired, remove, add)
    assert roles["Analyst"].privileges == {VIEW, CREATE}
    assert roles["Gone"] == Role("Gone", present=False)
    assert "org_user" not in roles  # built-in roles are never edited


def test_an_edit_of_a_role_no_custom_one_is_refused() -> None:
    desired = DesiredState(hq_target())
    with pytest.raises(UserError, match="no custom role 'org_user'"):
        privileges_edited(live_access(_live()), desired, [], [("org_user", VIEW)])


def test_members_are_declared_at_their_role_and_level_with_the_edits() -> None:
    members = assignments_edited(live_access(_live()), [("gina", "org_user")], [("gina", 1)])
    assert members == {"gina": Member("gina", "org_user", 1)}


@pytest.mark.parametrize(
    ("roles", "levels", "message"),
    [
        ([("nobody", "org_user")], [], "no member 'nobody'"),
        ([("gina", "Nope")], [], "no role 'Nope'"),
        ([], [("nobody", 1)], "no member 'nobody'"),
    ],
)
def test_an_assignment_of_an_unknown_member_or_role_is_refused(
    roles: list[tuple[str, str]], levels: list[tuple[str, int]], message: str
) -> None:
    with pytest.raises(UserError, match=message):
        assignments_edited(live_access(_live()), roles, levels)
