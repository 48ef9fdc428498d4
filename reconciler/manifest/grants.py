"""Time-bound grants (README: Temporary access): their manifest fields, their checks, and
the one step that turns them into plain desired records at an evaluation time.

A Members entry's `grants` and a Role's `temporaryPrivileges` are kept beside the
desired state (`DesiredState.grants`), whose records hold what each falls back to.
`resolved(desired, now)` is the desired state at `now`: each grant still in force
applied, the expired ones gone. The planner only ever sees its result.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import Field, WithJsonSchema

from reconciler.catalog import BUILTIN_ROLES
from reconciler.clock import moment
from reconciler.manifest import models
from reconciler.manifest.checks import deadline, source
from reconciler.manifest.problems import Problem
from reconciler.manifest.raw import KeyPath
from reconciler.operations import OperationName, availability_problem
from reconciler.state import DesiredState, Grant, Member, Role
from reconciler.versions import Platform

if TYPE_CHECKING:
    from reconciler.manifest.loader import Document

UNTIL = (
    "RFC 3339, or a date (its start, UTC): from then on the grant no longer applies"
    " (validate warns while it is still written down: remove it)"
)
REASON = "why the access is granted: required, shown with the grant in plans and reports"

# Checked by `deadline_problems` (reconciler.clock.moment), as a policy exception's.
Deadline = Annotated[
    dt.datetime | dt.date | str,
    WithJsonSchema(
        {
            "description": UNTIL,
            "anyOf": [
                {"type": "string", "format": "date-time"},
                {"type": "string", "format": "date"},
            ],
        }
    ),
]


class GrantSpec(models.Strict):
    """Until `until`, the member holds `role` and/or `level` instead of the entry's own."""

    role: str | None = Field(None, min_length=1)
    level: Literal[1, 2] | None = None
    until: Deadline
    reason: str = Field(min_length=1, description=REASON)


class TemporaryPrivilegesSpec(models.Strict):
    """Until `until`, the role holds these privileges beside its declared ones."""

    privileges: Annotated[
        list[str], WithJsonSchema({"type": "array", "items": models.PRIVILEGE_MARK, "minItems": 1})
    ] = Field(min_length=1)
    until: Deadline
    reason: str = Field(min_length=1, description=REASON)


TimeBound = GrantSpec | TemporaryPrivilegesSpec
UPDATE_LEVEL = OperationName.UPDATE_USER_LEVEL


# --- checks ----------------------------------------------------------------------------------


def deadline_problems(
    document: Document, where: KeyPath, declared: Iterable[TimeBound], now: dt.datetime
) -> Iterator[Problem]:
    """An `until` that is no time is an error; one already past, a warning: the grant no
    longer applies and Git should not pretend it does."""
    for index, grant in enumerate(declared):
        yield from deadline(
            document,
            (*where, index, "until"),
            grant.until,
            now,
            f"the grant ({grant.reason}) expired on {{end}} and no longer applies: remove it",
        )


def entry_problems(
    document: Document,
    username: str,
    role: str | None,
    level: int | None,
    declared: list[GrantSpec],
    platform: Platform | None,
) -> Iterator[Problem]:
    """A Members entry with grants declares what it falls back to: its own role, and its
    own level where the portal has levels; each grant gives a role or a level."""
    if not declared:
        return
    where: KeyPath = ("spec", "members", username, "grants")
    missing = availability_problem(UPDATE_LEVEL, platform) if platform else None
    if role is None:
        yield document.problem(where, "an entry with grants declares its own role, to fall back to")
    if platform is not None and not missing and level is None:
        yield document.problem(
            where, "an entry with grants declares its own level, to fall back to"
        )
    for index, grant in enumerate(declared):
        yield from _grant_problems(document, (*where, index), grant, role, missing)
    yield from deadline_problems(document, where, declared, _now())


def _grant_problems(
    document: Document, path: KeyPath, grant: GrantSpec, own: str | None, no_levels: str | None
) -> Iterator[Problem]:
    """`no_levels`: why the portal has no levels (None: it has)."""
    if grant.role is None and grant.level is None:
        yield document.problem(path, "a grant gives a role, a level or both")
    if grant.level is not None and no_levels:
        yield document.problem((*path, "level"), no_levels)
    if grant.level == 1 and (grant.role or own) in BUILTIN_ROLES:
        yield document.problem(
            (*path, "level"), "level 1 needs a custom role; a built-in role is always level 2"
        )


