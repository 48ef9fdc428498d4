"""Organization webhooks (docs/rules.md §4.11), service webhooks and their delivery settings
(docs/rules.md §4.12) under the administrative root.

Every settings call writes all five fields: an omitted field is reset to its spec
default (docs/rules.md §4.12 lists defaults, not "unchanged"), which is why orgctl always sends
all five.
"""

from __future__ import annotations

from typing import Any

from orgctl_service.accounts import default_admins, member_id
from orgctl_service.context import Ctx
from orgctl_service.errors import ApiError, not_found
from orgctl_service.params import page
from orgctl_service.rules import check_portal_id
from orgctl_service.world import Doc
from reconciler.catalog import WEBHOOK_SETTINGS


def webhook_view(ctx: Ctx, webhook: Doc) -> dict[str, Any]:
    settings = ctx.portal["webhookSettings"]
    return {
        "id": webhook["id"],
        "accountId": ctx.portal["id"],
        "name": webhook["name"],
        "payloadUrl": webhook["payloadUrl"],
        "secret": "",  # never shown back
        # `isActive` is the vendor's name; `active` stays for readers that used it.
        "isActive": webhook["active"],
        "active": webhook["active"],
        "ownerId": owner_id(ctx.portal),
        "events": list(webhook["events"]),
        "config": {
            "deactivationPolicy": {
                "numberOfFailures": settings["numberOfFailures"],
                "daysInPast": settings["daysInPast"],
            }
        },
        "created": webhook["created"],
        "modified": webhook["created"],
    }


def owner_id(portal: Doc) -> str:
    """Who owns the organization's webhooks: its first default administrator, by member id."""
    admins = default_admins(portal)
    return member_id(admins[0], portal) if admins else ""


def list_org_webhooks(ctx: Ctx) -> dict[str, Any]:
    check_portal_id(ctx)
    rows = [
        webhook_view(ctx, w) for w in sorted(ctx.portal["webhooks"].values(), key=lambda w: w["id"])
    ]
    return page(ctx.params, rows, "webhooks")


def one_org_webhook(ctx: Ctx) -> dict[str, Any]:
    check_portal_id(ctx)
    webhook = ctx.portal["webhooks"].get(ctx.args["webhookId"])
    if webhook is None:
        raise not_found(f"Webhook '{ctx.args['webhookId']}' not found")
    return webhook_view(ctx, webhook)


# The portal's own delivery settings for organization webhooks (`portals/self/webhooks/
# settings`), older than and separate from docs/rules.md §4.12. Ranges
# as the vendor documents them; a field left out of an update keeps its value.
PORTAL_DELIVERY = {
    "notificationAttempts": (3, 1, 5),
    "notificationTimeOutInSeconds": (10, 1, 60),
    "notificationElapsedTimeInSeconds": (30, 1, 100),
}


def _portal_delivery(ctx: Ctx) -> dict[str, int]:
    kept = ctx.portal.get("portalWebhookSettings") or {}
    return {name: int(kept.get(name, spec[0])) for name, spec in PORTAL_DELIVERY.items()}


def portal_webhook_settings(ctx: Ctx) -> dict[str, Any]:
    check_portal_id(ctx)
    return _portal_delivery(ctx)


def update_portal_webhook_settings(ctx: Ctx) -> dict[str, Any]:
    check_portal_id(ctx)
    values = _portal_delivery(ctx)
    problems = []
    for name, (_, low, high) in PORTAL_DELIVERY.items():
        value = ctx.params.integer(name)
        if value is None:
            continue
        if not low <= value <= high:
            problems.append(f"{name} must be from {low} to {high}, got {value}")
        values[name] = value
    if problems:
        raise ApiError(400, "WHK_1001", "Invalid webhook settings", problems)
    ctx.portal["portalWebhookSettings"] = values
    ctx.touch_portal()
    return {"success": True}


def delete_org_webhook(ctx: Ctx) -> dict[str, Any]:
    webhook_id = ctx.args["webhookId"]
    if webhook_id not in ctx.portal["webhooks"]:
        raise not_found(f"Webhook '{webhook_id}' not found")
    del ctx.portal["webhooks"][webhook_id]
    ctx.touch_portal()
    return {"success": True}


def list_service_webhooks(ctx: Ctx) -> dict[str, Any]:
    rows = [
        {
            "id": w["id"],
            "name": w["name"],
            "active": w["active"],
            "serviceName": w["name"],
            "serviceType": "FeatureServer",
        }
        for w in sorted(ctx.portal["serviceWebhooks"].values(), key=lambda w: w["id"])
    ]
    return {"status": "success", "webhooks": rows}


def read_settings(ctx: Ctx) -> dict[str, Any]:
    return {**ctx.portal["webhookSettings"], "status": "success"}


def write_settings(ctx: Ctx) -> dict[str, Any]:
    values: dict[str, int] = {}
    problems = []
    for name, allowed in WEBHOOK_SETTINGS.items():
        value = ctx.params.integer(name)
        value = allowed.default if value is None else value
        problem = allowed.problem(name, value)
        if problem:
            problems.append(problem)
        values[name] = value
    if problems:
        raise ApiError(400, "WHK_1001", "Invalid webhook settings", problems)
    ctx.portal["webhookSettings"] = values
    ctx.touch_portal()
    order = (
        "notificationAttempts",
        "notificationTimeOutInSeconds",
        "notificationElapsedTimeInSeconds",
        "daysInPast",
        "numberOfFailures",
    )
    return {**{k: values[k] for k in order}, "status": "success"}
