"""What a member's account holds beyond role and level, as the vendor's clients read it:
its tags, invitations and notifications (its profile update is `members.update_user`)."""

from __future__ import annotations

from typing import Any

from orgctl_service.context import Ctx


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
