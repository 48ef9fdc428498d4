"""A Role's `temporaryPrivileges` (README: Temporary access): until a deadline the role
holds these privileges beside its declared ones, which are what it falls back to.

Their checks, their desired records, and how those apply at an evaluation time and when
an expired one is still held live (the kind's `Grants`). The deadlines themselves are
reconciler.manifest.grants'.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Annotated

from pydantic import Field, WithJsonSchema

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
from reconciler.state import DesiredState, Grant, LiveState, Role

WHERE = ("spec", "temporaryPrivileges")


class TemporaryPrivilegesSpec(models.Strict):
    """Until `until`, the role holds these privileges beside its declared ones."""

    privileges: Annotated[
        list[str], WithJsonSchema({"type": "array", "items": models.PRIVILEGE_MARK, "minItems": 1})
    ] = Field(min_length=1)
    until: Deadline
    reason: str = Field(min_length=1, description=REASON)


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
        yield document.problem(WHERE, "a role declared absent holds no privileges")
    elif privileges is None:
        yield document.problem(
            WHERE, "a role with temporaryPrivileges declares its own privileges, to fall back to"
        )
    yield from deadline_problems(document, WHERE, declared)


def role_grants(
    document: Document, address: str, declared: list[TemporaryPrivilegesSpec]
) -> tuple[Grant, ...]:
    """A role's temporary privileges as desired records (validated: every `until` is a
    time)."""
    return tuple(
        Grant(
            address,
            deadline_of(g),
            g.reason,
            privileges=frozenset(g.privileges),
            source=source(document, *WHERE, i),
        )
        for i, g in enumerate(declared)
    )


def _applied(desired: DesiredState, active: Mapping[str, Sequence[Grant]]) -> DesiredState:
    return replace(desired, roles=granted_records(desired.roles, active, _granted))


def _granted(role: Role, active: Sequence[Grant]) -> Role:
    privileges = (role.privileges or frozenset()).union(*(g.privileges for g in active))
    return replace(role, privileges=privileges)


def _held(grant: Grant, live: LiveState, at_now: DesiredState) -> bool:
    """The role still holds live a temporary privilege the desired state at the
    evaluation time does not give it."""
    name = grant.address.partition("/")[2]
    live_role, declared = live.roles.get(name), at_now.roles.get(name)
    kept = (declared.privileges if declared else None) or frozenset()
    return live_role is not None and bool(
        (grant.privileges - kept) & (live_role.privileges or frozenset())
    )


GRANTS = Grants(apply=_applied, held=_held)
