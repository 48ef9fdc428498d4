"""Test control (`--control` only): move the service clock, record webhook failures."""

from __future__ import annotations

from typing import Any

from orgctl_service.clock import HOUR_MS, iso, parse_time
from orgctl_service.context import Ctx
from orgctl_service.errors import bad_request, not_found
from orgctl_service.timeline import record_failures

MAX_ADVANCE_HOURS = 24 * 366 * 100  # a century: keeps the clock a valid date


def move_clock(ctx: Ctx) -> dict[str, Any]:
    hours = ctx.params.number("advanceHours")
    moment = ctx.params.text("now")
    if (hours is None) == (moment is None or not moment.strip()):
        raise bad_request("give exactly one of 'advanceHours' (number) or 'now' (ISO 8601)")
    if hours is not None:
        if not 0 <= hours <= MAX_ADVANCE_HOURS:
            raise bad_request(f"'advanceHours' must be from 0 to {MAX_ADVANCE_HOURS}")
        ctx.world.clock += int(hours * HOUR_MS)
    else:
        try:
            target = parse_time(moment)
        except ValueError as exc:
            raise bad_request(str(exc)) from None
        if not 0 <= target <= parse_time("9000-01-01T00:00:00Z"):
            raise bad_request("'now' must be a time from 1970 to 9000")
        ctx.world.clock = target
    return {"success": True, "now": ctx.world.clock, "iso": iso(ctx.world.clock)}


def record_webhook_failures(ctx: Ctx) -> dict[str, Any]:
    webhook = ctx.portal["serviceWebhooks"].get(ctx.args["webhookId"])
    if webhook is None:
        raise not_found(f"Service webhook '{ctx.args['webhookId']}' not found")
    count = ctx.params.integer("count")
    count = 1 if count is None else count
    if not 0 <= count <= 10_000:
        raise bad_request(f"'count' must be from 0 to 10000, got {count}")
    settings = ctx.portal["webhookSettings"]
    record_failures(
        webhook, count, ctx.now, int(settings["numberOfFailures"]), int(settings["daysInPast"])
    )
    ctx.touch_portal()
    return {"success": True, "id": webhook["id"], "active": webhook["active"]}
