"""The access report of a live state already read: what `orgctl access` prints, and what
`orgctl drift --fail-on` gates on, from the one read each makes."""

from __future__ import annotations

from collections.abc import Collection
from datetime import UTC, datetime
from typing import Any

from reconciler.access.document import AccessQuery, PortalNames, access_document
from reconciler.access.findings import Finding, policy_finding
from reconciler.state import DesiredState, LiveState

Json = dict[str, Any]


def live_access(
    live: LiveState, desired: DesiredState, names: PortalNames, query: AccessQuery, now: float
) -> Json:
    """The access report of a live state already read (by access, or by drift for
    --fail-on), at `now` (Unix seconds)."""
    extra = sorted(desired.portal.extraPrivileges)
    found = policy_findings(live, desired, now)
    return access_document(live, names, query, int(now * 1000), extra, found)


def policy_findings(live: LiveState, desired: DesiredState, now: float) -> list[Finding]:
    """The manifests' policies judged on the live state alone, as findings of kind
    `policy` (none without a policy: the CEL engine is then not loaded)."""
    if not desired.kinds.get("Policy"):
        return []
    from reconciler.kinds.policy import live_verdicts

    moment = datetime.fromtimestamp(now, UTC)
    return [
        policy_finding(v.policy, v.enforcement, v.subject, v.message)
        for v in live_verdicts(desired, live, moment)
    ]


def failing(document: Json, fail_on: Collection[str]) -> list[Json]:
    """The report's findings of a kind --fail-on names."""
    return [f for f in document["findings"] if f["kind"] in fail_on]
