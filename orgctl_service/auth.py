"""Tokens (generateToken) and capabilities (docs/rules.md §5, `catalog.OPERATIONS`).

Tokens live in the client's time frame, not on the service clock. Clients judge a token
by its `expires` against their own clock (the vendor's Python client sends no token once
it is past; REST JS signs in again), so a state whose clock stands in the past or the
future would hand out tokens they judge expired or eternal. A token's lifetime therefore
runs on the wall clock, plus how far `/_control/clock` has moved the service clock
forward since the service started (`token_now`): `expires` is the wall clock at issue
plus the lifetime, and moving the clock through control still expires tokens, so tests
of expiry need not wait. The control moves are counted in memory, as the sign-in locks
count them: after a restart a stored token runs on the wall clock alone.

Who holds what:
- org_admin members hold every privilege of their platform's catalog; org_publisher the
  `portal:user:*`, `portal:publisher:*`, `premium:*` and `features:user:*` ones;
  org_user the `portal:user:*` ones plus `features:user:edit`.
- A custom role's member holds the role's privileges; at level 1 only those among the
  nine level-1 privileges (docs/rules.md §2).
"""

from __future__ import annotations

import hashlib
import secrets

from orgctl_service.clock import now_real_ms
from orgctl_service.context import Ctx
from orgctl_service.errors import ApiError, forbidden, token_required
from orgctl_service.world import Doc, portal_platform
from reconciler.catalog import LEVEL_ONE_PRIVILEGES, builtin_role_privileges, privileges_for

MINUTE_MS = 60_000
TOKEN_MINUTES_DEFAULT = 60
TOKEN_MINUTES_MAX = 20_160  # two weeks


def issue_token(ctx: Ctx, username: str, minutes: int, bound_to: str) -> tuple[str, int]:
    """A token for `username`, usable only by a request `bound_to` names (see `binding`)."""
    token = secrets.token_urlsafe(32)
    lifetime = minutes * MINUTE_MS
    keep_token(
        ctx,
        token,
        {
            "portalId": ctx.portal["id"],
            "username": username,
            "expires": token_now(ctx) + lifetime,
            "boundTo": bound_to,
        },
    )
    return token, now_real_ms() + lifetime


def token_now(ctx: Ctx) -> int:
    """Now in the frame stored tokens expire in: the wall clock plus the service clock's
    moves forward through control (`SignInGuard.skip` counts them)."""
    return now_real_ms() + ctx.sign_ins.skipped_ms


def token_key(token: str) -> str:
    """What the service keeps of a token: its SHA-256. A token is 256 random bits, so a
    plain digest cannot be reversed, and a leaked database holds no usable token."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def keep_token(ctx: Ctx, token: str, entry: Doc) -> None:
    key = token_key(token)
    ctx.world.tokens[key] = entry
    ctx.new_tokens.append(key)


def caller_for(ctx: Ctx, token: str | None) -> Doc:
    """The member a token names; 499 without one, 498 when invalid, expired or foreign."""
    if not token:
        raise token_required()
    entry = ctx.world.tokens.get(token_key(token))
    if entry is None or entry["portalId"] != ctx.portal["id"]:
        raise ApiError(498, "GWM_0004", "Invalid token.")
    if entry["expires"] <= token_now(ctx):
        raise ApiError(498, "GWM_0004", "Invalid token: the token has expired.")
    bound_to = entry.get("boundTo", "")
    if bound_to and bound_to not in (binding("referer", ctx.referer), binding("ip", ctx.client_ip)):
        raise ApiError(498, "GWM_0004", "Invalid token: it was issued for another client.")
    user = ctx.portal["users"].get(entry["username"])
    if user is None:
        raise ApiError(498, "GWM_0004", "Invalid token: its member no longer exists.")
    return user  # type: ignore[no-any-return]


def binding(client: str, value: str) -> str:
    """What a token is bound to: `referer:<Referer header>` or `ip:<address>`; a request
    presenting the token must carry the same."""
    return f"{client}:{value}" if value else ""


def builtin_privileges(role: str, portal: Doc) -> set[str]:
    every = privileges_for(portal_platform(portal)) | set(portal.get("extraPrivileges") or [])
    return set(builtin_role_privileges(role, every))


def effective_privileges(user: Doc, portal: Doc) -> list[str]:
    role = portal["roles"].get(user["role"])
    if role is None:
        return sorted(builtin_privileges(user["role"], portal))
    held = set(role["privileges"])
    if int(user["level"]) == 1:
        held &= LEVEL_ONE_PRIVILEGES
    return sorted(held)


def is_admin(user: Doc) -> bool:
    return bool(user["role"] == "org_admin")


def holds(user: Doc, portal: Doc, privilege: str) -> bool:
    return privilege in effective_privileges(user, portal)


def require_admin(ctx: Ctx, why: str = "an organization administrator") -> None:
    if not is_admin(ctx.user):
        raise forbidden(f"Only {why} may perform this operation.")


def require_default_admin(ctx: Ctx) -> None:
    """The default administrators are the members holding the built-in Administrator
    role (docs/rules.md §5): every one of them, and no custom role, however privileged."""
    if not is_admin(ctx.user):
        raise forbidden(
            "Only members assigned the default administrator role (org_admin) may perform"
            " this operation."
        )


def require_webhook_admin(ctx: Ctx) -> None:
    user = ctx.user
    if is_admin(user) or holds(user, ctx.portal, "portal:admin:manageWebhooks"):
        return
    raise forbidden(
        "Only members assigned the default administrator role (org_admin) or holding"
        " portal:admin:manageWebhooks may perform this operation."
    )
