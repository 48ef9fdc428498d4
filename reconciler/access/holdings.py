"""What each role holds and what each member can use of it.

A custom or pre-built role holds what the roles listing says; a built-in role
(org_admin, org_publisher, org_user) holds what the catalog gives it on the portal's
platform. A level-1 member can use only the level-1 privileges of its role: the rest are
held but disabled (docs/rules.md §2).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from reconciler.catalog import (
    BUILTIN_ROLES,
    LEVEL_ONE_PRIVILEGES,
    PREBUILT_ROLES,
    builtin_role_privileges,
    privileges_for,
)
from reconciler.plan.elements import ADMIN_PREFIX
from reconciler.state import Member, Role
from reconciler.versions import Platform

_PREBUILT_IDS = frozenset(r.id for r in PREBUILT_ROLES)


@dataclass(frozen=True, slots=True)
class Holding:
    """A role as the report shows it."""

    name: str
    id: str | None
    type: str  # "custom" or "builtin" (a built-in or a pre-built role: not editable)
    privileges: frozenset[str]


@dataclass(frozen=True, slots=True)
class Held:
    """One privilege of a member's role, and whether the member's level disables it."""

    name: str
    disabledByLevel: bool


def is_administrative(privilege: str) -> bool:
    return privilege.startswith(ADMIN_PREFIX)


def holdings(
    listed: Mapping[str, Role], platform: Platform, extra: Iterable[str] = ()
) -> dict[str, Holding]:
    """Every role by name: the listed ones, and the built-in ones with their privileges
    among those the platform offers (and the portal's extra privileges)."""
    offered = privileges_for(platform) | frozenset(extra)
    found = {
        name: Holding(name, role.id, _type(role), role.privileges or frozenset())
        for name, role in listed.items()
    }
    # A built-in id is what a member's role names for a built-in role, whatever is listed.
    for name in BUILTIN_ROLES:
        found[name] = Holding(name, None, "builtin", builtin_role_privileges(name, offered))
    return found


def _type(role: Role) -> str:
    return "builtin" if not role.editable or role.id in _PREBUILT_IDS else "custom"


def member_holds(member: Member, role: Holding | None) -> tuple[Held, ...]:
    """The privileges of the member's role, sorted, each marked when its level disables it."""
    if role is None:
        return ()
    level_one = member.level == 1
    return tuple(
        Held(p, level_one and p not in LEVEL_ONE_PRIVILEGES) for p in sorted(role.privileges)
    )
