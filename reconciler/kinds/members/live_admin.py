"""Administrative privileges the portal grants that Git does not, held by a member: a
member moved onto a role holding some that the manifests do not give it is the drift a
reader must see first (README: drift). Computed once, while planning, from the live roles
and members the plan already read; the renderers only show `Change.administrative`. A
role's own such privileges are the role kind's (reconciler/kinds/role/live_admin.py)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace

from reconciler.catalog import BUILTIN_ROLES, builtin_role_privileges, privileges_for
from reconciler.plan.elements import ADMIN_PREFIX
from reconciler.plan.model import Change, LiveAdmin
from reconciler.state import DesiredState, LiveState

MEMBER = "Member/"


def with_live_admin(
    changes: Iterable[Change], live: LiveState, desired: DesiredState
) -> list[Change]:
    """`changes`, each one of a member whose live role grants administrative privileges
    that its declared role does not carrying them and the member."""
    roles = _live_roles(live, desired)
    marked = []
    for change in changes:
        held = _of_member(change, live, desired, roles)
        marked.append(replace(change, administrative=held) if held else change)
    return marked


def _of_member(
    change: Change, live: LiveState, desired: DesiredState, roles: Mapping[str, frozenset[str]]
) -> LiveAdmin | None:
    """The administrative privileges a member holds through its live role and would not
    through the role the manifests give it (none usable at level 1, which disables them)."""
    before, after = change.before or {}, change.after or {}
    username = change.address.removeprefix(MEMBER)
    member = live.members.get(username)
    if not change.address.startswith(MEMBER) or member is None or member.level == 1:
        return None
    now, meant = before.get("role"), after.get("role")
    if not isinstance(now, str) or not isinstance(meant, str) or now not in roles:
        return None
    declared = desired.roles.get(meant)
    if declared is not None and declared.privileges is not None:
        allowed = declared.privileges
    else:
        allowed = roles.get(meant, frozenset())
    extra = sorted(p for p in roles[now] - allowed if p.startswith(ADMIN_PREFIX))
    return LiveAdmin(tuple(extra), (username,)) if extra else None


def _live_roles(live: LiveState, desired: DesiredState) -> dict[str, frozenset[str]]:
    """Each role's privileges on the portal: the listed roles', and the built-in roles'
    among those the platform offers (as the access review counts them)."""
    offered = privileges_for(live.portal.platform) | desired.portal.extraPrivileges
    found = {name: role.privileges or frozenset() for name, role in live.roles.items()}
    found.update({name: builtin_role_privileges(name, offered) for name in BUILTIN_ROLES})
    return found
