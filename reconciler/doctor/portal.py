"""A live portal examined, by its manifests or by its URL alone."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from reconciler.doctor.checks import examine
from reconciler.doctor.findings import Check, Report, Severity
from reconciler.doctor.recording import Observations, RecordingClient
from reconciler.errors import UserError
from reconciler.live.origins import UrlSources
from reconciler.state import Auth, DesiredState
from reconciler.workflow import Notice, fleet_notice, say_on_stderr, url_origins


@dataclass(frozen=True, slots=True)
class Examined:
    report: Report
    observations: Observations | None  # None: no read was made


async def examine_portal(
    desired: DesiredState,
    environ: Mapping[str, str],
    *,
    in_fleet: bool = False,
    notice: Notice | None = say_on_stderr,
) -> Examined:
    """The portal of a manifest set, with the credentials its Portal names, read as plan
    reads it. `environ`: the ORGCTL_* values (the command line's settings, or an API
    connection's)."""
    portal = desired.portal
    told = fleet_notice(portal.name, notice) if in_fleet else notice

    def client() -> RecordingClient:
        return RecordingClient(
            portal.url,
            auth=portal.auth,
            admin_root=portal.adminUrl,
            env=environ,
            portal=portal.name,
            retry_notice=told,
            sources=url_origins(desired, environ),
        )

    return await _examined(Report(portal.name, portal.url), desired, client)


async def examine_url(
    url: str,
    admin_url: str | None,
    auth: Auth,
    environ: Mapping[str, str],
    *,
    notice: Notice | None = say_on_stderr,
) -> Examined:
    """A portal named by its URL alone, read whole, as export reads it."""

    def client() -> RecordingClient:
        sources = UrlSources("--portal-url", "--admin-url")
        return RecordingClient(
            url, auth=auth, admin_root=admin_url, env=environ, retry_notice=notice, sources=sources
        )

    return await _examined(Report(url, url), None, client)


async def _examined(
    report: Report, desired: DesiredState | None, connect: Callable[[], RecordingClient]
) -> Examined:
    try:
        client = connect()
    except UserError as refused:  # credentials not set, a URL orgctl will not send to
        report.add(
            Check.SIGN_IN,
            Severity.BLOCKER,
            str(refused),
            "set the variables the Portal's spec.auth names (or ORGCTL_TOKEN, or"
            " ORGCTL_USERNAME and ORGCTL_PASSWORD)",
        )
        return Examined(report, None)
    async with client:
        await examine(client, desired, report)
    return Examined(report, client.observations)
