"""The reads clients make at start-up beyond orgctl's own: `community/self` (who the
token names; ArcGIS REST JS reads it to finish every sign-in) and the organization's
user search (`portals/<pid>/users/search`, REST JS's `searchUsers`)."""

from __future__ import annotations

from typing import Any

from orgctl_service.context import Ctx
from orgctl_service.members import search_users
from orgctl_service.portal import member_detail
from orgctl_service.rules import check_portal_id


def community_self(ctx: Ctx) -> dict[str, Any]:
    """The member the token names, as `community/users/<u>` shows it to that member."""
    return member_detail(ctx.user, ctx.portal)


def org_user_search(ctx: Ctx) -> dict[str, Any]:
    """The organization's members matching `q` (the syntax of `community/users`), with
    the query echoed as real portals answer it. The documentation's sample spells the
    path `portal/<pid>/users/search`; clients send `portals/`; both are served."""
    check_portal_id(ctx)
    return {"query": ctx.params.text("q") or "", **search_users(ctx)}
