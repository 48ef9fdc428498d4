"""Members' items as the Sharing API shows them: the listing under `content/users/<u>`
and one item at `content/items/<id>`.

The service keeps only how many items a member owns (`ownedItems`, which bars level 1);
item `n` of member `u` has the id `u-item-n`, so an id names its owner and number.
"""

from __future__ import annotations

from typing import Any

from orgctl_service.auth import holds, is_admin
from orgctl_service.context import Ctx
from orgctl_service.errors import ApiError, forbidden
from orgctl_service.world import Doc
from reconciler.operations import VIEW_ITEMS

_MARK = "-item-"


def item_id(username: str, number: int) -> str:
    return f"{username}{_MARK}{number}"


def item_view(user: Doc, portal: Doc, number: int) -> dict[str, Any]:
    """An item's properties as the vendor's item page lists them (those clients read)."""
    username = str(user["username"])
    return {
        "id": item_id(username, number),
        "owner": username,
        "orgId": portal["id"],
        "title": f"Item {number}",
        "type": "Web Map",
        "typeKeywords": ["ArcGIS Online", "Web Map"],
        "description": None,
        "snippet": None,
        "tags": [],
        "thumbnail": None,
        "access": "private",
        "size": 0,
        "numViews": 0,
        "ownerFolder": None,
        "created": user["created"],
        "modified": user["created"],
    }


def one_item(ctx: Ctx) -> dict[str, Any]:
    """`content/items/<id>`: the owner, an administrator and holders of viewItems see a
    member's (private) item; an id that names no item answers as a portal does."""
    owner, number = _owner_and_number(ctx, ctx.args["itemId"])
    if owner["username"] != ctx.user["username"] and not (
        is_admin(ctx.user) or holds(ctx.user, ctx.portal, VIEW_ITEMS)
    ):
        raise forbidden("You do not have permissions to access this item.")
    return item_view(owner, ctx.portal, number)


def _owner_and_number(ctx: Ctx, given: str) -> tuple[Doc, int]:
    username, mark, number = given.rpartition(_MARK)
    owner = ctx.portal["users"].get(username) if mark else None
    if owner is None or not number.isdigit() or not 1 <= int(number) <= int(owner["ownedItems"]):
        raise ApiError(400, "CONT_0001", "Item does not exist or is inaccessible.")
    return owner, int(number)
