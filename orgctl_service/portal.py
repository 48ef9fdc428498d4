"""`portals/self`, `generateToken` and the root info."""

from __future__ import annotations

from typing import Any

from orgctl_service.accounts import has_levels, last_login, profile
from orgctl_service.auth import (
    TOKEN_MINUTES_DEFAULT,
    TOKEN_MINUTES_MAX,
    binding,
    effective_privileges,
    issue_token,
)
from orgctl_service.context import Ctx
from orgctl_service.errors import bad_request, forbidden
from orgctl_service.license_types import type_of
from orgctl_service.portal_profile import portal_profile
from orgctl_service.rules import check_portal_id
from orgctl_service.signin import sign_in
from orgctl_service.world import Doc, portal_platform
from reconciler.versions import rest_version


def generate_token(ctx: Ctx) -> dict[str, Any]:
    username = ctx.params.text("username", required=True) or ""
    password = ctx.params.text("password", required=True) or ""
    minutes = ctx.params.integer("expiration")
    if minutes is None:
        minutes = TOKEN_MINUTES_DEFAULT
    if minutes < 1:
        raise bad_request(f"'expiration' must be a positive number of minutes, got {minutes}")
    bound_to = _token_binding(ctx)
    sign_in(ctx, username, password)
    token, expires = issue_token(ctx, username, min(minutes, TOKEN_MINUTES_MAX), bound_to)
    return {"token": token, "expires": expires, "ssl": False}


def _token_binding(ctx: Ctx) -> str:
    """`client=referer` binds the token to the `referer` field, `ip` to the `ip` field,
    `requestip` (the default without `client`) to the address asking."""
    client = (ctx.params.text("client") or "requestip").strip().lower()
    if client == "referer":
        referer = (ctx.params.text("referer") or "").strip()
        if not referer:
            raise bad_request("'referer' is required when client=referer")
        return binding("referer", referer)
    if client == "ip":
        address = (ctx.params.text("ip") or "").strip()
        if not address:
            raise bad_request("'ip' is required when client=ip")
        return binding("ip", address)
    if client == "requestip":
        return binding("ip", ctx.client_ip)
    raise bad_request(f"'client' must be referer, ip or requestip, got {client[:40]!r}")


def versions(portal: Doc) -> dict[str, str]:
    """`currentVersion` is the REST API version, `fullVersion` the product release."""
    return {
        "currentVersion": rest_version(portal_platform(portal)),
        "fullVersion": portal["version"],
    }


def root_info(ctx: Ctx) -> dict[str, Any]:
    return versions(ctx.portal)


def server_info(ctx: Ctx) -> dict[str, Any]:
    """`<root>/info`: where tokens come from. Clients read it before they sign in."""
    return {
        **versions(ctx.portal),
        "owningSystemUrl": ctx.base_url,
        "authInfo": {
            "isTokenBasedSecurity": True,
            "tokenServicesUrl": f"{ctx.base_url}/sharing/rest/generateToken",
        },
    }


def portal_self(ctx: Ctx) -> dict[str, Any]:
    """`portals/self` or this portal's id; another id answers 404 (`check_portal_id`)."""
    check_portal_id(ctx)
    portal = ctx.portal
    self_hosted = portal["deployment"] == "self-hosted"
    return {
        **portal_profile(portal, ctx.base_url),
        "id": portal["id"],
        "name": portal["name"],
        "urlKey": portal["urlKey"],
        "isPortal": self_hosted,
        # Clients tell the two kinds apart by these (and pick the admin API from them).
        "portalName": "Portal for ArcGIS" if self_hosted else "ArcGIS Online",
        "portalMode": "singletenant" if self_hosted else "multitenant",
        "portalHostname": ctx.base_url.split("://", 1)[-1],
        "allSSL": ctx.base_url.startswith("https://"),
        "supportsOAuth": True,
        "helperServices": {},
        # Only what real portals answer: the level quotas are the Portal Administrator
        # API's (orgctl_service.licenses), the deployment is `isPortal`.
        **versions(portal),
        # As a real portal's: the caller's privileges, for clients to see what it may do.
        "user": {
            **user_object(ctx.user, portal),
            "privileges": effective_privileges(ctx.user, portal),
        },
        "created": portal["created"],
    }


def member_view(user: Doc, portal: Doc) -> dict[str, Any]:
    """A member as `portals/<pid>/users` shows it (design: level is a string). As in
    real organizations' answers, only a member with a custom role carries `roleId`.
    The listing keeps to the keys readers use: orgctl reads it page by page for portals
    of 100,000 members, and the profile would make each page four times the size."""
    # Keys added in their order, with no dict made to be unpacked: a page shows a hundred.
    role = user["role"]
    shown = {"username": user["username"], "fullName": user["fullName"]}
    if role in portal["roles"]:
        shown["role"] = "org_user"
        shown["roleId"] = role
    else:
        shown["role"] = role
    shown["level"] = str(user["level"])
    shown["orgId"] = portal["id"]
    shown["disabled"] = bool(user.get("disabled", False))
    shown["created"] = user["created"]
    shown["lastLogin"] = last_login(user)
    # A 10.7+ portal's listing names each member's user type (the 11.3 listing does).
    if not has_levels(portal["deployment"], portal["version"]):
        shown["userLicenseTypeId"] = type_of(user).id
    return shown


def user_object(user: Doc, portal: Doc) -> dict[str, Any]:
    """A member as the searches, `community/users/<u>` and `community/self` show it: the
    listing's keys and the profile every real organization answers."""
    return {**profile(user, portal), **member_view(user, portal)}


def member_detail(user: Doc, portal: Doc) -> dict[str, Any]:
    """`community/users/<u>`: privileges as the member can use them at their level."""
    groups = [
        {"id": f"{user['username']}-group-{n + 1}", "owner": user["username"]}
        for n in range(int(user["ownedGroups"]))
    ]
    return {
        **user_object(user, portal),
        "privileges": effective_privileges(user, portal),
        "groups": groups,
    }


def servers(ctx: Ctx) -> dict[str, Any]:
    """`portals/self/servers`: the federated servers; the reference portal has none."""
    return {"servers": []}


def portal_admin_root(ctx: Ctx) -> dict[str, Any]:
    """`<portal>/portaladmin`: the Portal Administrator API's root, which clients open
    before any admin call; administrators only."""
    if ctx.user["role"] != "org_admin":
        raise forbidden("Only an organization administrator may open the Portal Administrator API.")
    return {
        "resources": ["system", "security", "logs", "machines", "federation", "license"],
        "currentVersion": ctx.portal["version"],
        "fullVersion": ctx.portal["version"],
    }
