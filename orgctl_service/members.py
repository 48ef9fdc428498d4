"""Members: listings, one member, their items; updateUserLevel (docs/rules.md §4.1, §3) and the
updateuserrole extension write.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from orgctl_service import user_query
from orgctl_service.accounts import ACCESS_LEVELS, default_admins
from orgctl_service.auth import is_admin
from orgctl_service.content import item_view
from orgctl_service.context import Ctx
from orgctl_service.errors import ApiError, bad_request, forbidden, inaccessible_member
from orgctl_service.params import page
from orgctl_service.portal import member_detail, member_view, user_object
from orgctl_service.rules import check_portal_id
from orgctl_service.visibility import Sight, shown, sight
from orgctl_service.world import Doc
from reconciler.catalog import BUILTIN_ROLES, LEVELS
from reconciler.text_rules import text_problem


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
ORGANIZATION_FIELDS = ("accountid", "orgid")


def search_users(ctx: Ctx) -> dict[str, Any]:
    """`community/users?q=`: the members the caller may see (`visibility`) that match `q`
    (`user_query`: AND, OR, NOT, parentheses). A term is `field:value` (username,
    fullname, role, accountid/orgid) or a word found in the username or full name; `*` is
    a wildcard. A field the caller may not see matches nothing, so a search tells no
    more than a read would. Results come under `results`."""
    query = user_query.parse(ctx.params.text("q") or "")
    caller, portal = ctx.user, ctx.portal
    found: list[tuple[dict[str, str], Doc, Sight]] = []
    for user in portal["users"].values():
        seen = sight(caller, user, portal)
        if seen is Sight.NOTHING:
            continue
        fields = _searched(user, portal, seen)
        if query is None or query.test(partial(_matches, fields, portal["id"])):
            found.append((fields, user, seen))
    reverse = (ctx.params.text("sortOrder") or "asc").lower() == "desc"
    key = SEARCH_FIELDS.get((ctx.params.text("sortField") or "username").lower(), "username")
    found.sort(key=lambda entry: entry[0].get(key, "").lower(), reverse=reverse)
    # Whole user objects only for the page answered: a search may cover every member.
    return page(ctx.params, found, "results", lambda e: shown(user_object(e[1], portal), e[2]))


def _searched(user: Doc, portal: Doc, seen: Sight) -> dict[str, str]:
    """The fields a search matches and sorts on, as far as the caller sees them."""
    fields = {"username": str(user["username"]), "fullName": str(user["fullName"])}
    if seen is Sight.ACCOUNT:
        fields["role"] = str(member_view(user, portal)["role"])
    return fields


def _matches(fields: dict[str, str], portal_id: str, field: str, value: str) -> bool:
    if field in ORGANIZATION_FIELDS:
        return value == portal_id
    if field:
        column = SEARCH_FIELDS.get(field)
        return column is not None and column in fields and wildcard_match(value, fields[column])
    return wildcard_match(value, fields["username"]) or wildcard_match(value, fields["fullName"])


def wildcard_match(value: str, text: str) -> bool:
    """`*` stands for any run of characters and the value must then cover the whole
    text (`car*` is a prefix); a value without one is found anywhere in it. Matched
    part by part, leftmost first, so no pattern takes more than a pass per part."""
    wanted, text = value.lower(), text.lower()
    if "*" not in wanted:
        return wanted in text
    first, *middle, last = wanted.split("*")
    end = len(text) - len(last)
    if end < len(first) or not text.startswith(first) or not text.endswith(last):
        return False
    position = len(first)
    for part in middle:
        position = text.find(part, position, end)
        if position < 0:
            return False
        position += len(part)
    return True


def one_member(ctx: Ctx) -> dict[str, Any]:
    """The member as the caller may see it; one it may not see answers as an unknown one."""
    user = ctx.portal["users"].get(ctx.args["username"])
    seen = Sight.NOTHING if user is None else sight(ctx.user, user, ctx.portal)
    if user is None or seen is Sight.NOTHING:
        raise inaccessible_member()
    return shown(member_detail(user, ctx.portal), seen)


# The profile fields `community/users/<u>/update` writes (the vendor's Update User page;
# the vendor's Python client sends them all, each only when set), with the longest text
# the service keeps. Credentials, security questions and categories are not kept here.
PROFILE_FIELDS = {
    "fullname": 256,
    "firstName": 128,
    "lastName": 128,
    "description": 32_000,
    "email": 256,
    "culture": 16,
    "region": 16,
}


def update_user(ctx: Ctx) -> dict[str, Any]:
    """A member's profile; the reads table says who may (the member itself, an
    administrator or a holder of portal:admin:updateUsers)."""
    user = ctx.portal["users"].get(ctx.args["username"])
    if user is None:
        raise inaccessible_member()
    changes = _profile_changes(ctx)
    if "firstName" in changes or "lastName" in changes:
        first, _, last = str(user["fullName"]).partition(" ")
        names = (changes.pop("firstName", first), changes.pop("lastName", last))
        changes.setdefault("fullname", " ".join(n for n in names if n))
    if "fullname" in changes:
        changes["fullName"] = changes.pop("fullname") or user["username"]
    user.update(changes)
    ctx.touch_member(user["username"])
    return {"success": True, "username": user["username"]}


def _profile_changes(ctx: Ctx) -> dict[str, Any]:
    changes: dict[str, Any] = {}
    for name, longest in PROFILE_FIELDS.items():
        value = ctx.params.text(name)
        if value is None:
            continue
        if len(value) > longest:
            raise bad_request(f"'{name}' is longer than {longest} characters")
        problem = text_problem(name, value, multiline=name == "description")
        if problem:
            raise bad_request(problem)
        changes[name] = value.strip()
    access = ctx.params.text("access")
    if access is not None:
        if access not in ACCESS_LEVELS:
            raise bad_request(f"'access' must be one of {', '.join(ACCESS_LEVELS)}")
        changes["access"] = access
    tags = ctx.params.text("tags")
    if tags is not None:
        problem = text_problem("tags", tags)
        if problem:
            raise bad_request(problem)
        changes["tags"] = [tag.strip() for tag in tags.split(",") if tag.strip()][:128]
    return changes


def member_items(ctx: Ctx) -> dict[str, Any]:
    username = ctx.args["username"]
    user = ctx.member(username)
    numbers = range(1, int(user["ownedItems"]) + 1)
    listing = page(ctx.params, numbers, "items", lambda n: item_view(user, ctx.portal, n))
    return {"username": username, "folders": [], **listing}


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
