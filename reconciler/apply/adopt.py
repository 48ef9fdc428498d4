"""After an unanswered createRole: did the role get created? Ask the portal by name."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from reconciler.errors import UserError
from reconciler.live.client import PortalClient
from reconciler.plan.model import Call

# (the createRole call, the role name) -> the role's id if the portal has it
RoleLookup = Callable[[Call, str], Awaitable[str | None]]


def role_lookup(client: PortalClient) -> RoleLookup:
    """The default lookup: page through `portals/<pid>/roles` beside the createRole URL."""

    async def find(call: Call, name: str) -> str | None:
        base, found, _ = call.url.rpartition("/createRole")
        if not found:
            raise UserError(f"{call.address}: cannot tell the roles listing from {call.url}")
        for role in await client.get_pages(f"{base}/roles", "roles"):
            if role.get("name") == name and role.get("id"):
                return str(role["id"])
        return None

    return find
