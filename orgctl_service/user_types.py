"""User types (10.7 and later): the types a portal offers, a member's type, and the
administrator's change of it.

A user type stands where a member level stood before 10.7, and keeps its level: the
Viewer type is level 1, every other type level 2 (the vendor's license pages give each
type a `level`). A change of type is a change of level where the level differs, under
the same conditions as updateUserLevel (docs/rules.md §3): a custom role for level 1, the
level's quota, no owned content at level 1, no app licence the level bars.
"""

from __future__ import annotations

import json
from typing import Any

from orgctl_service.context import Ctx
from orgctl_service.errors import ApiError, bad_request
from orgctl_service.license_types import BY_ID, USER_TYPES, UserType, type_of
from orgctl_service.members import level_problem
from orgctl_service.params import page


def type_view(user_type: UserType) -> dict[str, Any]:
    return {
        "id": user_type.id,
        "name": user_type.name,
        "description": user_type.description,
        "level": user_type.level,
        "apps": [],
    }


def list_user_types(ctx: Ctx) -> dict[str, Any]:
    """`portals/self/userLicenseTypes`: the types with how many members hold each."""
    counts: dict[str, int] = {}
    for user in ctx.portal["users"].values():
        held = type_of(user).id
        counts[held] = counts.get(held, 0) + 1
    rows = [
        {**type_view(user_type), "assigned": counts.get(user_type.id, 0)}
        for user_type in USER_TYPES
    ]
    return page(ctx.params, rows, "userLicenseTypes")


def member_user_type(ctx: Ctx) -> dict[str, Any]:
    """`community/users/<u>/userLicenseType`: the member's type and its apps."""
    return type_view(type_of(ctx.member(ctx.args["username"])))


def update_user_license_type(ctx: Ctx) -> dict[str, Any]:
    """`users` (a JSON list or comma-separated names) and `userLicenseType`; answers a
    result per member, as the vendor's client reads it (`results[].status`). The whole
    call is refused when any member cannot take the type, so nothing changes halfway."""
    wanted = (ctx.params.text("userLicenseType", required=True) or "").strip()
    user_type = BY_ID.get(wanted.lower())
    if user_type is None:
        known = ", ".join(t.id for t in USER_TYPES)
        raise bad_request(f"Unknown user type '{wanted[:60]}': use one of {known}")
    users = [ctx.member(name) for name in _usernames(ctx.params.text("users", required=True))]
    for user in users:
        if int(user["level"]) != user_type.level:
            level_problem(ctx.portal, user, user_type.level)
    for user in users:
        user["level"] = user_type.level
        user["userLicenseTypeId"] = user_type.id
        ctx.touch_member(user["username"])
    return {"results": [{"username": u["username"], "status": True} for u in users]}


def _usernames(given: str | None) -> list[str]:
    text = (given or "").strip()
    try:
        parsed = json.loads(text) if text.startswith("[") else None
    except ValueError:
        raise bad_request("'users' is not a JSON list of usernames") from None
    names = parsed if parsed is not None else text.split(",")
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise bad_request("'users' must be a list of usernames")
    cleaned = [name.strip() for name in names if name.strip()]
    if not cleaned:
        raise ApiError(400, "GWM_0001", "'users' names no member")
    return cleaned
