"""The doctor: a live portal checked against orgctl's model of it, as `orgctl doctor`."""

from __future__ import annotations

from reconciler.api.session import Connection, Manifests
from reconciler.doctor import Examined, examine_portal, examine_url
from reconciler.live.credentials import plain_auth
from reconciler.runtime import run


async def doctor(manifests: Manifests, connection: Connection) -> Examined:
    """The live portal checked against orgctl's model of it, reading only (`orgctl
    doctor`): `report.exit_code` is 0 when orgctl can manage it as it is, 2 with the
    differences named, 1 when it cannot; a failure to sign in is a finding, not raised."""
    return await examine_portal(manifests.desired, connection.variables, notice=connection.notice)


def doctor_sync(manifests: Manifests, connection: Connection) -> Examined:
    return run(doctor(manifests, connection))


async def doctor_url(
    portal_url: str, connection: Connection, *, admin_url: str | None = None
) -> Examined:
    """`doctor` of a portal named by its URL alone, without manifests."""
    auth = plain_auth(connection.variables)
    return await examine_url(
        portal_url, admin_url, auth, connection.variables, notice=connection.notice
    )


def doctor_url_sync(
    portal_url: str, connection: Connection, *, admin_url: str | None = None
) -> Examined:
    return run(doctor_url(portal_url, connection, admin_url=admin_url))
