"""What reads a portal and changes nothing: drift, access, export, doctor."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from os import PathLike
from pathlib import Path
from typing import Any

from reconciler.access.document import AccessQuery, PortalNames
from reconciler.api.session import Connection, Manifests, client_for
from reconciler.doctor import Examined, examine_portal, examine_url
from reconciler.export import Exported, export_manifests
from reconciler.live.client import PortalClient
from reconciler.live.credentials import plain_auth
from reconciler.live.origins import UrlSources
from reconciler.live.reader import read_people
from reconciler.plan.model import Plan
from reconciler.runtime import run
from reconciler.state import DesiredState, LiveState
from reconciler.workflow import Planned, PlanOptions, plan_live

# --- drift and access ----------------------------------------------------------------------

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
    planned = _with_policies(planned, desired, now)
    if not fail_on:
        return DriftReport(planned.plan, planned.live, [], _policy_findings(planned.plan))
    names = PortalNames(desired.portal.name, root, manifests.path.as_posix())
    document = live_access(planned.live, desired, names, AccessQuery(), now)
    policies = [f for f in document["findings"] if f["kind"] == "policy"]
    return DriftReport(planned.plan, planned.live, failing(document, fail_on), policies)


def drift_sync(
    manifests: Manifests, connection: Connection, *, fail_on: Collection[str] = ()
) -> DriftReport:
    return run(drift(manifests, connection, fail_on=fail_on))


def _with_policies(planned: Planned, desired: DesiredState, now: float) -> Planned:
    """The plan with the policies' violations on the live state (each `existing`, no
    cause) as its `policies`; unchanged without a policy."""
    if not desired.kinds.get("Policy"):
        return planned
    from reconciler.kinds.policy import live_verdicts

    verdicts = live_verdicts(desired, planned.live, datetime.fromtimestamp(now, UTC))
    return Planned(planned.live, replace(planned.plan, policies=tuple(verdicts)))


def _policy_findings(plan: Plan) -> list[Json]:
    from reconciler.access.findings import POLICY, policy_finding

    return [
        {
            "kind": POLICY,
            "subject": v.subject,
            "message": policy_finding(v.policy, v.enforcement, v.subject, v.message).message,
        }
        for v in plan.policies or ()
    ]


@dataclass(frozen=True, slots=True)
class AccessReport:
    """Who holds which privileges (`orgctl access`): the document every format renders
    (README: the access report's JSON), and what could not be read into it."""

    document: Json
    left_out: tuple[str, ...]  # each names its resource and why

    def failing(self, kinds: Collection[str]) -> list[Json]:
        """The findings of these kinds (for a gate such as `--fail-on`)."""
        return [f for f in self.document["findings"] if f["kind"] in kinds]


async def access(
    manifests: Manifests, connection: Connection, *, query: AccessQuery | None = None
) -> AccessReport:
    """The access report of the portal, read live on the portal's own clock; reads
    only the portal, its roles and its members, and changes nothing."""
    from reconciler.access.live_report import live_access

    desired = manifests.desired
    async with client_for(desired, connection) as client:
        live = await read_people(client)
        now = client.server_clock or datetime.now(UTC).timestamp()
        root = client.root
    names = PortalNames(desired.portal.name, root, manifests.path.as_posix())
    document = live_access(live, desired, names, query or AccessQuery(), now)
    return AccessReport(document, tuple(why for _, why in sorted(live.unreadable.items())))


def access_sync(
    manifests: Manifests, connection: Connection, *, query: AccessQuery | None = None
) -> AccessReport:
    return run(access(manifests, connection, query=query))


# --- export and doctor ---------------------------------------------------------------------


async def export(
    portal_url: str,
    connection: Connection,
    *,
    admin_url: str | None = None,
    name: str | None = None,
    out: str | PathLike[str] | None = None,
) -> Exported:
    """Manifests that describe the live portal at `portal_url` (`orgctl export`), file
    by file, unwritten: `Exported.write(folder)` writes them. Their Portal document names
    the variables of the connection's credentials, never their values; `out`, the folder
    meant, gives each file the editor's line to the schema above it."""
    from reconciler.live import Scope, read_live

    auth = plain_auth(connection.variables)
    client = PortalClient(
        portal_url,
        auth=auth,
        admin_root=admin_url,
        env=connection.variables,
        retry_notice=connection.notice,
        sources=UrlSources("--portal-url", "--admin-url"),
    )
    async with client:
        live = await read_live(client, None, Scope.EVERYTHING)
        clock = client.server_clock
    moment = datetime.fromtimestamp(clock, UTC) if clock is not None else datetime.now(UTC)
    return export_manifests(
        live,
        portal_url=portal_url,
        admin_url=admin_url,
        auth=auth,
        name=name,
        exported_at=moment,
        out=Path(out) if out is not None else None,
    )


def export_sync(
    portal_url: str,
    connection: Connection,
    *,
    admin_url: str | None = None,
    name: str | None = None,
    out: str | PathLike[str] | None = None,
) -> Exported:
    return run(export(portal_url, connection, admin_url=admin_url, name=name, out=out))


async def doctor(manifests: Manifests, connection: Connection) -> Examined:
    """The live portal checked against orgctl's model of it, reading only (`orgctl
    doctor`): `report.exit_code` is 0 when orgctl can manage it as it is, 2 with the
    differences named, 1 when it cannot; a failure to sign in is a finding, not raised."""
    return await examine_portal(
        manifests.desired, env=connection.variables, notice=connection.notice
    )


def doctor_sync(manifests: Manifests, connection: Connection) -> Examined:
    return run(doctor(manifests, connection))


async def doctor_url(
    portal_url: str, connection: Connection, *, admin_url: str | None = None
) -> Examined:
    """`doctor` of a portal named by its URL alone, without manifests."""
    auth = plain_auth(connection.variables)
    return await examine_url(
        portal_url, admin_url, auth, env=connection.variables, notice=connection.notice
    )


def doctor_url_sync(
    portal_url: str, connection: Connection, *, admin_url: str | None = None
) -> Examined:
    return run(doctor_url(portal_url, connection, admin_url=admin_url))
