"""The access review's findings on time-bound grants (README: Temporary access): each
expired grant the portal still gives (grant-overdue) and each grant in force that ends
within the window (grant-expiring)."""

from __future__ import annotations

import datetime as dt

from reconciler.access.findings import GRANT_EXPIRING, GRANT_OVERDUE, Finding
from reconciler.address_forms import MEMBER
from reconciler.manifest.grants import in_force
from reconciler.plan.grants import EXPIRING_WITHIN, note, overdue_grants
from reconciler.state import DesiredState, Grant, LiveState


def grant_findings(
    desired: DesiredState,
    live: LiveState,
    now: dt.datetime,
    within: dt.timedelta = EXPIRING_WITHIN,
) -> list[Finding]:
    overdue = overdue_grants(desired, live, now)
    found = [_finding(GRANT_OVERDUE, g, "expired at") for g in overdue.values()]
    soon = [g for g in in_force(desired, now) if g.until - now <= within]
    return found + [_finding(GRANT_EXPIRING, g, "ends at") for g in soon]


def _finding(kind: str, grant: Grant, when: str) -> Finding:
    shown = note(grant)
    head, _, name = grant.address.partition("/")
    still = "; the portal still gives it" if kind == GRANT_OVERDUE else ""
    return Finding(
        kind,
        grant.address,
        f"{grant.address}: the grant of {shown.grants} {when} {shown.until}"
        f" ({grant.reason}){still}",
        name if head == MEMBER.head else None,
        None if head == MEMBER.head else name,
        tuple(sorted(grant.privileges)),
    )
