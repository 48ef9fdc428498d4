"""Time-bound grants (README: Temporary access), whatever kind declares them: their
deadlines, and the one step that turns them into plain desired records at an evaluation
time.

A kind's grants (a Members entry's `grants`, a Role's `temporaryPrivileges`: their
fields and checks are the kinds') are kept beside the desired state
(`DesiredState.grants`, by address), whose records hold what each falls back to.
`resolved(desired, now)` is the desired state at `now`: each grant still in force
applied by the kind owning its address (its `Grants`), the expired ones gone. The
planner only ever sees its result.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Annotated, Protocol, TypeVar

from pydantic import WithJsonSchema

from reconciler.clock import moment
from reconciler.kind import Grants, owner
from reconciler.manifest.checks import deadline
from reconciler.manifest.problems import Problem
from reconciler.manifest.raw import KeyPath
from reconciler.state import DesiredState, Grant

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


class TimeBound(Protocol):
    """A grant as a manifest declares it: until when, and why."""

    @property
    def until(self) -> dt.datetime | dt.date | str: ...
    @property
    def reason(self) -> str: ...


# --- checks ----------------------------------------------------------------------------------


def deadline_problems(
    document: Document, where: KeyPath, declared: Iterable[TimeBound]
) -> Iterator[Problem]:
    """An `until` that is no time is an error; one already past, a warning: the grant no
    longer applies and Git should not pretend it does."""
    now = _now()
    for index, grant in enumerate(declared):
        yield from deadline(
            document,
            (*where, index, "until"),
            grant.until,
            now,
            f"the grant ({grant.reason}) expired on {{end}} and no longer applies: remove it",
        )


def _now() -> dt.datetime:
    # validate is offline: this machine's clock is the only one it has.
    return dt.datetime.now(dt.UTC)


# --- desired state ----------------------------------------------------------------------------


def deadline_of(grant: TimeBound) -> dt.datetime:
    """A declared grant's `until` as a time (validated: a required field, checked by the
    kinds' rules)."""
    until = moment(grant.until)
    assert until is not None
    return until


def resolved(desired: DesiredState, now: dt.datetime) -> DesiredState:
    """The desired state at `now`: each resource as its grants in force make it, applied
    by the kind owning its address. Without grants, `desired` itself."""
    if not desired.grants:
        return desired
    at_now = desired
    for grants, active in _in_force_by_kind(desired, now).items():
        at_now = grants.apply(at_now, active)
    declared = desired.declared and resolved(desired.declared, now)
    return replace(at_now, declared=declared)


def _in_force_by_kind(
    desired: DesiredState, now: dt.datetime
) -> dict[Grants, dict[str, list[Grant]]]:
    """The grants in force at `now`, by address, under the `Grants` of the kind owning
    the address (a kind declares grants only of its own addresses)."""
    parts: dict[str, Grants | None] = {}
    found: dict[Grants, dict[str, list[Grant]]] = {}
    for address, grants in desired.grants.items():
        active = [g for g in grants if now < g.until]
        if not active:
            continue
        head = address.partition("/")[0]
        if head not in parts:
            owned = owner(head)
            parts[head] = owned[0].grants if owned is not None else None
        part = parts[head]
        if part is not None:
            found.setdefault(part, {})[address] = active
    return found


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


R = TypeVar("R")


def granted_records(
    records: Mapping[str, R],
    active: Mapping[str, Sequence[Grant]],
    grant: Callable[[R, Sequence[Grant]], R],
) -> dict[str, R]:
    """`records` (a kind's, by the key its addresses carry) with the grants in force
    applied by `grant`; a grant at a key the kind does not declare changes nothing."""
    changed = dict(records)
    for address, grants in active.items():
        key = address.partition("/")[2]
        if key in changed:
            changed[key] = grant(changed[key], grants)
    return changed


def granted(grant: Grant) -> str:
    """What the grant gives: `role org_publisher`, `level 2`, `privileges a, b`."""
    parts = [f"role {grant.role}"] if grant.role is not None else []
    parts += [f"level {grant.level}"] if grant.level is not None else []
    parts += [f"privileges {', '.join(sorted(grant.privileges))}"] if grant.privileges else []
    return " and ".join(parts)
