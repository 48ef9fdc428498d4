"""Checks shared by every resource group: the portal id in a path."""

from __future__ import annotations

from orgctl_service.context import Ctx
from orgctl_service.errors import not_found


def check_portal_id(ctx: Ctx) -> None:
    """`<portal_id>` in a path must be this portal's id or the literal `self`."""
    given = ctx.args.get("portalId")
    if given is not None and given not in ("self", ctx.portal["id"]):
        raise not_found(f"Portal '{given}' not found on this server")
