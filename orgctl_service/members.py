"""Members: listings, one member, their items; updateUserLevel (docs/rules.md §4.1, §3) and the
updateuserrole extension write.
"""

from __future__ import annotations

from typing import Any

from orgctl_service.accounts import default_admins
from orgctl_service.auth import is_admin
from orgctl_service.context import Ctx
from orgctl_service.errors import ApiError, bad_request, forbidden
from orgctl_service.params import page
from orgctl_service.portal import member_detail, member_view, user_object
from orgctl_service.rules import check_portal_id
from orgctl_service.world import Doc
from reconciler.catalog import BUILTIN_ROLES, LEVELS


def list_members(ctx: Ctx) -> dict[str, Any]:
    """`role` keeps the members of one role: a built-in name or a role id."""
    check_portal_id(ctx)
    role = (ctx.params.text("role") or "").strip()
    users = ctx.portal["users"]
    names = ctx.world.sorted_usernames(ctx.portal)
    if role:  # a role's members: one pass over the members, only when asked
        names = [name for name in names if users[name]["role"] == role]
    return page(ctx.params, names, "users", lambda name: member_view(users[name], ctx.portal))


SEARCH_FIELDS = {"username": "username", "fullname": "fullName", "role": "role"}


def search_users(ctx: Ctx) -> dict[str, Any]:
    """`community/users?q=`: members matching every term of `q`. A term is `field:value`
    (username, fullname, role, accountid/orgid) or a word found in the username or full
    name; `*` is a wildcard, AND/OR are read as AND. Results come under `results`."""
    terms = [t for t in (ctx.params.text("q") or "").split() if t.upper() not in ("AND", "OR")]
    for term in terms:
        field, _, value = term.partition(":")
        if value and field.lower() in ("accountid", "orgid") and value != ctx.portal["id"]:
            return page(ctx.params, [], "results")
    users = [u for u in ctx.portal["users"].values() if all(_matches(u, t) for t in terms)]
    reverse = (ctx.params.text("sortOrder") or "asc").lower() == "desc"
    key = SEARCH_FIELDS.get((ctx.params.text("sortField") or "username").lower(), "username")
    users.sort(key=lambda u: str(u[key]).lower(), reverse=reverse)
    return page(ctx.params, users, "results", lambda u: user_object(u, ctx.portal))


def _matches(user: Doc, term: str) -> bool:
    field, _, value = term.partition(":")
    if not value:
        field, value = "", term
    if field.lower() in ("accountid", "orgid"):
        return True
    wanted = value.strip('"').lower().replace("*", "")
    if field:
        column = SEARCH_FIELDS.get(field.lower())
        return column is not None and wanted in str(user[column]).lower()
    return wanted in user["username"].lower() or wanted in user["fullName"].lower()


def one_member(ctx: Ctx) -> dict[str, Any]:
    username = ctx.args["username"]
    user = ctx.member(username)
    return member_detail(user, ctx.portal)


def member_items(ctx: Ctx) -> dict[str, Any]:
    username = ctx.args["username"]
    user = ctx.member(username)
    items = [
        {"id": f"{username}-item-{n + 1}", "owner": username, "title": f"Item {n + 1}"}
        for n in range(int(user["ownedItems"]))
    ]
    return {"username": username, **page(ctx.params, items, "items")}


def update_user_level(ctx: Ctx) -> dict[str, Any]:
    username = ctx.params.text("user") or ctx.params.text("userName")
    if not username or not username.strip():
        raise bad_request("'user' is required")
    level = ctx.params.integer("level", required=True)
    if level not in LEVELS:
        raise bad_request(f"'level' must be 1 or 2, got {level}")
    user = ctx.member(username)
    if int(user["level"]) != level:
        level_problem(ctx.portal, user, level)
        user["level"] = level
        ctx.touch_member(username)
    return {"success": True}


def level_problem(portal: Doc, user: Doc, level: int) -> None:
    """docs/rules.md §3 conditions, in order: custom role, quota, owned content, app licenses."""
    if level == 1 and user["role"] not in portal["roles"]:
        raise ApiError(
            400,
            "ORG_1085",
            f"Unable to change level of '{user['username']}': level 1 is only for members"
            " with a custom role.",
        )
    quota = portal["levelQuotas"].get(str(level))
    at_level = sum(1 for u in portal["users"].values() if int(u["level"]) == level)
    if quota is not None and at_level >= int(quota):
        raise ApiError(
            400,
            "ORG_1086",
            f"Unable to change level of '{user['username']}': the organization's quota of"
            f" {quota} level {level} members is reached.",
        )
    if level == 1 and (int(user["ownedItems"]) > 0 or int(user["ownedGroups"]) > 0):
        raise ApiError(
            400,
            "ORG_1084",
            f"Unable to change level of '{user['username']}': the member must not own items"
            " or groups. Reassign them first.",
            [f"items: {user['ownedItems']}", f"groups: {user['ownedGroups']}"],
        )
    blocked = sorted(set(user["appLicenses"]) & set(portal["disallowedApps"].get(str(level), [])))
    if blocked:
        raise ApiError(
            400,
            "ORG_1087",
            f"Unable to change level of '{user['username']}': the member holds licenses for"
            f" premium apps not allowed at level {level}: {', '.join(blocked)}.",
            blocked,
        )


def update_user_role(ctx: Ctx) -> dict[str, Any]:
    caller = ctx.user
    username = ctx.params.text("user", required=True) or ""
    role = (ctx.params.text("role", required=True) or "").strip()
    user = ctx.member(username)
    if role not in BUILTIN_ROLES and role not in ctx.portal["roles"]:
        raise bad_request(f"Role '{role}' does not exist in this organization")
    if "org_admin" in (role, user["role"]) and role != user["role"] and not is_admin(caller):
        raise forbidden("Only the administrator role may promote to or demote from administrator")
    if role != user["role"] and [user] == default_admins(ctx.portal):
        raise ApiError(
            400,
            "ORG_1090",
            f"'{username}' is the organization's last default administrator (org_admin):"
            " assign the role to another member first",
        )
    if int(user["level"]) == 1 and role in BUILTIN_ROLES:
        raise ApiError(
            400,
            "ORG_1090",
            f"'{username}' is a level 1 member: only a custom role may be assigned; raise the"
            " member to level 2 first.",
        )
    if user["role"] != role:
        user["role"] = role
        ctx.touch_member(username)
    return {"success": True, "username": username}
