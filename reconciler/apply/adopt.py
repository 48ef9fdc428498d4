"""After a non-idempotent call got no reply: did it take effect? Ask the portal.

The operations table says where to look (`Adoption`): createRole's role is found in the
roles listing by the name the call sent.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from reconciler.errors import UserError
from reconciler.live.client import PortalClient
from reconciler.live.paging import as_is
from reconciler.operations import READS, checked_segment
from reconciler.plan.model import Call

# (the call, the fields it sent) -> what it would have produced, if the portal has it
Lookup = Callable[[Call, dict[str, str]], Awaitable[str | None]]


def created_lookup(client: PortalClient) -> Lookup:
    """The default lookup: page through the listing the operation's adoption names."""

    async def find(call: Call, params: dict[str, str]) -> str | None:
        adoption = call.spec.adoption
        if adoption is None or call.produces is None:
            raise UserError(f"{call.address}: {call.operation} cannot be looked up after the fact")
        listing = READS[adoption.listing]
        portal_id = call.arguments.get("portalId")
        path = listing.build(portalId=portal_id if isinstance(portal_id, str) else "self")
        wanted = params.get(adoption.param)
        url = f"{call.root.rstrip('/')}/{path}"
        entries = await client.get_pages(url, listing.entries or "", convert=as_is)
        for entry in entries:
            if entry.get(adoption.field) == wanted and entry.get(call.produces):
                # Later calls put it in their paths: it must be an id a portal issues.
                what = f"the {call.produces} of the {call.address} the portal lists"
                return checked_segment(entry[call.produces], what)
        return None

    return find
