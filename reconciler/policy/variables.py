"""What a policy's rule sees: one variable per subject, built from two access states.

An `Access` is who holds which role and what each role grants, on the live portal
(`before`) or once a plan is applied (`after`). Effective privileges reuse the access
report's model (reconciler.access.holdings): a built-in role grants its catalog
privileges, and a level-1 member uses only the level-1 privileges of its role.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cache
from typing import Any

from reconciler.access.holdings import Holding, holdings, is_administrative, member_holds
from reconciler.address_forms import MEMBER, ROLE
from reconciler.state import NEVER_SIGNED_IN, LiveState, Member, Role

ADMINISTRATOR = "org_admin"  # the built-in Administrator role, as a member's role names it

# Every variable's fields, by subject: what `validate` checks a rule against.
FIELDS: Mapping[str, tuple[str, ...]] = {
    "member": (
        "username",
        "role",
        "level",
        "disabled",
        "lastLogin",
        "privileges",
        "rolePrivileges",
        "privilegesBefore",
        "gained",
        "lost",
        "administrative",
        "grants",
    ),
    "role": (
        "name",
        "privileges",
        "privilegesBefore",
        "holders",
        "holdersBefore",
        "administrative",
    ),
    "portal": (
        "name",
        "deployment",
        "version",
        "members",
        "administrators",
        "administratorsBefore",
        "administratorNames",
        "administratorNamesBefore",
    ),
    "change": ("address", "action", "before", "after"),
}
SUBJECTS = tuple(FIELDS)
# A member's fields of its own; its other fields its role and level decide (before and
# after the plan), so members of one role at one level share them, and a rule reading
# only those is judged once per such group.
OWN: Mapping[str, frozenset[str]] = {
    "member": frozenset({"username", "disabled", "lastLogin", "grants"})
}
GROUPED: Mapping[str, tuple[str, ...]] = {
    subject: tuple(f for f in FIELDS[subject] if f not in own) for subject, own in OWN.items()
}
# The fields holding maps, which cannot key a result shared between subjects.
MAPS: Mapping[str, frozenset[str]] = {"change": frozenset({"before", "after"})}
Subject = tuple[str, dict[str, Any]]  # a subject's address and variable
NOW = "now"  # every rule also sees the plan's evaluation time


@dataclass(frozen=True, slots=True)
class Access:
    """Roles by name (built-in ones included) and members by username."""

    roles: Mapping[str, Holding]
    members: Mapping[str, Member]
    # Each member's time-bound grants, by username (reconciler.kinds.members.grants): declared
    # in the manifests, so only the state after a plan has any (the portal keeps none).
    grants: Mapping[str, tuple[Mapping[str, Any], ...]] = field(default_factory=dict)
    _effective: dict[tuple[str | None, bool], tuple[str, ...]] = field(
        default_factory=dict, compare=False, repr=False
    )

    def role_of(self, member: Member) -> Holding | None:
        return self.roles.get(member.role) if member.role is not None else None

    def effective(self, member: Member) -> tuple[str, ...]:
        """Sorted; members of one role and level share one tuple (and one verdict)."""
        key = (member.role, member.level == 1)
        found = self._effective.get(key)
        if found is None:
            held = member_holds(member, self.role_of(member))
            found = tuple(h.name for h in held if not h.disabledByLevel)
            self._effective[key] = found
        return found

    def holders(self) -> dict[str, list[str]]:
        by_role: dict[str, list[str]] = {name: [] for name in self.roles}
        for member in self.members.values():
            if member.role is not None:
                by_role.setdefault(member.role, []).append(member.username)
        return by_role


def live_access(live: LiveState, extra: frozenset[str] = frozenset()) -> Access:
    return Access(holdings(live.roles, live.portal.platform, extra), dict(live.members))


def planned_access(
    live: LiveState,
    roles: Mapping[str, Role],
    members: Mapping[str, Member],
    final_roles: Mapping[str, str | None],
    extra: frozenset[str] = frozenset(),
) -> Access:
    """The access once a plan is applied: declared roles replace or remove live ones,
    and each live member holds its final role at its declared level."""
    listed = {name: role for name, role in live.roles.items() if name not in roles}
    for name, role in roles.items():
        if not role.present:
            continue
        current = live.roles.get(name)
        keeps = current.privileges if current is not None else frozenset()
        privileges = role.privileges if role.privileges is not None else keeps
        listed[name] = Role(name, privileges=privileges, id=current.id if current else None)
    after = {}
    for username, member in live.members.items():
        declared = members.get(username)
        level = declared.level if declared and declared.level is not None else member.level
        holds = final_roles.get(username, member.role)
        unchanged = holds == member.role and level == member.level
        after[username] = (
            member
            if unchanged
            else Member(username, holds, level, member.disabled, member.lastLogin)
        )
    return Access(holdings(listed, live.portal.platform, extra), after)


def _sorted(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(values))


@cache
def _listed(privileges: frozenset[str]) -> tuple[str, ...]:
    """A role's privileges, sorted: roles keep one frozenset before and after a plan, and
    a built-in role's hundreds are sorted once, not once per state and member."""
    return _sorted(privileges)


@cache
def _administrative(privileges: frozenset[str] | tuple[str, ...]) -> bool:
    return any(is_administrative(p) for p in privileges)


def _difference(these: tuple[str, ...], those: tuple[str, ...]) -> tuple[str, ...]:
    if these is those:  # one role and level before and after: nothing gained or lost
        return ()
    return _sorted(set(these) - set(those))


