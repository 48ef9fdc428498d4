"""A Members entry's `grants` (README: Temporary access): until a deadline the member
holds another role and/or level than the entry's own, which is what it falls back to.

Their checks, their desired records, how those apply at an evaluation time and when an
expired one is still held live (the kind's `Grants`), and how a policy's rule sees them
(`member.grants`). The deadlines themselves are reconciler.manifest.grants'.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any, Literal

from pydantic import Field

from reconciler.address_forms import MEMBER
from reconciler.catalog import BUILTIN_ROLES
from reconciler.kind import Grants
from reconciler.manifest import models
from reconciler.manifest.checks import source
from reconciler.manifest.grants import (
    REASON,
    Deadline,
    deadline_of,
    deadline_problems,
    granted_records,
)
from reconciler.manifest.loader import Document
from reconciler.manifest.problems import Problem
from reconciler.manifest.raw import KeyPath
from reconciler.names import ROLE_NAMES
from reconciler.operations import OperationName, availability_problem
from reconciler.policy.variables import Access
from reconciler.state import DesiredState, Grant, LiveState, Member
from reconciler.versions import Platform

UPDATE_LEVEL = OperationName.UPDATE_USER_LEVEL


class GrantSpec(models.Strict):
    """Until `until`, the member holds `role` and/or `level` instead of the entry's own."""

    role: str | None = Field(None, min_length=1)
    level: Literal[1, 2] | None = None
    until: Deadline
    reason: str = Field(min_length=1, description=REASON)


# --- checks ----------------------------------------------------------------------------------


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
    yield from deadline_problems(document, where, declared)


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


# --- desired state ----------------------------------------------------------------------------


def member_grants(
    document: Document, username: str, address: str, declared: list[GrantSpec]
) -> tuple[Grant, ...]:
    """A member's grants as desired records (validated: every `until` is a time)."""
    where = ("spec", "members", username, "grants")
    return tuple(
        Grant(
            address, deadline_of(g), g.reason, g.role, g.level, source=source(document, *where, i)
        )
        for i, g in enumerate(declared)
    )


def _applied(desired: DesiredState, active: Mapping[str, Sequence[Grant]]) -> DesiredState:
    return replace(desired, members=granted_records(desired.members, active, _granted))


def _granted(member: Member, active: Sequence[Grant]) -> Member:
    """The first grant in force (in declared order) naming a role decides the role; the
    first naming a level, the level."""
    role = next((g.role for g in active if g.role is not None), member.role)
    level = next((g.level for g in active if g.level is not None), member.level)
    return replace(member, role=role, level=level)


def _held(grant: Grant, live: LiveState, at_now: DesiredState) -> bool:
    """The member still holds the granted role or level live, which the desired state at
    the evaluation time does not give it."""
    username = grant.address.partition("/")[2]
    member, wanted = live.members.get(username), at_now.members.get(username)
    if member is None or wanted is None:
        return False
    held_role = grant.role is not None and _same(member.role, grant.role)
    held_level = grant.level is not None and member.level == grant.level
    return (held_role and not _same(wanted.role, grant.role)) or (
        held_level and wanted.level != grant.level
    )


def _same(role: str | None, other: str | None) -> bool:
    return role is not None and other is not None and ROLE_NAMES.same(role, other)


GRANTS = Grants(apply=_applied, held=_held)


# --- policies --------------------------------------------------------------------------------


class GrantValue(dict[str, Any]):
    """A grant as a rule sees it, `{role, level, until, reason}`: a map (CEL has no
    records) that hashes, so members alike still share one verdict."""

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(self.items()))


def with_grants(access: Access, grants: Mapping[str, Iterable[Grant]]) -> Access:
    """`access` with the members' grants (`DesiredState.grants`, by address), by
    username: `member.grants`."""
    found = {
        address.partition("/")[2]: tuple(
            GrantValue(role=g.role, level=g.level, until=g.until, reason=g.reason) for g in listed
        )
        for address, listed in grants.items()
        if address.startswith(f"{MEMBER.head}/")
    }
    return replace(access, grants=found) if found else access
