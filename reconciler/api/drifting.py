"""Drift: every difference between the portal and the manifests, as `orgctl drift`."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from reconciler.access.document import AccessQuery, PortalNames
from reconciler.access.findings import POLICY, policy_finding
from reconciler.api.session import Connection, Manifests, client_for
from reconciler.plan.model import Plan, PolicyVerdict
from reconciler.runtime import run
from reconciler.state import DesiredState, LiveState
from reconciler.workflow import Planned, PlanOptions, plan_live

Json = dict[str, Any]


@dataclass(frozen=True, slots=True)
class DriftReport:
    """Every difference between the portal and the manifests (`orgctl drift`)."""

    plan: Plan  # every difference, its `policies` judged on the live state
    live: LiveState
    findings: list[Json]  # access findings of the kinds `fail_on` names
    policies: list[Json]  # the policies' violations on the live state, as findings

    @property
    def drifted(self) -> bool:
        return bool(self.plan.changes or self.findings)


async def drift(
    manifests: Manifests, connection: Connection, *, fail_on: Collection[str] = ()
) -> DriftReport:
    """Every difference, the delete threshold aside (it guards applies, not reports),
    whoever may send the calls (drift may run read-only); with `fail_on`, the access
    findings of those kinds (reconciler.access.FINDING_KINDS), from the same read."""
    from reconciler.access.live_report import failing, live_access

    desired = manifests.desired
    options = PlanOptions(
        allow_deletes=True, check_caller=False, live_admin=True, judge_policies=False
    )
    async with client_for(desired, connection) as client:
        planned = await plan_live(client, desired, options)
        now = client.server_clock or datetime.now(UTC).timestamp()
        root = client.root
    planned = with_live_policies(planned, desired, now)
    if not fail_on:
        return DriftReport(planned.plan, planned.live, [], policy_findings(planned.plan.policies))
    names = PortalNames(desired.portal.name, root, manifests.path.as_posix())
    document = live_access(planned.live, desired, names, AccessQuery(), now)
    policies = [f for f in document["findings"] if f["kind"] == POLICY]
    return DriftReport(planned.plan, planned.live, failing(document, fail_on), policies)


def drift_sync(
    manifests: Manifests, connection: Connection, *, fail_on: Collection[str] = ()
) -> DriftReport:
    return run(drift(manifests, connection, fail_on=fail_on))


def with_live_policies(planned: Planned, desired: DesiredState, now: float) -> Planned:
    """The plan with the policies' violations on the live state (each `existing`, no
    cause) as its `policies`; unchanged without a policy. Drift judges policies so, for
    one portal and for each portal of a fleet."""
    if not desired.kinds.get("Policy"):
        return planned
    from reconciler.kinds.policy import live_verdicts

    verdicts = live_verdicts(desired, planned.live, datetime.fromtimestamp(now, UTC))
    return Planned(planned.live, replace(planned.plan, policies=tuple(verdicts)))


def policy_findings(verdicts: tuple[PolicyVerdict, ...] | None) -> list[Json]:
    """Each violation as the access review's finding of kind `policy`."""
    return [
        {
            "kind": POLICY,
            "subject": v.subject,
            "message": policy_finding(v.policy, v.enforcement, v.subject, v.message).message,
        }
        for v in verdicts or ()
    ]
