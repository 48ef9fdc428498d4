"""The access review: who holds which privileges, as `orgctl access`."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from reconciler.access.document import AccessQuery, PortalNames
from reconciler.api.session import Connection, Manifests, client_for
from reconciler.live.reader import read_people
from reconciler.runtime import run

Json = dict[str, Any]


@dataclass(frozen=True, slots=True)
class AccessReport:
    """Who holds which privileges (`orgctl access`): the document every format renders
    (README: the access report's JSON), and what could not be read into it."""

    document: Json
    left_out: tuple[str, ...]  # each names its resource and why

    def failing(self, kinds: Collection[str]) -> list[Json]:
        """The findings of these kinds (for a gate such as `--fail-on`)."""
        from reconciler.api.live_report import failing

        return failing(self.document, kinds)


async def access(
    manifests: Manifests, connection: Connection, *, query: AccessQuery | None = None
) -> AccessReport:
    """The access report of the portal, read live on the portal's own clock (or at
    `query.at`, a preview); reads
    only the portal, its roles and its members, and changes nothing."""
    from reconciler.api.live_report import live_access, portal_time

    desired, query = manifests.desired, query or AccessQuery()
    async with client_for(desired, connection) as client:
        live = await read_people(client)
        now = portal_time(client.server_clock, query)
        root = client.root
    names = PortalNames(desired.portal.name, root, manifests.path.as_posix())
    document = live_access(live, desired, names, query, now)
    return AccessReport(document, tuple(why for _, why in sorted(live.unreadable.items())))


def access_sync(
    manifests: Manifests, connection: Connection, *, query: AccessQuery | None = None
) -> AccessReport:
    return run(access(manifests, connection, query=query))
