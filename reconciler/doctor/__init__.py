"""`orgctl doctor`: check a live portal against orgctl's model of it, reading only.

`examine_portal` checks the portal of a manifest set, `examine_url` a portal named by
its URL alone; each gives a `Report` (its exit code: 0 orgctl can manage the portal as
is, 2 with differences named, 1 it cannot) and what the readers took from the answers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from reconciler.doctor.checks import examine
from reconciler.doctor.findings import Check, Report, Severity
from reconciler.doctor.recording import Observations, RecordingClient
from reconciler.errors import UserError
from reconciler.live.origins import UrlSources
from reconciler.state import Auth, DesiredState
from reconciler.workflow import say_on_stderr, url_origins

__all__ = ["Examined", "Report", "examine_portal", "examine_url"]


@dataclass(frozen=True, slots=True)
class Examined:
    report: Report
    observations: Observations | None  # None: no read was made


async def examine_portal(
    desired: DesiredState, environ: Mapping[str, str], *, in_fleet: bool = False
) -> Examined:
    """The portal of a manifest set, with the credentials its Portal names, read as plan
    reads it."""
    portal = desired.portal
    name = portal.name
    notice = (lambda line: say_on_stderr(f"{name}: {line}")) if in_fleet else say_on_stderr

    def client() -> RecordingClient:
        return RecordingClient(
            portal.url,
            auth=portal.auth,
            admin_root=portal.adminUrl,
            env=environ,
            portal=name,
            retry_notice=notice,
            sources=url_origins(desired, environ),
        )

    return await _examined(Report(name, portal.url), desired, client)


async def examine_url(
    url: str, admin_url: str | None, auth: Auth, environ: Mapping[str, str]
) -> Examined:
    """A portal named by its URL alone, read whole, as export reads it."""

    def client() -> RecordingClient:
        sources = UrlSources("--portal-url", "--admin-url")
        return RecordingClient(
            url,
            auth=auth,
            admin_root=admin_url,
            env=environ,
            retry_notice=say_on_stderr,
            sources=sources,
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
