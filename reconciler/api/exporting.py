"""Export: manifests that describe a live portal, as `orgctl export`."""

from __future__ import annotations

from datetime import UTC, datetime
from os import PathLike
from pathlib import Path

from reconciler.api.session import Connection
from reconciler.export import Exported, export_manifests
from reconciler.live.client import PortalClient
from reconciler.live.credentials import plain_auth
from reconciler.live.origins import UrlSources
from reconciler.runtime import run


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
