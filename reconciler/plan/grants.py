"""What a plan says of time-bound grants (README: Temporary access): when it was judged,
the grants in force it depends on, those ending soon, and each change that revokes an
expired grant the portal still holds (an overdue revocation, drift's riskiest finding)."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace

from reconciler.clock import rfc3339
from reconciler.kind import owner
from reconciler.manifest.grants import expired, granted, in_force, resolved
from reconciler.plan.model import Change, GrantNote, Plan
from reconciler.state import DesiredState, Grant, LiveState

EXPIRING_WITHIN = dt.timedelta(days=7)


def note(grant: Grant) -> GrantNote:
    return GrantNote(grant.address, granted(grant), rfc3339(grant.until), grant.reason)


def with_grants(
    plan: Plan,
    desired: DesiredState,
    live: LiveState,
    now: dt.datetime,
    *,
    preview: bool = False,
    within: dt.timedelta = EXPIRING_WITHIN,
) -> Plan:
    """`plan` judged at `now` (`desired` as declared, with its grants): unchanged when the
    manifests hold no grant and it is no preview, so such a plan stays byte-identical."""
    if not desired.grants and not preview:
        return plan
    active = in_force(desired, now)
    overdue = overdue_grants(desired, live, now)
    return replace(
        plan,
        changes=tuple(_marked(change, overdue) for change in plan.changes),
        evaluationTime=rfc3339(now),
        preview=preview,
        grantDeadlines=tuple(note(g) for g in active),
        expiringGrants=tuple(note(g) for g in active if g.until - now <= within),
    )


def _marked(change: Change, overdue: dict[str, Grant]) -> Change:
    grant = overdue.get(change.address)
    return change if grant is None else replace(change, overdue=note(grant))


def overdue_grants(desired: DesiredState, live: LiveState, now: dt.datetime) -> dict[str, Grant]:
    """By address, an expired grant whose access the live portal still gives and the
    desired state at `now` does not (as its kind tells: a member still holding the
    granted role or level, a role still the temporary privileges)."""
    at_now = resolved(desired, now)
    found: dict[str, Grant] = {}
    for grant in expired(desired, now):
        if grant.address not in found and _still_held(grant, live, at_now):
            found[grant.address] = grant
    return found


def _still_held(grant: Grant, live: LiveState, at_now: DesiredState) -> bool:
    """Whether the live portal still gives an expired grant's access that `at_now`, the
    desired state at the evaluation time, does not: the kind owning its address says."""
    owned = owner(grant.address.partition("/")[0])
    part = owned[0].grants if owned is not None else None
    return part is not None and part.held(grant, live, at_now)