def timestamp(milliseconds: int | None) -> datetime | None:
    if milliseconds is None or milliseconds == NEVER_SIGNED_IN:
        return None
    return datetime.fromtimestamp(milliseconds / 1000, UTC)


def member_variables(
    before: Access, after: Access, earlier: Mapping[str, Subject] | None = None
) -> list[Subject]:
    """(address, `member`) for each member on the portal after the plan. `earlier`: the
    members' subjects on the live state, by address; a member the plan leaves alike in
    every field keeps that very subject, so judging it once serves both states (and the
    collector sees no second copy)."""
    # The fields a member's role and level decide, shared by every member whose role and
    # level before and after are the same: built once per combination, not per member.
    shared: dict[tuple[Any, ...], dict[str, Any]] = {}
    alike: dict[tuple[Any, ...], bool] = {}  # the shared fields equal on the live state
    head = MEMBER.head + "/"
    found: list[Subject] = []
    for username, member in after.members.items():
        address = head + username
        was = before.members.get(username)
        key = (member.role, member.level == 1) + ((was.role, was.level == 1) if was else (0,))
        derived = shared.get(key)
        if derived is None:
            derived = shared[key] = _held(member, was, before, after)
        grants = after.grants.get(username, ())
        if earlier is not None and was is not None and member.level == was.level:
            same = alike.get(key)
            if same is None:
                same = alike[key] = _alike(earlier[address][1], derived, member, was)
            if same and earlier[address][1]["grants"] == grants:
                found.append(earlier[address])
                continue
        variable = {
            "username": username,
            "role": member.role,
            "level": member.level,
            "disabled": bool(member.disabled),
            "lastLogin": timestamp(member.lastLogin),
            "grants": grants,
        }
        variable.update(derived)
        found.append((address, variable))
    return found


def _alike(
    earlier: Mapping[str, Any], derived: Mapping[str, Any], member: Member, was: Member
) -> bool:
    """Whether a member's variable after the plan is its live one: same role and level
    (its other own fields are read from the live portal) and same shared fields."""
    return member.role == was.role and all(earlier[n] == v for n, v in derived.items())


def _held(member: Member, was: Member | None, before: Access, after: Access) -> dict[str, Any]:
    """What a member holds after the plan against before it: the `member` fields its role
    and level decide."""
    privileges = after.effective(member)
    earlier = before.effective(was) if was is not None else ()
    role = after.role_of(member)
    return {
        "privileges": privileges,
        "rolePrivileges": _listed(role.privileges) if role else (),
        "privilegesBefore": earlier,
        "gained": _difference(privileges, earlier),
        "lost": _difference(earlier, privileges),
        "administrative": _administrative(privileges),
    }


def role_variables(before: Access, after: Access) -> Iterator[tuple[str, dict[str, Any]]]:
    """(address, `role`) for each role after the plan, built-in and pre-built ones too."""
    holders, holders_before = after.holders(), before.holders()
    for name, role in after.roles.items():
        was = before.roles.get(name)
        yield (
            ROLE.of(name),
            {
                "name": name,
                "privileges": _listed(role.privileges),
                "privilegesBefore": _listed(was.privileges) if was else (),
                "holders": _sorted(holders.get(name, ())),
                "holdersBefore": _sorted(holders_before.get(name, ())),
                "administrative": _administrative(role.privileges),
            },
        )


def administrator_names(members: Mapping[str, Member]) -> tuple[str, ...]:
    """The default administrators: the members holding the built-in Administrator role."""
    return _sorted(u for u, m in members.items() if m.role == ADMINISTRATOR)


def portal_variable(
    name: str, live: LiveState, access: Access, before: Access | None = None
) -> tuple[str, dict[str, Any]]:
    """`portal` after the plan (`access`) against the live portal (`before`; None: the
    live state alone, where the after-values equal the before-values)."""
    members_before = None if before is None else before.members
    return f"Portal/{name}", portal_fields(name, live, access.members, members_before)


def portal_fields(
    name: str,
    live: LiveState,
    members: Mapping[str, Member],
    before: Mapping[str, Member] | None = None,
) -> dict[str, Any]:
    """`portal` with `members` after the plan and `before` on the live portal (None: the
    same)."""
    platform = live.portal.platform
    names = administrator_names(members)
    names_before = names if before is None else administrator_names(before)
    return {
        "name": name,
        "deployment": str(platform.deployment),
        "version": str(platform.release),
        "members": len(members),
        "administrators": len(names),
        "administratorsBefore": len(names_before),
        "administratorNames": names,
        "administratorNamesBefore": names_before,
    }


def change_variable(change: Any) -> dict[str, Any]:
    """A planned change (reconciler.plan.model.Change) as a `change` rule sees it."""
    return {
        "address": change.address,
        "action": str(change.action),
        "before": _plain(change.before or {}),
        "after": _plain(change.after or {}),
    }


def _plain(value: Any) -> Any:
    # Sets become sorted lists: CEL has lists and maps, no sets.
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (set, frozenset, list, tuple)):
        items = [_plain(v) for v in value]
        return sorted(items, key=str) if isinstance(value, (set, frozenset)) else items
    return value


def access_subjects(
    before: Access, after: Access, earlier: Mapping[str, list[Subject]] | None = None
) -> dict[str, list[Subject]]:
    """The member and role subjects of `after` against `before` (equal on live state).
    `earlier`: the subjects of the live state (`access_subjects(before, before)`), whose
    variables the members the plan leaves alike keep."""
    members = {s[0]: s for s in earlier["member"]} if earlier is not None else None
    return {
        "member": member_variables(before, after, members),
        "role": list(role_variables(before, after)),
    }
