"""The policies as `drift` reports them, of one portal or of each portal of a fleet:
judged on the live state alone (the after-values equal the before-values, nothing is
gained or lost), each violation a finding of kind `policy` that changes no exit code
unless `--fail-on policy` asks."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from reconciler.access.findings import POLICY, policy_finding
from reconciler.plan.model import PolicyVerdict
from reconciler.state import DesiredState
from reconciler.workflow import Planned


def with_live_policies(planned: Planned, desired: DesiredState, now: float) -> Planned:
    """The plan with the policies' violations on the live state (each `existing`, no
    cause) as its `policies`; unchanged without a policy."""
    if not desired.kinds.get("Policy"):
        return planned
    from reconciler.kinds.policy import live_verdicts

    verdicts = live_verdicts(desired, planned.live, datetime.fromtimestamp(now, UTC))
    return Planned(planned.live, replace(planned.plan, policies=tuple(verdicts)))


def policy_findings(verdicts: tuple[PolicyVerdict, ...] | None) -> list[dict[str, Any]]:
    """Each violation as the access review's finding of kind `policy`."""
    return [
        {
            "kind": POLICY,
            "subject": v.subject,
            "message": policy_finding(v.policy, v.enforcement, v.subject, v.message).message,
        }
        for v in verdicts or ()
    ]


def finding_line(finding: dict[str, Any], gating: bool, portal: str | None = None) -> str:
    """`Finding (policy, --fail-on) in hq: Member/gina: ...`: `gating` when --fail-on names
    its kind; `portal` in a fleet."""
    kind = f"{finding['kind']}, --fail-on" if gating else finding["kind"]
    where = f" in {portal}" if portal else ""
    return f"Finding ({kind}){where}: {finding['subject']}: {finding['message']}"
