"""The access report of a live state already read: what `orgctl access` prints, and what
`orgctl drift --fail-on` gates on, from the one read each makes."""

from __future__ import annotations

import time
from collections.abc import Collection
from datetime import UTC, datetime
from typing import Any

from reconciler.access.document import AccessQuery, PortalNames, access_document
from reconciler.access.findings import Finding, policy_finding
from reconciler.access.grants import grant_findings
from reconciler.clock import evaluation_time
from reconciler.state import DesiredState, LiveState

Json = dict[str, Any]


def live_access(
    live: LiveState, desired: DesiredState, names: PortalNames, query: AccessQuery, now: float
) -> Json:
    """The access report of a live state already read (by access, or by drift for
    --fail-on), at `now` (Unix seconds, the portal's clock: sign-ins are its own). Grants
    are judged at the evaluation time, which this machine's clock may put later."""
    extra = sorted(desired.portal.extraPrivileges)
    found = policy_findings(live, desired, now)
    judged = evaluation_time(now, query.at)
    found += grant_findings(desired, live, judged, query.expiring_within)
    return access_document(live, names, query, int(now * 1000), extra, found)


def portal_time(server_clock: float | None, query: AccessQuery) -> float:
    """The time sign-ins are judged at: the portal's clock, or a preview's."""
    if query.at is not None:
        return query.at.timestamp()
    return server_clock or time.time()


def policy_findings(live: LiveState, desired: DesiredState, now: float) -> list[Finding]:
    """The manifests' policies judged on the live state alone, as findings of kind
    `policy` (none without a policy: the CEL engine is then not loaded)."""
    from reconciler.kinds.policy import declared, live_verdicts

    if not declared(desired):
        return []

    moment = datetime.fromtimestamp(now, UTC)
    return [
        policy_finding(v.policy, v.enforcement, v.subject, v.message)
        for v in live_verdicts(desired, live, moment)
    ]


def failing(document: Json, fail_on: Collection[str]) -> list[Json]:
    """The report's findings of a kind --fail-on names."""
    return [f for f in document["findings"] if f["kind"] in fail_on]
