"""Password sign-in (generateToken and the OAuth sign-in page) with the lockout real
portals apply.

ArcGIS Enterprise's built-in store locks an account after five consecutive failed
sign-ins within 15 minutes, for 15 minutes (its "user account lockout policy"); this
service does the same, per member name of a portal, whether or not the member exists
(so a lock tells nothing about which names exist). It also locks a client address after
20 consecutive failures within 15 minutes whatever names they tried, so one address
cannot spray a password across many names. A successful sign-in clears both counts. A
locked name or address is refused without checking the password, even the right one,
until the lock ends. A disabled account is refused even with its password; a sign-in
records the member's `lastLogin` on the service clock.

Locks run on real time, not on the service clock (`lockout`): a state whose clock
stands still still unlocks after 15 minutes; a test ends a lock by moving the clock 15
minutes through control. Counts and locks live in memory: a restart clears them, as it
ends OAuth sign-ins in progress.
"""

from __future__ import annotations

from orgctl_service.context import Ctx
from orgctl_service.errors import ApiError
from orgctl_service.lockout import MINUTE_MS, Key
from orgctl_service.passwords import Rehash, needs_rehash, unknown_member_hash, verify
from orgctl_service.world import Doc

INVALID = "Invalid username or password."
DISABLED = "This account has been disabled."


def sign_in(ctx: Ctx, username: str, password: str) -> Doc:
    """The member `username` names if `password` is theirs and no lock holds; raises the
    generateToken error envelope otherwise."""
    keys: list[Key] = [("member", ctx.portal["id"], username)]
    if ctx.client_ip:
        keys.append(("address", ctx.client_ip))
    left = ctx.sign_ins.locked_for(keys)
    if left:
        minutes = -(-left // MINUTE_MS)
        raise ApiError(
            400,
            "GWM_0010",
            "Unable to generate token.",
            [f"Too many invalid sign-in attempts. Try again in {minutes} min."],
        )
    user = ctx.portal["users"].get(username)
    stored = user["passwordHash"] if user is not None else unknown_member_hash()
    who = (ctx.portal["id"], username)
    remembered = ctx.sign_ins.remembered
    # checked even for no member, so the time taken does not tell which names exist
    matches = remembered.matches(who, stored, password) or verify(password, stored)
    if user is None or not matches:
        ctx.sign_ins.failed(keys)
        raise ApiError(400, "GWM_0009", "Unable to generate token.", [INVALID])
    ctx.sign_ins.succeeded(keys)
    if user.get("disabled"):
        # Told only to who knows the password, as a real portal tells it.
        raise ApiError(400, "GWM_0009", "Unable to generate token.", [DISABLED])
    if needs_rehash(stored):  # unsalted (an older database) or seeded at a lower cost
        # Made by the service once the answer is ready, off its lock (`Service.raise_hash`).
        ctx.rehash = Rehash(ctx.portal["id"], username, password, stored)
    # The member's `lastLogin`, as real portals record each sign-in.
    user["lastLogin"] = ctx.now
    ctx.touch_member(username)
    remembered.keep(who, stored, password)
    return user  # type: ignore[no-any-return]