def role_problems(
    document: Document,
    privileges: list[str] | None,
    presence: str,
    declared: list[TemporaryPrivilegesSpec],
) -> Iterator[Problem]:
    """Temporary privileges add to the role's declared ones, so it declares some."""
    if not declared:
        return
    if presence == "absent":
        yield document.problem(
            ("spec", "temporaryPrivileges"), "a role declared absent holds no privileges"
        )
    elif privileges is None:
        yield document.problem(
            ("spec", "temporaryPrivileges"),
            "a role with temporaryPrivileges declares its own privileges, to fall back to",
        )
    yield from deadline_problems(document, ("spec", "temporaryPrivileges"), declared, _now())


def _now() -> dt.datetime:
    # validate is offline: this machine's clock is the only one it has.
    return dt.datetime.now(dt.UTC)


# --- desired state ----------------------------------------------------------------------------


def member_grants(
    document: Document, username: str, address: str, declared: list[GrantSpec]
) -> tuple[Grant, ...]:
    """A member's grants as desired records (validated: every `until` is a time)."""
    where = ("spec", "members", username, "grants")
    return tuple(
        Grant(address, _until(g), g.reason, g.role, g.level, source=source(document, *where, i))
        for i, g in enumerate(declared)
    )


def role_grants(
    document: Document, address: str, declared: list[TemporaryPrivilegesSpec]
) -> tuple[Grant, ...]:
    where = ("spec", "temporaryPrivileges")
    return tuple(
        Grant(
            address,
            _until(g),
            g.reason,
            privileges=frozenset(g.privileges),
            source=source(document, *where, i),
        )
        for i, g in enumerate(declared)
    )


def _until(grant: TimeBound) -> dt.datetime:
    until = moment(grant.until)
    assert until is not None  # a required field, checked by the kinds' rules
    return until


def resolved(desired: DesiredState, now: dt.datetime) -> DesiredState:
    """The desired state at `now`: each member and role as its grants in force make it.
    Without grants, `desired` itself."""
    if not desired.grants:
        return desired
    members, roles = dict(desired.members), dict(desired.roles)
    for address, grants in desired.grants.items():
        active = [g for g in grants if now < g.until]
        kind, _, name = address.partition("/")
        if not active:
            continue
        if kind == "Member" and name in members:
            members[name] = _granted_member(members[name], active)
        elif name in roles:
            roles[name] = _granted_role(roles[name], active)
    declared = desired.declared and resolved(desired.declared, now)
    return replace(desired, members=members, roles=roles, declared=declared)


def _granted_member(member: Member, active: list[Grant]) -> Member:
    """The first grant in force (in declared order) naming a role decides the role; the
    first naming a level, the level."""
    role = next((g.role for g in active if g.role is not None), member.role)
    level = next((g.level for g in active if g.level is not None), member.level)
    return replace(member, role=role, level=level)


def _granted_role(role: Role, active: list[Grant]) -> Role:
    privileges = (role.privileges or frozenset()).union(*(g.privileges for g in active))
    return replace(role, privileges=privileges)


def in_force(desired: DesiredState, now: dt.datetime) -> list[Grant]:
    """The grants that still apply at `now`, by address and deadline."""
    return sorted(
        (g for grants in desired.grants.values() for g in grants if now < g.until),
        key=lambda g: (g.until, g.address),
    )


def expired(desired: DesiredState, now: dt.datetime) -> list[Grant]:
    return [g for grants in desired.grants.values() for g in grants if g.until <= now]


def next_deadline(desired: DesiredState, now: dt.datetime) -> dt.datetime | None:
    """When the next grant in force ends: when the desired state next changes by itself."""
    found = in_force(desired, now)
    return found[0].until if found else None


def granted(grant: Grant) -> str:
    """What the grant gives: `role org_publisher`, `level 2`, `privileges a, b`."""
    parts = [f"role {grant.role}"] if grant.role is not None else []
    parts += [f"level {grant.level}"] if grant.level is not None else []
    parts += [f"privileges {', '.join(sorted(grant.privileges))}"] if grant.privileges else []
    return " and ".join(parts)
