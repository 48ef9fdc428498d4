"""Drift: every difference between the portal and the manifests, as `orgctl drift`."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from reconciler.access.document import AccessQuery, PortalNames
from reconciler.access.findings import POLICY
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
    manifests: Manifests,
    connection: Connection,
    *,
    fail_on: Collection[str] = (),
    query: AccessQuery | None = None,
) -> DriftReport:
    """Every difference, the delete threshold aside (it guards applies, not reports),
    whoever may send the calls (drift may run read-only); with `fail_on`, the access
    findings of those kinds (reconciler.access.FINDING_KINDS), from the same read.
    `query.at` judges at a preview's time, `query.expiring_within` names grants ending
    soon."""
    from reconciler.api.live_report import failing, live_access, portal_time

    desired, query = manifests.desired, query or AccessQuery()
    options = PlanOptions(
        allow_deletes=True,
        check_caller=False,
        live_admin=True,
        judge_policies=False,
        at=query.at,
        expiring_within=query.expiring_within,
    )
    async with client_for(desired, connection) as client:
        planned = await plan_live(client, desired, options)
        now = portal_time(client.server_clock, query)
        root = client.root
    # Policies see the evaluation time, as a plan's do.
    judged = planned.now.timestamp() if planned.now is not None else now
    planned = with_live_policies(planned, desired, judged)
    verdicts = planned.plan.policies or ()
    if not fail_on:
        return DriftReport(planned.plan, planned.live, [], finding_rows(verdicts))
    # The access review of the state just read, with the verdicts just judged: neither
    # the portal nor the policies a second time.
    names = PortalNames(desired.portal.name, root, manifests.path.as_posix())
    document = live_access(planned.live, desired, names, query, now, verdicts)
    policies = [f for f in document["findings"] if f["kind"] == POLICY]
    return DriftReport(planned.plan, planned.live, failing(document, fail_on), policies)


def drift_sync(
    manifests: Manifests,
    connection: Connection,
    *,
    fail_on: Collection[str] = (),
    query: AccessQuery | None = None,
) -> DriftReport:
    return run(drift(manifests, connection, fail_on=fail_on, query=query))


def with_live_policies(planned: Planned, desired: DesiredState, now: float) -> Planned:
    """The plan with the policies' violations on the live state (each `existing`, no
    cause) as its `policies`; unchanged without a policy. Drift judges policies so, for
    one portal and for each portal of a fleet."""
    from reconciler.kinds.policy import declared, live_verdicts

    if not declared(desired):
        return planned

    verdicts = live_verdicts(desired, planned.live, datetime.fromtimestamp(now, UTC))
    return Planned(planned.live, replace(planned.plan, policies=tuple(verdicts)))


def finding_rows(verdicts: Iterable[PolicyVerdict]) -> list[Json]:
    """Each violation as a row of the access review's findings (kind `policy`)."""
    from reconciler.api.live_report import policy_findings

    return [
        {"kind": f.kind, "subject": f.subject, "message": f.message}
        for f in policy_findings(verdicts)
    ]
