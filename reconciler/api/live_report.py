"""The access report of a live state already read: what `orgctl access` prints, and what
`orgctl drift --fail-on` gates on, from the one read each makes."""

from __future__ import annotations

import time
from collections.abc import Collection, Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

from reconciler.access.document import AccessQuery, PortalNames, access_document
from reconciler.access.findings import Finding, policy_finding
from reconciler.access.grants import grant_findings
from reconciler.clock import evaluation_time
from reconciler.plan.model import PolicyVerdict
from reconciler.state import DesiredState, LiveState

Json = dict[str, Any]


def live_access(
    live: LiveState,
    desired: DesiredState,
    names: PortalNames,
    query: AccessQuery,
    now: float,
    verdicts: Sequence[PolicyVerdict] | None = None,
) -> Json:
    """The access report of a live state already read (by access, or by drift for
    --fail-on), at `now` (Unix seconds, the portal's clock: sign-ins are its own). Grants
    are judged at the evaluation time, which this machine's clock may put later.
    `verdicts`: the policies' verdicts on this live state when already judged (drift
    judges them for its own report), else they are judged here, at `now`."""
    if verdicts is None:
        from reconciler.kinds.policy import live_verdicts

        verdicts = live_verdicts(desired, live, datetime.fromtimestamp(now, UTC))
    extra = sorted(desired.portal.extraPrivileges)
    found = policy_findings(verdicts)
    judged = evaluation_time(now, query.at)
    found += grant_findings(desired, live, judged, query.expiring_within)
    return access_document(live, names, query, int(now * 1000), extra, found)


def portal_time(server_clock: float | None, query: AccessQuery) -> float:
    """The time sign-ins are judged at: the portal's clock, or a preview's."""
    if query.at is not None:
        return query.at.timestamp()
    return server_clock or time.time()


def policy_findings(verdicts: Iterable[PolicyVerdict]) -> list[Finding]:
    """Each policy's violation as the access review's finding of kind `policy`."""
    return [policy_finding(v.policy, v.enforcement, v.subject, v.message) for v in verdicts]


def failing(document: Json, fail_on: Collection[str]) -> list[Json]:
    """The report's findings of a kind --fail-on names."""
    return [f for f in document["findings"] if f["kind"] in fail_on]
