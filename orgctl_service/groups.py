"""Group search (`community/groups?q=`), which the vendor's clients make when they look
a member's groups up. The service keeps only how many groups a member owns
(`ownedGroups`, which bars level 1); group `n` of member `u` has the id `u-group-n`.

`q` takes `field:value` terms (`id`, `owner`, `title`, `orgid`/`accountid`) and plain
words (found in the title), all of which must hold; `*` matches anything.
"""

from __future__ import annotations

from typing import Any

from orgctl_service.context import Ctx
from orgctl_service.params import page
from orgctl_service.world import Doc

_FIELDS = ("id", "owner", "title")


def group_view(user: Doc, portal: Doc, number: int) -> dict[str, Any]:
    username = str(user["username"])
    return {
        "id": f"{username}-group-{number}",
        "title": f"{user['fullName']} group {number}",
        "owner": username,
        "orgId": portal["id"],
        "access": "org",
        "isInvitationOnly": False,
        "isViewOnly": False,
        "description": None,
        "snippet": None,
        "tags": [],
        "thumbnail": None,
        "created": user["created"],
        "modified": user["created"],
    }


def search_groups(ctx: Ctx) -> dict[str, Any]:
    terms = [t for t in (ctx.params.text("q") or "").split() if t.upper() != "AND"]
    groups = [
        group_view(user, ctx.portal, n + 1)
        for name in ctx.world.sorted_usernames(ctx.portal)
        for user in [ctx.portal["users"][name]]
        for n in range(int(user["ownedGroups"]))
    ]
    found = [g for g in groups if all(_matches(g, term) for term in terms)]
    return {"query": ctx.params.text("q") or "", **page(ctx.params, found, "results")}


def _matches(group: dict[str, Any], term: str) -> bool:
    field, _, value = term.partition(":")
    if not value:
        field, value = "title", term
    wanted = value.strip('"').lower().replace("*", "")
    field = field.lower()
    if field in ("orgid", "accountid"):
        return wanted in ("", str(group["orgId"]).lower())
    if field not in _FIELDS:
        return False
    held = str(group[field]).lower()
    return wanted in held if field == "title" else (not wanted or held == wanted)
