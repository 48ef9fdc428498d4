"""Administrative privileges the portal grants that Git does not: a role given
`portal:admin:*` privileges behind orgctl's back is the drift a reader must see first
(README: drift), with the members it reaches (a member moved onto such a role is the
Members kind's, reconciler/kinds/members/live_admin.py). Computed once, while planning,
from the live roles and members the plan already read; the renderers only show
`Change.administrative`."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from reconciler.plan.elements import ADMIN_PREFIX, removed_privileges
from reconciler.plan.model import Change, LiveAdmin
from reconciler.state import LiveState

ROLE = "Role/"


def with_live_admin(changes: Iterable[Change], live: LiveState) -> list[Change]:
    """`changes`, each one of a role holding administrative privileges live that the
    manifests do not declare carrying them and the role's live holders."""
    holders = _holders(live)
    marked = []
    for change in changes:
        held = _of_role(change, holders)
        marked.append(replace(change, administrative=held) if held else change)
    return marked


def undeclared_admin(change: Change) -> list[str]:
    """The administrative privileges a role holds live that the manifests do not give it:
    what an update removes, all of a deleted role's."""
    if not change.address.startswith(ROLE):
        return []
    return [p for p in removed_privileges(change) if p.startswith(ADMIN_PREFIX)]


def _of_role(change: Change, holders: dict[str, list[str]]) -> LiveAdmin | None:
    privileges = undeclared_admin(change)
    if not privileges:
        return None
    return LiveAdmin(tuple(privileges), tuple(holders.get(change.address.removeprefix(ROLE), ())))


def _holders(live: LiveState) -> dict[str, list[str]]:
    """The live members by the custom role they hold, sorted."""
    by_role: dict[str, list[str]] = {}
    for username, member in sorted(live.members.items()):
        if member.role is not None:
            by_role.setdefault(member.role, []).append(username)
    return by_role
