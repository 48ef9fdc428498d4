"""Administrative privileges the portal grants that Git does not: a role given
`portal:admin:*` privileges behind orgctl's back is the drift a reader must see first
(README: drift), with the members it reaches. Computed once, while planning, from the
live roles and members the plan already read; the renderers only show
`Change.administrative`."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from reconciler.plan.elements import undeclared_admin
from reconciler.plan.model import Change, LiveAdmin
from reconciler.state import LiveState

ROLE = "Role/"


def with_live_admin(changes: Iterable[Change], live: LiveState) -> list[Change]:
    """`changes`, each one of a role holding administrative privileges live that the
    manifests do not declare carrying them and the role's live holders."""
    marked = []
    holders: dict[str, list[str]] | None = None
    for change in changes:
        privileges = undeclared_admin(change)
        if privileges:
            holders = _holders(live) if holders is None else holders
            name = change.address.removeprefix(ROLE)
            held = LiveAdmin(tuple(privileges), tuple(holders.get(name, ())))
            change = replace(change, administrative=held)
        marked.append(change)
    return marked


def _holders(live: LiveState) -> dict[str, list[str]]:
    """The live members by the custom role they hold, sorted."""
    by_role: dict[str, list[str]] = {}
    for username, member in sorted(live.members.items()):
        if member.role is not None:
            by_role.setdefault(member.role, []).append(username)
    return by_role
