"""A member's own profile beyond role and level: the account update the vendor's client
sends (`User.update`), and the member's tags, invitations and notifications.

The update keeps what it is sent (`clearEmptyFields`, which the client always sends,
lets an empty value clear a field); the user object shows it back (`accounts.profile`).
A member updates its own account; an administrator or a holder of updateUsers any
account of the organization.
"""

from __future__ import annotations

from typing import Any

from orgctl_service.context import Ctx
from orgctl_service.errors import bad_request
from orgctl_service.world import Doc
from reconciler.text_rules import text_problem

# field sent -> where the member keeps it, and how long it may be
_TEXT_FIELDS = {
    "fullname": ("fullName", 128),
    "email": ("email", 256),
    "description": ("description", 32_000),
    "culture": ("culture", 16),
    "region": ("region", 16),
    "preferredView": ("preferredView", 16),
}
ACCESS = ("private", "org", "public")


def update_user(ctx: Ctx) -> dict[str, Any]:
    user = ctx.member(ctx.args["username"])
    changes = _changes(ctx, user)
    if changes:
        user.update(changes)
        ctx.touch_member(user["username"])
    return {"success": True, "username": user["username"]}


def _changes(ctx: Ctx, user: Doc) -> dict[str, Any]:
    params = ctx.params
    changes: dict[str, Any] = {}
    for sent, (kept, longest) in _TEXT_FIELDS.items():
        value = params.text(sent)
        if value is None or (not value.strip() and params.boolean("clearEmptyFields") is not True):
            continue
        problem = text_problem(sent, value, multiline=sent == "description")
        if problem or len(value) > longest:
            raise bad_request(problem or f"'{sent}' is longer than {longest} characters")
        changes[kept] = value
    first, last = params.text("firstName"), params.text("lastName")
    if (first or last) and "fullName" not in changes:
        old_first, _, old_last = str(user["fullName"]).partition(" ")
        changes["fullName"] = f"{first or old_first} {last or old_last}".strip()
    access = params.text("access")
    if access is not None:
        if access not in ACCESS:
            raise bad_request(f"'access' must be one of {', '.join(ACCESS)}, got {access[:20]!r}")
        changes["access"] = access
    tags = params.text("tags")
    if tags is not None:
        changes["tags"] = [t.strip() for t in tags.split(",") if t.strip()]
    return changes


def member_tags(ctx: Ctx) -> dict[str, Any]:
    """`community/users/<u>/tags`: the tags the member's items carry, with counts; the
    service keeps no item tags, so the member's own profile tags stand for them."""
    user = ctx.member(ctx.args["username"])
    return {"tags": [{"tag": tag, "count": 1} for tag in user.get("tags", [])]}


def member_invitations(ctx: Ctx) -> dict[str, Any]:
    """Group invitations waiting for the member: the service sends none."""
    ctx.member(ctx.args["username"])
    return {"userInvitations": []}


def member_notifications(ctx: Ctx) -> dict[str, Any]:
    """Notifications for the member: the service raises none."""
    ctx.member(ctx.args["username"])
    return {"notifications": []}
